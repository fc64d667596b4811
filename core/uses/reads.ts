import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LOCAL_FOLDER } from '../sync/localState';
import { compareRevisions } from './usesRecord';

/** The readers' log (Python and R `labdata`), beside the manifest in `.lab-data/`. */
export const READS_FILE_NAME = 'reads.jsonl';

/** One line of `.lab-data/reads.jsonl`: a consumer read a report's recorded file. */
export interface ReportRead {
  readonly at: string;
  /** The script or notebook, relative to the repository's top, `/` separators; undefined when unknown. */
  readonly consumer?: string;
  readonly lab: string;
  readonly reportId: string;
  readonly revision?: string;
  readonly sha256: string;
}

/** What reading the log came to: the reads, and how many lines could not be used. */
export interface ReadsLog {
  readonly reads: readonly ReportRead[];
  readonly skipped: number;
}

function read(line: string): ReportRead | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return undefined;
  }
  const { at, consumer, lab, report_id, revision, sha256 } = value as Record<string, unknown>;
  if (
    typeof at !== 'string' ||
    typeof lab !== 'string' ||
    typeof report_id !== 'string' ||
    typeof sha256 !== 'string' ||
    !/^[0-9a-f]{64}$/.test(sha256) ||
    (consumer !== null && consumer !== undefined && typeof consumer !== 'string') ||
    (revision !== null && revision !== undefined && typeof revision !== 'string')
  ) {
    return undefined;
  }
  const relative = typeof consumer === 'string' ? consumerPath(consumer) : undefined;
  return {
    at,
    ...(relative !== undefined ? { consumer: relative } : {}),
    lab,
    reportId: report_id,
    ...(typeof revision === 'string' ? { revision } : {}),
    sha256,
  };
}

/**
 * A consumer's path as the record keeps it: relative, `/` separators, inside the repository.
 * Anything else (absolute, `..`, empty) is no consumer the record can name.
 */
export function consumerPath(given: string): string | undefined {
  const slashed = given.replaceAll('\\', '/');
  const normal = path.posix.normalize(slashed);
  if (
    normal === '.' ||
    normal === '' ||
    normal.startsWith('../') ||
    normal === '..' ||
    path.posix.isAbsolute(normal) ||
    /^[A-Za-z]:/.test(normal) ||
    [...normal].some((character) => character.charCodeAt(0) < 32)
  ) {
    return undefined;
  }
  return normal;
}

/** Reads `.lab-data/reads.jsonl` of a manifest's folder; a broken or half-written line is skipped and counted. */
export async function readReads(folder: string): Promise<ReadsLog> {
  const text = await fs
    .readFile(path.join(folder, LOCAL_FOLDER, READS_FILE_NAME), 'utf8')
    .catch(() => '');
  const reads: ReportRead[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      continue;
    }
    const parsed = read(line);
    if (parsed) {
      reads.push(parsed);
    } else {
      skipped += 1;
    }
  }
  return { reads, skipped };
}

/**
 * Each consumer's last read of each report (by its time, then its revision): what the consumer
 * used when it last ran. Reads with no consumer are left out.
 */
export function lastReads(reads: readonly ReportRead[]): ReportRead[] {
  const last = new Map<string, ReportRead>();
  for (const each of reads) {
    if (each.consumer === undefined) {
      continue;
    }
    const key = `${each.consumer}\u0000${each.lab}\u0000${each.reportId}`;
    const known = last.get(key);
    const [then, now] = [known ? Date.parse(known.at) : NaN, Date.parse(each.at)];
    if (
      !known ||
      (Number.isNaN(then) && !Number.isNaN(now)) ||
      now > then ||
      (now === then && compareRevisions(each.revision, known.revision) > 0)
    ) {
      last.set(key, each);
    }
  }
  return [...last.values()];
}
