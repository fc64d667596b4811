import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

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
