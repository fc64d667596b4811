import { isLoopbackHost } from './baseUrl';
import { ACCEPT_ENCODING } from './contentEncoding';
import type { LabApiError } from '../errors/errors';
import { labError } from '../errors/messages';
import { isTransient, type AttemptContext } from './errorMapping';
import { AttemptFailure } from './attemptFailure';
import { MAX_ERROR_BODY_BYTES, discard, header, readAtMost, requestIdOf } from './labAnswer';
import type { Transport, TransportResponse } from './transport';

const MAX_REDIRECTS = 5;

/** What one hop sends: what it accepts, its method, and how it may be stopped. */
interface HopSpec {
  readonly accept: string;
  readonly method?: 'GET' | 'HEAD';
  readonly signal?: AbortSignal;
  readonly highWaterMark?: number;
}

/** The lab's side of a request: its origin and credentials, and how the client logs and maps errors. */
interface LabSide {
  readonly origin: string;
  /** The `Authorization` header, sent only to the lab's own origin. */
  readonly authorization: () => string;
  readonly userAgent: string;
  readonly log: (message: string) => void;
  readonly mapError: (error: unknown) => LabApiError;
}

/**
 * Sends one GET (or HEAD), following redirects itself: the token goes only to the lab's own origin, never
 * over plain http except to loopback, and each hop takes its own route (proxy or direct).
 */
export async function sendFollowingRedirects(
  transport: Transport,
  target: URL,
  spec: HopSpec,
  context: AttemptContext,
  lab: LabSide,
): Promise<{ response: TransportResponse; url: URL }> {
  let url = target;
  for (let hop = 0; ; hop++) {
    const sameOrigin = url.origin === lab.origin;
    const headers: Record<string, string> = {
      accept: spec.accept,
      'accept-encoding': ACCEPT_ENCODING,
      'user-agent': lab.userAgent,
    };
    if (sameOrigin) {
      headers.authorization = lab.authorization();
    }
    context.proxy = transport.proxyFor(url);
    context.target = url;
    let response: TransportResponse;
    try {
      response = await transport.send({
        method: spec.method ?? 'GET',
        url,
        headers,
        signal: spec.signal,
        highWaterMark: spec.highWaterMark,
      });
    } catch (error) {
      const mapped = lab.mapError(error);
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
    if (next.origin !== lab.origin) {
      lab.log(`[http] following a redirect to ${next.origin} without the access token`);
    }
    url = next;
  }
}
