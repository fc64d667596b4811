import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { LabBaseUrl } from './baseUrl';
import { isLoopbackHost } from './baseUrl';
import { ACCEPT_ENCODING, contentCodings, decodeBody } from './contentEncoding';
import { readErrorBody, type ErrorBody } from './errorBody';
import type { LabApiError, LabApiErrorDetails } from '../errors/errors';
import { cancelledError, labError } from '../errors/messages';
import { registerSecret, serverText } from '../errors/serverText';
import {
  formatClock,
  isTransient,
  statusError,
  thrownError,
  type AttemptContext,
} from './errorMapping';
import { bodyStallOf } from './errorMapping';
import { DIRECT, proxySecrets, type NetworkOptions } from './network';
import { LabOutage, spendsBudget, type OutageTicket } from './labOutage';
import {
  BodyStallError,
  type BodyStall,
  type Transport,
  type TransportFactory,
  type TransportResponse,
  type TransportTimeouts,
} from './transport';
import { UndiciTransport } from './undiciTransport';
import { RetryNotices, type RetryListener } from './retryNotices';
import { durationWords, labLabel, requestIdWords, seconds1 } from './httpWords';
import {
  DEFAULT_RETRY_POLICY,
  RETRYABLE_STATUSES,
  RateLimitGate,
  backoffDelay,
  parseRetryAfter,
  type RetryPolicy,
} from './timing';
import { Semaphore, sleep } from '../async/concurrency';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';
/** Where the core writes what it does; the VS Code layer points it at the "Lab Data" log. */
export type LogSink = (level: LogLevel, message: string) => void;

/** Connect, headers and body-idle timeouts (the transport's; see {@link TransportTimeouts}). */
export type HttpTimeouts = TransportTimeouts;

/** How long a lab may take to answer a request when nothing says otherwise. */
const STANDARD_ANSWER_TIMEOUT_MS = 30_000;

/**
 * The answer timeout: 30 s, or the seconds in `LAB_DATA_ANSWER_TIMEOUT` (1 to 3600) for a lab known
 * to be slow, or a test of a lab that never answers. Read from the environment of the process (the
 * tool's, or the one VS Code runs its extensions in); anything else there is ignored.
 */
export function answerTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.LAB_DATA_ANSWER_TIMEOUT?.trim();
  const seconds = text ? Number(text) : NaN;
  return Number.isFinite(seconds) && seconds >= 1 && seconds <= 3600
    ? Math.round(seconds * 1000)
    : STANDARD_ANSWER_TIMEOUT_MS;
}

/**
 * The answer timeout covers the whole answer: the headers, and then the body, which must not stop
 * or trickle for that long either (see `watchedBody`).
 */
export const DEFAULT_TIMEOUTS: HttpTimeouts = {
  connectMs: 10_000,
  headersMs: answerTimeoutMs(),
  bodyIdleMs: answerTimeoutMs(),
};
export const DEFAULT_MAX_JSON_BYTES = 10 * 1024 * 1024;
const MAX_REDIRECTS = 5;
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_REQUEST_ID_LENGTH = 120;
/** What a request asks for after the server refused the narrower `Accept` (406); the answer is still checked. */
const ACCEPT_ANYTHING = '*/*';
const REQUEST_ID_HEADERS = [
  'x-request-id',
  'x-correlation-id',
  'request-id',
  'correlation-id',
  'x-ms-request-id',
  'x-amzn-requestid',
];

/** What the connection to the lab looks like after a request, for a status display. */
export type ConnectionEvent =
  | { readonly kind: 'online' }
  | { readonly kind: 'offline'; readonly reason: string }
  | { readonly kind: 'rateLimited'; readonly until: number }
  | {
      readonly kind: 'unauthorized';
      /** The lab's own reason from its 401 body (such as "token expired"), already sanitised. */
      readonly reason?: string;
    };

export interface HttpClientOptions {
  readonly baseUrl: LabBaseUrl;
  readonly token: string;
  /** The lab's name, for the log (each request line names the lab, and its host). */
  readonly labName?: string;
  /** Requests in flight to the lab at once (`labData.maxConcurrentRequests`). */
  readonly maxConcurrentRequests?: number;
  readonly timeouts?: Partial<HttpTimeouts>;
  readonly retry?: Partial<RetryPolicy>;
  readonly maxJsonBytes?: number;
  readonly userAgent?: string;
  readonly log?: LogSink;
  /** Jitter source, replaceable in tests. */
  readonly random?: () => number;
  /** Rate-limit state shared by every client of this origin; defaults to the process-wide one. */
  readonly rateLimitGate?: RateLimitGate;
  /** Proxies and trusted certificate authorities; direct, with Node's roots, by default. */
  readonly network?: NetworkOptions;
  /**
   * Builds the transport requests leave the process through; undici's own pools with `network`
   * by default. The client owns what it builds: closing the client closes the transport.
   */
  readonly transport?: TransportFactory;
  /** Told after every attempt whether the lab answered, could not be reached, or limits requests. */
  readonly onConnection?: (event: ConnectionEvent) => void;
  /** Told of every request that finally failed (not cancelled), for support reports. */
  readonly onFailure?: (error: LabApiError) => void;
  /** Told before every retry (what failed, which retry of how many), for progress that says so. */
  readonly onRetry?: RetryListener;
  /** The lab's circuit breaker (a lab failing as a whole fails fast); one per client by default. */
  readonly outage?: LabOutage;
  /**
   * The most this client's run spends on the lab while it does not answer (fails as a whole, or
   * asks to wait), retries and `Retry-After` waits included (`LabOutageOptions.budgetMs`):
   * a retry or wait that would end beyond it is not made, and what the lab did is said instead.
   * None by default; the tool sets one answer timeout. Ignored when `outage` is given (it has its own).
   */
  readonly failingLabBudgetMs?: number;
  /**
   * A person waits for each answer (a token check): a lab that sends no answer within the
   * timeout is said at once, not asked again three more times in silence.
   */
  readonly interactive?: boolean;
}

/** What a caller sees of a successful response while it consumes the body. */
export interface LabResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Readable;
  readonly requestId?: string;
  readonly contentType: string;
  /** Declared `Content-Length`, when the server sent one. */
  readonly contentLength?: number;
  readonly path: string;
}

export interface RequestSpec {
  /** Path on the lab's origin, e.g. `/api/v1/reports/R-1/file` (from the lab's endpoint templates). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly accept: string;
  readonly signal?: AbortSignal;
  /** GET unless told: HEAD for the headers alone (the body is empty). */
  readonly method?: 'GET' | 'HEAD';
  /** How much of the body may wait in memory for the reader (files: large, so the socket keeps flowing). */
  readonly highWaterMark?: number;
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

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Response headers for a debug line: names and shown values, never a cookie. */
function describeHeaders(headers: IncomingHttpHeaders): string {
  return Object.entries(headers)
    .filter(([name]) => name !== 'set-cookie')
    .map(
      ([name, value]) =>
        `${name}: ${serverText(Array.isArray(value) ? value.join(', ') : String(value ?? ''), 120)}`,
    )
    .join('; ');
}

function requestIdOf(headers: IncomingHttpHeaders): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = header(headers, name);
    const id = serverText(value, MAX_REQUEST_ID_LENGTH);
    if (id) {
      return id;
    }
  }
  return undefined;
}

/**
 * The one HTTP layer every caller shares. It adds the bearer token and `Accept`, bounds
 * concurrency, applies timeouts and cancellation, retries transient failures with jittered back-off,
 * honours `Retry-After` through one rate-limit state per origin, follows redirects without ever
 * sending the token to another origin, and turns every failure into a {@link LabApiError}.
 */
export class HttpClient {
  private readonly baseUrl: LabBaseUrl;
  readonly #token: string;
  private readonly timeouts: HttpTimeouts;
  private readonly retry: RetryPolicy;
  private readonly maxJsonBytes: number;
  private readonly userAgent: string;
  private readonly log: LogSink;
  private readonly random: () => number;
  private readonly gate: RateLimitGate;
  private readonly slots: Semaphore;
  private readonly transport: Transport;
  private readonly network: NetworkOptions;
  private readonly onConnection: (event: ConnectionEvent) => void;
  private readonly onFailure: (error: LabApiError) => void;
  private readonly outage: LabOutage;
  private readonly interactive: boolean;
  private readonly retries: RetryNotices;
  /** How a log line names the lab: its name and host, or its host. */
  private readonly labLabel: string;
  /** How a person is told of the lab: its name, or its host. */
  private readonly labName: string;

  constructor(options: HttpClientOptions) {
    this.interactive = options.interactive ?? false;
    this.retries = new RetryNotices(options.onRetry);
    this.baseUrl = options.baseUrl;
    this.labLabel = labLabel(options.baseUrl, options.labName);
    this.labName = options.labName ?? new URL(options.baseUrl.origin).host;
    this.#token = options.token;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.maxJsonBytes = options.maxJsonBytes ?? DEFAULT_MAX_JSON_BYTES;
    this.userAgent = options.userAgent ?? 'lab-data';
    this.log = options.log ?? (() => undefined);
    this.random = options.random ?? Math.random;
    this.gate = options.rateLimitGate ?? rateLimitGateFor(options.baseUrl.origin);
    const concurrency = options.maxConcurrentRequests ?? 4;
    this.slots = new Semaphore(concurrency);
    this.onConnection = options.onConnection ?? (() => undefined);
    this.onFailure = options.onFailure ?? (() => undefined);
    this.outage =
      options.outage ??
      new LabOutage(options.baseUrl.origin, {
        log: (level, message) => this.log(level, message),
        budgetMs: options.failingLabBudgetMs,
      });
    const settings = { connections: concurrency, timeouts: this.timeouts };
    this.network = options.network ?? DIRECT;
    this.transport = options.transport
      ? options.transport(settings)
      : new UndiciTransport({ ...settings, network: this.network });
    // Whatever a server sends back (an echoed token included) is redacted before anyone sees it.
    registerSecret(options.token);
    registerSecret(options.network?.proxyAuthorization);
    for (const proxy of [options.network?.httpsProxy, options.network?.httpProxy]) {
      proxySecrets(proxy).forEach(registerSecret);
    }
  }

  /** Tells `listener` of every retry from now until the returned function is called (a run's progress). */
  onRetry(listener: RetryListener): () => void {
    return this.retries.listen(listener);
  }

  /** GETs JSON and parses it; the body is capped and must be declared as JSON. */
  async getJson(
    path: string,
    query?: Readonly<Record<string, string>>,
    signal?: AbortSignal,
  ): Promise<unknown> {
    return (await this.getJsonResponse(path, query, signal)).body;
  }

  /** {@link getJson}, with the response's status, headers (a list's `Link` header, say) and request id. */
  async getJsonResponse(
    path: string,
    query?: Readonly<Record<string, string>>,
    signal?: AbortSignal,
  ): Promise<{
    readonly body: unknown;
    readonly headers: IncomingHttpHeaders;
    readonly status: number;
    readonly requestId?: string;
  }> {
    return this.send(
      { path, query, accept: 'application/json', signal },
      async (response) => ({
        body: await this.readJson(response, signal),
        headers: response.headers,
        status: response.status,
        requestId: response.requestId,
      }),
      true,
    );
  }

  /**
   * GETs a resource and hands the streaming body to `consume`. The body is always destroyed
   * afterwards; failures inside `consume` are not retried (the consumer may have side effects).
   */
  async getStream<T>(
    spec: RequestSpec,
    consume: (response: LabResponse) => Promise<T>,
  ): Promise<T> {
    return this.send(spec, consume, false);
  }

  /**
   * HEADs a resource: its status and headers through the same retries, redirects and token rule
   * as a GET, with no body. The declared `Content-Length` is the size a GET would send (undefined
   * when the server sent none, or when the file would come content-encoded).
   */
  async head(spec: Omit<RequestSpec, 'method' | 'highWaterMark'>): Promise<LabResponse> {
    return this.send({ ...spec, method: 'HEAD' }, (response) => Promise.resolve(response), false);
  }

  /** Closes pooled connections. */
  async close(): Promise<void> {
    await this.transport.close();
  }

  /** One request through the lab's circuit breaker: it may wait for a probe, or fail without being sent. */
  private async send<T>(
    spec: RequestSpec,
    consume: (response: LabResponse) => Promise<T>,
    retryBodyFailures: boolean,
  ): Promise<T> {
    const ticket: OutageTicket = { path: spec.path };
    try {
      return await this.attempts(spec, consume, retryBodyFailures, ticket);
    } finally {
      this.outage.release(ticket);
    }
  }

  private async attempts<T>(
    spec: RequestSpec,
    consume: (response: LabResponse) => Promise<T>,
    retryBodyFailures: boolean,
    ticket: OutageTicket,
  ): Promise<T> {
    const path = spec.path;
    const query = spec.query ?? {};
    const search = new URLSearchParams(query).toString();
    const target = new URL(`${this.baseUrl.origin}${path}${search ? `?${search}` : ''}`);
    const describe = `${this.labLabel} ${spec.method ?? 'GET'} ${path}${search ? `?${search}` : ''}`;
    let accept = spec.accept;
    for (let attempt = 0; ; attempt++) {
      await this.outage.admit(ticket, spec.signal);
      let failure: AttemptFailure;
      let sentAt = Date.now();
      let deadline: AnswerDeadline | undefined;
      /** The status line's words for the log once the headers came ("→ 200 in 3 ms"). */
      let answeredWith: string | undefined;
      try {
        return await this.slots.run(async () => {
          await this.gate.wait(spec.signal);
          // A request that queued for a connection or the lab's pause is not sent once the run's budget is spent.
          const refused = this.outage.spentError(ticket);
          if (refused) {
            throw new AttemptFailure(refused, false);
          }
          const started = Date.now();
          sentAt = started;
          const context: AttemptContext = { path, params: query, signal: spec.signal };
          // While the lab fails as a whole, an attempt gets no longer to answer than the budget has left.
          deadline = answerDeadline(this.outage.budgetDeadline(), spec.signal);
          const { response, url } = await this.dispatch(
            target,
            { ...spec, accept, signal: deadline.signal },
            context,
          ).finally(deadline.clear);
          const requestId = requestIdOf(response.headers);
          answeredWith = `→ ${response.status} in ${Date.now() - started} ms`;
          // One line per request at the default level; headers only at debug (bodies are never logged).
          this.log('info', `[http] ${describe} ${answeredWith}${requestIdWords(requestId)}`);
          this.log(
            'debug',
            `[http] ${describe} response headers: ${describeHeaders(response.headers)}`,
          );
          if (response.status < 200 || response.status >= 300) {
            throw await this.statusFailure(response, path, query, requestId, url);
          }
          let body: Readable = response.body;
          // What the body did if the answer timeout gave it up, whatever a consumer makes of the error.
          let stall: BodyStall | undefined;
          response.body.on('error', (error) => (stall ??= bodyStallOf(error)));
          try {
            body = decodedBody(response);
            const result = await consume({
              status: response.status,
              headers: response.headers,
              body,
              requestId,
              contentType: header(response.headers, 'content-type') ?? '',
              // The declared length is of the encoded bytes; a decoded body is counted as it is read.
              contentLength:
                body === response.body
                  ? declaredLength(header(response.headers, 'content-length'))
                  : undefined,
              path,
            });
            // The lab answers when an answer completes: headers alone never make it healthy again.
            this.onConnection({ kind: 'online' });
            this.outage.answered();
            return result;
          } catch (error) {
            stall ??= bodyStallOf(error);
            let mapped = this.toLabError(error, { ...context, requestId });
            if (stall && (mapped.code === 'timeout' || mapped.code === 'network')) {
              // Said as what the lab did ("sent its headers, then nothing for 30 s"), a download's too.
              mapped = this.toLabError(new BodyStallError(stall), { ...context, requestId });
              this.logBodyFailure(describe, answeredWith, stall, requestId);
            }
            throw retryBodyFailures
              ? new AttemptFailure(mapped, isTransient(mapped, error))
              : new AttemptFailure(mapped, false);
          } finally {
            discard(body);
            discard(response.body);
          }
        }, spec.signal);
      } catch (error) {
        if (error instanceof AttemptFailure) {
          failure = error;
        } else {
          const mapped = this.toLabError(error, { path, params: query, signal: spec.signal });
          failure = new AttemptFailure(mapped, isTransient(mapped, error));
        }
        if (deadline?.fired() && !spec.signal?.aborted) {
          failure = new AttemptFailure(
            labError(
              'timeout',
              'silentFor',
              { origin: this.baseUrl.origin, seconds: Math.round((Date.now() - sentAt) / 1000) },
              { path, params: query, detail: "the run's budget for a failing lab ran out" },
            ),
            false,
          );
        }
      }
      const { error } = failure;
      if (error.status === 406 && accept !== ACCEPT_ANYTHING) {
        // The server cannot label its answer as we asked: ask again for whatever it has, and check what comes.
        this.log(
          'info',
          `[http] ${describe} refused Accept: ${accept} (HTTP 406); asking again with Accept: ${ACCEPT_ANYTHING}`,
        );
        accept = ACCEPT_ANYTHING;
        attempt--;
        continue;
      }
      let givingUp =
        !failure.retryable ||
        attempt >= this.retry.retries ||
        (this.interactive && error.code === 'timeout');
      let delay = givingUp
        ? 0
        : (failure.retryAfterMs ?? backoffDelay(attempt, this.retry, this.random));
      this.outage.clock(error, sentAt);
      const budget = this.overBudget(failure, givingUp ? undefined : delay);
      if (budget) {
        givingUp = true;
        delay = 0;
      }
      this.outage.failed(ticket, error, givingUp);
      this.reportConnection(error, delay);
      if (budget?.spent) {
        this.outage.exhaust(budget.error);
      }
      const failedWords = `[http] ${describe} failed (${error.status ?? error.code}${error.requestId ? `, request id ${error.requestId}` : ''}) after ${seconds1(Date.now() - sentAt)}`;
      if (givingUp) {
        const said = budget?.error ?? error;
        const final = attempt > 0 ? said.with({ attempts: attempt + 1 }) : said;
        if (final.code !== 'cancelled') {
          this.log('warn', `${failedWords}; not retried`);
          this.onFailure(final);
        }
        throw final;
      }
      this.log(
        'warn',
        `${failedWords}; retry ${attempt + 1} of ${this.retry.retries} in ${delay} ms`,
      );
      this.retries.notify({
        lab: this.labName,
        path,
        error,
        attempt: attempt + 1,
        of: this.retry.retries,
        delayMs: delay,
      });
      if (error.code === 'rateLimited') {
        // Every caller of this origin waits for the same moment before its next request.
        this.gate.pauseUntil(Date.now() + delay);
      } else {
        try {
          await sleep(delay, spec.signal);
        } catch (cancel) {
          throw this.toLabError(cancel, { path, params: query, signal: spec.signal });
        }
      }
    }
  }

  /**
   * The budget's verdict on a failed attempt, before another after `delay` ms (undefined: none is
   * coming): undefined while the lab fits in the budget; else what the lab did, and whether that
   * spent the budget. A wait the lab asks for beyond what is left is said, not slept; a lab that
   * fails past the budget is not asked again; a timeout is said as the silence it was.
   */
  private overBudget(
    failure: AttemptFailure,
    delay: number | undefined,
  ): { readonly error: LabApiError; readonly spent: boolean } | undefined {
    const { error } = failure;
    const budgetMs = this.outage.budgetMs;
    if (budgetMs === undefined || !spendsBudget(error)) {
      return undefined;
    }
    const left = this.outage.budgetLeftMs();
    const wait = failure.retryAfterMs;
    if (wait !== undefined && wait > left) {
      const retryAt = new Date(Date.now() + wait);
      const seconds = (ms: number): number => Math.round(ms / 1000);
      return {
        error: labError(
          error.code,
          seconds(left) < seconds(budgetMs) ? 'waitOverBudgetLeft' : 'waitOverBudget',
          {
            origin: this.baseUrl.origin,
            wait: durationWords(wait),
            budget: seconds(budgetMs),
            left: seconds(left),
            time: formatClock(retryAt),
          },
          detailsOf(error, { retryAt }),
        ),
        spent: true,
      };
    }
    const spent = left <= 0 || (delay !== undefined && delay >= left);
    if (!spent && (delay !== undefined || error.code !== 'timeout')) {
      return undefined;
    }
    return { error: this.silence(error) ?? error, spent };
  }

  /**
   * A body that failed the answer timeout, said with how long after the headers it stopped
   * ("→ 200 in 3 ms; the body stopped 30.0 s after the headers").
   */
  private logBodyFailure(
    describe: string,
    answeredWith: string | undefined,
    stall: BodyStall,
    requestId: string | undefined,
  ): void {
    if (!answeredWith) {
      return;
    }
    const what =
      stall.kind === 'tooSlow'
        ? `the body came too slowly (${stall.bytes} bytes in ${seconds1(stall.waitedMs)}) and was given up ${seconds1(stall.afterHeadersMs)} after the headers`
        : `the body stopped ${seconds1(stall.afterHeadersMs - stall.waitedMs)} after the headers${stall.bytes > 0 ? ` (${stall.bytes} bytes)` : ''} and sent nothing for ${seconds1(stall.waitedMs)}`;
    this.log('warn', `[http] ${describe} ${answeredWith}; ${what}${requestIdWords(requestId)}`);
  }

  /**
   * A timeout in the words of what the lab did: sent nothing for so long (a body that stopped or
   * trickled is already said so, by `watchedBody`).
   */
  private silence(error: LabApiError): LabApiError | undefined {
    if (error.text?.id.startsWith('body')) {
      return error;
    }
    return error.detail === 'UND_ERR_HEADERS_TIMEOUT'
      ? labError(
          'timeout',
          'silentFor',
          { origin: this.baseUrl.origin, seconds: Math.round(this.timeouts.headersMs / 1000) },
          detailsOf(error),
        )
      : undefined;
  }

  private reportConnection(error: LabApiError, retryInMs: number): void {
    if (error.code === 'rateLimited') {
      this.onConnection({
        kind: 'rateLimited',
        until: error.retryAt?.getTime() ?? Date.now() + retryInMs,
      });
    } else if (error.code === 'unauthorized') {
      // Only the lab's own 401 means its token is no longer good; see statusFailure.
      this.onConnection({ kind: 'unauthorized', reason: error.reason });
    } else if (
      (error.code === 'network' || error.code === 'timeout') &&
      error.status === undefined
    ) {
      this.onConnection({ kind: 'offline', reason: error.message });
    } else if (error.status !== undefined) {
      this.onConnection({ kind: 'online' });
    }
  }

  /**
   * Sends one GET (or HEAD), following redirects itself: the token goes only to the lab's own origin, never
   * over plain http except to loopback, and each hop takes its own route (proxy or direct).
   */
  private async dispatch(
    target: URL,
    spec: RequestSpec,
    context: AttemptContext,
  ): Promise<{ response: TransportResponse; url: URL }> {
    let url = target;
    for (let hop = 0; ; hop++) {
      const sameOrigin = url.origin === this.baseUrl.origin;
      const headers: Record<string, string> = {
        accept: spec.accept,
        'accept-encoding': ACCEPT_ENCODING,
        'user-agent': this.userAgent,
      };
      if (sameOrigin) {
        headers.authorization = `Bearer ${this.#token}`;
      }
      context.proxy = this.transport.proxyFor(url);
      context.target = url;
      let response: TransportResponse;
      try {
        response = await this.transport.send({
          method: spec.method ?? 'GET',
          url,
          headers,
          signal: spec.signal,
          highWaterMark: spec.highWaterMark,
        });
      } catch (error) {
        const mapped = this.toLabError(error, context);
        throw new AttemptFailure(mapped, isTransient(mapped, error));
      }
      const location = header(response.headers, 'location');
      if (![301, 302, 303, 307, 308].includes(response.status) || !location) {
        return { response, url };
      }
      // Read (up to a limit) so the connection can be reused; nothing of it is wanted.
      await readAtMost(response.body, MAX_ERROR_BODY_BYTES).catch(() => undefined);
      discard(response.body);
      const next = new URL(location, url);
      const insecure =
        next.protocol !== 'https:' && !(next.protocol === 'http:' && isLoopbackHost(next.hostname));
      if (hop >= MAX_REDIRECTS || insecure) {
        throw labError(
          'insecureRedirect',
          insecure ? 'redirectInsecure' : 'redirectTooMany',
          {},
          {
            status: response.status,
            path: context.path,
            params: context.params,
            requestId: requestIdOf(response.headers),
          },
        );
      }
      if (next.origin !== this.baseUrl.origin) {
        this.log('info', `[http] following a redirect to ${next.origin} without the access token`);
      }
      url = next;
    }
  }

  private async statusFailure(
    response: TransportResponse,
    path: string,
    params: Readonly<Record<string, string>>,
    headerRequestId: string | undefined,
    from: URL,
  ): Promise<AttemptFailure> {
    const status = response.status;
    const { reason, requestId: bodyRequestId } = await this.readErrorBody(response);
    const requestId = headerRequestId ?? bodyRequestId;
    const waitMs =
      status === 429 || status === 503
        ? parseRetryAfter(
            header(response.headers, 'retry-after'),
            Date.now(),
            header(response.headers, 'retry-after-ms'),
          )
        : undefined;
    // Too long to wait inside a request: fail fast and say when to come back. A person waiting is
    // never kept past one answer timeout by a wait the lab asks for.
    const longest = this.interactive
      ? Math.min(this.retry.maxRetryAfterMs, this.timeouts.headersMs)
      : this.retry.maxRetryAfterMs;
    const tooLongToWait = waitMs !== undefined && waitMs > longest;
    const error = statusError(
      {
        status,
        labOrigin: this.baseUrl.origin,
        answeredBy: from.origin,
        proxyAuthenticate: header(response.headers, 'proxy-authenticate') !== undefined,
        retryAt: waitMs !== undefined ? new Date(Date.now() + waitMs) : undefined,
        tooLongToWait,
      },
      { status, path, params, requestId, reason },
    );
    return new AttemptFailure(error, !tooLongToWait && RETRYABLE_STATUSES.has(status), waitMs);
  }

  /** Reads a small error body: the server's own reason and request id, sanitised. */
  private async readErrorBody(response: TransportResponse): Promise<ErrorBody> {
    let body: Readable = response.body;
    try {
      body = decodedBody(response);
      return readErrorBody(
        (await readAtMost(body, MAX_ERROR_BODY_BYTES)).toString('utf8'),
        header(response.headers, 'content-type') ?? '',
      );
    } catch {
      return {};
    } finally {
      discard(body);
      discard(response.body);
    }
  }

  private async readJson(response: LabResponse, signal?: AbortSignal): Promise<unknown> {
    if (!/[/+]json\b/i.test(response.contentType)) {
      throw labError(
        'invalidResponse',
        'notJson',
        { type: response.contentType.split(';')[0] || 'no content type' },
        {
          status: response.status,
          path: response.path,
          requestId: response.requestId,
        },
      );
    }
    if (response.contentLength !== undefined && response.contentLength > this.maxJsonBytes) {
      throw this.tooLarge(response);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      if (signal?.aborted) {
        throw cancelledError(response.path);
      }
      size += (chunk as Buffer).length;
      if (size > this.maxJsonBytes) {
        throw this.tooLarge(response);
      }
      chunks.push(chunk as Buffer);
    }
    try {
      // A byte-order mark is not JSON, but some servers (and Windows tools behind them) send one.
      return JSON.parse(
        Buffer.concat(chunks)
          .toString('utf8')
          .replace(/^\ufeff/, ''),
      );
    } catch {
      throw labError(
        'invalidResponse',
        'badJson',
        {},
        { status: response.status, path: response.path, requestId: response.requestId },
      );
    }
  }

  private tooLarge(response: LabResponse): LabApiError {
    return labError(
      'invalidResponse',
      'jsonTooLarge',
      { mib: Math.round(this.maxJsonBytes / 1024 / 1024) },
      {
        status: response.status,
        path: response.path,
        requestId: response.requestId,
      },
    );
  }

  /** Turns anything thrown while talking to the lab into a LabApiError that holds no secret. */
  private toLabError(error: unknown, context: AttemptContext): LabApiError {
    return error instanceof AttemptFailure
      ? error.error
      : thrownError(error, context, { origin: this.baseUrl.origin, network: this.network });
  }
}

/**
 * A `Content-Length` we can rely on: digits only, and no more than a safe integer. Anything else
 * (negative, fractional, a list, absurdly large) is treated as absent, so the body is counted as
 * it arrives instead.
 */
export function declaredLength(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d{1,16}\s*$/.test(value)) {
    return undefined;
  }
  const length = Number(value);
  return Number.isSafeInteger(length) ? length : undefined;
}

/** The response body with its content codings undone; a coding we cannot decode is refused. */
function decodedBody(response: TransportResponse): Readable {
  const encoding = header(response.headers, 'content-encoding');
  const codings = contentCodings(encoding);
  if (codings === undefined) {
    throw labError('invalidResponse', 'unknownEncoding', { encoding: serverText(encoding, 40) });
  }
  return decodeBody(response.body, codings);
}

/** The first bytes of a small body, up to `limit`; reading stops there (the caller discards the rest). */
async function readAtMost(body: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      break;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Releases a response body whatever state it is in; undici reports the abort as an error nobody needs. */
function discard(body: Readable): void {
  if (!body.destroyed) {
    body.on('error', () => undefined);
    body.destroy();
  }
}

/** An attempt's signal that also aborts at a deadline, until cleared; `fired` tells whether the deadline did. */
interface AnswerDeadline {
  readonly signal?: AbortSignal;
  fired(): boolean;
  clear(): void;
}

/** The caller's `signal`, aborted too at `deadline` (epoch ms) when there is one. */
function answerDeadline(deadline: number | undefined, signal?: AbortSignal): AnswerDeadline {
  if (deadline === undefined) {
    return { signal, fired: () => false, clear: () => undefined };
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now()));
  return {
    signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
    fired: () => controller.signal.aborted,
    clear: () => clearTimeout(timer),
  };
}

/** An error's facts (status, path, request id…) for another sentence about the same failure. */
function detailsOf(error: LabApiError, extra: LabApiErrorDetails = {}): LabApiErrorDetails {
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
class AttemptFailure {
  constructor(
    readonly error: LabApiError,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {}
}
