import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withNotificationProgress } from '../ui/progress';
import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import { LabApiError } from '../../core/errors/errors';
import {
  exportRecords,
  lookupNames,
  withNames,
  type RecordNames,
} from '../../core/derived/exportList';
import type { LabApi } from '../../core/api/labApi';
import type { Page } from '../../core/api/pagination';
import type { ListQuery } from '../../core/api/query';
import type { JsonObject, Report } from '../../core/api/records';
import { searchFilters } from '../../core/derived/savedSearches';
import { isInside, numberedFileName } from '../../core/files/safeWriter';
import { serverText } from '../../core/errors/serverText';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import type { PromptsHolder } from '../ui/prompts';
import {
  describeReportFilter,
  matchesLocally,
  serverPart,
  type ReportsTreeProvider,
} from '../views/reportsTree';
import { localTime } from '../views/nodes';
import { knownNames } from '../views/recordText';
import type { SamplesTreeProvider } from '../views/samplesTree';
import { labForCommand } from './labTarget';
import {
  exportFormatOf,
  givenExportChoice,
  languageName,
  pickExportChoice,
  type ExportChoice,
} from './exportFormats';
import { displayLocale } from '../ui/displayLocale';
import { commandTargets } from '../ui/commandTargets';

export type ExportListName = 'reports' | 'samples' | 'clients';

export interface ExportSummary {
  readonly uri: vscode.Uri;
  readonly rows: number;
  /** The filter the export honoured, in words, when there was one. */
  readonly filter?: string;
  /** What was written: the standard CSV, a spreadsheet CSV of the display language, or JSON Lines. */
  readonly format: ExportChoice;
}

const LISTS: readonly ExportListName[] = ['reports', 'samples', 'clients'];

function pagesOf(
  api: LabApi,
  list: ExportListName,
  query: ListQuery,
  signal: AbortSignal,
): AsyncIterable<Page<{ raw: JsonObject }>> {
  // A list whose paging cannot be trusted is reported for every walk, by the lab's connection.
  const options = { signal };
  return list === 'reports'
    ? api.iterateReports(query, options)
    : list === 'samples'
      ? api.iterateSamples(query, options)
      : api.iterateClients(query, options);
}

/** The records of each page that `keep` keeps (the part of the Reports view's filter that Lab Data applies itself), with names beside ids. */
async function* records(
  pages: AsyncIterable<Page<{ raw: JsonObject }>>,
  keep: (item: { raw: JsonObject }) => boolean = () => true,
  names?: RecordNames,
): AsyncGenerator<JsonObject[]> {
  for await (const page of pages) {
    yield page.items.filter(keep).map((item) => (names ? withNames(item.raw, names) : item.raw));
  }
}

/** The list's name in a sentence ("12 reports"). */
function listWord(list: ExportListName): string {
  return list === 'reports'
    ? vscode.l10n.t('reports')
    : list === 'samples'
      ? vscode.l10n.t('samples')
      : vscode.l10n.t('clients');
}

/** Makes the export folder when it is not there; true when it was made now. */
async function makeExportFolder(folder: string): Promise<boolean> {
  if (await fs.stat(folder).catch(() => undefined)) {
    return false;
  }
  await fs.mkdir(folder, { recursive: true });
  return true;
}

/** The first name from `name` on that is not taken in `folder` (`reports-….csv`, `reports-… (1).csv`, …). */
async function freeFileName(folder: string, name: string): Promise<string> {
  for (let n = 0; n < 100; n++) {
    const candidate = n === 0 ? name : numberedFileName(name, n);
    if (!(await fs.stat(path.join(folder, candidate)).catch(() => undefined))) {
      return candidate;
    }
  }
  return name;
}

/** Where an export goes, and what it does when a file is there. */
interface ExportDestination {
  readonly folder: string;
  readonly fileName: string;
  readonly ifExists: 'keepBoth' | 'overwrite';
  readonly choice: ExportChoice;
}

/** What an export reads: the query sent, the part of the view's filter applied here, and the filter in words. */
interface ExportSelection {
  readonly query: ListQuery;
  readonly viewFilter?: ReturnType<ReportsTreeProvider['filterOf']>;
  readonly filterText: string;
}

/**
 * `labData.exportList` (`{ list, format, lab?, filter?, target? }`, a saved search's row, or a
 * view's toolbar through `fromView`, which exports that view's list with its filter): streams every
 * page of a list into a CSV or JSON Lines file, with progress and cancel. In a CSV, lists of plain
 * values (`sample_ids`) become one cell and client and project names stand beside their ids; JSON
 * Lines keeps the lab's records as they came.
 *
 * From a person, a save dialog chooses the file (it starts on a dated name that is not taken, and
 * asks itself before replacing one); from automation nothing is asked and nothing is replaced:
 * `target` (default `lab-exports/<list>-<date>.<ext>` in the workspace) gets a numbered name when it
 * exists. Returns `{ uri, rows }` with the file written. An interrupted export leaves no partial file.
 */
export async function exportList(
  labs: Labs,
  trees: { reports: ReportsTreeProvider; samples: SamplesTreeProvider },
  prompts: PromptsHolder,
  log: Logger,
  fromView: ExportListName | undefined,
  ...args: unknown[]
): Promise<ExportSummary | undefined> {
  const targets = commandTargets(args);
  const options = targets.options;
  const list = await whichList(targets, fromView, prompts);
  if (!list) {
    return undefined;
  }
  // The locale of a spreadsheet CSV: the display language's, or one automation names.
  const locale =
    typeof options.locale === 'string' && options.locale.trim()
      ? options.locale.trim()
      : displayLocale();
  const connection = await labForCommand(labs, prompts.current, targets.lab);
  const api = connection?.backgroundApi;
  if (!api) {
    return undefined;
  }
  const lab = api.lab.name;
  const root = vscode.workspace.workspaceFolders?.find((folder) => folder.uri.scheme === 'file')
    ?.uri.fsPath;
  const selection = exportSelection(targets, list, lab, trees);
  const given = givenExportChoice(options.format);
  const destination = targets.automated
    ? automatedDestination(options.target, list, root, given ?? 'csv')
    : await chosenDestination(prompts, { list, lab, locale, root, given }, selection.filterText);
  if (!destination) {
    return undefined;
  }
  const started = Date.now();
  const { result, csv } = await writeExport(api, list, selection, destination, {
    locale,
    log,
    root: targets.automated ? root : destination.folder,
  });
  const uri = vscode.Uri.file(result.file.path);
  const choice = destination.choice;
  const filterText = selection.filterText;
  log.info(
    'Export',
    `${lab}: ${result.rows} ${list}${filterText ? ` (filtered: ${filterText})` : ''} as ${choice === 'spreadsheet-csv' ? `CSV for spreadsheets in ${csv?.locale ?? 'en'} ("${csv?.separator ?? ','}")` : choice} with ${result.columns.length} columns to ${result.file.path} in ${Date.now() - started} ms.`,
  );
  sayExported(uri, { rows: result.rows, list, lab, filterText, choice, csv });
  return {
    uri,
    rows: result.rows,
    format: choice,
    ...(filterText ? { filter: filterText } : {}),
  };
}

/** The list to export: the one given, a saved search's (reports), the view's, or the one the person picks. */
async function whichList(
  targets: ReturnType<typeof commandTargets>,
  fromView: ExportListName | undefined,
  prompts: PromptsHolder,
): Promise<ExportListName | undefined> {
  const given = targets.options.list;
  const list = (typeof given === 'string' ? given : targets.search ? 'reports' : fromView) as
    ExportListName | undefined;
  if (list !== undefined && !LISTS.includes(list)) {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t('"list" must be one of {0}.', LISTS.join(', ')),
    );
  }
  return (
    list ??
    ((await prompts.current.pickOne(
      vscode.l10n.t('Lab Data: Export List'),
      vscode.l10n.t('Which list?'),
      LISTS.map((id) => ({ id, label: id })),
      false,
    )) as ExportListName | undefined)
  );
}

/** The filter an export honours: one automation gives, a saved search's, or the view's own for the lab. */
function exportSelection(
  targets: ReturnType<typeof commandTargets>,
  list: ExportListName,
  lab: string,
  trees: { reports: ReportsTreeProvider; samples: SamplesTreeProvider },
): ExportSelection {
  const options = targets.options;
  const given = isObject(options.filter)
    ? filterOf(options.filter)
    : targets.search
      ? searchFilters(targets.search, new Date())
      : undefined;
  const viewFilter = !given && list === 'reports' ? trees.reports.filterOf(lab) : undefined;
  const receivedSince =
    !given && list === 'samples' ? trees.samples.receivedSinceOf(lab) : undefined;
  const query: ListQuery =
    given ?? (viewFilter ? serverPart(viewFilter) : withReceivedSince(receivedSince));
  // The filter in words, for the dialog's title and the closing message.
  const filterText = serverText(
    targets.search
      ? vscode.l10n.t('saved search {0}', targets.search.name)
      : given
        ? describeQuery(given)
        : viewFilter
          ? describeReportFilter(viewFilter, knownNames.of(lab))
          : receivedSince
            ? vscode.l10n.t('received since {0}', localTime(receivedSince) ?? receivedSince)
            : '',
    200,
  );
  return { query, ...(viewFilter ? { viewFilter } : {}), filterText };
}

/** A script's export: the target it gave (or the dated default) in the workspace, never replacing a file. */
function automatedDestination(
  target: unknown,
  list: ExportListName,
  root: string | undefined,
  choice: ExportChoice,
): ExportDestination {
  if (!root) {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t('Open a folder first: exports are written into the workspace.'),
    );
  }
  const relative =
    typeof target === 'string' && target.trim()
      ? target.trim()
      : path.join('lab-exports', `${list}-${today()}.${extension(choice)}`);
  const resolved = path.resolve(root, relative);
  if (!isInside(resolved, root)) {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t('The export target must be inside the workspace folder.'),
    );
  }
  return {
    folder: path.dirname(resolved),
    fileName: path.basename(resolved),
    ifExists: 'keepBoth',
    choice,
  };
}

/**
 * A person's export: where a spreadsheet in the display language needs its own CSV, which format
 * (each saying what it is for); then a save dialog on a dated name not yet taken, whose file type
 * chooses between CSV and JSON Lines when the format was not asked. Undefined when dismissed.
 */
async function chosenDestination(
  prompts: PromptsHolder,
  asked: {
    readonly list: ExportListName;
    readonly lab: string;
    readonly locale: string | undefined;
    readonly root: string | undefined;
    readonly given: ExportChoice | undefined;
  },
  filterText: string,
): Promise<ExportDestination | undefined> {
  const { list, lab, root } = asked;
  let choice = asked.given;
  if (choice === undefined) {
    const picked = await pickExportChoice(prompts.current, asked.locale, lab);
    if (picked === undefined) {
      return undefined;
    }
    choice = picked === 'dialog' ? undefined : picked;
  }
  const start = path.join(root ?? os.homedir(), 'lab-exports');
  // The suggested folder is made now, in the workspace: VS Code's save dialog would otherwise ask to create it first.
  const made = root !== undefined && (await makeExportFolder(start));
  const offered = await freeFileName(start, `${list}-${today()}.${extension(choice ?? 'csv')}`);
  const title = filterText
    ? vscode.l10n.t('Export {0} of {1} (filtered: {2})', listWord(list), lab, filterText)
    : vscode.l10n.t('Export {0} of {1}', listWord(list), lab);
  const chosen = await prompts.current.saveFile(
    title,
    vscode.Uri.file(path.join(start, offered)),
    fileTypes(choice),
  );
  if (made && (!chosen || path.dirname(chosen.fsPath) !== start)) {
    // Made for this export and not used: an empty folder is not left behind.
    await fs.rmdir(start).catch(() => undefined);
  }
  if (!chosen) {
    return undefined;
  }
  if (chosen.scheme !== 'file') {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t('Choose a file on this computer to export to.'),
    );
  }
  return {
    folder: path.dirname(chosen.fsPath),
    fileName: path.basename(chosen.fsPath),
    // The dialog asked before replacing a file, so a file there now is one the person chose to replace.
    ifExists: 'overwrite',
    choice: choice ?? (chosen.fsPath.toLowerCase().endsWith('.jsonl') ? 'jsonl' : 'csv'),
  };
}

/** The save dialog's file types for a format (both when it was not asked). */
function fileTypes(choice: ExportChoice | undefined): Record<string, string[]> {
  return choice === 'jsonl'
    ? { 'JSON Lines': ['jsonl'] }
    : choice === 'spreadsheet-csv'
      ? { [vscode.l10n.t('CSV for spreadsheets')]: ['csv'] }
      : choice === 'csv'
        ? { CSV: ['csv'] }
        : { CSV: ['csv'], 'JSON Lines': ['jsonl'] };
}

/** Streams the list's pages into the file, with progress and Cancel; names beside ids in a CSV when the lab lists them. */
async function writeExport(
  api: LabApi,
  list: ExportListName,
  selection: ExportSelection,
  destination: ExportDestination,
  context: {
    readonly locale: string | undefined;
    readonly log: Logger;
    readonly root: string | undefined;
  },
): Promise<{
  result: Awaited<ReturnType<typeof exportRecords>>;
  csv: ReturnType<typeof exportFormatOf>['csv'];
}> {
  const { format, csv } = exportFormatOf(destination.choice, context.locale);
  const lab = api.lab.name;
  const { viewFilter } = selection;
  const result = await withNotificationProgress(
    vscode.l10n.t('Exporting {0} of {1}…', listWord(list), lab),
    async (progress, token) => {
      const signal = toAbortSignal(token);
      // Names are a help, not the export: a lab that cannot list them (a 400, a timeout, limits run out) still gets its CSV, with the ids.
      const names =
        list !== 'clients' && format === 'csv'
          ? await lookupNames(api, signal).catch((error: unknown) => {
              if (signal.aborted) {
                throw error;
              }
              context.log.warn(
                'Export',
                `Client and project names could not be listed, so the CSV has ids only: ${error instanceof LabApiError ? error.describe() : String(error)}`,
              );
              return undefined;
            })
          : undefined;
      const keep =
        viewFilter && ((item: { raw: JsonObject }) => matchesLocally(item as Report, viewFilter));
      return exportRecords(records(pagesOf(api, list, selection.query, signal), keep, names), {
        folder: destination.folder,
        fileName: destination.fileName,
        root: context.root,
        format,
        ...(csv ? { csv } : {}),
        ifExists: destination.ifExists,
        signal,
        onRecords: (rows) => progress.report({ message: vscode.l10n.t('{0} records', rows) }),
      });
    },
  );
  return { result, csv };
}

/** The closing message: how many of what went where, the filter, and what a spreadsheet CSV is; Open opens it. */
function sayExported(
  uri: vscode.Uri,
  said: {
    readonly rows: number;
    readonly list: ExportListName;
    readonly lab: string;
    readonly filterText: string;
    readonly choice: ExportChoice;
    readonly csv: ReturnType<typeof exportFormatOf>['csv'];
  },
): void {
  const { rows, list, lab, filterText, csv } = said;
  const open = vscode.l10n.t('Open');
  const where = vscode.workspace.asRelativePath(uri);
  const message = filterText
    ? vscode.l10n.t(
        'Exported {0} {1} of {2} to {3}, filtered: {4}.',
        rows,
        listWord(list),
        lab,
        where,
        filterText,
      )
    : vscode.l10n.t('Exported {0} {1} of {2} to {3}.', rows, listWord(list), lab, where);
  const which =
    said.choice === 'spreadsheet-csv' && csv
      ? ` ${vscode.l10n.t('It is the CSV for spreadsheets in {0} (separator "{1}", decimal mark "{2}"); scripts read the standard CSV.', languageName(csv.locale ?? 'en'), csv.separator, csv.decimal)}`
      : '';
  void vscode.window.showInformationMessage(`${message}${which}`, open).then((choice) => {
    if (choice === open) {
      void vscode.window.showTextDocument(uri);
    }
  });
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** A filter given by automation, in words (dates as the tree shows them). */
function describeQuery(query: ListQuery): string {
  const when = (value: string | Date): string => {
    const text = typeof value === 'string' ? value : value.toISOString();
    return localTime(text) ?? text;
  };
  return [
    query.publishedSince && vscode.l10n.t('published since {0}', when(query.publishedSince)),
    query.updatedSince && vscode.l10n.t('updated since {0}', when(query.updatedSince)),
    query.receivedSince && vscode.l10n.t('received since {0}', when(query.receivedSince)),
    query.status && vscode.l10n.t('status {0}', query.status),
    query.clientId && vscode.l10n.t('client {0}', query.clientId),
    query.projectId && vscode.l10n.t('project {0}', query.projectId),
  ]
    .filter(Boolean)
    .join(', ');
}

function extension(choice: ExportChoice): string {
  return choice === 'jsonl' ? 'jsonl' : 'csv';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const FILTER_KEYS = [
  'publishedSince',
  'updatedSince',
  'receivedSince',
  'status',
  'clientId',
  'projectId',
] as const;

/** Only the filter fields of an arguments object (never paging), as strings. */
function filterOf(value: Record<string, unknown>): ListQuery {
  return Object.fromEntries(
    FILTER_KEYS.filter(
      (key) => typeof value[key] === 'string' && (value[key] as string).trim() !== '',
    ).map((key) => [key, (value[key] as string).trim()]),
  );
}

function withReceivedSince(receivedSince: string | undefined): ListQuery {
  return receivedSince ? { receivedSince } : {};
}
