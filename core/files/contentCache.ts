import { constants, createReadStream, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { oncePerKey } from '../async/concurrency';
import { LabApiError } from '../errors/errors';
import { labError } from '../errors/messages';
import { holdsExactly } from './exactBytes';
import { copyFileSafely } from './safeCopy';
import {
  type CheckOutcome,
  copyAsHash,
  publishProblem,
  SHA256_SHAPE,
  type FileCache,
  type PublishOutcome,
  type RestoreTarget,
} from './fileCache';
import { fileSystemError, type SavedFile } from './safeWriter';

/**
 * Where the cache is when nobody chose one: the platform's cache folder (`$XDG_CACHE_HOME` or
 * `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows), folder `lab-data`.
 */
export function defaultCacheFolder(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  if (platform === 'win32') {
    return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'lab-data', 'Cache');
  }
  if (platform === 'darwin') {
    return path.join(home, 'Library', 'Caches', 'lab-data');
  }
  const xdg = env.XDG_CACHE_HOME?.trim();
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache'), 'lab-data');
}

/**
 * Why a folder could not be made: a recursive `mkdir` on a read-only disk says ENOENT (its first
 * attempt's answer, the parent being missing), so the first missing folder is made alone to hear
 * the real reason (EROFS, EACCES) for the message.
 */
async function whyNoFolder(folder: string, error: unknown): Promise<unknown> {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
    return error;
  }
  let missing = folder;
  while (
    path.dirname(missing) !== missing &&
    !(await fs.stat(path.dirname(missing)).then(
      () => true,
      () => false,
    ))
  ) {
    missing = path.dirname(missing);
  }
  return fs.mkdir(missing).then(
    () => error,
    (real: unknown) => real,
  );
}

/** One file the cache holds. */
export interface CachedFile {
  readonly sha256: string;
  readonly bytes: number;
  /** When it was last kept or used (milliseconds since 1970). */
  readonly usedMs: number;
}

export type { PublishOutcome } from './fileCache';

export interface ContentCacheOptions {
  /**
   * A folder someone chose (`LAB_DATA_CACHE`, `--cache`, the extension's setting): a team's shared
   * drive or a CI cache, whose permissions are left to its owner. The default folder is the user's
   * alone: folders 0700, files 0600.
   */
  readonly shared?: boolean;
  /** Told once when the cache cannot be written (the run goes on without keeping files), and of each corrupt entry. */
  readonly warn?: (message: string) => void;
}

/**
 * Files kept by their SHA-256 (`sha256/ab/abcd…`), so any recorded state of a folder can be
 * restored without the lab, even a revision the lab no longer serves. Files go in as copies (a
 * reflink where the file system offers one), never hard links: editing a file in the workspace
 * never changes the cache. Every file is checked against its hash as it is restored; a corrupt
 * entry is reported, ignored and replaced the next time the file is kept. A cache that cannot be
 * written (a read-only share, a full disk) is still read.
 */
export class ContentCache implements FileCache {
  private unwritable?: string;
  /** Folders of the cache made (or found) by this object: each is made once, not once a file. */
  private readonly madeFolders = new Set<string>();
  /** Files this object kept, which a {@link lookup} taken earlier did not list. */
  private readonly keptNow = new Set<string>();

  constructor(
    readonly folder: string,
    private readonly options: ContentCacheOptions = {},
  ) {}

  get location(): string {
    return this.folder;
  }

  /** Nothing to let go of: a folder holds no connections. */
  async close(): Promise<void> {}

  private pathOf(sha256: string): string {
    return path.join(this.folder, 'sha256', sha256.slice(0, 2), sha256);
  }

  /** Whether the cache has a file of this hash and size (not yet checked: {@link restore} checks). */
  async has(sha256: string, bytes?: number): Promise<boolean> {
    if (!SHA256_SHAPE.test(sha256)) {
      return false;
    }
    const stats = await fs.stat(this.pathOf(sha256)).catch(() => undefined);
    return stats !== undefined && stats.isFile() && (bytes === undefined || stats.size === bytes);
  }

  /**
   * What the cache holds, looked at for one run over many files: each of its folders is listed
   * once (an empty cache is one look, a full one at most 257) instead of one look a file; files
   * this object keeps meanwhile are counted in. A file another process adds meanwhile is not seen
   * (it comes from the lab instead); one removed meanwhile is found missing when restored
   * ({@link restore}); a folder that cannot be listed answers "perhaps", and restore looks.
   */
  lookup(): (sha256: string) => Promise<boolean> {
    const root = path.join(this.folder, 'sha256');
    const listing = oncePerKey((folder: string): Promise<ReadonlySet<string> | undefined> =>
      fs.readdir(folder).then(
        (found): ReadonlySet<string> => new Set(found),
        (error: NodeJS.ErrnoException): ReadonlySet<string> | undefined =>
          // Nothing there: nothing held. Any other failure (no permission, too many open
          // files) is no answer: restore then looks for itself.
          ['ENOENT', 'ENOTDIR'].includes(error.code ?? '') ? new Set<string>() : undefined,
      ),
    );
    return async (sha256) => {
      if (!SHA256_SHAPE.test(sha256)) {
        return false;
      }
      if (this.keptNow.has(sha256)) {
        return true;
      }
      const prefix = sha256.slice(0, 2);
      const prefixes = await listing(root);
      if (prefixes === undefined) {
        return true;
      }
      const names = prefixes.has(prefix) ? await listing(path.join(root, prefix)) : new Set();
      return names === undefined || names.has(sha256);
    };
  }

  /** Why files cannot be kept here, once a write failed; undefined while it can. */
  get writeProblem(): string | undefined {
    return this.unwritable;
  }

  private cannotWrite(error: unknown): void {
    if (this.unwritable === undefined) {
      this.unwritable = (error as NodeJS.ErrnoException).code ?? String(error);
      this.options.warn?.(
        `The cache ${this.folder} cannot be written (${this.unwritable}); going on without keeping files in it.`,
      );
    }
  }

  /** Makes a folder of the cache (private unless the cache is shared), once per object unless `again`. */
  private async makeFolder(folder: string, again = false): Promise<void> {
    if (again || !this.madeFolders.has(folder)) {
      await fs
        .mkdir(folder, { recursive: true, mode: this.options.shared ? undefined : 0o700 })
        .catch(async (error: unknown) => {
          throw await whyNoFolder(folder, error);
        });
      this.madeFolders.add(folder);
    }
  }

  /** Keeps a copy of `file` (whose SHA-256 is known) unless the cache has it; never fails the caller. */
  async keep(file: string, sha256: string, bytes: number): Promise<void> {
    if (this.unwritable !== undefined || !SHA256_SHAPE.test(sha256)) {
      return;
    }
    const target = this.pathOf(sha256);
    const stats = await fs.stat(target).catch(() => undefined);
    if (stats?.isFile() && stats.size === bytes) {
      // Kept already: its time says it is still used (for prune --older-than).
      const now = new Date();
      await fs.utimes(target, now, now).catch(() => undefined);
      return;
    }
    const prefixFolder = path.dirname(target);
    const temporary = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    const copyIn = async (retry = false): Promise<void> => {
      await this.makeFolder(prefixFolder, retry);
      await fs.copyFile(file, temporary, constants.COPYFILE_FICLONE);
      if (!this.options.shared) {
        await fs.chmod(temporary, 0o600);
      }
      await fs.rename(temporary, target);
    };
    try {
      await copyIn().catch(async (error: unknown) => {
        // A folder taken as made and removed since (a prune from another process): made again, once.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw error;
        }
        await fs.rm(temporary, { force: true });
        await copyIn(true);
      });
      this.keptNow.add(sha256);
    } catch (error) {
      await fs.rm(temporary, { force: true }).catch(() => undefined);
      this.cannotWrite(error);
    }
  }

  /**
   * Publishes `file` as the cache's copy of `sha256` (`lab-data cache push`): unlike {@link keep},
   * for a file whose hash was not just computed, and telling what happened. An entry of the right
   * size is `held` and not copied again (its time refreshed, for prune --older-than); otherwise the
   * file is copied to a temporary name in the cache, hashed there, and takes its name only when it
   * is the hash's bytes (`differs` else, and nothing is left). Throws a file-system error when the
   * cache cannot be written (read-only, full), leaving no partial entry.
   */
  async publish(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<PublishOutcome> {
    if (!SHA256_SHAPE.test(sha256)) {
      return 'differs';
    }
    const target = this.pathOf(sha256);
    if (await this.has(sha256, bytes)) {
      const now = new Date();
      await fs.utimes(target, now, now).catch(() => undefined);
      return 'held';
    }
    return this.copyIn(file, sha256, bytes, signal);
  }

  /** Puts `file` (checked as it is copied) in place of whatever copy of `sha256` the cache has. */
  async repair(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<PublishOutcome> {
    if (!SHA256_SHAPE.test(sha256)) {
      return 'differs';
    }
    return this.copyIn(file, sha256, bytes, signal);
  }

  /** Reads the cache's copy of `sha256` back and hashes it; nothing is written. */
  async check(sha256: string, bytes: number, signal?: AbortSignal): Promise<CheckOutcome> {
    if (!SHA256_SHAPE.test(sha256)) {
      return 'missing';
    }
    let good: boolean;
    try {
      good = await holdsExactly(
        createReadStream(this.pathOf(sha256), { signal }) as AsyncIterable<Buffer>,
        bytes,
        sha256,
      );
    } catch (error) {
      if (signal?.aborted) {
        throw error;
      }
      if (['ENOENT', 'ENOTDIR', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) {
        return 'missing';
      }
      throw fileSystemError(error, this.folder);
    }
    return good ? 'good' : 'corrupt';
  }

  /** Copies `file` in under a temporary name, hashed there, taking the hash's name only when it is its bytes. */
  private async copyIn(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<PublishOutcome> {
    const target = this.pathOf(sha256);
    const problem = await publishProblem(file, bytes);
    if (problem) {
      return problem;
    }
    const folder = path.dirname(target);
    try {
      await this.makeFolder(folder);
    } catch (error) {
      throw fileSystemError(error, this.folder);
    }
    // A file that changed between its look and its copy is not the hash's bytes: 'differs'.
    const copied = await copyAsHash(file, { folder, sha256, bytes }, signal);
    if (copied !== 'copied') {
      return copied;
    }
    if (!this.options.shared) {
      await fs.chmod(target, 0o600).catch(() => undefined);
    }
    this.keptNow.add(sha256);
    return 'kept';
  }

  /**
   * Copies the cached file of this hash into a folder under `fileName`, checked against the hash
   * before it takes that name (nothing is left when it does not match). Undefined when the cache does not
   * have it, or has a corrupt copy (reported, and removed when the cache can be written).
   */
  async restore(
    sha256: string,
    bytes: number,
    target: RestoreTarget,
  ): Promise<SavedFile | undefined> {
    if (!SHA256_SHAPE.test(sha256)) {
      return undefined;
    }
    const cached = this.pathOf(sha256);
    try {
      // Undefined when the cache does not have it: no look first, the read is the look.
      return await copyFileSafely({
        from: cached,
        folder: target.folder,
        fileName: target.fileName,
        ifExists: target.ifExists,
        expectedBytes: bytes,
        signal: target.signal,
        checkSha256: (actual) =>
          actual === sha256 ? undefined : labError('invalidResponse', 'cacheCorrupt', { sha256 }),
      });
    } catch (error) {
      const corrupt =
        error instanceof LabApiError &&
        (error.code === 'invalidResponse' || error.text?.id === 'transferShort');
      if (!corrupt) {
        throw error;
      }
      this.options.warn?.(
        `The cache's copy of ${sha256.slice(0, 12)}… is corrupt (it does not match its SHA-256); it was ignored${this.unwritable === undefined ? ' and removed' : ''}.`,
      );
      await fs.rm(cached, { force: true }).catch(() => undefined);
      return undefined;
    }
  }

  /** Everything the cache holds. */
  async list(): Promise<CachedFile[]> {
    const root = path.join(this.folder, 'sha256');
    const found: CachedFile[] = [];
    const prefixes = await fs.readdir(root).catch(() => [] as string[]);
    for (const prefix of prefixes) {
      const names = await fs.readdir(path.join(root, prefix)).catch(() => [] as string[]);
      for (const name of names) {
        if (!SHA256_SHAPE.test(name)) {
          continue;
        }
        const stats = await fs.stat(path.join(root, prefix, name)).catch(() => undefined);
        if (stats?.isFile()) {
          found.push({ sha256: name, bytes: stats.size, usedMs: stats.mtimeMs });
        }
      }
    }
    return found;
  }

  /** Removes one file; false when it could not be removed (a read-only cache). */
  async remove(sha256: string): Promise<boolean> {
    return fs.rm(this.pathOf(sha256), { force: true }).then(
      () => true,
      () => false,
    );
  }
}
