import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import type { JsonObject } from '../api/records';
import { writeFileSafely, type ExistingFilePolicy, type SavedFile } from '../files/safeWriter';

export type ExportFormat = 'csv' | 'jsonl';

/** One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, quotes doubled. */
export function csvField(value: unknown): string {
  const text = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record, CRLF-terminated as RFC 4180 asks. */
export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

export interface ExportOptions {
  readonly folder: string;
  readonly fileName: string;
  readonly format: ExportFormat;
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
 * Streams every page of a list into one file: JSON Lines, or CSV with a header of every field any
 * record had (in order of first appearance) and nested values as their JSON text. The records go
 * to a scratch file first, because a CSV header needs every field before the first row; the result
 * is then written through the safe writer, so an interrupted export leaves no partial file.
 */
export async function exportRecords(pages: AsyncIterable<readonly JsonObject[]>, options: ExportOptions): Promise<ExportResult> {
  await fs.mkdir(options.folder, { recursive: true });
  const scratch = path.join(options.folder, `.lab-data-export-${randomBytes(6).toString('hex')}.part`);
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
      source: options.format === 'jsonl' ? createReadStream(scratch) : csvLines(scratch, header),
    });
    return { file, rows, columns: header };
  } finally {
    await fs.rm(scratch, { force: true });
  }
}

async function* csvLines(jsonl: string, header: readonly string[]): AsyncGenerator<Buffer> {
  yield Buffer.from(csvRow(header));
  const lines = createInterface({ input: createReadStream(jsonl, 'utf8'), crlfDelay: Infinity });
  let batch = '';
  for await (const line of lines) {
    if (!line) {
      continue;
    }
    const record = JSON.parse(line) as JsonObject;
    batch += csvRow(header.map((column) => record[column]));
    if (batch.length > 64 * 1024) {
      yield Buffer.from(batch);
      batch = '';
    }
  }
  if (batch) {
    yield Buffer.from(batch);
  }
}
