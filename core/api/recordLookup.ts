import { LabApiError } from '../errors/errors';
import type { JsonObject, Report } from './records';
import { errorText } from '../errors/errorText';

/** What a lookup found: the record, that the lab has no such record, or why it could not ask. */
export type LookupResult<T> =
  | { readonly kind: 'found'; readonly record: T }
  | { readonly kind: 'notFound' }
  | { readonly kind: 'unavailable'; readonly reason: string };

/** Shared by every lab's lookups: at most `perSecond` requests in any second, in total. */
export class RequestBudget {
  private readonly recent: number[] = [];

  constructor(
    private readonly perSecond = 4,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request from the budget, or says no. */
  take(): boolean {
    const now = this.now();
    while (this.recent.length > 0 && this.recent[0]! <= now - 1000) {
      this.recent.shift();
    }
    if (this.recent.length >= this.perSecond) {
      return false;
    }
    this.recent.push(now);
    return true;
  }
}

export interface LookupOptions {
  /** How long an answer (found or not found) is kept: 10 minutes. */
  readonly ttlMs?: number;
  /** How long a failure (unreachable, rate-limited) is kept before the lab is asked again: 1 minute. */
  readonly failureTtlMs?: number;
  /** Most records remembered. */
  readonly maxEntries?: number;
  readonly budget: RequestBudget;
  /** True while the lab must not be asked (rate-limited, offline, signed out). */
  readonly paused: () => string | undefined;
  readonly now?: () => number;
}

interface Entry<T> {
  readonly result: LookupResult<T>;
  readonly until: number;
}

/**
 * Looks records up by id for hovers and links, so that text never costs the lab more than one
 * request per id in ten minutes: answers are cached (found and not found), records the lab listed
 * anyway (views, searches, syncs) are taken as found, concurrent lookups of one id share one
 * request, every lookup draws on a shared per-second budget, and none is made while the lab is paused.
 */
export class RecordLookup<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly inFlight = new Map<string, Promise<LookupResult<T>>>();
  private readonly ttl: number;
  private readonly failureTtl: number;
  private readonly max: number;
  private readonly now: () => number;
  /** Requests made, for diagnostics and tests. */
  requests = 0;

  constructor(
    private readonly fetch: ((id: string, signal?: AbortSignal) => Promise<T>) | undefined,
    private readonly options: LookupOptions,
  ) {
    this.ttl = options.ttlMs ?? 10 * 60_000;
    this.failureTtl = options.failureTtlMs ?? 60_000;
    this.max = options.maxEntries ?? 20_000;
    this.now = options.now ?? Date.now;
  }

  /** Records the lab listed: known without asking. */
  remember(records: ReadonlyArray<readonly [string, T]>): void {
    for (const [id, record] of records) {
      this.store(id, { kind: 'found', record }, this.ttl);
    }
  }

  /** The cached answer, without asking the lab. */
  peek(id: string): LookupResult<T> | undefined {
    const entry = this.entries.get(id);
    if (entry && entry.until > this.now()) {
      return entry.result;
    }
    if (entry) {
      this.entries.delete(id);
    }
    return undefined;
  }

  /** The record of `id`: from the cache, else one request when the budget and the lab allow it. */
  lookup(id: string, signal?: AbortSignal): Promise<LookupResult<T>> {
    const cached = this.peek(id);
    if (cached) {
      return Promise.resolve(cached);
    }
    const running = this.inFlight.get(id);
    if (running) {
      return running;
    }
    if (!this.fetch) {
      return Promise.resolve({
        kind: 'unavailable',
        reason: 'this lab cannot look records of this kind up one by one',
      });
    }
    const paused = this.options.paused();
    if (paused !== undefined) {
      return Promise.resolve({ kind: 'unavailable', reason: paused });
    }
    if (!this.options.budget.take()) {
      return Promise.resolve({
        kind: 'unavailable',
        reason: 'too many lookups right now; hover again in a moment',
      });
    }
    this.requests++;
    const fetch = this.fetch;
    const request = (async (): Promise<LookupResult<T>> => {
      try {
        const result: LookupResult<T> = { kind: 'found', record: await fetch(id, signal) };
        this.store(id, result, this.ttl);
        return result;
      } catch (error) {
        if (error instanceof LabApiError && error.code === 'notFound') {
          this.store(id, { kind: 'notFound' }, this.ttl);
          return { kind: 'notFound' };
        }
        const result: LookupResult<T> = {
          kind: 'unavailable',
          reason: errorText(error),
        };
        if (!signal?.aborted) {
          this.store(id, result, this.failureTtl);
        }
        return result;
      } finally {
        this.inFlight.delete(id);
      }
    })();
    this.inFlight.set(id, request);
    return request;
  }

  private store(id: string, result: LookupResult<T>, ttl: number): void {
    this.entries.delete(id);
    this.entries.set(id, { result, until: this.now() + ttl });
    if (this.entries.size > this.max) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
  }
}

/** The lookups of one lab: reports by id (one request each), samples only from what was listed. */
export interface LabLookups {
  readonly reports: RecordLookup<Report>;
  readonly samples: RecordLookup<JsonObject>;
}
