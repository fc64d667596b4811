import * as vscode from 'vscode';
import type { MetadataDocumentProvider } from '../documents/metadataDocuments';
import type { Labs } from '../labs/labs';
import type { PromptsHolder } from '../ui/prompts';
import { labForCommand, unlessKnownDown } from './labTarget';
import { commandTargets, type RecordRef } from '../ui/commandTargets';
import { withNotificationProgress } from '../ui/progress';

/**
 * `labData.openReportMetadata`: opens a read-only JSON document of a report (a tree item, an id or
 * `{ lab?, id }`; asks for an id without one), or of a client, project or sample tree item. Opening
 * it again reads the server again. Returns the document's Uri.
 */
export async function openReportMetadata(
  labs: Labs,
  documents: MetadataDocumentProvider,
  prompts: PromptsHolder,
  ...args: unknown[]
): Promise<vscode.Uri | undefined> {
  const targets = commandTargets(args);
  let ref: RecordRef | undefined = targets.refs[0];
  if (!ref) {
    const connection = await labForCommand(labs, prompts.current, targets.lab);
    if (!connection) {
      return undefined;
    }
    const id = targets.ids[0] ?? (await prompts.current.reportId());
    if (!id) {
      return undefined;
    }
    ref = { lab: connection.lab.name, kind: 'report', id };
  } else if (!(await labForCommand(labs, prompts.current, ref.lab))) {
    return undefined;
  }
  if (ref.kind === 'report' || ref.kind === 'client') {
    unlessKnownDown(labs.get(ref.lab));
  }
  const uri = documents.uriFor(ref, labs.require(ref.lab).lab.url.host);
  if (vscode.workspace.textDocuments.some((doc) => doc.uri.toString() === uri.toString())) {
    await withNotificationProgress(
      vscode.l10n.t('Lab Data: Opening {0} from {1}', ref.id, ref.lab),
      () => documents.reread(uri),
    );
  }
  const opened = await withNotificationProgress(
    vscode.l10n.t('Lab Data: Opening {0} from {1}', ref.id, ref.lab),
    () => vscode.workspace.openTextDocument(uri),
  );
  // The document says why in place, as plain text: the JSON checker would count each line of it
  // as an error. Opened again once the lab answers, it is JSON again; a language the person chose
  // for a record stays.
  const failure = documents.failureOf(uri);
  const language = failure
    ? 'plaintext'
    : opened.languageId === 'plaintext'
      ? 'json'
      : opened.languageId;
  const document =
    opened.languageId === language
      ? opened
      : await vscode.languages.setTextDocumentLanguage(opened, language);
  await vscode.window.showTextDocument(document, { preview: false });
  // The notification says it too, with Retry and Check Connection.
  if (failure) {
    throw failure;
  }
  return uri;
}
