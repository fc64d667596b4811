import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';

/**
 * The one place a request leaves the process. A transport sends exactly the request it is given
 * and returns what came back: it follows no redirect, retries nothing, decodes nothing and decides
 * nothing about tokens. Everything else (retries and the shared rate-limit state, redirects and the
 * token's origin rule, size limits, content decoding, error mapping, logging) is the
 * {@link HttpClient}'s, above this seam, the same whichever transport runs.
 */
export interface Transport {
  /** A short name for the log ("undici"). */
  readonly name: string;
  /**
   * The proxy a request to `url` goes through, for messages and the log (scheme, host and port
   * are shown; credentials never), or undefined when it goes direct or the transport cannot say.
   */
  proxyFor(url: URL): string | undefined;
  /**
   * Sends one request. Resolves once the status and headers have arrived, whatever the status
   * (a 3xx is returned, not followed); the body streams afterwards and must be consumed or
   * destroyed by the caller. Rejects with a {@link TransportError} code where one applies, else
   * with the platform's error (a Node system error such as `ECONNREFUSED`, or a TLS verification
   * code such as `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, as `code` or `cause.code`).
   */
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Closes pooled connections; requests after this fail. */
  close(): Promise<void>;
}

export interface TransportRequest {
  /**
   * HEAD asks only for the status and headers (a file's size, say); its body is empty. PUT (a team
   * cache's write, the only request with a body) sends {@link body}.
   */
  readonly method: 'GET' | 'HEAD' | 'PUT';
  readonly url: URL;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** What a PUT sends (its length given as `content-length` in {@link headers}). */
  readonly body?: Readable;
  /** Cancels the request and, after the headers, its body. */
  readonly signal?: AbortSignal;
  /** How much of the body may wait in memory for a slow reader (files: large, so the socket keeps flowing). */
  readonly highWaterMark?: number;
}

export interface TransportResponse {
  readonly status: number;
  /** Header names in lower case; a repeated header as an array. */
  readonly headers: IncomingHttpHeaders;
  /** The body as sent (still content-encoded). An error while it streams is emitted on it. */
  readonly body: Readable;
}

/**
 * How long a transport waits, set when it is built: connecting (TCP and TLS, or the proxy's
 * tunnel), the status and headers after the request went out, and silence between two chunks of
 * a body. Exceeding one fails the request with the matching {@link TransportErrorCode}.
 */
export interface TransportTimeouts {
  readonly connectMs: number;
  readonly headersMs: number;
  readonly bodyIdleMs: number;
}

/** What a client tells the transport it builds: how many connections per origin, and how long to wait. */
export interface TransportSettings {
  /** Connections per origin; the client never has more requests in flight than this. */
  readonly connections: number;
  readonly timeouts: TransportTimeouts;
}

/** Builds a client's transport from the client's settings (the seam a second transport plugs into). */
export type TransportFactory = (settings: TransportSettings) => Transport;

/**
 * The failures every transport reports in the same words, whatever its platform calls them. The
 * timeout codes are undici's own names, so errors of the undici transport pass through unchanged.
 */
export type TransportErrorCode =
  | 'UND_ERR_CONNECT_TIMEOUT'
  | 'UND_ERR_HEADERS_TIMEOUT'
  | 'UND_ERR_BODY_TIMEOUT'
  /** The proxy answered the CONNECT of a tunnel with something other than 200 (`proxyStatus`). */
  | 'ERR_PROXY_TUNNEL';

/** A failure a transport names in the shared words of {@link TransportErrorCode}. */
export class TransportError extends Error {
  constructor(
    readonly code: TransportErrorCode,
    message: string,
    readonly proxyStatus?: number,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportError';
  }
}

/** undici's words for a proxy that refused the CONNECT of a tunnel (VS Code's `fetch` is undici too). */
const PROXY_TUNNEL_STATUS = /Proxy response \((\d{3})\) !== 200/;

/**
 * undici reports a refused tunnel as a failed request whose message (or, through `fetch`, whose
 * cause's message) holds the proxy's status: that failure in the seam's words, else undefined.
 */
export function refusedTunnel(error: unknown): TransportError | undefined {
  const messages =
    error instanceof Error
      ? [error.message, error.cause instanceof Error ? error.cause.message : '']
      : [];
  const tunnel = PROXY_TUNNEL_STATUS.exec(messages.join(' '));
  return tunnel
    ? new TransportError(
        'ERR_PROXY_TUNNEL',
        `the proxy answered the tunnel with ${tunnel[1]}`,
        Number(tunnel[1]),
        { cause: error },
      )
    : undefined;
}

/** What a lab did with a body it stopped or starved: the facts a sentence and the log are made of. */
export interface BodyStall {
  /** Nothing after the headers; part of the body and then nothing; bytes, but too few to finish. */
  readonly kind: 'headersOnly' | 'stopped' | 'tooSlow';
  /** Bytes of the body received before it was given up (of this window, for `tooSlow`). */
  readonly bytes: number;
  /** How long the reader waited for the next byte (`headersOnly`, `stopped`) or in all (`tooSlow`). */
  readonly waitedMs: number;
  /** How long after the headers the body was given up. */
  readonly afterHeadersMs: number;
  /**
   * The answer timeout the body was held to: what a person is told the lab did ("nothing for
   * 30 s"), since the rule, not when a busy machine's timer happened to fire, decides.
   */
  readonly limitMs: number;
}

/** A body given up by {@link watchedBody}: `UND_ERR_BODY_TIMEOUT`, with what the lab did. */
export class BodyStallError extends TransportError {
  constructor(readonly stall: BodyStall) {
    super('UND_ERR_BODY_TIMEOUT', `the lab's answer ${stall.kind}`);
    this.name = 'BodyStallError';
  }
}

/**
 * The fewest bytes a body must bring in one answer timeout of waiting: a lab that trickles less
 * (one byte a second) never finishes a page in any time a person waits, and is given up.
 */
export const MIN_BYTES_PER_ANSWER_TIMEOUT = 1024;

/**
 * The body `source` under the answer timeout, the same on every transport: the time counted is
 * only the time a reader waits for bytes (a slow reader, such as a disk, never counts against the
 * lab). It fails with a {@link BodyStallError} when a wait for the next byte reaches `idleMs`
 * (headers and then nothing; part of the answer and then nothing), or when `idleMs` of waiting
 * brought fewer than {@link MIN_BYTES_PER_ANSWER_TIMEOUT} bytes (a trickle). The source is read
 * only when the reader asks, so back-pressure still reaches the socket; destroying either end
 * destroys the other.
 */
export function watchedBody(
  source: Readable,
  idleMs: number,
  options: { readonly highWaterMark?: number; readonly minBytes?: number } = {},
): Readable {
  const minBytes = options.minBytes ?? MIN_BYTES_PER_ANSWER_TIMEOUT;
  const headersAt = Date.now();
  let total = 0;
  /** When the reader began waiting (undefined: it is not waiting). */
  let waitingSince: number | undefined;
  /** When the current wait last saw a byte (or began). */
  let quietSince = headersAt;
  let windowWaitedMs = 0;
  let windowBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let ended = false;

  const waitedInWindow = (now: number): number =>
    windowWaitedMs + (waitingSince === undefined ? 0 : now - waitingSince);
  const stall = (kind: BodyStall['kind'], waitedMs: number, bytes: number): void => {
    out.destroy(
      new BodyStallError({
        kind,
        bytes,
        waitedMs,
        afterHeadersMs: Date.now() - headersAt,
        limitMs: idleMs,
      }),
    );
  };
  const check = (): void => {
    timer = undefined;
    if (waitingSince === undefined || ended) {
      return;
    }
    const now = Date.now();
    const quietMs = now - quietSince;
    if (quietMs >= idleMs) {
      stall(total === 0 ? 'headersOnly' : 'stopped', quietMs, total);
      return;
    }
    const waited = waitedInWindow(now);
    if (waited >= idleMs) {
      if (windowBytes < minBytes) {
        stall('tooSlow', waited, windowBytes);
        return;
      }
      windowWaitedMs = 0;
      windowBytes = 0;
      waitingSince = now;
    }
    arm(now);
  };
  const arm = (now: number): void => {
    clearTimeout(timer);
    const untilQuiet = idleMs - (now - quietSince);
    const untilWindow = idleMs - waitedInWindow(now);
    timer = setTimeout(check, Math.max(0, Math.min(untilQuiet, untilWindow)));
  };
  const stopWaiting = (now: number): void => {
    if (waitingSince !== undefined) {
      windowWaitedMs += now - waitingSince;
      waitingSince = undefined;
    }
    clearTimeout(timer);
    timer = undefined;
  };
  const pull = (): void => {
    for (;;) {
      const chunk = source.read() as Buffer | null;
      if (chunk === null) {
        break;
      }
      const now = Date.now();
      total += chunk.length;
      windowBytes += chunk.length;
      quietSince = now;
      if (!out.push(chunk)) {
        stopWaiting(now);
        return;
      }
    }
    if (!ended && waitingSince === undefined) {
      const now = Date.now();
      waitingSince = now;
      quietSince = Math.max(quietSince, now);
      arm(now);
    }
  };
  const out = new Readable({
    ...(options.highWaterMark ? { highWaterMark: options.highWaterMark } : {}),
    read() {
      pull();
    },
    destroy(error, callback) {
      clearTimeout(timer);
      if (!source.destroyed) {
        source.destroy();
      }
      callback(error);
    },
  });
  source.on('readable', () => {
    if (waitingSince !== undefined) {
      pull();
    }
  });
  source.once('end', () => {
    ended = true;
    clearTimeout(timer);
    out.push(null);
  });
  // A body nobody reads yet may fail (the connection dropped): as undici's own body, that is no
  // uncaught error; a reader still sees it (its listener, for await, pipeline).
  out.on('error', () => undefined);
  // Every error of the source (undici can emit more than one) ends the body, once.
  source.on('error', (error) => out.destroy(error));
  return out;
}
