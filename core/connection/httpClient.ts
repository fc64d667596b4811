import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { LabBaseUrl } from './baseUrl';
import type { LabApiError } from '../errors/errors';
import { labError } from '../errors/messages';
import { registerSecret } from '../errors/serverText';
import { isTransient, thrownError, type AttemptContext } from './errorMapping';
import { bodyStallOf } from './errorMapping';
import { DIRECT, proxySecrets, type NetworkOptions } from './network';
import { LabOutage, type OutageTicket } from './labOutage';
import {
  BodyStallError,
  type BodyStall,
  type Transport,
  type TransportFactory,
  type TransportResponse,
  type TransportTimeouts,
} from './transport';
import { UndiciTransport } from './undiciTransport';
import { overBudget } from './budgetVerdict';
import { sendFollowingRedirects } from './redirects';
import {
  declaredLength,
  decodedBody,
  describeHeaders,
  discard,
  header,
  readJsonBody,
  requestIdOf,
  type LabResponse,
} from './labAnswer';
import {
  AttemptFailure,
  answerDeadline,
  statusFailure,
  type AnswerDeadline,
} from './attemptFailure';
import { RetryNotices, type RetryListener } from './retryNotices';
import { bodyStallWords, labLabel, requestIdWords, seconds1 } from './httpWords';
import {
  DEFAULT_RETRY_POLICY,
  rateLimitGateFor,
  RateLimitGate,
  backoffDelay,
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
/** What a request asks for after the server refused the narrower `Accept` (406); the answer is still checked. */
const ACCEPT_ANYTHING = '*/*';

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

/** One request through its attempts: what is asked, how its answer is consumed, and how it is shown. */
interface OneRequest<T> {
  readonly spec: RequestSpec;
  readonly query: Readonly<Record<string, string>>;
  readonly consume: (response: LabResponse) => Promise<T>;
  readonly retryBodyFailures: boolean;
  readonly ticket: OutageTicket;
  readonly target: URL;
  /** The lab and request for the log: "Main lab (lab.example.com) GET /api/v1/reports?page=1". */
  readonly describe: string;
}

/** What an attempt noted as it went: when it was sent, its deadline, and the status line's words ("→ 200 in 3 ms"). */
interface AttemptMarks {
  sentAt: number;
  deadline?: AnswerDeadline;
  answeredWith?: string;
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
        body: await readJsonBody(response, this.maxJsonBytes, signal),
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
    const query = spec.query ?? {};
    const search = new URLSearchParams(query).toString();
    const shown = `${spec.path}${search ? `?${search}` : ''}`;
    const request: OneRequest<T> = {
      spec,
      query,
      consume,
      retryBodyFailures,
      ticket,
      target: new URL(`${this.baseUrl.origin}${shown}`),
      describe: `${this.labLabel} ${spec.method ?? 'GET'} ${shown}`,
    };
    let accept = spec.accept;
    for (let attempt = 0; ; attempt++) {
      await this.outage.admit(ticket, spec.signal);
      const marks: AttemptMarks = { sentAt: Date.now() };
      let failure: AttemptFailure;
      try {
        return await this.slots.run(() => this.attempt(request, accept, marks), spec.signal);
      } catch (error) {
        failure = this.failureOf(error, request, marks);
      }
      const { error } = failure;
      if (error.status === 406 && accept !== ACCEPT_ANYTHING) {
        // The server cannot label its answer as we asked: ask again for whatever it has, and check what comes.
        this.log(
          'info',
          `[http] ${request.describe} refused Accept: ${accept} (HTTP 406); asking again with Accept: ${ACCEPT_ANYTHING}`,
        );
        accept = ACCEPT_ANYTHING;
        attempt--;
        continue;
      }
      await this.afterFailure(failure, attempt, request, marks);
    }
  }

  /** One attempt, holding a connection slot: sent once the lab's pause is over, answered, consumed. */
  private async attempt<T>(
    request: OneRequest<T>,
    accept: string,
    marks: AttemptMarks,
  ): Promise<T> {
    const { spec, query, describe } = request;
    const path = spec.path;
    await this.gate.wait(spec.signal);
    // A request that queued for a connection or the lab's pause is not sent once the run's budget is spent.
    const refused = this.outage.spentError(request.ticket);
    if (refused) {
      throw new AttemptFailure(refused, false);
    }
    const started = Date.now();
    marks.sentAt = started;
    const context: AttemptContext = { path, params: query, signal: spec.signal };
    // While the lab fails as a whole, an attempt gets no longer to answer than the budget has left.
    const deadline = answerDeadline(this.outage.budgetDeadline(), spec.signal);
    marks.deadline = deadline;
    const { response, url } = await this.dispatch(
      request.target,
      { ...spec, accept, signal: deadline.signal },
      context,
    ).finally(deadline.clear);
    const requestId = requestIdOf(response.headers);
    marks.answeredWith = `→ ${response.status} in ${Date.now() - started} ms`;
    // One line per request at the default level; headers only at debug (bodies are never logged).
    this.log('info', `[http] ${describe} ${marks.answeredWith}${requestIdWords(requestId)}`);
    this.log('debug', `[http] ${describe} response headers: ${describeHeaders(response.headers)}`);
    if (response.status < 200 || response.status >= 300) {
      throw await statusFailure(response, {
        path,
        params: query,
        requestId,
        from: url,
        labOrigin: this.baseUrl.origin,
        // A person waiting is never kept past one answer timeout by a wait the lab asks for.
        longestWaitMs: this.interactive
          ? Math.min(this.retry.maxRetryAfterMs, this.timeouts.headersMs)
          : this.retry.maxRetryAfterMs,
      });
    }
    let body: Readable = response.body;
    // What the body did if the answer timeout gave it up, whatever a consumer makes of the error.
    let stall: BodyStall | undefined;
    response.body.on('error', (error) => (stall ??= bodyStallOf(error)));
    try {
      body = decodedBody(response);
      const result = await request.consume({
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
        this.logBodyFailure(describe, marks.answeredWith, stall, requestId);
      }
      throw new AttemptFailure(mapped, request.retryBodyFailures && isTransient(mapped, error));
    } finally {
      discard(body);
      discard(response.body);
    }
  }

  /** What a failed attempt came to; the run's budget running out is said as the silence it was. */
  private failureOf<T>(
    error: unknown,
    request: OneRequest<T>,
    marks: AttemptMarks,
  ): AttemptFailure {
    const { spec, query } = request;
    if (marks.deadline?.fired() && !spec.signal?.aborted) {
      return new AttemptFailure(
        labError(
          'timeout',
          'silentFor',
          {
            origin: this.baseUrl.origin,
            // To the deadline, not to when its timer fired (late, on a busy machine).
            seconds: Math.max(
              0,
              Math.round(((marks.deadline.at ?? Date.now()) - marks.sentAt) / 1000),
            ),
          },
          { path: spec.path, params: query, detail: "the run's budget for a failing lab ran out" },
        ),
        false,
      );
    }
    if (error instanceof AttemptFailure) {
      return error;
    }
    const mapped = this.toLabError(error, { path: spec.path, params: query, signal: spec.signal });
    return new AttemptFailure(mapped, isTransient(mapped, error));
  }

  /**
   * After a failed attempt: gives up (throwing what is said) when it is not worth another, the
   * retries are spent, a person waits on a timeout, or the run's budget says so; else says the
   * retry, tells the listeners and waits (a rate limit pauses every caller of the origin).
   */
  private async afterFailure<T>(
    failure: AttemptFailure,
    attempt: number,
    request: OneRequest<T>,
    marks: AttemptMarks,
  ): Promise<void> {
    const { error } = failure;
    const { spec, query } = request;
    let givingUp =
      !failure.retryable ||
      attempt >= this.retry.retries ||
      (this.interactive && error.code === 'timeout');
    let delay = givingUp
      ? 0
      : (failure.retryAfterMs ?? backoffDelay(attempt, this.retry, this.random));
    this.outage.clock(error, marks.sentAt);
    const budget = overBudget(failure, givingUp ? undefined : delay, {
      outage: this.outage,
      origin: this.baseUrl.origin,
      headersMs: this.timeouts.headersMs,
    });
    if (budget) {
      givingUp = true;
      delay = 0;
    }
    this.outage.failed(request.ticket, error, givingUp);
    this.reportConnection(error, delay);
    if (budget?.spent) {
      this.outage.exhaust(budget.error);
    }
    const failedWords = `[http] ${request.describe} failed (${error.status ?? error.code}${error.requestId ? `, request id ${error.requestId}` : ''}) after ${seconds1(Date.now() - marks.sentAt)}`;
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
      path: spec.path,
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
        throw this.toLabError(cancel, { path: spec.path, params: query, signal: spec.signal });
      }
    }
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
    const what = bodyStallWords(stall);
    this.log('warn', `[http] ${describe} ${answeredWith}; ${what}${requestIdWords(requestId)}`);
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

  /** Sends one request with the lab's headers, following redirects (the token only to the lab's origin). */
  private dispatch(
    target: URL,
    spec: RequestSpec,
    context: AttemptContext,
  ): Promise<{ response: TransportResponse; url: URL }> {
    return sendFollowingRedirects(this.transport, target, spec, context, {
      origin: this.baseUrl.origin,
      authorization: () => `Bearer ${this.#token}`,
      userAgent: this.userAgent,
      log: (message) => this.log('info', message),
      mapError: (error) => this.toLabError(error, context),
    });
  }

  /** Turns anything thrown while talking to the lab into a LabApiError that holds no secret. */
  private toLabError(error: unknown, context: AttemptContext): LabApiError {
    return error instanceof AttemptFailure
      ? error.error
      : thrownError(error, context, { origin: this.baseUrl.origin, network: this.network });
  }
}
