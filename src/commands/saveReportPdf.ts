import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import { LabApiError } from '../core/errors';
import type { Report } from '../core/records';
import { resolveDownloadTarget } from '../downloads/targetFolder';
import { saveWithProgress, summarize } from '../downloads/saveWithProgress';
import type { Logger } from '../log';
import type { ExistingFileChoice, PromptsHolder } from '../ui/prompts';
import { ReportNode } from '../views/nodes';
import { signedInApi } from './signedInApi';

/** Options that may follow the reports in the arguments: `{ ifExists: 'overwrite' | 'keepBoth' | 'skip' }`. */
export interface SaveArgs {
  readonly ifExists?: ExistingFileChoice;
}

/** Reads the report arguments VS Code or a caller passes: a tree item, the selection, ids, or nothing. */
export function reportArguments(args: readonly unknown[]): { reports: Report[]; ids: string[]; options: SaveArgs; several: boolean } {
  const reports: Report[] = [];
  const ids: string[] = [];
  let options: SaveArgs = {};
  let several = false;
  const add = (value: unknown): void => {
    if (value instanceof ReportNode) {
      if (!reports.some((r) => r.report_id === value.report.report_id)) {
        reports.push(value.report);
      }
    } else if (typeof value === 'string' && value.trim()) {
      ids.push(value.trim());
    } else if (Array.isArray(value)) {
      several = true;
      value.forEach(add);
    } else if (typeof value === 'object' && value !== null && 'ifExists' in value) {
      options = value as SaveArgs;
    }
  };
  // A context-menu click passes (clicked item, selected items); the selection wins when it has the item.
  const [first, second, ...rest] = args;
  if (first instanceof ReportNode && Array.isArray(second) && second.includes(first)) {
    add(second);
  } else {
    add(first);
    add(second);
  }
  rest.forEach(add);
  const unique = [...new Set(ids)];
  return { reports, ids: unique, options, several: several || reports.length + unique.length > 1 };
}

/**
 * `labData.saveReportPdf`: saves one or several report PDFs into the workspace's download folder.
 * Returns the saved file's Uri, or a Uri[] for several, so tasks and other extensions can chain it.
 */
export async function saveReportPdf(session: LabSession, prompts: PromptsHolder, log: Logger, ...args: unknown[]): Promise<vscode.Uri | vscode.Uri[] | undefined> {
  const api = await signedInApi(session);
  if (!api) {
    return undefined;
  }
  const { reports, ids, options, several } = reportArguments(args);
  if (reports.length === 0 && ids.length === 0) {
    const id = await prompts.current.reportId();
    if (!id) {
      return undefined;
    }
    ids.push(id);
  }
  for (const id of ids) {
    reports.push(await api.getReport(id));
  }
  const withoutFile = reports.filter((report) => report.download_available === false);
  if (withoutFile.length === reports.length) {
    throw new LabApiError('notFound', reports.length === 1 ? `Report ${reports[0]!.report_id} has no file to download.` : 'None of these reports has a file to download.');
  }
  const target = await resolveDownloadTarget(prompts.current);
  if (!target) {
    return undefined;
  }
  const title = reports.length === 1 ? vscode.l10n.t('Saving {0}…', reports[0]!.report_id) : vscode.l10n.t('Saving {0} reports…', reports.length);
  const run = await saveWithProgress(title, reports, { api, target, prompts: prompts.current, log, ifExists: options.ifExists });
  const uris = run.saved.map((saved) => vscode.Uri.file(saved.file.path));
  log.info('Save', `${summarize(run)} Folder: ${target.folder}`);
  if (run.failed.length > 0 && uris.length === 0) {
    throw run.failed[0]!.error;
  }
  if (uris.length > 0) {
    void offerToOpen(uris, reports.length === 1 ? vscode.l10n.t('Saved {0}.', run.saved[0]!.file.fileName) : summarize(run));
  } else if (!run.cancelled) {
    void vscode.window.showInformationMessage(summarize(run));
  }
  return several ? uris : uris[0];
}

/** "Open" and "Reveal in Explorer" after a save; never awaited by the command. */
export async function offerToOpen(uris: readonly vscode.Uri[], message: string): Promise<void> {
  const open = vscode.l10n.t('Open');
  const reveal = vscode.l10n.t('Reveal in Explorer');
  const choice = await vscode.window.showInformationMessage(message, open, reveal);
  if (choice === open) {
    await vscode.commands.executeCommand('vscode.open', uris[0]);
  } else if (choice === reveal) {
    await vscode.commands.executeCommand('revealInExplorer', uris[0]);
  }
}
