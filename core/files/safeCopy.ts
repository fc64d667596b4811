import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  openSync,
  promises as fs,
  readFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { LabApiError } from '../errors/errors';
import { cancelledError, labError } from '../errors/messages';
import { sha256OfOpenFile, Slices } from './hashEach';
import {
  commit,
  fileSystemError,
  prepareTarget,
  type ExistingFilePolicy,
  type PreparedFolder,
  type SavedFile,
} from './safeWriter';

export interface SafeCopyOptions {
  /** The file to copy (a reflink where the file system offers one). */
  readonly from: string;
  /** Folder to write into; created when missing. A {@link PreparedFolder} skips those checks. */
  readonly folder: string | PreparedFolder;
  /** Desired file name; it is sanitised, so it can never leave `folder`. */
  readonly fileName: string;
  /** When set, `folder` (after resolving links) must lie inside this folder. */
  readonly root?: string;
  readonly ifExists?: ExistingFilePolicy;
  /** The size the copy must have; another is a broken transfer (`transferShort`), and nothing is written. */
  readonly expectedBytes: number;
  /** Checks the copy's SHA-256 before it takes its name; returns the error to fail with (nothing is then written). */
  readonly checkSha256?: (sha256: string) => LabApiError | undefined;
  readonly signal?: AbortSignal;
}

/** The mode a file this process creates with 0644 gets (its umask applied), found once. */
let newFileModeFound: number | undefined;

/**
 * 0644 less this process's umask, read from `/proc/self/status` where there is one: Node's
 * `process.umask()` reads it by setting it to 0 for an instant, which a file another thread creates
 * meanwhile would get (DEP0139), so it is only the fallback, once, and only the tool restores files.
 */
function newFileMode(): number {
  if (newFileModeFound === undefined) {
    let umask: number | undefined;
    try {
      const line = /^Umask:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
      umask = line ? parseInt(line[1]!, 8) : undefined;
    } catch {
      umask = undefined;
    }
    newFileModeFound = 0o644 & ~(umask ?? process.umask());
  }
  return newFileModeFound;
}

/**
 * The SHA-256 of a file just written, with its size and time, read through one descriptor, every
 * byte, in synchronous slices ({@link sha256OfOpenFile}: a report-sized file is one read from the
 * page cache, far under a millisecond). The file gets the mode a new file of this process has,
 * where the file system keeps modes: a copy keeps its source's, and the cache's files are private
 * (0600).
 */
async function hashCopy(
  file: string,
  signal: AbortSignal | undefined,
): Promise<{ sha256: string; size: number; mtimeMs: number }> {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const stats = fstatSync(fd);
    const mode = newFileMode();
    if (process.platform !== 'win32' && (stats.mode & 0o777) !== mode) {
      try {
        fchmodSync(fd, mode);
      } catch {
        // A file system without modes (FAT, some network shares): the copy is kept as it is.
      }
    }
    const sha256 = await sha256OfOpenFile(fd, stats.size, new Slices(signal));
    return { sha256, size: stats.size, mtimeMs: stats.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/**
 * The safe writer's promise ({@link writeFileSafely}) for a file that is already on disk: copied
 * (`copyFile`, one system call's work, a reflink where offered) to a temporary name in the folder,
 * measured and hashed there, and given its name only when it is what the caller expects; on any
 * failure the temporary file is removed and an existing file of the same name is untouched. Links
 * are never followed. Several times faster than streaming the file through the writer when many
 * small files are restored. Resolves to undefined when `from` is not there (nothing is written).
 */
export async function copyFileSafely(options: SafeCopyOptions): Promise<SavedFile | undefined> {
  const { fileName, policy, prepared, folder, temp } = await prepareTarget(options);
  try {
    // A source of another size than expected is not the file: refused before it is read (a report
    // recorded at 1 KB is never copied, nor hashed, at 2 GiB).
    const size = (await fs.stat(options.from).catch(() => undefined))?.size;
    if (size !== undefined && size !== options.expectedBytes) {
      throw size > options.expectedBytes
        ? labError('invalidResponse', 'transferLonger', { expected: options.expectedBytes })
        : labError('network', 'transferShort', { received: size, expected: options.expectedBytes });
    }
    // EXCL: the temporary name is new, and a link put there meanwhile is refused, never followed.
    try {
      await fs.copyFile(options.from, temp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    } catch (error) {
      // Looked at only when the copy failed: a source that is not a readable file (not there, a
      // file where a folder of its path should be, a folder, no permission) is nothing to copy;
      // else the problem is the folder's.
      const source = await fs.stat(options.from).catch(() => undefined);
      const readable =
        source?.isFile() === true &&
        (await fs.access(options.from, constants.R_OK).then(
          () => true,
          () => false,
        ));
      if (!readable) {
        await fs.rm(temp, { force: true }).catch(() => undefined);
        return undefined;
      }
      throw error;
    }
    const copy = await hashCopy(temp, options.signal);
    if (copy.size !== options.expectedBytes) {
      throw labError('network', 'transferShort', {
        received: copy.size,
        expected: options.expectedBytes,
      });
    }
    const refused = options.checkSha256?.(copy.sha256);
    if (refused) {
      throw refused;
    }
    if (options.signal?.aborted) {
      throw cancelledError();
    }
    const finalName = await commit(temp, folder, fileName, policy);
    // The same file (renamed or linked): its time is the copy's.
    return {
      path: path.join(folder, finalName),
      fileName: finalName,
      bytes: copy.size,
      sha256: copy.sha256,
      mtimeMs: copy.mtimeMs,
    };
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    if (options.signal?.aborted) {
      throw cancelledError();
    }
    if (error instanceof LabApiError) {
      throw error;
    }
    throw fileSystemError(error, prepared.requested);
  }
}
