import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/**
 * The SHA-256 of a file as its bytes stream past, in order. A large file is hashed on a worker
 * thread, beside the network and the disk instead of between them (on a machine of two cores the
 * hash is otherwise the limit of one large download: about 0.8 s of CPU per GiB); a small one on
 * the calling thread, where a message to another thread would cost more than the hash.
 */
export interface Sha256Stream {
  /** Where the hashing happens (for the log and tests). */
  readonly thread: 'worker' | 'caller';
  /** Takes the next bytes (held by reference until hashed or copied: they must not change meanwhile). */
  update(chunk: Buffer): void;
  /** Whether enough bytes wait to be hashed that the source should pause; see {@link whenReady}. */
  readonly saturated: boolean;
  /** Calls `listener` once, when the stream is no longer saturated. */
  whenReady(listener: () => void): void;
  /** The hex digest of every byte taken. */
  digest(): Promise<string>;
  /** Forgets the bytes taken (a failed or cancelled file); the stream cannot be used after this. */
  dispose(): void;
}

/** From this size on a file is hashed on the worker thread. */
export const OFF_THREAD_SHA256_BYTES = 8 * 1024 * 1024;
/** Bytes handed to the worker in one message: one slot of a stream's ring. */
const SLOT_BYTES = 1024 * 1024;
/**
 * Slots in a stream's ring of shared memory. What waits for the worker is bounded by the ring
 * (8 MiB a large file), and the ring is reused, so a 1 GiB file makes no garbage on its way.
 */
const SLOTS = 8;

/** A stream hashed on this thread. */
export function sha256Here(): Sha256Stream {
  const hash = createHash('sha256');
  return {
    thread: 'caller',
    update: (chunk) => void hash.update(chunk),
    saturated: false,
    whenReady: (listener) => listener(),
    digest: () => Promise.resolve(hash.digest('hex')),
    dispose: () => undefined,
  };
}

/**
 * A stream for a file of `expectedBytes` (when known): on the worker thread from
 * {@link OFF_THREAD_SHA256_BYTES} on, where the runtime has worker threads; on this thread otherwise.
 */
export function sha256For(expectedBytes: number | undefined): Sha256Stream {
  if (expectedBytes === undefined || expectedBytes < OFF_THREAD_SHA256_BYTES) {
    return sha256Here();
  }
  const worker = HashWorker.shared();
  return worker ? worker.open() : sha256Here();
}

/** The worker holds a few small objects a stream: a small heap keeps its memory small too. */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 32 };

type ToWorker = { readonly id: number; readonly ring?: SharedArrayBuffer; readonly slot?: number; readonly length?: number; readonly end?: true; readonly drop?: true };
type FromWorker = { readonly id: number; readonly slot?: number; readonly digest?: string };

/**
 * The worker's whole program: one hash per open stream, fed slot by slot from the stream's ring in
 * order, each slot given back once hashed. Evaluated from this string so it travels inside every
 * bundle (the extension's, the command-line tool's) without a file of its own to find.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const streams = new Map();
parentPort.on('message', (message) => {
  if (message.drop) { streams.delete(message.id); return; }
  if (message.ring) { streams.set(message.id, { ring: message.ring, hash: createHash('sha256') }); return; }
  const stream = streams.get(message.id);
  if (!stream) { return; }
  if (message.slot !== undefined) {
    stream.hash.update(new Uint8Array(stream.ring, message.slot * ${SLOT_BYTES}, message.length));
    parentPort.postMessage({ id: message.id, slot: message.slot });
  }
  if (message.end) {
    streams.delete(message.id);
    parentPort.postMessage({ id: message.id, digest: stream.hash.digest('hex') });
  }
});
`;

/** One worker thread for the process, shared by every large file being saved; idle, it never keeps the process alive. */
class HashWorker {
  private static instance: HashWorker | undefined;
  private static unavailable = false;
  private readonly streams = new Map<number, WorkerStream>();
  private nextId = 1;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: FromWorker) => this.streams.get(message.id)?.heard(message));
    const fail = (error: Error): void => {
      HashWorker.instance = undefined;
      for (const stream of this.streams.values()) {
        stream.failed(error);
      }
      this.streams.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the hashing thread stopped (exit code ${code})`)));
    // Idle until a stream opens (after the listeners: adding a 'message' listener refs the worker again).
    worker.unref();
  }

  /** The process's worker, started on first use; undefined where worker threads cannot start. */
  static shared(): HashWorker | undefined {
    if (!HashWorker.instance && !HashWorker.unavailable) {
      try {
        HashWorker.instance = new HashWorker(new Worker(WORKER_SOURCE, { eval: true, resourceLimits: WORKER_LIMITS }));
      } catch {
        HashWorker.unavailable = true;
      }
    }
    return HashWorker.instance;
  }

  /** A new stream; while any is open the worker keeps the process alive (a digest is awaited), idle it does not. */
  open(): WorkerStream {
    const id = this.nextId++;
    const stream = new WorkerStream(id, (message) => this.worker.postMessage(message), () => this.closed(id));
    this.streams.set(id, stream);
    this.worker.ref();
    return stream;
  }

  private closed(id: number): void {
    if (this.streams.delete(id) && this.streams.size === 0) {
      this.worker.unref();
    }
  }
}

/**
 * A stream hashed on the worker: bytes are copied into the next free slot of a ring of shared
 * memory (one copy, into memory already there) and the worker hashes the slot where it lies. The
 * ring full means the worker is behind: {@link saturated} until it gives a slot back.
 */
class WorkerStream implements Sha256Stream {
  readonly thread = 'worker';
  private readonly ring = new SharedArrayBuffer(SLOT_BYTES * SLOTS);
  private readonly busy = new Array<boolean>(SLOTS).fill(false);
  /** The slot being filled, and how far. */
  private slot = 0;
  private filled = 0;
  /** Bytes taken while every slot was busy (at most what arrived before the source paused). */
  private waiting: Buffer[] = [];
  private readyListeners: Array<() => void> = [];
  private result: { resolve(digest: string): void; reject(error: Error): void } | undefined;
  private ending = false;
  private error: Error | undefined;

  constructor(
    private readonly id: number,
    private readonly post: (message: ToWorker) => void,
    private readonly close: () => void,
  ) {
    post({ id, ring: this.ring });
  }

  get saturated(): boolean {
    return this.waiting.length > 0 || this.busy[this.slot] === true;
  }

  update(chunk: Buffer): void {
    if (this.saturated) {
      this.waiting.push(chunk);
    } else {
      this.copyIn(chunk);
    }
  }

  whenReady(listener: () => void): void {
    if (this.saturated && !this.error) {
      this.readyListeners.push(listener);
    } else {
      listener();
    }
  }

  digest(): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      if (this.error) {
        reject(this.error);
        return;
      }
      this.result = { resolve, reject };
      this.ending = true;
      this.finishIfDone();
    });
  }

  dispose(): void {
    this.waiting = [];
    this.readyListeners = [];
    this.close();
    this.post({ id: this.id, drop: true });
  }

  /** A message of the worker's about this stream. */
  heard(message: FromWorker): void {
    if (message.slot !== undefined) {
      this.busy[message.slot] = false;
      // Bytes that waited for a slot go in first, in order.
      const waiting = this.waiting;
      this.waiting = [];
      for (const chunk of waiting) {
        this.update(chunk);
      }
      if (!this.saturated) {
        const listeners = this.readyListeners;
        this.readyListeners = [];
        listeners.forEach((listener) => listener());
      }
      this.finishIfDone();
    }
    if (message.digest !== undefined) {
      this.close();
      this.result?.resolve(message.digest);
    }
  }

  failed(error: Error): void {
    this.error = error;
    this.result?.reject(error);
    const listeners = this.readyListeners;
    this.readyListeners = [];
    listeners.forEach((listener) => listener());
  }

  /** Copies a chunk into the ring, handing each slot over as it fills; what finds no free slot waits. */
  private copyIn(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.busy[this.slot]) {
        this.waiting.push(chunk.subarray(offset));
        return;
      }
      const target = new Uint8Array(this.ring, this.slot * SLOT_BYTES + this.filled, SLOT_BYTES - this.filled);
      const taken = Math.min(target.length, chunk.length - offset);
      target.set(chunk.subarray(offset, offset + taken));
      offset += taken;
      this.filled += taken;
      if (this.filled === SLOT_BYTES) {
        this.handOver();
      }
    }
  }

  /** Gives the slot being filled to the worker and moves on to the next. */
  private handOver(): void {
    if (this.filled === 0) {
      return;
    }
    this.busy[this.slot] = true;
    this.post({ id: this.id, slot: this.slot, length: this.filled });
    this.slot = (this.slot + 1) % SLOTS;
    this.filled = 0;
  }

  /** Once asked for the digest and nothing waits for a slot: the last, partly filled slot, then the end. */
  private finishIfDone(): void {
    if (!this.ending || this.waiting.length > 0 || this.busy[this.slot]) {
      return;
    }
    this.ending = false;
    this.handOver();
    this.post({ id: this.id, end: true });
  }
}
