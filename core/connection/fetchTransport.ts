import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

import { isUntrustedChainCode } from './tlsProblems';
import {
  refusedTunnel,
  TransportError,
  type Transport,
  type TransportRequest,
  type TransportResponse,
  type TransportSettings,
  watchedBody,
} from './transport';

/** A `fetch` to send through: the extension host's (VS Code's network stack) or, in tests, Node's. */
export type FetchFunction = (input: URL, init: RequestInit) => Promise<Response>;

export interface FetchTransportOptions extends TransportSettings {
  readonly fetch: FetchFunction;
  /** The name in the log ("VS Code"). */
  readonly name: string;
  /** The proxy this `fetch` uses for a URL, where it can be known, for messages only. */
  readonly proxyFor?: (url: URL) => string | undefined;
}

/** Content codings `fetch` undoes itself (the body it gives is already decoded). */
const DECODED_BY_FETCH = /^\s*(x-gzip|gzip|deflate|br)(\s*,\s*(x-gzip|gzip|deflate|br))*\s*$/i;

/**
 * A transport over a `fetch` function: in VS Code, the extension host's own, which VS Code patches
 * so that its proxy resolution (PAC, the OS, `http.proxy`, `http.noProxy`, `http.proxySupport`),
 * proxy sign-in (Kerberos, its credential prompt) and certificates (`http.systemCertificates`) apply
 * to every request, as to VS Code's own. It keeps the seam's contract: redirects are returned, not
 * followed (`redirect: 'manual'`); the connect-and-headers and body-idle timeouts are its own; a body
 * `fetch` has already decoded loses its `Content-Encoding` and `Content-Length`, so the client
 * neither decodes it twice nor measures it against the encoded length.
 */
export class FetchTransport implements Transport {
  readonly name: string;
  private readonly inFlight = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: FetchTransportOptions) {
    this.name = options.name;
  }

  proxyFor(url: URL): string | undefined {
    return this.options.proxyFor?.(url);
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    if (this.closed) {
      throw new Error('The connection to the lab was closed.');
    }
    const { timeouts } = this.options;
    const controller = new AbortController();
    this.inFlight.add(controller);
    const callerAborted = (): void => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', callerAborted, { once: true });
    const done = (): void => {
      request.signal?.removeEventListener('abort', callerAborted);
      this.inFlight.delete(controller);
    };
    if (request.signal?.aborted) {
      callerAborted();
    }
    // `fetch` has no connect timeout of its own: the headers' wait covers connecting (and the proxy's tunnel) too.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeouts.headersMs);
    let response: Response;
    try {
      response = await this.options.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        // A PUT's body streams (`duplex` is how `fetch` is told a stream goes out as it is read).
        ...(request.body
          ? { body: Readable.toWeb(request.body) as unknown as RequestInit['body'], duplex: 'half' }
          : {}),
        redirect: 'manual',
        signal: controller.signal,
      });
    } catch (error) {
      done();
      if (timedOut) {
        throw new TransportError(
          'UND_ERR_HEADERS_TIMEOUT',
          'the lab did not answer in time',
          undefined,
          { cause: error },
        );
      }
      if (request.signal?.aborted) {
        throw request.signal.reason ?? error;
      }
      throw refusedTunnel(error) ?? error;
    } finally {
      clearTimeout(timer);
    }
    const headers = headersOf(response.headers);
    const encoding = headers['content-encoding'];
    if (typeof encoding === 'string' && DECODED_BY_FETCH.test(encoding)) {
      delete headers['content-encoding'];
      delete headers['content-length'];
    }
    const body = watchedBody(
      response.body
        ? bodyOf(
            response.body as unknown as NodeReadableStream<Uint8Array>,
            controller,
            request.highWaterMark,
          )
        : Readable.from([]),
      timeouts.bodyIdleMs,
      { highWaterMark: request.highWaterMark },
    );
    body.once('close', done);
    return { status: response.status, headers, body };
  }

  /** Stops every request under way; later ones fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const controller of this.inFlight) {
      controller.abort();
    }
    this.inFlight.clear();
  }
}

/** The headers as Node gives them: names in lower case, `set-cookie` as a list. */
function headersOf(headers: Headers): IncomingHttpHeaders {
  const result: IncomingHttpHeaders = {};
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') {
      result[name] = value;
    }
  });
  const cookies = headers.getSetCookie?.() ?? [];
  if (cookies.length > 0) {
    result['set-cookie'] = cookies;
  }
  return result;
}

/**
 * The body as a Node stream that reads the web stream only when its reader asks (so back-pressure
 * reaches the socket; the answer timeout is {@link watchedBody}'s, above it), stops the request
 * when destroyed, and gives a broken connection the platform's code (`fetch` reports it as a bare
 * "terminated" whose cause holds the code).
 */
function bodyOf(
  stream: NodeReadableStream<Uint8Array>,
  controller: AbortController,
  highWaterMark?: number,
): Readable {
  const reader = stream.getReader();
  let finished = false;
  return new Readable({
    ...(highWaterMark ? { highWaterMark } : {}),
    read() {
      reader.read().then(
        ({ done, value }) => {
          finished = done;
          this.push(done ? null : value);
        },
        (error: unknown) => this.destroy(platformError(error)),
      );
    },
    destroy(error, callback) {
      if (!finished) {
        controller.abort();
      }
      reader.cancel(error ?? undefined).catch(() => undefined);
      callback(error);
    },
  });
}

/** `fetch`'s "terminated" (or "fetch failed") with the code of its cause, as the client maps network failures by code. */
function platformError(error: unknown): Error {
  if (error instanceof TransportError || !(error instanceof Error)) {
    return error instanceof Error ? error : new Error(String(error));
  }
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (typeof cause?.code === 'string' && !(error as NodeJS.ErrnoException).code) {
    return Object.assign(
      new Error(typeof cause.message === 'string' ? cause.message : error.message, {
        cause: error,
      }),
      { code: cause.code },
    );
  }
  return error;
}

/** Whether `error` (or its cause) is a certificate chain the transport did not trust. */
export function isUntrustedChain(error: unknown): boolean {
  for (
    let current: unknown = error, depth = 0;
    current instanceof Error && depth < 4;
    current = current.cause, depth++
  ) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && isUntrustedChainCode(code)) {
      return true;
    }
  }
  return false;
}

/**
 * One transport first, another once the first cannot serve: in VS Code, its own `fetch` first and
 * undici (which trusts `NODE_EXTRA_CA_CERTS`, which VS Code's `fetch` does not add) after the first
 * chain VS Code did not trust. The switch is made once, said once (`onSwitch`), and kept for the
 * client's life; the failed request is sent again on the second transport.
 */
export class FallbackTransport implements Transport {
  private second?: Transport;

  constructor(
    private readonly first: Transport,
    private readonly makeSecond: () => Transport,
    private readonly switchOn: (error: unknown) => boolean,
    private readonly onSwitch: (error: unknown) => void,
  ) {}

  get name(): string {
    return (this.second ?? this.first).name;
  }

  proxyFor(url: URL): string | undefined {
    return (this.second ?? this.first).proxyFor(url);
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    if (this.second) {
      return this.second.send(request);
    }
    try {
      return await this.first.send(request);
    } catch (error) {
      if (!this.switchOn(error) || request.signal?.aborted) {
        throw error;
      }
      this.second ??= this.makeSecond();
      this.onSwitch(error);
      return this.second.send(request);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.first.close(), this.second?.close()]);
  }
}
