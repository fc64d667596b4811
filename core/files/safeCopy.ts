import { createHash } from 'node:crypto';
import { constants, createReadStream, promises as fs, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { LabApiError } from '../errors/errors';
import { cancelledError, labError } from '../errors/messages';
import {
  commit,
  fileSystemError,
  prepareTarget,
  type ExistingFilePolicy,
  type PreparedFolder,
  type SavedFile,
} from './safeWriter';

/** Files up to this size are hashed in one read, on the spot; larger ones are streamed. */
const READ_AT_ONCE_BYTES = 4 * 1024 * 1024;

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
  readonly expectedBytes?: number;
  /** Checks the copy's SHA-256 before it takes its name; returns the error to fail with (nothing is then written). */
  readonly checkSha256?: (sha256: string) => LabApiError | undefined;
  readonly signal?: AbortSignal;
}

async function sha256Of(file: string, bytes: number): Promise<string> {
  const hash = createHash('sha256');
  if (bytes <= READ_AT_ONCE_BYTES) {
    return hash.update(readFileSync(file)).digest('hex');
  }
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

/**
 * The safe writer's promise ({@link writeFileSafely}) for a file that is already on disk: copied
 * (`copyFile`, one system call's work, a reflink where offered) to a temporary name in the folder,
 * measured and hashed there, and given its name only when it is what the caller expects; on any
 * failure the temporary file is removed and an existing file of the same name is untouched. Links
 * are never followed. Several times faster than streaming the file through the writer when many
 * small files are restored.
 */
export async function copyFileSafely(options: SafeCopyOptions): Promise<SavedFile> {
  const { fileName, policy, prepared, folder, temp } = await prepareTarget(options);
  try {
    // EXCL: the temporary name is new, and a link put there meanwhile is refused, never followed.
    await fs.copyFile(options.from, temp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    const stats = statSync(temp);
    if (options.expectedBytes !== undefined && stats.size !== options.expectedBytes) {
      throw labError('network', 'transferShort', {
        received: stats.size,
        expected: options.expectedBytes,
      });
    }
    const sha256 = await sha256Of(temp, stats.size);
    const refused = options.checkSha256?.(sha256);
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
      bytes: stats.size,
      sha256,
      mtimeMs: stats.mtimeMs,
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
