import { LabApiError, type LabApiErrorDetails, type LabErrorCode } from '../errors/errors';
import { labError, type MessageId } from '../errors/messages';
import { serverText } from '../errors/serverText';
import { errorCode } from '../errors/errorText';
import { describeProxy, proxyCredentialSource, proxySource, type NetworkOptions } from './network';
import { tlsProblemOf, type TlsProblem } from './tlsProblems';
import { BodyStallError, TransportError, type BodyStall } from './transport';

/**
 * How a failed request becomes a {@link LabApiError} with the catalogue's sentence: an HTTP status
 * ({@link statusError}), or a network, TLS, proxy, timeout or cancellation failure
 * ({@link thrownError}). The HTTP client decides when to ask and whether to try again; this
 * module only names what went wrong.
 */

/** Where a failed attempt was going: the request, and the proxy it went through. */
export interface AttemptContext {
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  requestId?: string;
  proxy?: string;
  target?: URL;
}

/** The lab a request was for: its origin and the network settings that chose its route. */
export interface LabRoute {
  readonly origin: string;
  readonly network: NetworkOptions;
}

/** What is known of an answer that was not a success. */
export interface FailedAnswer {
  readonly status: number;
  /** The lab's own origin. */
  readonly labOrigin: string;
  /** The origin that answered: another than the lab's after a redirect. */
  readonly answeredBy: string;
  /** Whether the answer asked for a proxy's credentials (`Proxy-Authenticate`). */
  readonly proxyAuthenticate: boolean;
  /** When the server said to come back (read on a 429 or 503 only). */
  readonly retryAt?: Date;
  /** Whether {@link retryAt} is too far off to wait for inside a request (the message says the time). */
  readonly tooLongToWait?: boolean;
}

/** A proxy's verdict on credentials: never worth another attempt with the same ones. */
const PROXY_CREDENTIAL_MESSAGES: ReadonlySet<string> = new Set([
  'proxyAuth',
  'proxyAuthRejected',
  'proxyUrlAuthRejected',
]);
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The sentence for each way a body fails the answer timeout. */
const BODY_STALL_MESSAGES: Readonly<Record<BodyStall['kind'], MessageId>> = {
  headersOnly: 'bodyHeadersOnly',
  stopped: 'bodyStopped',
  tooSlow: 'bodyTooSlow',
};

/**
 * Seconds as a person reads them: "30", "1", "0.4" (a short test timeout). A stall is said as the
 * answer timeout it broke, not as the time measured: the lab sent nothing for (at least) that long,
 * and a timer firing late on a busy machine does not make "30 s" into "30.1 s".
 */
function secondsWords(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

/** What a body the answer timeout gave up did, when `error` (or a cause of it) says so. */
export function bodyStallOf(error: unknown): BodyStall | undefined {
  for (
    let current: unknown = error, depth = 0;
    current instanceof Error && depth < 4;
    current = current.cause, depth++
  ) {
    if (current instanceof BodyStallError) {
      return current.stall;
    }
  }
  return undefined;
}

/** Whether a failure without an HTTP status (`error`, mapped from `raw`) is worth another attempt. */
export function isTransient(error: LabApiError, raw: unknown): boolean {
  return (
    error.code === 'timeout' ||
    (error.code === 'network' &&
      !PROXY_CREDENTIAL_MESSAGES.has(error.text?.id ?? '') &&
      TRANSIENT_NETWORK_CODES.has(errorCode(raw) ?? ''))
  );
}

/** Which sentence a TLS verification failure gets: what is wrong, and the setting that fixes it. */
function certificateMessage(code: string): MessageId {
  const messages: Readonly<Record<TlsProblem, MessageId>> = {
    selfSigned: 'certSelfSigned',
    unknownRoot: 'certUnknownRoot',
    unknownIssuer: 'certUnknownIssuer',
    expired: 'certExpired',
    wrongHost: 'certWrongHost',
    other: 'certOther',
  };
  return messages[tlsProblemOf(code)];
}

/** The code and sentence for an HTTP status the API documents (spec section 7). */
function statusMessage(status: number): { code: LabErrorCode; id: MessageId } {
  switch (status) {
    case 400:
      return { code: 'badRequest', id: 'badRequest' };
    case 401:
      return { code: 'unauthorized', id: 'unauthorized' };
    case 403:
      return { code: 'forbidden', id: 'forbidden' };
    case 404:
      return { code: 'notFound', id: 'notFound' };
    case 429:
      return { code: 'rateLimited', id: 'rateLimited' };
    default:
      return status >= 500
        ? { code: 'server', id: 'serverFailed' }
        : { code: 'unexpectedStatus', id: 'unexpectedStatus' };
  }
}

/** The error for an answer that was not a success, with `details` (status, path, request id, reason). */
export function statusError(answer: FailedAnswer, details: LabApiErrorDetails): LabApiError {
  const { status } = answer;
  const elsewhere = answer.answeredBy !== answer.labOrigin;
  if ((status === 401 || status === 403) && (elsewhere || answer.proxyAuthenticate)) {
    // A login page or another service after a redirect, or a proxy asking for its own credentials
    // with a 401: not the lab's verdict on the token, which is kept.
    return elsewhere
      ? labError(
          'unexpectedStatus',
          'unauthorizedElsewhere',
          { origin: answer.answeredBy, status },
          details,
        )
      : labError('unexpectedStatus', 'unauthorizedProxy', { status }, details);
  }
  const { code, id } = statusMessage(status);
  const args = { origin: answer.labOrigin, status };
  if (status !== 429 && status !== 503) {
    return labError(code, id, args, details);
  }
  const { retryAt } = answer;
  if (retryAt !== undefined && answer.tooLongToWait) {
    // Too long to wait inside a request: say when to come back.
    return labError(
      code,
      status === 429 ? 'rateLimitedUntil' : 'unavailableUntil',
      {
        origin: answer.labOrigin,
        wait: waitWords(retryAt.getTime() - Date.now()),
        time: formatClock(retryAt),
      },
      { ...details, retryAt },
    );
  }
  return labError(code, id, args, { ...details, retryAt });
}

/** Turns anything thrown while talking to the lab into a LabApiError that holds no secret. */
export function thrownError(error: unknown, context: AttemptContext, lab: LabRoute): LabApiError {
  if (error instanceof LabApiError) {
    return error;
  }
  const { path, params, requestId, proxy } = context;
  const details = { path, params, requestId };
  const code = errorCode(error);
  const raw = error instanceof Error ? serverText(error.message) : undefined;
  const origin = context.target?.origin ?? lab.origin;
  if (
    proxy !== undefined &&
    error instanceof TransportError &&
    error.code === 'ERR_PROXY_TUNNEL' &&
    error.proxyStatus !== undefined
  ) {
    return tunnelRefused(proxy, error.proxyStatus, origin, details, lab.network);
  }
  if (
    context.signal?.aborted ||
    code === 'UND_ERR_ABORTED' ||
    code === 'ABORT_ERR' ||
    (error instanceof Error && error.name === 'AbortError')
  ) {
    return labError('cancelled', 'cancelled', {}, details);
  }
  const stall = bodyStallOf(error);
  if (stall) {
    return labError(
      'timeout',
      BODY_STALL_MESSAGES[stall.kind],
      { origin, seconds: secondsWords(stall.limitMs), bytes: stall.bytes },
      { ...details, detail: 'UND_ERR_BODY_TIMEOUT' },
    );
  }
  if (code && TIMEOUT_CODES.has(code)) {
    const what =
      code === 'UND_ERR_CONNECT_TIMEOUT'
        ? 'connecting'
        : code === 'UND_ERR_HEADERS_TIMEOUT'
          ? 'waiting for an answer'
          : 'receiving data';
    return labError('timeout', 'timeout', { origin, what }, { ...details, detail: code });
  }
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS/.test(code)) {
    return labError(
      'network',
      certificateMessage(code),
      { origin, code },
      { ...details, detail: code },
    );
  }
  const reason =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
        ? 'the connection was dropped'
        : code === 'ENOTFOUND'
          ? 'host name not found'
          : (code ?? raw ?? 'network error');
  if (
    proxy !== undefined &&
    (code === 'ECONNREFUSED' ||
      code === 'ENOTFOUND' ||
      code === 'EAI_AGAIN' ||
      code === 'EHOSTUNREACH' ||
      code === 'ETIMEDOUT')
  ) {
    // Through a proxy, this machine only ever connects to the proxy: the failure is the proxy's.
    return labError(
      'network',
      'proxyUnreachable',
      { proxy: describeProxy(proxy), proxySource: sourceOf(proxy, lab.network), reason },
      { ...details, detail: `${code}${raw ? `: ${raw}` : ''}` },
    );
  }
  if (code === 'ENOTFOUND') {
    return labError('network', 'hostNotFound', { origin }, { ...details, detail: code });
  }
  return labError(
    'network',
    'unreachable',
    { origin, reason },
    { ...details, detail: code ? `${code}${raw ? `: ${raw}` : ''}` : raw },
  );
}

/** Who chose `proxy`, for messages: the setting or variable, or plain words when the caller did not say. */
function sourceOf(proxy: string, network: NetworkOptions): string {
  return proxySource(proxy, network) ?? 'your proxy settings';
}

/**
 * The proxy answered the CONNECT of a tunnel with `status`. A 401 or 407 is about proxy
 * credentials: rejected ones are named by where they came from (`http.proxyAuthorization`, or
 * the user info of the proxy address and the setting or variable that holds it), missing ones
 * are asked for. Anything else is the proxy refusing the lab.
 */
function tunnelRefused(
  proxy: string,
  status: number,
  origin: string,
  details: LabApiErrorDetails,
  network: NetworkOptions,
): LabApiError {
  const args = { proxy: describeProxy(proxy), proxySource: sourceOf(proxy, network), status };
  const facts = { ...details, status, detail: `proxy ${args.proxy} from ${args.proxySource}` };
  if (status !== 401 && status !== 407) {
    return labError('network', 'proxyRefused', { ...args, origin }, facts);
  }
  const credentials = proxyCredentialSource(proxy, network);
  if (credentials === undefined) {
    return labError('network', 'proxyAuth', args, {
      ...facts,
      detail: `${facts.detail}; no credentials were sent`,
    });
  }
  const from =
    credentials === 'proxyAuthorization'
      ? 'http.proxyAuthorization'
      : `the user info in ${args.proxySource}`;
  return labError(
    'network',
    credentials === 'proxyAuthorization' ? 'proxyAuthRejected' : 'proxyUrlAuthRejected',
    args,
    { ...facts, detail: `${facts.detail}; credentials from ${from}` },
  );
}

/** How long a lab asks to be left alone, in words a person reads: "45 s", "20 min", "1 hour", "3 days". */
export function waitWords(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) {
    return `${seconds} s`;
  }
  if (seconds < 3600) {
    return `${Math.round(seconds / 60)} min`;
  }
  const hours = Math.round(seconds / 3600);
  if (hours < 48) {
    return hours === 1 ? '1 hour' : `${hours} hours`;
  }
  return `${Math.round(hours / 24)} days`;
}

/** When to come back: the time of day, with the date when it is not within the next 20 hours. */
export function formatClock(at: Date, now: number = Date.now()): string {
  if (Number.isNaN(at.getTime())) {
    return 'later';
  }
  const pad = (n: number): string => String(n).padStart(2, '0');
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}`;
  return at.getTime() - now < 20 * 60 * 60 * 1000
    ? time
    : `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${time}`;
}
