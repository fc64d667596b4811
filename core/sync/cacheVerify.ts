import * as path from 'node:path';
import { mapConcurrently } from '../async/concurrency';
import { isCancellation, LabApiError } from '../errors/errors';
import type { CheckOutcome, FileCache } from '../files/fileCache';
import { isInside } from '../files/safeWriter';
import type { SyncManifest } from './manifest';
import { labEntries } from './manifestModel';

/** What reading one recorded file back from a cache came to. */
export type CacheCheckState =
  /** The cache's copy is the recorded SHA-256's bytes. */
  | 'good'
  /** The cache has no copy. */
  | 'missing'
  /** The cache's copy has other bytes (another hash or size), and was not repaired. */
  | 'corrupt'
  /** `repair`: the corrupt copy was replaced with the folder's file, checked against the hash. */
  | 'repaired'
  /** The cache stopped answering (down, silent, refusing us): not read. */
  | 'notChecked';

export interface CheckedFile {
  readonly lab: string;
  readonly reportId: string;
  readonly file: string;
  readonly sha256: string;
  readonly state: CacheCheckState;
  /** Why a corrupt copy could not be repaired (the folder's file is not the recorded one, a refused write). */
  readonly why?: string;
}

export interface CacheCheckResult {
  readonly files: readonly CheckedFile[];
  /** The first failed repair's error (a refused write): no other repair is tried after it. */
  readonly repairProblem?: LabApiError;
}

/**
 * `lab-data cache verify [--repair]`: reads back every object a manifest names from the cache and
 * checks it against its recorded SHA-256 (a `HEAD` tells only the size: a same-size corrupt copy
 * passes it). With `repair`, a corrupt copy is replaced with the folder's file when that file is
 * the recorded bytes (checked as it is copied). Each SHA-256 is read once; nothing else is written.
 */
export async function checkCacheFiles(
  folder: string,
  manifest: SyncManifest,
  cache: FileCache,
  options: {
    readonly repair?: boolean;
    readonly signal?: AbortSignal;
    readonly concurrency?: number;
  } = {},
): Promise<CacheCheckResult> {
  const root = path.resolve(folder);
  const work = labEntries(manifest);
  const checked = new Map<string, Promise<CheckOutcome>>();
  let repairProblem: LabApiError | undefined;
  const files = await mapConcurrently(
    work,
    options.concurrency ?? 4,
    async ({ lab, entry }): Promise<CheckedFile> => {
      const base = { lab, reportId: entry.report_id, file: entry.file, sha256: entry.sha256 };
      let first = checked.get(entry.sha256);
      const mine = first === undefined;
      if (!first) {
        first = cache.check(entry.sha256, entry.bytes, options.signal);
        checked.set(entry.sha256, first);
      }
      const outcome = await first;
      if (outcome === 'unasked') {
        return { ...base, state: 'notChecked' };
      }
      if (outcome !== 'corrupt' || !options.repair || !mine) {
        return { ...base, state: outcome };
      }
      const file = path.resolve(root, entry.file);
      if (!isInside(file, root) || repairProblem) {
        return { ...base, state: 'corrupt' };
      }
      try {
        const repaired = await cache.repair(file, entry.sha256, entry.bytes, options.signal);
        return repaired === 'kept' || repaired === 'held'
          ? { ...base, state: 'repaired' }
          : {
              ...base,
              state: 'corrupt',
              why:
                repaired === 'missing'
                  ? 'not in the folder to repair it from'
                  : "the folder's file is not the recorded one either",
            };
      } catch (error) {
        if (isCancellation(error) || options.signal?.aborted || !(error instanceof LabApiError)) {
          throw error;
        }
        repairProblem ??= error;
        return { ...base, state: 'corrupt', why: error.message };
      }
    },
    options.signal,
  );
  return { files, ...(repairProblem ? { repairProblem } : {}) };
}
