import { cancelledError } from '../errors/messages';

/*
 * Generic async helpers the whole core uses: waiting, limiting how many tasks run at once, passing
 * calls on at most so often, and sharing one result per key. Nothing here knows about HTTP or labs.
 */

/** Waits `ms` milliseconds, or rejects with a cancellation error as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) {
    return Promise.reject(cancelledError());
  }
  if (ms <= 0) {
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Limits how many tasks run at once; waiting tasks leave the queue when their signal aborts. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`concurrency limit must be a positive integer, got ${limit}`);
    }
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) {
      return Promise.reject(cancelledError());
    }
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve();
      };
      const onAbort = (): void => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) {
          this.waiting.splice(index, 1);
        }
        reject(cancelledError());
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

/**
 * Passes calls on at most once per `intervalMs` (the first at once); `flush()` passes the latest
 * call held back. Progress goes through this, so a display is told at most ten times a second
 * however many chunks or files there are. The interval counts from when a call has returned, so a
 * slow display (or a pause while it is told) never hears twice within one interval.
 */
export class Throttle {
  private last = Number.NEGATIVE_INFINITY;
  private pending = false;

  constructor(
    private readonly intervalMs: number,
    private readonly call: () => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Something changed: tell the display now if it has not been told within the interval. */
  poke(): void {
    const now = this.now();
    if (now - this.last >= this.intervalMs) {
      this.pending = false;
      this.tell();
    } else {
      this.pending = true;
    }
  }

  /** Tells the display the final state if a change was held back. */
  flush(): void {
    if (this.pending) {
      this.pending = false;
      this.tell();
    }
  }

  private tell(): void {
    try {
      this.call();
    } finally {
      this.last = this.now();
    }
  }
}

/**
 * `work(item, index)` for every item, at most `concurrency` at a time, results in the items' order;
 * stops taking items once `signal` is aborted (what is under way finishes or fails on its own).
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker),
  );
  return results;
}

/** `make` called once per key; later calls with the key get the first result (a promise is shared, not repeated). */
export function oncePerKey<T>(make: (key: string) => T): (key: string) => T {
  const made = new Map<string, T>();
  return (key) => {
    if (!made.has(key)) {
      made.set(key, make(key));
    }
    return made.get(key)!;
  };
}
