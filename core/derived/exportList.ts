import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { LabApi } from '../api/labApi';
import type { Page } from '../api/pagination';
import type { JsonObject } from '../api/records';
import { LabApiError } from '../errors/errors';
import { writeFileSafely, type ExistingFilePolicy, type SavedFile } from '../files/safeWriter';
import { csvRecord, STANDARD_CSV, type CsvDialect } from './csvDialect';

export type ExportFormat = 'csv' | 'jsonl';

export { csvField, csvRow } from './csvDialect';

/** Names of a lab's clients and projects by id, for the columns beside the ids. */
export interface RecordNames {
  readonly client: ReadonlyMap<string, string>;
  readonly project: ReadonlyMap<string, string>;
}

/**
 * The record with `client_name` right after `client_id` and `project_name` right after
 * `project_id`, from `names`, where the record has the id and no such name of its own. An id
 * without a known name gets an empty name, so the column is there for every row.
 */
export function withNames(record: JsonObject, names: RecordNames): JsonObject {
  const kinds = (['client', 'project'] as const).filter(
    (kind) =>
      typeof record[`${kind}_id`] === 'string' &&
      !(`${kind}_name` in record) &&
      names[kind].size > 0,
  );
  if (kinds.length === 0) {
    return record;
  }
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(record)) {
    result[key] = value;
    const kind = kinds.find((candidate) => key === `${candidate}_id`);
    if (kind) {
      result[`${kind}_name`] = names[kind].get(value as string) ?? '';
    }
  }
  return result;
}

/**
 * Every client and project name the lab lets this token see (all pages of each list). A lab
 * without clients or projects for this token (forbidden, not found) simply gives no names;
 * cancellation and other failures are thrown.
 */
export async function lookupNames(api: LabApi, signal?: AbortSignal): Promise<RecordNames> {
  const collect = async <T>(
    pages: AsyncIterable<Page<T>>,
    entry: (item: T) => [string, string | undefined],
  ): Promise<Map<string, string>> => {
    const names = new Map<string, string>();
    try {
      for await (const page of pages) {
        for (const item of page.items) {
          const [id, name] = entry(item);
          if (name) {
            names.set(id, name);
          }
        }
      }
    } catch (error) {
      if (!(
        error instanceof LabApiError &&
        (error.code === 'forbidden' || error.code === 'notFound')
      )) {
        throw error;
      }
    }
    return names;
  };
  const client = await collect(api.iterateClients({}, { signal }), (item) => [
    item.client_id,
    item.name,
  ]);
  const project = await collect(api.iterateProjects({}, { signal }), (item) => [
    item.project_id,
    item.name,
  ]);
  return { client, project };
}

export interface ExportOptions {
  readonly folder: string;
  readonly fileName: string;
  readonly format: ExportFormat;
  /** A CSV's separator and decimal mark (default: the standard CSV); ignored for JSON Lines. */
  readonly csv?: CsvDialect;
  /** Where the output may go (the workspace folder); the safe writer refuses anything outside. */
  readonly root?: string;
  readonly ifExists?: ExistingFilePolicy;
  readonly signal?: AbortSignal;
  readonly onRecords?: (rows: number) => void;
}

export interface ExportResult {
  readonly file: SavedFile;
  readonly rows: number;
  readonly columns: readonly string[];
}

/**
 * Streams every page of a list into one file: JSON Lines, or CSV (standard, or a locale's
 * spreadsheet CSV: `options.csv`) with a header of every field any record had (in order of first
 * appearance) and nested values as their JSON text. The records go
 * to a scratch file first, because a CSV header needs every field before the first row; the result
 * is then written through the safe writer, so an interrupted export leaves no partial file.
 */
export async function exportRecords(
  pages: AsyncIterable<readonly JsonObject[]>,
  options: ExportOptions,
): Promise<ExportResult> {
  await fs.mkdir(options.folder, { recursive: true });
  const scratch = path.join(
    options.folder,
    `.lab-data-export-${randomBytes(6).toString('hex')}.part`,
  );
  const columns = new Map<string, true>();
  let rows = 0;
  try {
    const out = createWriteStream(scratch, { flags: 'wx', mode: 0o600 });
    try {
      for await (const records of pages) {
        options.signal?.throwIfAborted();
        let chunk = '';
        for (const record of records) {
          Object.keys(record).forEach((key) => columns.set(key, true));
          chunk += `${JSON.stringify(record)}\n`;
        }
        rows += records.length;
        if (!out.write(chunk)) {
          await once(out, 'drain');
        }
        options.onRecords?.(rows);
      }
    } finally {
      out.end();
      await once(out, 'close');
    }
    options.signal?.throwIfAborted();
    const header = [...columns.keys()];
    const file = await writeFileSafely({
      folder: options.folder,
      fileName: options.fileName,
      root: options.root,
      ifExists: options.ifExists ?? 'fail',
      signal: options.signal,
      source:
        options.format === 'jsonl'
          ? createReadStream(scratch)
          : csvLines(scratch, header, options.csv ?? STANDARD_CSV),
    });
    return { file, rows, columns: header };
  } finally {
    await fs.rm(scratch, { force: true });
  }
}

async function* csvLines(
  jsonl: string,
  header: readonly string[],
  dialect: CsvDialect,
): AsyncGenerator<Buffer> {
  yield Buffer.from(`${dialect.byteOrderMark ? '\uFEFF' : ''}${csvRecord(header, dialect)}`);
  const lines = createInterface({ input: createReadStream(jsonl, 'utf8'), crlfDelay: Infinity });
  let batch = '';
  for await (const line of lines) {
    if (!line) {
      continue;
    }
    const record = JSON.parse(line) as JsonObject;
    batch += csvRecord(
      header.map((column) => record[column]),
      dialect,
    );
    if (batch.length > 64 * 1024) {
      yield Buffer.from(batch);
      batch = '';
    }
  }
  if (batch) {
    yield Buffer.from(batch);
  }
}
