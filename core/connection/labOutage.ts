import { STATUS_CODES } from 'node:http';
import type { LabApiError } from '../errors/errors';
import { cancelledError, labError } from '../errors/messages';

/** Answers that say the lab as a whole is failing, not one request: 408 and the 5xx "try again" statuses. */
const LAB_WIDE_STATUSES: ReadonlySet<number> = new Set([408, 500, 502, 503, 504]);
/** Ways to the lab that fail alike for every request (not a certificate or credentials to fix, not one broken body). */
const LAB_WIDE_NETWORK: ReadonlySet<string> = new Set([
  'unreachable',
  'hostNotFound',
  'proxyUnreachable',
]);

/**
 * Whether a failed attempt says the lab as a whole is failing: a 5xx "try again" answer or a 408,
 * a timeout, a refused, dropped or unreachable connection. A 4xx is an answer (the lab is there),
 * and a body that broke off or a file that is not a PDF is one file's trouble.
 */
export function isLabWideFailure(error: LabApiError): boolean {
  if (error.status !== undefined) {
    return LAB_WIDE_STATUSES.has(error.status);
  }
  return (
    error.code === 'timeout' ||
    (error.code === 'network' && LAB_WIDE_NETWORK.has(error.text?.id ?? ''))
  );
}

/** One request as the breaker knows it: the caller makes one per request and passes it to every call. */
export interface OutageTicket {
  /** The request's path, for the error of a request that is not sent. */
  readonly path: string;
}

export interface LabOutageOptions {
  /** Failed attempts in a row (from at least two requests) that make the lab suspect. */
  readonly threshold?: number;
  /** How long requests fail at once after the lab failed a probe, before one more is let through. */
  readonly coolDownMs?: number;
  readonly now?: () => number;
  readonly log?: (level: 'info' | 'warn', message: string) => void;
  /**
   * The most a run spends on this lab while it does not answer (it fails as a whole, or asks to
   * wait), retries and `Retry-After` waits included, counted from when the first attempt that
   * failed so since the lab last answered was sent. Once spent, the lab is down for the rest of the run: every further
   * request fails at once, saying what the lab did. None by default: the extension's clients
   * outlive any one run (the tool gives each run's client one answer timeout).
   */
  readonly budgetMs?: number;
}

export const DEFAULT_OUTAGE_THRESHOLD = 3;
/** Short, so that a person's Refresh soon tries again; a bulk run fails its remaining files well within it. */
export const DEFAULT_OUTAGE_COOL_DOWN_MS = 10_000;

type Phase =
  | { readonly kind: 'closed' }
  | { readonly kind: 'probing'; readonly probe: OutageTicket }
  | { readonly kind: 'open'; readonly until: number };

/** Failures that run a budget's clock: the lab failing as a whole, or asking to wait (429). */
export function spendsBudget(error: LabApiError): boolean {
  return isLabWideFailure(error) || error.code === 'rateLimited';
}

/**
 * A circuit breaker for one lab: when its last few attempts, from more than one request, all failed
 * lab-wide ({@link isLabWideFailure}) with no answer in between, one request (the probe) goes on
 * with its own retries while every other waits for it. If the probe gives up, the lab is down:
 * every request fails at once, without being sent, with a message naming what the lab answered,
 * until the cool-down has passed (then the next request is the probe). Any answer from the lab,
 * the probe's or a request's still in flight, closes the breaker and lets everyone go on. So a lab
 * answering 503 to everything costs a bulk run a handful of requests, not four per file, and a
 * passing hiccup costs nothing but a short wait. With a budget ({@link LabOutageOptions.budgetMs}),
 * a lab that keeps failing or asks to wait longer than the budget costs the run at most the budget.
 */
export class LabOutage {
  private readonly threshold: number;
  private readonly coolDownMs: number;
  private readonly now: () => number;
  private readonly log: NonNullable<LabOutageOptions['log']>;
  /** The run's budget for this lab failing as a whole; undefined: none. */
  readonly budgetMs?: number;
  /** When the first attempt that spends the budget was sent, since the lab last answered. */
  private failingSince?: number;
  /** Why the budget ended the run's requests to this lab; from then on the lab stays down. */
  private spent?: LabApiError;
  private phase: Phase = { kind: 'closed' };
  /** Requests that failed lab-wide since the lab last answered, and their failed attempts. */
  private readonly failing = new Set<OutageTicket>();
  private failedAttempts = 0;
  private last?: LabApiError;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly origin: string,
    options: LabOutageOptions = {},
  ) {
    this.threshold = options.threshold ?? DEFAULT_OUTAGE_THRESHOLD;
    this.coolDownMs = options.coolDownMs ?? DEFAULT_OUTAGE_COOL_DOWN_MS;
    this.now = options.now ?? Date.now;
    this.log = options.log ?? (() => undefined);
    this.budgetMs = options.budgetMs;
  }

  /** `closed` (requests go), `probing` (one goes, the others wait) or `open` (requests fail at once). */
  get state(): Phase['kind'] {
    return this.phase.kind;
  }

  /**
   * Resolves when `request` may send its next attempt: at once while the lab answers; after the
   * probe's verdict while one is out. Rejects with the outage error while the lab is down, and
   * with a cancellation when `signal` aborts.
   */
  async admit(request: OutageTicket, signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) {
        throw cancelledError(request.path);
      }
      const phase = this.phase;
      if (phase.kind === 'closed') {
        return;
      }
      if (phase.kind === 'open') {
        if (this.now() < phase.until) {
          throw this.outageError(request);
        }
        this.phase = { kind: 'probing', probe: request };
        return;
      }
      if (phase.probe === request) {
        return;
      }
      await this.nextChange(signal);
    }
  }

  /** The lab answered (any status that is not a lab-wide failure): everything goes again, unless the budget is spent. */
  answered(): void {
    this.failingSince = undefined;
    this.reopen();
  }

  /**
   * Starts the budget's clock at `sentAt` (when the attempt that failed was sent) if `error` spends
   * the budget and the clock is not running from earlier. Call before {@link budgetLeftMs} decides on a retry.
   */
  clock(error: LabApiError, sentAt: number): void {
    if (this.budgetMs !== undefined && spendsBudget(error)) {
      this.failingSince = Math.min(this.failingSince ?? sentAt, sentAt);
    }
  }

  /** What is left of the budget: all of it while the lab answers; Infinity without a budget. */
  budgetLeftMs(): number {
    if (this.budgetMs === undefined) {
      return Number.POSITIVE_INFINITY;
    }
    return this.failingSince === undefined
      ? this.budgetMs
      : Math.max(0, this.budgetMs - (this.now() - this.failingSince));
  }

  /** When the budget runs out (epoch ms) while the lab fails; undefined while it answers, or without a budget. */
  budgetDeadline(): number | undefined {
    return this.budgetMs !== undefined && this.failingSince !== undefined
      ? this.failingSince + this.budgetMs
      : undefined;
  }

  /**
   * The budget ended a request with `error` (what the lab did): the lab is down for the rest of
   * the run, and every request still to come fails at once with that cause, without being sent.
   */
  exhaust(error: LabApiError): void {
    if (this.spent) {
      return;
    }
    this.spent = error;
    this.phase = { kind: 'open', until: Number.POSITIVE_INFINITY };
    this.log(
      'warn',
      `[http] the lab at ${this.origin} is not asked again in this run (budget ${Math.round((this.budgetMs ?? 0) / 1000)} s): ${error.message}`,
    );
    this.wake();
  }

  /** The error of a request admitted before the budget was spent and still waiting to be sent; undefined until then. */
  spentError(request: OutageTicket): LabApiError | undefined {
    return this.spent ? this.outageError(request) : undefined;
  }

  /** Closes the breaker after an answer; a spent budget keeps the lab down. */
  private reopen(): void {
    if (this.spent) {
      return;
    }
    const wasDown = this.phase.kind !== 'closed';
    this.failing.clear();
    this.failedAttempts = 0;
    this.last = undefined;
    if (wasDown) {
      this.phase = { kind: 'closed' };
      this.log('info', `[http] the lab at ${this.origin} answers again`);
      this.wake();
    }
  }

  /** An attempt of `request` failed; `final` when the request gives up after it. */
  failed(request: OutageTicket, error: LabApiError, final: boolean): void {
    if (!isLabWideFailure(error)) {
      if (error.status === undefined) {
        return;
      }
      // A 429 is an answer to the breaker, but the lab is still not serving: the budget's clock runs on.
      if (error.code === 'rateLimited') {
        this.reopen();
      } else {
        this.answered();
      }
      return;
    }
    this.failedAttempts++;
    this.failing.add(request);
    this.last = error;
    if (
      this.phase.kind === 'closed' &&
      this.failing.size >= 2 &&
      this.failedAttempts >= this.threshold
    ) {
      this.phase = { kind: 'probing', probe: request };
      this.log(
        'warn',
        `[http] the lab at ${this.origin} failed the last ${this.failedAttempts} requests (${this.answer()}); other requests wait for one more try`,
      );
    }
    if (this.phase.kind === 'probing' && this.phase.probe === request && final) {
      this.open();
    }
  }

  /** `request` is finished, however it ended; a probe that ended without a verdict hands over to the next request. */
  release(request: OutageTicket): void {
    if (this.phase.kind === 'probing' && this.phase.probe === request) {
      this.phase = { kind: 'open', until: this.now() };
      this.wake();
    }
  }

  private open(): void {
    this.phase = { kind: 'open', until: this.now() + this.coolDownMs };
    this.log(
      'warn',
      `[http] the lab at ${this.origin} failed the last ${this.failedAttempts} requests (${this.answer()}); further requests fail at once for ${Math.round(this.coolDownMs / 1000)} s`,
    );
    this.wake();
  }

  /** What the lab answered last, in words: "503 Service Unavailable", "connection refused", "timed out while connecting". */
  private answer(): string {
    const last = this.last;
    if (last?.status !== undefined) {
      return `${last.status} ${STATUS_CODES[last.status] ?? ''}`.trim();
    }
    const args = last?.text?.args ?? {};
    if (last?.code === 'timeout') {
      return `timed out while ${String(args.what ?? 'waiting')}`;
    }
    if (last?.text?.id === 'hostNotFound') {
      return 'host name not found';
    }
    return String(args.reason ?? 'no connection');
  }

  private outageError(request: OutageTicket): LabApiError {
    if (this.spent) {
      const spent = this.spent;
      return labError(
        spent.code,
        'labOutageBudget',
        { reason: spent.message },
        {
          status: spent.status,
          path: request.path,
          retryAt: spent.retryAt,
          detail: 'not sent: the run spent its budget for this lab',
        },
      );
    }
    const last = this.last;
    const args = { origin: this.origin, answer: this.answer(), count: this.failedAttempts };
    return labError(
      last?.code ?? 'network',
      last?.status !== undefined ? 'labOutageStatus' : 'labOutageNetwork',
      args,
      {
        status: last?.status,
        path: request.path,
        detail: `not sent: the lab failed the last ${args.count} requests`,
      },
    );
  }

  private nextChange(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((waiter) => waiter !== wake);
        reject(cancelledError());
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((wake) => wake());
  }
}
