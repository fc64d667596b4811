import * as vscode from 'vscode';
import { serverText } from '../../core/errors/serverText';
import { Commands } from '../constants';
import type { Labs } from '../labs/labs';
import { connectionServing } from '../labs/manifestLabs';
import type { SavedEntryRow } from '../views/savedReportsView';

/**
 * The name of the lab of this machine that serves a report row's section (by its address, or as
 * the user confirmed), or undefined after saying that no lab of the user's is at that address, with
 * Add the Lab This Folder Uses…: the manifest's lab name never chooses a lab.
 */
export async function servingLabName(
  labs: Labs,
  folder: string,
  entry: Pick<SavedEntryRow, 'lab' | 'origin' | 'reportId'>,
): Promise<string | undefined> {
  const serving = await connectionServing(labs, folder, entry.lab, entry.origin);
  if (serving?.connection) {
    return serving.connection.lab.name;
  }
  const add = vscode.l10n.t('Add the Lab This Folder Uses…');
  void vscode.window
    .showWarningMessage(
      vscode.l10n.t(
        '{0} was saved from the lab {1} at {2}, and no lab of yours is at this address: nothing was asked of a lab of that name elsewhere. Add the lab, or confirm that one of yours serves it.',
        serverText(entry.reportId, 80),
        serverText(entry.lab, 60),
        serverText(serving?.origin ?? '?', 200),
      ),
      add,
    )
    .then((choice) =>
      choice === add
        ? vscode.commands.executeCommand(Commands.addLabFromManifest, {
            folder,
            ...(serving ? { lab: serving.origin } : {}),
          })
        : undefined,
    );
  return undefined;
}
