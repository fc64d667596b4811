import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import type { LabSession } from '../auth/labSession';
import type { LabApi } from '../core/labApi';
import type { ListQuery } from '../core/query';
import type { Report } from '../core/records';
import { saveWithProgress, summarize } from '../downloads/saveWithProgress';
import type { Logger } from '../log';
import type { ExistingFileChoice, PromptsHolder } from '../ui/prompts';
import { ClientNode, ProjectNode } from '../views/clientsTree';
import type { ReportsTreeProvider } from '../views/reportsTree';
import { signedInDownload } from './signedInApi';

export interface BulkSummary {
  readonly folder: string;
  readonly listed: number;
  readonly saved: number;
  readonly skipped: number;
  readonly failed: number;
  readonly bytes: number;
  readonly cancelled: boolean;
  readonly uris: vscode.Uri[];
}

/** Lists every report matching `query`, page by page, under a cancellable progress notification. */
export async function listAllReports(api: LabApi, query: ListQuery, title: string, log: Logger): Promise<Report[]> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const signal = toAbortSignal(token);
    const reports: Report[] = [];
    for await (const page of api.iterateReports(query, { signal, onAnomaly: (anomaly) => log.warn('List', `Paging stopped early: ${anomaly.kind} at page ${anomaly.page}.`) })) {
      reports.push(...page.items);
      progress.report({ message: `${reports.length}${page.totalCount !== undefined ? ` of ${page.totalCount}` : ''} reports` });
    }
    return reports;
  });
}

/** The report scope of a tree item: a client, a project, or the Reports view with its filter. */
function scopeOf(node: unknown, reportsTree: ReportsTreeProvider): { query: ListQuery; label: string } {
  if (node instanceof ClientNode) {
    return { query: { clientId: node.client.client_id }, label: node.client.name ?? node.client.client_id };
  }
  if (node instanceof ProjectNode) {
    return { query: { projectId: node.project.project_id }, label: node.project.name ?? node.project.project_id };
  }
  const filter = reportsTree.currentFilter;
  return { query: { ...filter }, label: Object.keys(filter).length > 0 ? 'the filtered reports' : 'all reports' };
}

/**
 * `labData.saveAllReports`: saves every downloadable report of a client, a project or the
 * (filtered) Reports view, with bounded concurrency, one shared back-off and a summary.
 * Arguments: a client or project tree item (or none), then optionally `{ ifExists }`.
 */
export async function saveAllReports(session: LabSession, reportsTree: ReportsTreeProvider, prompts: PromptsHolder, log: Logger, node?: unknown, options?: { ifExists?: ExistingFileChoice }): Promise<BulkSummary | undefined> {
  const context = await signedInDownload(session, prompts);
  if (!context) {
    return undefined;
  }
  const { api, target } = context;
  const scope = scopeOf(node, reportsTree);
  const reports = await listAllReports(api, scope.query, `Listing reports of ${scope.label}…`, log);
  const run = await saveWithProgress(`Saving reports of ${scope.label}…`, reports, { api, target, prompts: prompts.current, log, ifExists: options?.ifExists });
  const summary = `Reports of ${scope.label}: ${summarize(run)}`;
  log.info('Save', `${summary} Folder: ${target.folder}`);
  run.skipped.forEach((skip) => log.info('Save', `Skipped ${skip.reportId}: ${skip.reason}.`));
  void (run.failed.length > 0 ? vscode.window.showWarningMessage(summary, vscode.l10n.t('Show Log')).then((choice) => choice && log.show()) : vscode.window.showInformationMessage(summary));
  return {
    folder: target.folder,
    listed: reports.length,
    saved: run.saved.length,
    skipped: run.skipped.length,
    failed: run.failed.length,
    bytes: run.bytes,
    cancelled: run.cancelled,
    uris: run.saved.map((saved) => vscode.Uri.file(saved.file.path)),
  };
}
