import * as path from 'node:path';
import { withNotificationProgress } from '../ui/progress';
import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import { LabApiError } from '../core/errors/errors';
import { exportRecords, type ExportFormat } from '../core/derived/exportList';
import type { LabApi } from '../core/api/labApi';
import type { Page } from '../core/api/pagination';
import type { ListQuery } from '../core/api/query';
import type { JsonObject, Report } from '../core/api/records';
import { searchFilters } from '../core/derived/savedSearches';
import { isInside } from '../core/files/safeWriter';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import type { PromptsHolder } from '../ui/prompts';
import { matchesLocally, serverPart, type ReportsTreeProvider } from '../views/reportsTree';
import type { SamplesTreeProvider } from '../views/samplesTree';
import { labForCommand } from './labTarget';
import { commandTargets } from '../ui/commandTargets';

export type ExportListName = 'reports' | 'samples' | 'clients';

export interface ExportSummary {
  readonly uri: vscode.Uri;
  readonly rows: number;
}

const LISTS: readonly ExportListName[] = ['reports', 'samples', 'clients'];

function pagesOf(api: LabApi, list: ExportListName, query: ListQuery, signal: AbortSignal): AsyncIterable<Page<{ raw: JsonObject }>> {
  // A list whose paging cannot be trusted is reported for every walk, by the lab's connection.
  const options = { signal };
  return list === 'reports' ? api.iterateReports(query, options) : list === 'samples' ? api.iterateSamples(query, options) : api.iterateClients(query, options);
}

/** The records of each page that `keep` keeps (the part of the Reports view's filter that Lab Data applies itself). */
async function* records(pages: AsyncIterable<Page<{ raw: JsonObject }>>, keep: (item: { raw: JsonObject }) => boolean = () => true): AsyncGenerator<JsonObject[]> {
  for await (const page of pages) {
    yield page.items.filter(keep).map((item) => item.raw);
  }
}

/**
 * `labData.exportList` (`{ list, format, lab?, filter?, target? }`, or a view's toolbar, which
 * exports that view's list with its filter): streams every page of a list into a CSV or JSON Lines
 * file in the workspace (default `lab-exports/<list>-<date>.<ext>`), with progress and cancel.
 * Returns `{ uri, rows }`. An interrupted export leaves no partial file.
 */
export async function exportList(labs: Labs, trees: { reports: ReportsTreeProvider; samples: SamplesTreeProvider }, prompts: PromptsHolder, log: Logger, ...args: unknown[]): Promise<ExportSummary | undefined> {
  const targets = commandTargets(args);
  const options = targets.options;
  let list = (typeof options.list === 'string' ? options.list : targets.search ? 'reports' : undefined) as ExportListName | undefined;
  if (list !== undefined && !LISTS.includes(list)) {
    throw new LabApiError('invalidInput', vscode.l10n.t('"list" must be one of {0}.', LISTS.join(', ')));
  }
  list ??= (await prompts.current.pickOne(vscode.l10n.t('Lab Data: Export List'), vscode.l10n.t('Which list?'), LISTS.map((id) => ({ id, label: id })), false)) as ExportListName | undefined;
  if (!list) {
    return undefined;
  }
  let format = (typeof options.format === 'string' ? options.format : undefined) as ExportFormat | undefined;
  if (format !== undefined && format !== 'csv' && format !== 'jsonl') {
    throw new LabApiError('invalidInput', vscode.l10n.t('"format" must be "csv" or "jsonl".'));
  }
  if (!format) {
    format = !targets.automated || Object.keys(options).length === 0 ? ((await prompts.current.pickOne(vscode.l10n.t('Lab Data: Export List'), vscode.l10n.t('Which format?'), [{ id: 'csv', label: 'CSV' }, { id: 'jsonl', label: 'JSON Lines' }], false)) as ExportFormat | undefined) : 'csv';
  }
  if (!format) {
    return undefined;
  }
  const connection = await labForCommand(labs, prompts.current, targets.lab);
  const api = connection?.api;
  if (!api) {
    return undefined;
  }
  const root = vscode.workspace.workspaceFolders?.find((folder) => folder.uri.scheme === 'file')?.uri.fsPath;
  if (!root) {
    throw new LabApiError('invalidInput', vscode.l10n.t('Open a folder first: exports are written into the workspace.'));
  }
  const given = isObject(options.filter) ? filterOf(options.filter) : targets.search ? searchFilters(targets.search, new Date()) : undefined;
  const viewFilter = !given && list === 'reports' ? trees.reports.filterOf(api.lab.name) : undefined;
  const query: ListQuery = given ?? (viewFilter ? serverPart(viewFilter) : list === 'samples' ? withReceivedSince(trees.samples.receivedSinceOf(api.lab.name)) : {});
  const date = new Date().toISOString().slice(0, 10);
  const target = typeof options.target === 'string' && options.target.trim() ? options.target.trim() : path.join('lab-exports', `${list}-${date}.${format}`);
  const resolved = path.resolve(root, target);
  if (!isInside(resolved, root)) {
    throw new LabApiError('invalidInput', vscode.l10n.t('The export target must be inside the workspace folder.'));
  }
  const started = Date.now();
  const result = await withNotificationProgress(vscode.l10n.t('Exporting {0} of {1}…', list, api.lab.name), (progress, token) => {
    const signal = toAbortSignal(token);
    return exportRecords(records(pagesOf(api, list, query, signal), viewFilter && ((item) => matchesLocally(item as Report, viewFilter))), {
      folder: path.dirname(resolved),
      fileName: path.basename(resolved),
      root,
      format,
      ifExists: 'overwrite',
      signal,
      onRecords: (rows) => progress.report({ message: vscode.l10n.t('{0} records', rows) }),
    });
  });
  const uri = vscode.Uri.file(result.file.path);
  log.info('Export', `${api.lab.name}: ${result.rows} ${list} with ${result.columns.length} columns to ${result.file.path} in ${Date.now() - started} ms.`);
  const open = vscode.l10n.t('Open');
  void vscode.window.showInformationMessage(vscode.l10n.t('Exported {0} {1} to {2}.', result.rows, list, vscode.workspace.asRelativePath(uri)), open).then((choice) => {
    if (choice === open) {
      void vscode.window.showTextDocument(uri);
    }
  });
  return { uri, rows: result.rows };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const FILTER_KEYS = ['publishedSince', 'updatedSince', 'receivedSince', 'status', 'clientId', 'projectId'] as const;

/** Only the filter fields of an arguments object (never paging), as strings. */
function filterOf(value: Record<string, unknown>): ListQuery {
  return Object.fromEntries(FILTER_KEYS.filter((key) => typeof value[key] === 'string' && (value[key] as string).trim() !== '').map((key) => [key, (value[key] as string).trim()]));
}

function withReceivedSince(receivedSince: string | undefined): ListQuery {
  return receivedSince ? { receivedSince } : {};
}
