import { createHash, randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { LabApiError } from '../errors/errors';
import { sanitizeFileName } from './fileNames';
import { cancelledError, labError, type MessageId } from '../errors/messages';

/** What to do when a file of the same name is already there. */
export type ExistingFilePolicy = 'fail' | 'overwrite' | 'keepBoth';

/** A folder already created, resolved and checked against its root, for writing many files into. */
export interface PreparedFolder {
  /** The folder as asked for (for messages). */
  readonly requested: string;
  /** The folder with every link resolved. */
  readonly resolved: string;
}

export interface SafeWriteOptions {
  /** Folder to write into; created when missing. A {@link PreparedFolder} skips those checks per file. */
  readonly folder: string | PreparedFolder;
  /** Desired file name; it is sanitised, so it can never leave `folder`. */
  readonly fileName: string;
  /** When set, `folder` (after resolving links) must lie inside this folder. */
  readonly root?: string;
  readonly source: AsyncIterable<Uint8Array> | NodeJS.ReadableStream;
  readonly ifExists?: ExistingFilePolicy;
  /** Declared length (or recorded size); a body of another length is a failed transfer, and one longer is not read past it. */
  readonly expectedBytes?: number;
  readonly maxBytes?: number;
  /** Checks the first bytes (up to 1 KiB); returns the error to fail with when they are wrong. */
  readonly checkHead?: (head: Buffer) => LabApiError | undefined;
  /** Whether to read the saved file's modification time back (for a manifest entry); true unless nothing will record it. */
  readonly recordTime?: boolean;
  /** Checks the whole file's SHA-256 before it takes its name; returns the error to fail with (nothing is then written). */
  readonly checkSha256?: (sha256: string) => LabApiError | undefined;
  readonly signal?: AbortSignal;
  readonly onProgress?: (bytesWritten: number, totalBytes?: number) => void;
}

export interface SavedFile {
  readonly path: string;
  readonly fileName: string;
  readonly bytes: number;
  readonly sha256: string;
  /** The file's modification time as written, so an unchanged file need not be hashed again. */
  readonly mtimeMs?: number;
}

const HEAD_BYTES = 1024;
/** Bytes gathered before one write: a small file is one system call, a large one a call per MiB. */
const WRITE_BATCH_BYTES = 1024 * 1024;

/** Whether `child` is `parent` or lies below it (paths already resolved). */
export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

export async function lstatOrUndefined(file: string): Promise<import('node:fs').Stats | undefined> {
  try {
    return await fs.lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
}

/** The sentence for each way a write can fail, by system error code; others get the generic one with the code. */
const WRITE_FAILURES: Readonly<Record<string, MessageId>> = {
  ENOSPC: 'writeDiskFull',
  EDQUOT: 'writeQuota',
  EFBIG: 'writeFileTooBig',
  EACCES: 'writeNoPermission',
  EPERM: 'writeNoPermission',
  EROFS: 'writeReadOnly',
  ENOTDIR: 'writeNotAFolder',
  EEXIST: 'writeNotAFolder',
};

/**
 * A failed write as the user's message: what happened in plain words and where. Always a failure
 * (code `fileSystem`), never a cancellation: only the user's own cancel is that.
 */
export function fileSystemError(error: unknown, folder: string): LabApiError {
  if (error instanceof LabApiError) {
    return error;
  }
  const code = (error as NodeJS.ErrnoException).code;
  const id = code === undefined ? undefined : WRITE_FAILURES[code];
  return id
    ? labError('fileSystem', id, { folder }, { detail: code })
    : labError(
        'fileSystem',
        'writeFailed',
        { folder, reason: code ?? 'unknown error' },
        { detail: code },
      );
}

/** Counts, hashes and checks the bytes on their way to disk, in the same pass. */
class WriteMonitor {
  bytes = 0;
  readonly hash = createHash('sha256');
  private head: Buffer | undefined = Buffer.alloc(0);

  constructor(private readonly options: SafeWriteOptions) {}

  /** Takes one chunk; throws when the file is too large or does not start as it must. */
  take(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.options.expectedBytes !== undefined && this.bytes > this.options.expectedBytes) {
      throw labError('invalidResponse', 'transferLonger', { expected: this.options.expectedBytes });
    }
    if (this.options.maxBytes !== undefined && this.bytes > this.options.maxBytes) {
      throw labError('invalidResponse', 'fileTooLargeGeneric', {
        mib: Math.round(this.options.maxBytes / 1024 / 1024),
      });
    }
    if (this.head !== undefined) {
      this.head =
        this.head.length === 0 && chunk.length >= HEAD_BYTES
          ? chunk.subarray(0, HEAD_BYTES)
          : Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
      if (this.head.length >= HEAD_BYTES) {
        this.checkHead();
      }
    }
    this.hash.update(chunk);
    this.options.onProgress?.(this.bytes, this.options.expectedBytes);
  }

  /** The end of the body: a file shorter than the head is checked now. */
  finish(): void {
    if (this.head !== undefined) {
      this.checkHead();
    }
  }

  private checkHead(): void {
    const head = this.head!;
    this.head = undefined;
    const problem = this.options.checkHead?.(head);
    if (problem) {
      throw problem;
    }
  }
}

/** Writes buffers at the end of the file, again for whatever a short write left. */
async function writeAll(handle: FileHandle, buffers: Buffer[], total: number): Promise<void> {
  let { bytesWritten } = await handle.writev(buffers);
  while (bytesWritten < total) {
    const rest = Buffer.concat(buffers).subarray(bytesWritten);
    bytesWritten += (await handle.write(rest)).bytesWritten;
  }
}

/**
 * Streams `source` into `handle`: every chunk counted, checked and hashed as it arrives; writes
 * gathered into batches, one batch written while the next arrives (the source pauses only when a
 * second batch is full before the first is on disk). Chunks are taken as they come ('data'), never
 * re-joined by a reader.
 */
function streamInto(
  handle: FileHandle,
  source: SafeWriteOptions['source'],
  monitor: WriteMonitor,
  signal?: AbortSignal,
): Promise<void> {
  const stream =
    source instanceof Readable
      ? source
      : Readable.from(source as AsyncIterable<Uint8Array>, { objectMode: false });
  return new Promise<void>((resolve, reject) => {
    let batch: Buffer[] = [];
    let batchBytes = 0;
    let writing: Promise<void> | undefined;
    let failed = false;
    const fail = (error: unknown): void => {
      if (!failed) {
        failed = true;
        cleanup();
        // Destroying a response body makes it emit its abort as an error: heard here, not thrown at the process.
        stream.on('error', () => undefined);
        stream.destroy();
        // Settle only once no write is in flight, so the caller may close and remove the file.
        void (writing ?? Promise.resolve()).catch(() => undefined).then(() => reject(error));
      }
    };
    const write = (): void => {
      const buffers = batch;
      const bytes = batchBytes;
      batch = [];
      batchBytes = 0;
      writing = writeAll(handle, buffers, bytes).then(
        () => {
          writing = undefined;
          if (batchBytes >= WRITE_BATCH_BYTES) {
            write();
          }
          stream.resume();
        },
        (error: unknown) => {
          writing = undefined;
          fail(error);
        },
      );
    };
    const onData = (chunk: Buffer): void => {
      try {
        monitor.take(chunk);
      } catch (error) {
        fail(error);
        return;
      }
      batch.push(chunk);
      batchBytes += chunk.length;
      if (batchBytes >= WRITE_BATCH_BYTES) {
        if (writing) {
          stream.pause();
        } else {
          write();
        }
      }
    };
    const onEnd = (): void => void finish();
    const finish = async (): Promise<void> => {
      try {
        monitor.finish();
        await writing;
        if (batchBytes > 0) {
          await writeAll(handle, batch, batchBytes);
        }
        cleanup();
        resolve();
      } catch (error) {
        fail(error);
      }
    };
    // A source that goes silent still stops at once when the user cancels.
    const onAbort = (): void => fail(cancelledError());
    const onError = (error: Error): void => fail(error);
    const onClose = (): void => {
      if (!stream.readableEnded) {
        fail(
          Object.assign(new Error('the transfer ended early'), {
            code: 'ERR_STREAM_PREMATURE_CLOSE',
          }),
        );
      }
    };
    const cleanup = (): void => {
      signal?.removeEventListener('abort', onAbort);
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    if (signal?.aborted) {
      fail(cancelledError());
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    stream.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
    // The source may have failed or closed before these listeners existed (a server that sent the
    // headers, part of the body and its FIN in one burst: the body broke off while the folder was
    // being prepared). Its events are gone, its state is not: judge it by that.
    if (stream.errored) {
      fail(stream.errored);
    } else if (stream.readableEnded) {
      onEnd();
    } else if (stream.destroyed) {
      onClose();
    }
  });
}

/**
 * Creates `folder` when missing, resolves its links and checks it lies inside `root`. With a root,
 * the check comes first and goes one component at a time: each is created only after the one
 * before it was found inside the root, so a link anywhere along the path can never make us create
 * a folder elsewhere.
 */
export async function prepareFolder(folder: string, root?: string): Promise<PreparedFolder> {
  try {
    if (root === undefined) {
      await fs.mkdir(folder, { recursive: true });
      return { requested: folder, resolved: await fs.realpath(folder) };
    }
    const realRoot = await fs.realpath(root);
    const relative = path.relative(path.resolve(root), path.resolve(folder));
    if (relative.startsWith('..') || path.isAbsolute(relative)) {
      throw labError('fileSystem', 'writeOutsideRoot', { folder, root });
    }
    let current = realRoot;
    for (const part of relative.split(path.sep).filter((segment) => segment !== '')) {
      current = await enterFolder(path.join(current, part), realRoot, folder, root);
    }
    return { requested: folder, resolved: current };
  } catch (error) {
    throw fileSystemError(error, folder);
  }
}

/** Steps into one component of a path under `realRoot`: created when missing, a link followed only when it stays inside. */
async function enterFolder(
  next: string,
  realRoot: string,
  folder: string,
  root: string,
): Promise<string> {
  let stat = await lstatOrUndefined(next);
  if (!stat) {
    await fs.mkdir(next).catch((error: unknown) => {
      // Someone else made it meanwhile: look at what it is below.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw error;
      }
    });
    stat = await fs.lstat(next);
  }
  let resolved = next;
  if (stat.isSymbolicLink()) {
    resolved = await fs.realpath(next);
    if (!isInside(resolved, realRoot)) {
      throw labError('fileSystem', 'writeOutsideRoot', { folder, root });
    }
    stat = await fs.stat(resolved);
  }
  if (!stat.isDirectory()) {
    throw Object.assign(new Error(`${next} is not a folder`), { code: 'ENOTDIR' });
  }
  return resolved;
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

/** `name (n).ext`: the name a kept-both file gets. */
export function numberedFileName(fileName: string, n: number): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? `${fileName.slice(0, dot)} (${n})${fileName.slice(dot)}` : `${fileName} (${n})`;
}

/** Where a safe write or copy goes, checked before a byte is written. */
export interface WriteTarget {
  /** The sanitised name. */
  readonly fileName: string;
  readonly policy: ExistingFilePolicy;
  readonly prepared: PreparedFolder;
  /** The folder, links resolved. */
  readonly folder: string;
  /** A new temporary name beside the target. */
  readonly temp: string;
}

/** This process's own part of temporary names (random), and a count for each name it makes. */
const TEMPORARY_PREFIX = randomBytes(4).toString('hex');
let temporaryCount = 0;

/** A part of a temporary file's name no other process or call uses (the file is also created exclusively). */
function temporarySuffix(): string {
  return `${TEMPORARY_PREFIX}${(temporaryCount++).toString(36)}`;
}

/**
 * The checks both {@link writeFileSafely} and `copyFileSafely` make first: a sanitised name that
 * cannot leave its folder, the folder prepared (inside `root`), and, to overwrite, nothing but a
 * file in the way. "fail" and "keepBoth" commit with a hard link, which refuses whatever stands at
 * the name (a symbolic link included); only "overwrite" replaces, so only it looks first (and again
 * at commit): a link or a folder in the way is never replaced.
 */
export async function prepareTarget(options: {
  readonly folder: string | PreparedFolder;
  readonly fileName: string;
  readonly root?: string;
  readonly ifExists?: ExistingFilePolicy;
  readonly signal?: AbortSignal;
}): Promise<WriteTarget> {
  const fileName = sanitizeFileName(options.fileName);
  const policy = options.ifExists ?? 'fail';
  if (options.signal?.aborted) {
    throw cancelledError();
  }
  const prepared =
    typeof options.folder === 'string'
      ? await prepareFolder(options.folder, options.root)
      : options.folder;
  const folder = prepared.resolved;
  const target = path.join(folder, fileName);
  if (path.dirname(target) !== folder) {
    throw labError('fileSystem', 'writeBadName', { name: fileName });
  }
  if (policy === 'overwrite') {
    const existing = await lstatOrUndefined(target).catch((error: unknown) => {
      throw fileSystemError(error, folder);
    });
    if (existing && !existing.isFile()) {
      throw labError('fileSystem', 'writeInTheWay', { name: fileName });
    }
  }
  const temp = path.join(folder, `.${fileName}.${temporarySuffix()}.part`);
  return { fileName, policy, prepared, folder, temp };
}

/**
 * The one way this project writes a file: streamed into a temporary file in the destination folder,
 * counted, hashed and checked, flushed, then renamed into place. On any failure or cancellation the
 * temporary file is removed and an existing file of the same name is untouched. Links are never
 * followed: a target that is a symbolic link is refused, and the folder must resolve inside `root`.
 */
export async function writeFileSafely(options: SafeWriteOptions): Promise<SavedFile> {
  const { fileName, policy, prepared, folder, temp } = await prepareTarget(options);
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(
      temp,
      fsConstants.O_WRONLY |
        fsConstants.O_CREAT |
        fsConstants.O_EXCL |
        (fsConstants.O_NOFOLLOW ?? 0),
      0o644,
    );
    const monitor = new WriteMonitor(options);
    await streamInto(handle, options.source, monitor, options.signal);
    if (options.expectedBytes !== undefined && monitor.bytes !== options.expectedBytes) {
      throw labError('network', 'transferShort', {
        received: monitor.bytes,
        expected: options.expectedBytes,
      });
    }
    // No fsync: the temporary file and the atomic rename mean no crash of VS Code or of this
    // extension ever leaves a partial file under the final name; the manifest's SHA-256 lets
    // "Verify Saved Reports" find a file a power cut damaged (docs/saving-and-provenance.md, "Durability").
    await handle.close();
    handle = undefined;
    const sha256 = monitor.hash.digest('hex');
    const refused = options.checkSha256?.(sha256);
    if (refused) {
      throw refused;
    }
    const finalName = await commit(temp, folder, fileName, policy);
    const finalPath = path.join(folder, finalName);
    // Read after closing: on network shares closing can still move the time (the writes reach the server then).
    const mtimeMs =
      options.recordTime === false
        ? undefined
        : (await fs.stat(finalPath).catch(() => undefined))?.mtimeMs;
    return {
      path: finalPath,
      fileName: finalName,
      bytes: monitor.bytes,
      sha256,
      ...(mtimeMs !== undefined ? { mtimeMs } : {}),
    };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.unlink(temp).catch(() => undefined);
    if (options.signal?.aborted || (error instanceof Error && error.name === 'AbortError')) {
      throw cancelledError();
    }
    if (error instanceof LabApiError) {
      throw error;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code && /^(UND_ERR|ECONNRESET|EPIPE|ERR_STREAM_PREMATURE_CLOSE)/.test(code)) {
      throw labError(
        code === 'UND_ERR_BODY_TIMEOUT' ? 'timeout' : 'network',
        'transferBroken',
        {},
        { detail: code },
      );
    }
    throw fileSystemError(error, prepared.requested);
  }
}

export async function commit(
  temp: string,
  folder: string,
  fileName: string,
  policy: ExistingFilePolicy,
): Promise<string> {
  if (policy === 'overwrite') {
    const existing = await lstatOrUndefined(path.join(folder, fileName));
    if (existing && !existing.isFile()) {
      throw labError('fileSystem', 'writeInTheWay', { name: fileName });
    }
    await fs.rename(temp, path.join(folder, fileName));
    return fileName;
  }
  const candidates =
    policy === 'fail'
      ? [fileName]
      : [fileName, ...Array.from({ length: 99 }, (_, i) => numberedFileName(fileName, i + 1))];
  for (const candidate of candidates) {
    if (await linkNoClobber(temp, path.join(folder, candidate))) {
      await fs.unlink(temp).catch(() => undefined);
      return candidate;
    }
  }
  throw labError('fileExists', 'writeExists', { name: fileName, folder });
}
