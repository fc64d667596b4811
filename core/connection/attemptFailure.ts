import type { LabApiError, LabApiErrorDetails } from '../errors/errors';
import { statusError } from './errorMapping';
import { header, readErrorBodyOf } from './labAnswer';
import { RETRYABLE_STATUSES, parseRetryAfter } from './timing';
import type { TransportResponse } from './transport';

/* One attempt of a request: the deadline it may have, its failure, and the facts of an error said again. */

/** An attempt's signal that also aborts at a deadline, until cleared; `fired` tells whether the deadline did. */
export interface AnswerDeadline {
  readonly signal?: AbortSignal;
  /** When it aborts (epoch ms), if it has a deadline: what a silence it ended is measured to. */
  readonly at?: number;
  fired(): boolean;
  clear(): void;
}

/** The caller's `signal`, aborted too at `deadline` (epoch ms) when there is one. */
export function answerDeadline(deadline: number | undefined, signal?: AbortSignal): AnswerDeadline {
  if (deadline === undefined) {
    return { signal, fired: () => false, clear: () => undefined };
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now()));
  return {
    signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
    at: deadline,
    fired: () => controller.signal.aborted,
    clear: () => clearTimeout(timer),
  };
}

/** An error's facts (status, path, request id…) for another sentence about the same failure. */
export function detailsOf(error: LabApiError, extra: LabApiErrorDetails = {}): LabApiErrorDetails {
  return {
    status: error.status,
    path: error.path,
    requestId: error.requestId,
    params: error.params,
    retryAt: error.retryAt,
    detail: error.detail,
    reason: error.reason,
    ...extra,
  };
}

/** One failed attempt, and whether (and when) another is worth making. */
export class AttemptFailure {
  constructor(
    readonly error: LabApiError,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {}
}

/**
 * A lab's answer other than 2xx as an attempt's failure: what its status means (with the server's
 * reason and request id), and whether and when to try again. A wait the lab asks for longer than
 * `longestWaitMs` fails fast and says when to come back.
 */
export async function statusFailure(
  response: TransportResponse,
  request: {
    readonly path: string;
    readonly params: Readonly<Record<string, string>>;
    readonly requestId: string | undefined;
    readonly from: URL;
    readonly labOrigin: string;
    readonly longestWaitMs: number;
  },
): Promise<AttemptFailure> {
  const { path, params, from } = request;
  const status = response.status;
  const { reason, requestId: bodyRequestId } = await readErrorBodyOf(response);
  const requestId = request.requestId ?? bodyRequestId;
  const waitMs =
    status === 429 || status === 503
      ? parseRetryAfter(
          header(response.headers, 'retry-after'),
          Date.now(),
          header(response.headers, 'retry-after-ms'),
        )
      : undefined;
  // Too long to wait inside a request: fail fast and say when to come back.
  const tooLongToWait = waitMs !== undefined && waitMs > request.longestWaitMs;
  const error = statusError(
    {
      status,
      labOrigin: request.labOrigin,
      answeredBy: from.origin,
      proxyAuthenticate: header(response.headers, 'proxy-authenticate') !== undefined,
      retryAt: waitMs !== undefined ? new Date(Date.now() + waitMs) : undefined,
      tooLongToWait,
    },
    { status, path, params, requestId, reason },
  );
  return new AttemptFailure(error, !tooLongToWait && RETRYABLE_STATUSES.has(status), waitMs);
}
