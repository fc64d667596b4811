import { toUtcTimestamp } from '../api/query';

/** Milliseconds since the epoch of a server timestamp, or undefined when it is missing or unreadable. */
export function timeOf(value: string | undefined): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}

/** Whether a report published at `publishedAt` came after `seenThrough` (reports without a readable date never count as new). */
export function publishedAfter(publishedAt: string | undefined, seenThrough: string): boolean {
  const published = timeOf(publishedAt);
  const seen = timeOf(seenThrough);
  return published !== undefined && seen !== undefined && published > seen;
}

/**
 * The `published_since` to ask for reports after `seenThrough`. The spec does not say whether the
 * filter is inclusive and servers differ (our mock includes the boundary), so the next whole
 * second is asked for: the report the user saw last is never counted again. A report published
 * within the same second is counted once a list shows it.
 */
export function sinceAfter(seenThrough: string): string {
  const seen = timeOf(seenThrough) ?? 0;
  return toUtcTimestamp(new Date(Math.floor(seen / 1000) * 1000 + 1000));
}

/** The later of two timestamps (either may be missing). */
export function later(a: string | undefined, b: string | undefined): string | undefined {
  const ta = timeOf(a);
  const tb = timeOf(b);
  if (ta === undefined) {
    return tb === undefined ? undefined : b;
  }
  return tb !== undefined && tb > ta ? b : a;
}

/** One lab the checker may ask, and whether it may ask it now (signed in, reachable, not rate-limited). */
export interface CheckTarget {
  readonly name: string;
  readonly ready: () => boolean;
}

export interface Timers {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface PeriodicCheckOptions {
  readonly intervalMs: number;
  /** The labs to consider at each tick (read afresh, so sign-outs take effect at once). */
  readonly targets: () => readonly CheckTarget[];
  /** Asks one lab; one request. Failures are reported, never thrown. */
  readonly check: (lab: string) => Promise<void>;
  readonly onError?: (lab: string, error: unknown) => void;
  readonly timers?: Timers;
}

/**
 * Asks every ready lab once per interval, never with two checks of one lab in flight: a lab whose
 * previous check has not finished (a slow server, a long back-off) is left out of the tick. Labs
 * that are signed out, rate-limited or unreachable are left out by their `ready()`.
 */
export class PeriodicCheck {
  private handle: unknown;
  private readonly inFlight = new Set<string>();
  private tickCount = 0;
  private readonly timers: Timers;

  constructor(private readonly options: PeriodicCheckOptions) {
    this.timers = options.timers ?? {
      setInterval: (callback, ms) => setInterval(callback, ms),
      clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
    };
  }

  /** Ticks so far (each may ask several labs). */
  get ticks(): number {
    return this.tickCount;
  }

  start(): void {
    this.stop();
    this.handle = this.timers.setInterval(() => void this.tick(), this.options.intervalMs);
    (this.handle as { unref?: () => void } | undefined)?.unref?.();
  }

  stop(): void {
    if (this.handle !== undefined) {
      this.timers.clearInterval(this.handle);
      this.handle = undefined;
    }
  }

  /** One round: each ready lab without a check in flight is asked once. Resolves when this round's checks end. */
  async tick(): Promise<void> {
    this.tickCount++;
    const due = this.options
      .targets()
      .filter((target) => !this.inFlight.has(target.name) && target.ready());
    await Promise.all(
      due.map(async ({ name }) => {
        this.inFlight.add(name);
        try {
          await this.options.check(name);
        } catch (error) {
          this.options.onError?.(name, error);
        } finally {
          this.inFlight.delete(name);
        }
      }),
    );
  }
}
