import { statSync, type Stats } from 'node:fs';

/** How many files are looked at between two turns of the event loop. */
const BATCH = 512;

/**
 * The `stat` of each path, or undefined where nothing can be looked at (no file, no folder, a path
 * that is not given). Synchronous in batches, with a turn of the event loop between two: ten
 * thousand `fs.promises.stat` cost ten times as much as the same `statSync`, each a round trip
 * through libuv's thread pool, while a batch blocks the loop for a few milliseconds only.
 */
export async function statEach(
  files: ReadonlyArray<string | undefined>,
  signal?: AbortSignal,
): Promise<Array<Stats | undefined>> {
  const stats: Array<Stats | undefined> = new Array(files.length);
  for (let start = 0; start < files.length; start += BATCH) {
    if (start > 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    signal?.throwIfAborted();
    const end = Math.min(files.length, start + BATCH);
    for (let index = start; index < end; index++) {
      stats[index] = statOrUndefined(files[index]);
    }
  }
  return stats;
}

function statOrUndefined(file: string | undefined): Stats | undefined {
  if (file === undefined) {
    return undefined;
  }
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    // ENOTDIR, EACCES, a name too long: nothing usable there, as for a missing file.
    return undefined;
  }
}
