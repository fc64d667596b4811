import { cancelledError } from '../errors/messages';

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

/** Retry and back-off settings; the defaults are docs/lab-api.md's "Rate limits, retries and timeouts". */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A `Retry-After` longer than this fails fast instead of waiting. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

/** Statuses worth another try; every request is a GET, so retrying is always safe. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** Exponential back-off (base × 2^attempt, capped) with 50–100 % jitter. `attempt` counts from 0. */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling * (0.5 + 0.5 * random()));
}

/**
 * Reads a `Retry-After` (delta seconds or HTTP-date) or `retry-after-ms` value into milliseconds
 * from `now`. Returns undefined for a missing or unreadable value; a date in the past gives 0.
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number = Date.now(),
  retryAfterMs?: string,
): number | undefined {
  const parsed = parseRetryAfterUnbounded(value, now, retryAfterMs);
  return parsed === undefined ? undefined : Math.min(parsed, MAX_RETRY_AFTER_MS);
}

/** The longest wait a `Retry-After` can ask for: a week. Anything longer (or absurd) is read as a week. */
export const MAX_RETRY_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

function parseRetryAfterUnbounded(
  value: string | undefined,
  now: number,
  retryAfterMs?: string,
): number | undefined {
  if (retryAfterMs !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(retryAfterMs)) {
    return Math.ceil(Number(retryAfterMs));
  }
  if (value === undefined) {
    return undefined;
  }
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) {
    return Math.ceil(Number(text) * 1000);
  }
  // An HTTP-date always names a weekday and GMT; Date.parse alone accepts far too much.
  if (/^[A-Za-z]{3},\s+\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{2}:\d{2}:\d{2}\s+GMT$/.test(text)) {
    const at = Date.parse(text);
    if (!Number.isNaN(at)) {
      return Math.max(0, at - now);
    }
  }
  return undefined;
}

/**
 * One rate-limit state per origin: when the lab answers 429, every request to that origin waits
 * until the same moment, instead of each caller backing off (and retrying) on its own.
 */
export class RateLimitGate {
  private resumeAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Holds every caller until `at` (epoch ms); a later pause extends, an earlier one is ignored. */
  pauseUntil(at: number): void {
    this.resumeAt = Math.max(this.resumeAt, at);
  }

  /** Epoch ms when requests may go again, or undefined when not paused. */
  pausedUntil(): number | undefined {
    return this.resumeAt > this.now() ? this.resumeAt : undefined;
  }

  /** Resolves when the origin is no longer paused. */
  async wait(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const remaining = this.resumeAt - this.now();
      if (remaining <= 0) {
        return;
      }
      await sleep(remaining, signal);
    }
  }
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
