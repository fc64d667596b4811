import { sleep } from '../async/concurrency';

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

const gatesByOrigin = new Map<string, RateLimitGate>();

/** The process-wide rate-limit state of an origin, so that every client of it pauses together. */
export function rateLimitGateFor(origin: string): RateLimitGate {
  let gate = gatesByOrigin.get(origin);
  if (!gate) {
    gate = new RateLimitGate();
    gatesByOrigin.set(origin, gate);
  }
  return gate;
}
