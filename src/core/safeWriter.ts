import { createHash, randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LabApiError } from './errors';
import { sanitizeFileName } from './fileNames';
import { cancelledError, labError } from './messages';

/** What to do when a file of the same name is already there. */
export type ExistingFilePolicy = 'fail' | 'overwrite' | 'keepBoth';

export interface SafeWriteOptions {
  /** Folder to write into; created when missing. */
  readonly folder: string;
  /** Desired file name; it is sanitised, so it can never leave `folder`. */
  readonly fileName: string;
  /** When set, `folder` (after resolving links) must lie inside this folder. */
  readonly root?: string;
  readonly source: AsyncIterable<Uint8Array> | NodeJS.ReadableStream;
  readonly ifExists?: ExistingFilePolicy;
  /** Declared length; a body of another length is a failed transfer. */
  readonly expectedBytes?: number;
  readonly maxBytes?: number;
  /** Checks the first bytes (up to 1 KiB); returns the error to fail with when they are wrong. */
  readonly checkHead?: (head: Buffer) => LabApiError | undefined;
  readonly signal?: AbortSignal;
  readonly onProgress?: (bytesWritten: number, totalBytes?: number) => void;
}

export interface SavedFile {
  readonly path: string;
  readonly fileName: string;
  readonly bytes: number;
  readonly sha256: string;
}

const HEAD_BYTES = 1024;

/** Whether `child` is `parent` or lies below it (paths already resolved). */
export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

async function lstatOrUndefined(file: string): Promise<import('node:fs').Stats | undefined> {
  try {
    return await fs.lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
}

function fileSystemError(error: unknown, folder: string): LabApiError {
  if (error instanceof LabApiError) {
    return error;
  }
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOSPC' ? 'the disk is full' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'the disk is read-only' : code === 'EDQUOT' ? 'the disk quota is used up' : (code ?? 'unknown error');
  return labError('fileSystem', 'writeFailed', { folder, reason }, { detail: code });
}

/** Counts, hashes and checks the bytes on their way to disk. */
class WriteMonitor extends Transform {
  bytes = 0;
  readonly hash = createHash('sha256');
  private head = Buffer.alloc(0);
  private headChecked = false;

  constructor(private readonly options: SafeWriteOptions) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.options.maxBytes !== undefined && this.bytes > this.options.maxBytes) {
      callback(labError('invalidResponse', 'fileTooLargeGeneric', { mib: Math.round(this.options.maxBytes / 1024 / 1024) }));
      return;
    }
    if (!this.headChecked) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
      if (this.head.length >= HEAD_BYTES) {
        const problem = this.checkHead();
        if (problem) {
          callback(problem);
          return;
        }
      }
    }
    this.hash.update(chunk);
    this.options.onProgress?.(this.bytes, this.options.expectedBytes);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    callback(this.headChecked ? null : this.checkHead());
  }

  private checkHead(): LabApiError | null {
    this.headChecked = true;
    return this.options.checkHead?.(this.head) ?? null;
  }
}

async function linkNoClobber(from: string, to: string): Promise<boolean> {
  try {
    await fs.link(from, to);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      return false;
    }
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EXDEV') {
      // File systems without hard links: check, then rename (a narrow race, but never a partial file).
      if (await lstatOrUndefined(to)) {
        return false;
      }
      await fs.rename(from, to);
      return true;
    }
    throw error;
  }
}

function numbered(fileName: string, n: number): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? `${fileName.slice(0, dot)} (${n})${fileName.slice(dot)}` : `${fileName} (${n})`;
}

/**
 * The one way this project writes a file: streamed into a temporary file in the destination folder,
 * counted, hashed and checked, flushed, then renamed into place. On any failure or cancellation the
 * temporary file is removed and an existing file of the same name is untouched. Links are never
 * followed: a target that is a symbolic link is refused, and the folder must resolve inside `root`.
 */
export async function writeFileSafely(options: SafeWriteOptions): Promise<SavedFile> {
  const fileName = sanitizeFileName(options.fileName);
  const policy = options.ifExists ?? 'fail';
  if (options.signal?.aborted) {
    throw cancelledError();
  }
  let folder: string;
  try {
    await fs.mkdir(options.folder, { recursive: true });
    folder = await fs.realpath(options.folder);
    if (options.root !== undefined && !isInside(folder, await fs.realpath(options.root))) {
      throw labError('fileSystem', 'writeOutsideRoot', { folder: options.folder, root: options.root });
    }
  } catch (error) {
    throw fileSystemError(error, options.folder);
  }
  const target = path.join(folder, fileName);
  if (path.dirname(target) !== folder) {
    throw labError('fileSystem', 'writeBadName', { name: fileName });
  }
  const existing = await lstatOrUndefined(target).catch((error: unknown) => {
    throw fileSystemError(error, folder);
  });
  if (existing?.isSymbolicLink() || (existing && !existing.isFile())) {
    throw labError('fileSystem', 'writeInTheWay', { name: fileName });
  }
  if (existing && policy === 'fail') {
    throw labError('fileExists', 'writeExists', { name: fileName, folder });
  }

  const temp = path.join(folder, `.${fileName}.${randomBytes(6).toString('hex')}.part`);
  let handle: import('node:fs/promises').FileHandle | undefined;
  try {
    handle = await fs.open(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0), 0o644);
    const monitor = new WriteMonitor(options);
    const file = handle;
    await pipeline(
      options.source,
      monitor,
      async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) {
          await file.write(chunk);
        }
      },
      { signal: options.signal },
    );
    if (options.expectedBytes !== undefined && monitor.bytes !== options.expectedBytes) {
      throw labError('network', 'transferShort', { received: monitor.bytes, expected: options.expectedBytes });
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    const finalName = await commit(temp, folder, fileName, policy);
    return { path: path.join(folder, finalName), fileName: finalName, bytes: monitor.bytes, sha256: monitor.hash.digest('hex') };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temp, { force: true }).catch(() => undefined);
    if (options.signal?.aborted || (error instanceof Error && error.name === 'AbortError')) {
      throw cancelledError();
    }
    if (error instanceof LabApiError) {
      throw error;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code && /^(UND_ERR|ECONNRESET|EPIPE|ERR_STREAM_PREMATURE_CLOSE)/.test(code)) {
      throw labError(code === 'UND_ERR_BODY_TIMEOUT' ? 'timeout' : 'network', 'transferBroken', {}, { detail: code });
    }
    throw fileSystemError(error, folder);
  }
}

async function commit(temp: string, folder: string, fileName: string, policy: ExistingFilePolicy): Promise<string> {
  if (policy === 'overwrite') {
    const existing = await lstatOrUndefined(path.join(folder, fileName));
    if (existing && !existing.isFile()) {
      throw labError('fileSystem', 'writeInTheWay', { name: fileName });
    }
    await fs.rename(temp, path.join(folder, fileName));
    return fileName;
  }
  const candidates = policy === 'fail' ? [fileName] : [fileName, ...Array.from({ length: 99 }, (_, i) => numbered(fileName, i + 1))];
  for (const candidate of candidates) {
    if (await linkNoClobber(temp, path.join(folder, candidate))) {
      await fs.rm(temp, { force: true });
      return candidate;
    }
  }
  throw labError('fileExists', 'writeExists', { name: fileName, folder });
}
