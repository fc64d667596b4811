import * as path from 'node:path';
import { mapConcurrently } from '../async/concurrency';
import { LabApiError, isCancellation } from '../errors/errors';
import type { FileCache, PublishOutcome } from '../files/fileCache';
import { isInside } from '../files/safeWriter';
import type { ManifestEntry, SyncManifest } from './manifest';
import { labEntries } from './manifestModel';

/** What pushing one manifest entry to a cache came to. */
export type PushState =
  /** Copied into the cache, checked against its recorded SHA-256 as it was copied. */
  | 'pushed'
  /** The cache had the recorded file already: nothing copied. */
  | 'alreadyThere'
  /** Not in the folder (and not in the cache). */
  | 'missing'
  /** The folder's file is not the recorded one (other bytes): never pushed. */
  | 'changed'
  /** The cache could not be written (read-only, full) and lacks this file (asked): not pushed. */
  | 'cacheUnwritable'
  /** The cache stopped answering (down, silent, refusing us): whether it holds this file is not known. */
  | 'notChecked';

export interface PushedFile {
  readonly lab: string;
  readonly origin: string;
  readonly reportId: string;
  /** The file's path relative to the folder, as the manifest records it. */
  readonly file: string;
  readonly sha256: string;
  readonly bytes: number;
  readonly state: PushState;
}

export interface PushOptions {
  /** Files copied at once (default 4): a shared drive is slow to many writers. */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  /** Called as each file is done, with the counts so far (for a progress line). */
  readonly onProgress?: (progress: {
    readonly done: number;
    readonly total: number;
    readonly bytes: number;
  }) => void;
}

export interface PushResult {
  readonly files: readonly PushedFile[];
  /** Bytes copied into the cache. */
  readonly bytes: number;
  /**
   * Why the cache could not be written, when it could not: no write is tried after the first
   * failed one (nothing partial is left); each file not yet done is still looked for, so it counts
   * as `alreadyThere` or `cacheUnwritable` (the cache lacks it), or `notChecked` when the cache no
   * longer answers.
   */
  readonly cacheProblem?: LabApiError;
}

interface Work {
  readonly lab: string;
  readonly origin: string;
  readonly entry: ManifestEntry;
}

const STATE_OF: Readonly<Record<PublishOutcome, PushState>> = {
  held: 'alreadyThere',
  kept: 'pushed',
  differs: 'changed',
  missing: 'missing',
};

/**
 * Publishes a folder's recorded files to a cache (`lab-data cache push`, the extension's Push to
 * Team Cache), so any clone sharing that cache restores them without the lab. Only a file whose
 * bytes are the recorded SHA-256 goes in: it is hashed as it is copied, never trusted for its size
 * and time. Idempotent: what the cache already holds is not copied again, whether or not the folder
 * still has it. A cache that cannot be written stops the push at once; nothing half-written is left.
 */
export async function pushFolder(
  folder: string,
  manifest: SyncManifest,
  cache: FileCache,
  options: PushOptions = {},
): Promise<PushResult> {
  const root = path.resolve(folder);
  const work = labEntries(manifest);
  // One copy per SHA-256: two reports with the same bytes are one file in the cache.
  const firstOf = new Map<string, number>();
  work.forEach(({ entry }, index) => {
    if (!firstOf.has(entry.sha256)) {
      firstOf.set(entry.sha256, index);
    }
  });
  const outcomes = new Map<string, Promise<PushState>>();
  let cacheProblem: LabApiError | undefined;
  let done = 0;
  let bytes = 0;

  /** After a refused write: whether the cache has the file, asked without writing. */
  const lookOnly = async (entry: ManifestEntry): Promise<PushState> => {
    if (cache.readProblem !== undefined) {
      return 'notChecked';
    }
    const held = await cache.has(entry.sha256, entry.bytes);
    return held
      ? 'alreadyThere'
      : cache.readProblem !== undefined
        ? 'notChecked'
        : 'cacheUnwritable';
  };

  const pushOne = async ({ entry }: Work): Promise<PushState> => {
    if (cacheProblem !== undefined) {
      return lookOnly(entry);
    }
    const file = path.resolve(root, entry.file);
    if (!isInside(file, root)) {
      return 'missing';
    }
    try {
      const outcome = await cache.publish(file, entry.sha256, entry.bytes, options.signal);
      if (outcome === 'kept') {
        bytes += entry.bytes;
      }
      return STATE_OF[outcome];
    } catch (error) {
      if (isCancellation(error) || options.signal?.aborted || !(error instanceof LabApiError)) {
        throw error;
      }
      cacheProblem ??= error;
      return cache.readProblem !== undefined ? 'notChecked' : 'cacheUnwritable';
    }
  };

  const files = await mapConcurrently(
    work,
    options.concurrency ?? 4,
    async (item, index): Promise<PushedFile> => {
      const sha = item.entry.sha256;
      const first = firstOf.get(sha)!;
      let state: PushState;
      if (first === index) {
        const outcome = pushOne(item);
        outcomes.set(sha, outcome);
        state = await outcome;
      } else {
        // Another report of the same bytes: in the cache once the first is; else tried itself.
        const earlier = await (outcomes.get(sha) ?? Promise.resolve(undefined));
        state =
          earlier === 'pushed' || earlier === 'alreadyThere' ? 'alreadyThere' : await pushOne(item);
      }
      done++;
      options.onProgress?.({ done, total: work.length, bytes });
      return {
        lab: item.lab,
        origin: item.origin,
        reportId: item.entry.report_id,
        file: item.entry.file,
        sha256: sha,
        bytes: item.entry.bytes,
        state,
      };
    },
    options.signal,
  );
  return { files, bytes, ...(cacheProblem ? { cacheProblem } : {}) };
}
