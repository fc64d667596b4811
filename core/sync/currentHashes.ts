import * as path from 'node:path';
import { isPlainName } from '../files/fileNames';
import { sha256Each } from '../files/hashEach';
import { isInside } from '../files/safeWriter';
import { statEach } from '../files/statEach';
import { vouchedSha256, type ManifestEntry } from './manifest';

export interface CurrentHashesOptions {
  /** Hash every file, even one whose size and time say it is unchanged. */
  readonly rehash?: boolean;
  readonly signal?: AbortSignal;
  /** Called as files are checked: after the quick look at all of them, then as each is read. */
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * Where each entry's file is in `folder` (absolute), in the entries' order; undefined where its
 * recorded name would leave the folder (such a name is never read).
 */
export function recordedPaths(
  folder: string,
  entries: ReadonlyArray<Pick<ManifestEntry, 'file'>>,
): Array<string | undefined> {
  const root = path.resolve(folder);
  const inRoot = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  return entries.map((entry) => {
    // A plain name (no folder, nothing to resolve) is joined as it is: ten thousand path.resolve calls cost more than the stats.
    if (isPlainName(entry.file)) {
      return `${inRoot}${entry.file}`;
    }
    const resolved = path.resolve(root, entry.file);
    return resolved.startsWith(inRoot) || isInside(resolved, root) ? resolved : undefined;
  });
}

/**
 * The SHA-256 of each entry's file in `folder` as it is now, in the entries' order; undefined
 * where the file is not there, or where its recorded name would leave the folder (the manifest is a
 * file in the workspace: such a name is never read). What `currentSha256` gives for one file,
 * for many at once: the files are looked at in synchronous batches first, and only those their
 * size and time do not vouch for are read, every byte, in synchronous slices ({@link sha256Each}).
 */
export async function currentSha256s(
  folder: string,
  entries: readonly ManifestEntry[],
  options: CurrentHashesOptions = {},
): Promise<Array<string | undefined>> {
  const files = recordedPaths(folder, entries);
  const trusting = (entry: ManifestEntry): boolean =>
    !options.rehash && entry.mtime_ms !== undefined;
  const stats = await statEach(
    files.map((file, index) => (trusting(entries[index]!) ? file : undefined)),
    options.signal,
  );
  const hashes: Array<string | undefined> = new Array<undefined>(entries.length).fill(undefined);
  const toRead: number[] = [];
  entries.forEach((entry, index) => {
    if (files[index] === undefined) {
      return;
    }
    if (trusting(entry)) {
      const vouched = vouchedSha256(stats[index], entry);
      if (stats[index] === undefined || vouched !== undefined) {
        hashes[index] = vouched;
        return;
      }
    }
    toRead.push(index);
  });
  let done = entries.length - toRead.length;
  if (done > 0) {
    options.onProgress?.(done, entries.length);
  }
  const read = await sha256Each(
    toRead.map((index) => files[index]),
    { signal: options.signal, onHashed: () => options.onProgress?.(++done, entries.length) },
  );
  toRead.forEach((index, at) => (hashes[index] = read[at]));
  return hashes;
}
