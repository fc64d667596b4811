import * as vscode from 'vscode';
import { documentName } from '../../core/files/fileNames';
import { serverText } from '../../core/errors/serverText';
import { isRevisionsArgs, type UsedRevisionDocuments } from '../impact/usedRevisionDocuments';
import { SAVED_METADATA_SCHEME } from '../provenance/savedReports';

/**
 * Open Both Revisions (`labData.openAmendedRevisions`, the quick fix and CodeLens of a use of an
 * amended report): side by side, what the record of uses knows of the revision the consumer used
 * (the lab serves only the newest) and the metadata the sync recorded of the revision now saved.
 * Resolves with the two documents' addresses.
 */
export async function openAmendedRevisions(
  used: UsedRevisionDocuments,
  arg?: unknown,
): Promise<readonly vscode.Uri[] | undefined> {
  if (!isRevisionsArgs(arg)) {
    return undefined;
  }
  const older = used.uriFor(arg);
  const newer = vscode.Uri.from({
    scheme: SAVED_METADATA_SCHEME,
    path: `/${documentName(arg.id)}.json`,
    query: new URLSearchParams({ folder: arg.folder, lab: arg.section, id: arg.id }).toString(),
  });
  await vscode.commands.executeCommand(
    'vscode.diff',
    older,
    newer,
    vscode.l10n.t(
      '{0}: revision {1} (used) ↔ revision {2} (recorded)',
      serverText(arg.id, 80),
      serverText(arg.usedRevision ?? '?', 40),
      serverText(arg.revision ?? '?', 40),
    ),
  );
  return [older, newer];
}
