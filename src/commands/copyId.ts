import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import { commandTargets } from '../ui/commandTargets';

/** `labData.copyId` (tree context menu): copies the id of a report, client, project or sample. */
export async function copyId(...args: unknown[]): Promise<string> {
  const targets = commandTargets(args);
  const id = targets.refs[0]?.id ?? targets.ids[0];
  if (!id) {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t('Choose a report, client, project or sample to copy its id.'),
    );
  }
  await vscode.env.clipboard.writeText(id);
  vscode.window.setStatusBarMessage(vscode.l10n.t('Copied {0}', id), 3000);
  return id;
}
