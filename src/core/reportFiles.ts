import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { renderFileName } from './fileNames';
import type { Report } from './records';
import { writeFileSafely } from './safeWriter';

export const DEFAULT_FILE_NAME_TEMPLATE = '${report_id}.pdf';
export const MANIFEST_FILE_NAME = 'lab-data-sync.json';

/** The file name of a report's PDF from a template (`labData.fileNameTemplate`), safe on every OS. */
export function reportFileName(report: Report, template: string = DEFAULT_FILE_NAME_TEMPLATE): string {
  const published = report.published_at && /^\d{4}-\d{2}-\d{2}/.test(report.published_at) ? report.published_at.slice(0, 10) : undefined;
  return renderFileName(template || DEFAULT_FILE_NAME_TEMPLATE, {
    report_id: report.report_id,
    report_type: report.report_type,
    published_date: published,
    client_id: report.client_id,
    project_id: report.project_id,
  }, `${report.report_id}.pdf`);
}

/** Whether something (a file, a link, a folder) is at `file`; never follows a link. */
export async function pathExists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}

/** SHA-256 of a file, streamed; undefined when the file is not there. */
export async function fileSha256(file: string): Promise<string | undefined> {
  try {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(file)) {
      hash.update(chunk as Buffer);
    }
    return hash.digest('hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
}

/** What a sync remembers of one saved report file. Never the token. */
export interface ManifestEntry {
  readonly report_id: string;
  readonly file: string;
  readonly published_at?: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly saved_at: string;
  /** Endpoint path the file came from, e.g. `/api/v1/reports/R-1/file`. */
  readonly source: string;
}

export interface SyncManifest {
  readonly version: 1;
  /** The lab the files came from (origin and API path, no credentials). */
  readonly lab: string;
  /** Latest `published_at` seen; the next sync asks only for reports published since then. */
  readonly watermark?: string;
  readonly files: Readonly<Record<string, ManifestEntry>>;
}

/** Reads the manifest of a folder; a missing, unreadable or foreign one means "start afresh". */
export async function readManifest(folder: string, lab: string): Promise<SyncManifest> {
  const empty: SyncManifest = { version: 1, lab, files: {} };
  try {
    const parsed = JSON.parse(await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8')) as SyncManifest;
    if (parsed?.version !== 1 || parsed.lab !== lab || typeof parsed.files !== 'object' || parsed.files === null) {
      return empty;
    }
    return parsed;
  } catch {
    return empty;
  }
}

/** Writes the manifest through the safe writer (temporary file, then rename). */
export async function writeManifest(folder: string, manifest: SyncManifest): Promise<void> {
  const sorted = { ...manifest, files: Object.fromEntries(Object.entries(manifest.files).sort(([a], [b]) => a.localeCompare(b))) };
  await writeFileSafely({ folder, fileName: MANIFEST_FILE_NAME, source: Readable.from([Buffer.from(`${JSON.stringify(sorted, null, 2)}\n`)]), ifExists: 'overwrite' });
}

/** The later of two ISO timestamps (either may be missing). */
export function laterTimestamp(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) {
    return b;
  }
  if (!b) {
    return a;
  }
  return Date.parse(b) > Date.parse(a) ? b : a;
}
