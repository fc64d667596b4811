import { promises as fs } from 'node:fs';
import { LabApiError } from '../errors/errors';
import { labError } from '../errors/messages';
import { copyFileSafely } from './safeCopy';
import type { PreparedFolder, SavedFile } from './safeWriter';

/** A SHA-256 as a cache names its files: 64 lower-case hex digits. */
export const SHA256_SHAPE = /^[0-9a-f]{64}$/;

/**
 * What publishing a file to the cache came to: `held` the cache had it already (not copied again),
 * `kept` copied in, `differs` the file's bytes are not the hash's (nothing written), `missing` no
 * such file.
 */
export type PublishOutcome = 'held' | 'kept' | 'differs' | 'missing';

/**
 * What reading a cached file back came to (`lab-data cache verify`): `good` it is the hash's bytes,
 * `missing` the cache has none, `corrupt` it has other bytes under that name, `unasked` the cache
 * could not be asked (a server down, silent or refusing us: its `readProblem` says why).
 */
export type CheckOutcome = 'good' | 'missing' | 'corrupt' | 'unasked';

/** Where a restored file goes: a folder, its name there, and what to do with a file of that name. */
export interface RestoreTarget {
  readonly folder: string | PreparedFolder;
  readonly fileName: string;
  readonly ifExists: 'fail' | 'overwrite';
  readonly signal?: AbortSignal;
}

/**
 * A store of files by their SHA-256, in front of the labs: a folder ({@link ContentCache}) or a
 * team's server ({@link HttpCache}), the same layout in both (`sha256/ab/abcd…`). What pull, sync,
 * status, cache push and the extension's Save and Restore ask of it; none of them knows which it is.
 * Every read is checked against the hash before the file takes its name; a cache that cannot be
 * written is still read, and never fails a run.
 */
export interface FileCache {
  /** Where it is, for messages: a folder or an address (never with credentials). */
  readonly location: string;
  /** Whether it has a file of this hash (and size, when given); not yet checked: {@link restore} checks. */
  has(sha256: string, bytes?: number): Promise<boolean>;
  /**
   * What it holds, asked for one run over many files. Without `exact`, "perhaps" may be true where
   * a look costs as much as the read itself (a server: the read is the look, for pull); `exact`
   * asks for the truth (status), a file unknown counting as not held; with `bytes`, a copy of
   * another size counts as not held where the cache can tell.
   */
  lookup(options?: {
    readonly exact?: boolean;
  }): (sha256: string, bytes?: number) => Promise<boolean>;
  /** Keeps a copy of `file` (its SHA-256 known) unless it has one; never fails the caller. */
  keep(file: string, sha256: string, bytes: number): Promise<void>;
  /**
   * Publishes `file` as the copy of `sha256`, checked against the hash (`lab-data cache push`);
   * throws a {@link LabApiError} when it cannot be written.
   */
  publish(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<PublishOutcome>;
  /**
   * Puts `file` (checked against the hash as it is copied) in place of the copy of `sha256`,
   * whatever copy is there now: the repair of a corrupt entry. Throws when it cannot be written.
   */
  repair(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<PublishOutcome>;
  /** Reads its copy of `sha256` back and checks it against the hash; nothing is written. */
  check(sha256: string, bytes: number, signal?: AbortSignal): Promise<CheckOutcome>;
  /** Writes its copy of `sha256` into a folder, checked first; undefined when it has none (or a bad one). */
  restore(sha256: string, bytes: number, target: RestoreTarget): Promise<SavedFile | undefined>;
  /** Why files cannot be kept there, once a write failed; undefined while they can. */
  readonly writeProblem: string | undefined;
  /** Why it is not asked any more (a server down, silent or refusing us); undefined while it is. */
  readonly readProblem?: string;
  /** Whether {@link readProblem} is a refusal of the credentials (401/403) rather than a server down. */
  readonly readRefused?: boolean;
  /** The status a server refused the credentials with (401, 403), when {@link readRefused}. */
  readonly readStatus?: number;
  /** The status a server refused a write with (401, 403, 405, 507…), once one was. */
  readonly writeStatus?: number;
  /** Lets go of its connections, if it has any. */
  close(): Promise<void>;
}

/** Whether a cache given as text (`LAB_DATA_CACHE`, `--cache`, `labData.cacheFolder`) is an address rather than a folder. */
export function isCacheAddress(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text.trim());
}

/**
 * Whether `file` can be published as `bytes` long: `missing` when it is not there (or not a file),
 * `differs` when its size is not the recorded one; undefined when it may be copied (its bytes are
 * checked as they are: {@link copyAsHash}).
 */
export async function publishProblem(
  file: string,
  bytes: number,
): Promise<'missing' | 'differs' | undefined> {
  const source = await fs.stat(file).catch(() => undefined);
  if (!source?.isFile()) {
    return 'missing';
  }
  return source.size === bytes ? undefined : 'differs';
}

/**
 * Copies `file` into `folder` under the name `sha256`, hashed as it is copied: the copy takes its
 * name only when it is the hash's bytes. `differs` when they are not (the file changed since its
 * look; nothing is left), `missing` when the file went away, `copied` else. What publishing to
 * either cache does before the copy is the cache's.
 */
export async function copyAsHash(
  file: string,
  into: { readonly folder: string; readonly sha256: string; readonly bytes: number },
  signal?: AbortSignal,
): Promise<'copied' | 'missing' | 'differs'> {
  const { folder, sha256, bytes } = into;
  try {
    const copied = await copyFileSafely({
      from: file,
      folder,
      fileName: sha256,
      ifExists: 'overwrite',
      expectedBytes: bytes,
      signal,
      checkSha256: (actual) =>
        actual === sha256 ? undefined : labError('invalidResponse', 'cacheCorrupt', { sha256 }),
    });
    return copied === undefined ? 'missing' : 'copied';
  } catch (error) {
    if (
      error instanceof LabApiError &&
      (error.code === 'invalidResponse' || error.text?.id === 'transferShort')
    ) {
      return 'differs';
    }
    throw error;
  }
}
