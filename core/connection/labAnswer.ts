import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { contentCodings, decodeBody } from './contentEncoding';
import { readErrorBody, type ErrorBody } from './errorBody';
import type { LabApiError } from '../errors/errors';
import { cancelledError, labError } from '../errors/messages';
import { serverText } from '../errors/serverText';
import type { TransportResponse } from './transport';

/*
 * Reading a lab's answer: its headers (the request id among them), its body with its codings
 * undone, a small error body, a JSON body under its size limit. What the HTTP client does with
 * them (retries, budgets, the log) is the client's.
 */

/** The most of an error body (or a redirect's) read; the rest is let go. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_REQUEST_ID_LENGTH = 120;
const REQUEST_ID_HEADERS = [
  'x-request-id',
  'x-correlation-id',
  'request-id',
  'correlation-id',
  'x-ms-request-id',
  'x-amzn-requestid',
];
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

/** A header's value (the first, when the server sent it twice). */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Response headers for a debug line: names and shown values, never a cookie. */
export function describeHeaders(headers: IncomingHttpHeaders): string {
  return Object.entries(headers)
    .filter(([name]) => name !== 'set-cookie')
    .map(
      ([name, value]) =>
        `${name}: ${serverText(Array.isArray(value) ? value.join(', ') : String(value ?? ''), 120)}`,
    )
    .join('; ');
}

/** The request id a response names in one of the usual headers, sanitised. */
export function requestIdOf(headers: IncomingHttpHeaders): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = header(headers, name);
    const id = serverText(value, MAX_REQUEST_ID_LENGTH);
    if (id) {
      return id;
    }
  }
  return undefined;
}

/** Reads a small error body: the server's own reason and request id, sanitised. */
export async function readErrorBodyOf(response: TransportResponse): Promise<ErrorBody> {
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

/** A JSON answer's body, parsed: refused when it is not labelled JSON, is larger than `maxBytes`, or does not parse. */
export async function readJsonBody(
  response: LabResponse,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<unknown> {
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
  if (response.contentLength !== undefined && response.contentLength > maxBytes) {
    throw tooLarge(response, maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    if (signal?.aborted) {
      throw cancelledError(response.path);
    }
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      throw tooLarge(response, maxBytes);
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

function tooLarge(response: LabResponse, maxBytes: number): LabApiError {
  return labError(
    'invalidResponse',
    'jsonTooLarge',
    { mib: Math.round(maxBytes / 1024 / 1024) },
    {
      status: response.status,
      path: response.path,
      requestId: response.requestId,
    },
  );
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
export function decodedBody(response: TransportResponse): Readable {
  const encoding = header(response.headers, 'content-encoding');
  const codings = contentCodings(encoding);
  if (codings === undefined) {
    throw labError('invalidResponse', 'unknownEncoding', { encoding: serverText(encoding, 40) });
  }
  return decodeBody(response.body, codings);
}

/** The first bytes of a small body, up to `limit`; reading stops there (the caller discards the rest). */
export async function readAtMost(body: Readable, limit: number): Promise<Buffer> {
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
export function discard(body: Readable): void {
  if (!body.destroyed) {
    body.on('error', () => undefined);
    body.destroy();
  }
}
