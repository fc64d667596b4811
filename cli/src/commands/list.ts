import { createReadStream, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { LabApi } from '../../../core/api/labApi';
import type { Page } from '../../../core/api/pagination';
import type { ListQuery } from '../../../core/api/query';
import type { JsonObject } from '../../../core/api/records';
import { resolveSince } from '../../../core/derived/savedSearches';
import { exportRecords } from '../../../core/derived/exportList';
import type { CliContext } from '../context';
import { Exit, type ExitCode } from '../exitCodes';
import { out, table, writeListing, type ListingChunk } from '../output';
import { escapeControls, serverText } from '../../../core/errors/serverText';

export type ListName = 'reports' | 'samples' | 'clients' | 'projects';

/** The lab's filters from the command line, and the report type lab-data applies itself. */
export function listFilters(
  context: CliContext,
  list: ListName,
): { readonly query: ListQuery; readonly type?: string } {
  const since = context.text('since');
  const sinceName = list === 'samples' ? '--since (received since)' : '--since (published since)';
  const resolved =
    since === undefined
      ? undefined
      : resolveSince(/^\d+[hdwmy]$/i.test(since) ? `-${since}` : since, new Date(), sinceName);
  const query: ListQuery = {
    ...(resolved !== undefined
      ? list === 'samples'
        ? { receivedSince: resolved }
        : { publishedSince: resolved }
      : {}),
    ...(context.text('client') !== undefined ? { clientId: context.text('client') } : {}),
    ...(context.text('project') !== undefined ? { projectId: context.text('project') } : {}),
    ...(context.text('status') !== undefined ? { status: context.text('status') } : {}),
  };
  return { query, type: context.text('type') };
}

function pagesOf(
  api: LabApi,
  list: ListName,
  query: ListQuery,
  signal: AbortSignal,
): AsyncGenerator<Page<{ readonly raw: JsonObject }>> {
  switch (list) {
    case 'reports':
      return api.iterateReports(query, { signal });
    case 'samples':
      return api.iterateSamples(query, { signal });
    case 'clients':
      return api.iterateClients(query, { signal });
    case 'projects':
      return api.iterateProjects(query, { signal });
  }
}

/** The records of every page as the lab sent them, narrowed by the report type where one was given. */
async function* records(
  api: LabApi,
  list: ListName,
  query: ListQuery,
  type: string | undefined,
  context: CliContext,
): AsyncGenerator<JsonObject[]> {
  let count = 0;
  for await (const page of pagesOf(api, list, query, context.signal)) {
    const raw = page.items
      .map((item) => item.raw)
      .filter((record) => type === undefined || record.report_type === type);
    count += raw.length;
    context.progress.update(
      `${list}: ${count}${page.totalCount !== undefined && type === undefined ? ` of ${page.totalCount}` : ''}`,
    );
    yield raw;
  }
  context.progress.clear();
}

const TABLE_COLUMNS: Readonly<Record<ListName, readonly string[]>> = {
  reports: ['report_id', 'report_type', 'status', 'published_at', 'client_id', 'project_id'],
  samples: ['sample_id', 'matrix', 'status', 'received_at', 'client_id', 'project_id'],
  clients: ['client_id', 'name'],
  projects: ['project_id', 'name', 'client_id'],
};

function cell(value: unknown): string {
  return value === undefined || value === null
    ? ''
    : Array.isArray(value)
      ? value.join('; ')
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
}

/** JSON Lines: one record a line, each page as it arrives. */
async function* jsonLines(pages: AsyncIterable<JsonObject[]>): AsyncGenerator<ListingChunk> {
  for await (const page of pages) {
    yield {
      text: page.map((record) => `${escapeControls(JSON.stringify(record))}\n`).join(''),
      rows: page.length,
    };
  }
}

/** A JSON array, each page as it arrives; `[` comes with the first record and `]` only after the last page, so a cut-off array never parses. */
async function* jsonArray(pages: AsyncIterable<JsonObject[]>): AsyncGenerator<ListingChunk> {
  let first = true;
  for await (const page of pages) {
    let text = '';
    for (const record of page) {
      text += `${first ? '[\n' : ',\n'}  ${escapeControls(JSON.stringify(record))}`;
      first = false;
    }
    yield { text, rows: page.length };
  }
  yield { text: first ? '[]\n' : '\n]\n', rows: 0 };
}

/** CSV (the extension's export: every field any record has, in order of first appearance), once the last page is in. */
async function* csv(
  pages: AsyncIterable<JsonObject[]>,
  list: ListName,
  signal: AbortSignal,
): AsyncGenerator<ListingChunk> {
  const scratch = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-csv-'));
  try {
    const result = await exportRecords(pages, {
      folder: scratch,
      fileName: `${list}.csv`,
      format: 'csv',
      signal,
    });
    for await (const chunk of createReadStream(result.file.path, 'utf8')) {
      yield { text: chunk as string, rows: 0 };
    }
    yield { text: '', rows: result.rows };
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** The table of the main columns, once the last page is in. */
async function* textTable(
  pages: AsyncIterable<JsonObject[]>,
  list: ListName,
): AsyncGenerator<ListingChunk> {
  const rows: string[][] = [];
  for await (const page of pages) {
    rows.push(
      ...page.map((record) =>
        TABLE_COLUMNS[list].map((column) =>
          cell(record[column] ?? (column === 'sample_id' ? record.id : undefined)),
        ),
      ),
    );
  }
  yield {
    text: `${table(
      TABLE_COLUMNS[list].map((column) => column.toUpperCase()),
      rows,
    )}\n`,
    rows: rows.length,
  };
}

/**
 * `lab-data reports|samples|clients|projects`: every record as the lab sent it. JSON Lines and
 * JSON stream as pages arrive; CSV is written once the last page is in; the table shows the main
 * columns. With `-o FILE` the listing takes that name only when complete ({@link writeListing}).
 */
export async function listRecords(context: CliContext, list: ListName): Promise<ExitCode> {
  const baseUrl = context.labUrl();
  const api = context.api(new URL(baseUrl).host, baseUrl);
  const { query, type } = listFilters(context, list);
  const pages = records(api, list, query, list === 'reports' ? type : undefined, context);
  const chunks = context.flag('jsonl')
    ? jsonLines(pages)
    : context.flag('json')
      ? jsonArray(pages)
      : context.flag('csv')
        ? csv(pages, list, context.signal)
        : textTable(pages, list);
  const file = context.text('output');
  const rows = await writeListing(chunks, {
    file,
    progress: context.progress,
    signal: context.signal,
  });
  if (file !== undefined && file !== '-') {
    context.progress.line(`${rows} ${list} written to ${serverText(file, 200)}.`);
  } else if (!context.flag('jsonl') && !context.flag('json') && !context.flag('csv')) {
    context.progress.line(`${rows} ${list}.`);
  }
  return Exit.ok;
}

/** `lab-data report ID`: one report's fields, or the lab's record as `--json`. */
export async function showReport(context: CliContext): Promise<ExitCode> {
  const baseUrl = context.labUrl();
  const api = context.api(new URL(baseUrl).host, baseUrl);
  const report = await api.getReport(context.command.positionals[0]!, context.signal);
  if (context.flag('json')) {
    await out(`${escapeControls(JSON.stringify(report.raw, null, 2))}\n`);
  } else {
    await out(
      `${table(
        ['FIELD', 'VALUE'],
        Object.entries(report.raw).map(([field, value]) => [field, cell(value)]),
      )}\n`,
    );
  }
  return Exit.ok;
}
