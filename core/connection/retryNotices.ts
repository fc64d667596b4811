import type { LabApiError } from '../errors/errors';

/**
 * One retry a client is about to make after a failed attempt, so that work a person watches
 * (Save All, Sync) can say it in its progress instead of seeming to hang: "Main lab did not
 * answer; trying again (2 of 3)…".
 */
export interface RetryNotice {
  /** The lab's name, or its host when it has none. */
  readonly lab: string;
  /** The path the attempt asked for (never the query's secrets: there are none in it). */
  readonly path: string;
  /** What the failed attempt did. */
  readonly error: LabApiError;
  /** Which retry this is, from 1. */
  readonly attempt: number;
  /** The most retries a request gets. */
  readonly of: number;
  /** How long until it is made. */
  readonly delayMs: number;
}

export type RetryListener = (notice: RetryNotice) => void;

/**
 * Who hears of a client's retries: the listener it was built with, and those a run adds for as
 * long as it runs ({@link RetryNotices.listen} gives back the function that removes one).
 */
export class RetryNotices {
  private readonly listeners = new Set<RetryListener>();

  constructor(initial?: RetryListener) {
    if (initial) {
      this.listeners.add(initial);
    }
  }

  /** Adds `listener` until the returned function is called. */
  listen(listener: RetryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener; one that throws is not allowed to stop the request. */
  notify(notice: RetryNotice): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(notice);
      } catch {
        // A listener's failure is its own; the retry goes on.
      }
    }
  }
}

/** What kind of failure a retry follows, for the words of a progress line. */
export function retryCause(
  notice: RetryNotice,
): 'noAnswer' | 'rateLimited' | 'status' | 'unreachable' {
  const { error } = notice;
  if (error.code === 'rateLimited') {
    return 'rateLimited';
  }
  if (error.code === 'timeout') {
    return 'noAnswer';
  }
  return error.status !== undefined ? 'status' : 'unreachable';
}
