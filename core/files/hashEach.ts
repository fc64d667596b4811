import { createHash, hash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** How long the files may keep the event loop waiting: it turns at least this often. */
const SLICE_MS = 8;

/** Bytes read at once: a report-sized file is one read. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * One buffer for every read: reused, so ten thousand files cost no ten thousand fresh buffers. Safe
 * to share: each chunk is hashed before the next await, so no other caller can read into it between.
 */
let chunk: Buffer | undefined;

/**
 * Opened without blocking where the platform allows: a named pipe put where a report was opens at
 * once (and is then refused as not a file) instead of waiting for a writer with the loop stopped.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Hands out the time the hashing may take the event loop: `due()` says whether a slice is over,
 * `turn()` lets the loop turn and starts the next slice (and throws once `signal` is aborted).
 */
export class Slices {
  private started = performance.now();

  constructor(private readonly signal?: AbortSignal) {}

  get aborted(): boolean {
    return this.signal?.aborted === true;
  }

  due(): boolean {
    return performance.now() - this.started >= SLICE_MS;
  }

  async turn(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.signal?.throwIfAborted();
    this.started = performance.now();
  }
}

/**
 * The SHA-256 of an open file read from its start to its end, every byte, in synchronous reads
 * into one reused buffer, the event loop turning between slices (a file of a gigabyte keeps it
 * waiting a few milliseconds at a time, not a second). `size` is the file's size when it was
 * opened: reading ends at a read that comes back short once at least that much is read, so a file
 * that grows meanwhile is read on, and a report-sized file takes one read and one one-shot hash.
 */
export async function sha256OfOpenFile(fd: number, size: number, slices: Slices): Promise<string> {
  chunk ??= Buffer.allocUnsafeSlow(CHUNK_BYTES);
  let read = readSync(fd, chunk, 0, CHUNK_BYTES, 0);
  if (read < CHUNK_BYTES && read >= size) {
    return hash('sha256', chunk.subarray(0, read), 'hex');
  }
  const sha256 = createHash('sha256');
  let total = 0;
  while (read > 0) {
    sha256.update(chunk.subarray(0, read));
    total += read;
    if (read < CHUNK_BYTES && total >= size) {
      break;
    }
    if (slices.due()) {
      await slices.turn();
    }
    read = readSync(fd, chunk, 0, CHUNK_BYTES, total);
  }
  return sha256.digest('hex');
}

/**
 * The SHA-256 of each file's bytes, read to their end, in the files' order; undefined where there
 * is no file to read (nothing there, a folder, a pipe or device, no permission, a path not given).
 * Synchronous reads in slices of a few milliseconds, with a turn of the event loop between two:
 * ten thousand small files cost what their bytes cost, where a stream or a promise a file cost ten
 * times as much in round trips through libuv's thread pool (the hashing itself never leaves this
 * thread either way). Rejects with an AbortError once `signal` is aborted.
 */
export async function sha256Each(
  files: ReadonlyArray<string | undefined>,
  options: { readonly signal?: AbortSignal; readonly onHashed?: () => void } = {},
): Promise<Array<string | undefined>> {
  const slices = new Slices(options.signal);
  options.signal?.throwIfAborted();
  const hashes: Array<string | undefined> = new Array<undefined>(files.length).fill(undefined);
  for (let index = 0; index < files.length; index++) {
    if (slices.due()) {
      await slices.turn();
    }
    const file = files[index];
    if (file !== undefined) {
      hashes[index] = await sha256OfFile(file, slices);
    }
    options.onHashed?.();
  }
  return hashes;
}

async function sha256OfFile(file: string, slices: Slices): Promise<string | undefined> {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    return stats.isFile() ? await sha256OfOpenFile(fd, stats.size, slices) : undefined;
  } catch (error) {
    if (slices.aborted) {
      throw error;
    }
    // EIO, EISDIR and the like: no bytes to vouch for, as for a file not there.
    return undefined;
  } finally {
    closeSync(fd);
  }
}
