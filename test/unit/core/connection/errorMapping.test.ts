import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import {
  formatClock,
  waitWords,
  isTransient,
  statusError,
  thrownError,
  type AttemptContext,
  type FailedAnswer,
  type LabRoute,
} from '../../../../core/connection/errorMapping';
import { DIRECT } from '../../../../core/connection/network';
import { BodyStallError, TransportError, watchedBody } from '../../../../core/connection/transport';
import { LabApiError } from '../../../../core/errors/errors';
import { labError } from '../../../../core/errors/messages';

const LAB = 'https://lab.example.com';
const ROUTE: LabRoute = { origin: LAB, network: DIRECT };
const DETAILS = { path: '/api/v1/reports', params: { page: '2' }, requestId: 'req-1' };
const CONTEXT: AttemptContext = { path: '/api/v1/reports', params: { page: '2' } };
const PROXY = 'http://proxy.corp:3128';

function answer(status: number, extra: Partial<FailedAnswer> = {}): FailedAnswer {
  return { status, labOrigin: LAB, answeredBy: LAB, proxyAuthenticate: false, ...extra };
}

/** A Node system error as a socket or undici throws it: a code, perhaps only on its cause. */
function systemError(code: string, onCause = false): Error {
  const error = new Error(`${code} while talking`);
  if (onCause) {
    return new Error('fetch failed', { cause: Object.assign(new Error('inner'), { code }) });
  }
  return Object.assign(error, { code });
}

describe('errorMapping: statuses', () => {
  it('gives each documented status its code and catalogue sentence, with the facts of the request', () => {
    const cases: [number, string, string][] = [
      [400, 'badRequest', 'badRequest'],
      [401, 'unauthorized', 'unauthorized'],
      [403, 'forbidden', 'forbidden'],
      [404, 'notFound', 'notFound'],
      [429, 'rateLimited', 'rateLimited'],
      [500, 'server', 'serverFailed'],
      [502, 'server', 'serverFailed'],
      [418, 'unexpectedStatus', 'unexpectedStatus'],
    ];
    for (const [status, code, id] of cases) {
      const error = statusError(answer(status), { ...DETAILS, status });
      assert.equal(error.code, code, `${status}`);
      assert.equal(error.text?.id, id, `${status}`);
      assert.deepEqual(error.text?.args, { origin: LAB, status });
      assert.equal(error.status, status);
      assert.equal(error.path, '/api/v1/reports');
      assert.equal(error.requestId, 'req-1');
    }
  });

  it("adds the server's own reason to the sentence", () => {
    const error = statusError(answer(400), { ...DETAILS, status: 400, reason: 'page must be > 0' });
    assert.equal(error.reason, 'page must be > 0');
    assert.match(error.message, /page must be > 0/);
  });

  it("does not take a 401 or 403 from another origin, or a proxy's, as the lab's verdict on the token", () => {
    const elsewhere = statusError(answer(401, { answeredBy: 'https://login.example.com' }), {
      status: 401,
    });
    assert.equal(elsewhere.code, 'unexpectedStatus');
    assert.equal(elsewhere.text?.id, 'unauthorizedElsewhere');
    assert.deepEqual(elsewhere.text?.args, { origin: 'https://login.example.com', status: 401 });
    const proxy = statusError(answer(403, { proxyAuthenticate: true }), { status: 403 });
    assert.equal(proxy.code, 'unexpectedStatus');
    assert.equal(proxy.text?.id, 'unauthorizedProxy');
    assert.equal(
      statusError(answer(404, { answeredBy: 'https://cdn.example.com' }), {}).code,
      'notFound',
      'only a 401 or 403 elsewhere is about credentials',
    );
  });

  it('says how long a lab asks to wait in words a person reads', () => {
    assert.equal(waitWords(45_000), '45 s');
    assert.equal(waitWords(20 * 60_000), '20 min');
    assert.equal(waitWords(3600_000), '1 hour');
    assert.equal(waitWords(3 * 3600_000), '3 hours');
    assert.equal(waitWords(4 * 86_400_000), '4 days');
    assert.equal(waitWords(-5), '0 s');
  });

  it('keeps when to come back on a 429 or 503, and says the time when that is too long to wait', () => {
    const retryAt = new Date(2030, 0, 2, 14, 5);
    const soon = statusError(answer(503, { retryAt }), { status: 503 });
    assert.equal(soon.code, 'server');
    assert.equal(soon.text?.id, 'serverFailed');
    assert.equal(soon.retryAt, retryAt);
    const late = statusError(answer(429, { retryAt, tooLongToWait: true }), { status: 429 });
    assert.equal(late.code, 'rateLimited');
    assert.equal(late.text?.id, 'rateLimitedUntil');
    assert.equal(late.text?.args.time, formatClock(retryAt));
    assert.equal(late.text?.args.origin, answer(429).labOrigin);
    assert.match(String(late.text?.args.wait), /^\d+ days$/);
    assert.equal(late.retryAt, retryAt);
    const unavailable = statusError(answer(503, { retryAt, tooLongToWait: true }), {});
    assert.equal(unavailable.text?.id, 'unavailableUntil');
    assert.equal(
      statusError(answer(500, { retryAt }), {}).retryAt,
      undefined,
      'only a 429 or 503 says when to come back',
    );
  });

  it('says the time of day within 20 hours, the date beyond, and "later" for no date', () => {
    const now = new Date(2030, 0, 2, 9, 0).getTime();
    assert.equal(formatClock(new Date(2030, 0, 2, 14, 5), now), '14:05');
    assert.equal(formatClock(new Date(2030, 0, 4, 8, 30), now), '2030-01-04 08:30');
    assert.equal(formatClock(new Date(Number.NaN), now), 'later');
  });
});

describe('errorMapping: what was thrown', () => {
  it('passes a LabApiError through untouched', () => {
    const error = labError('invalidResponse', 'badJson');
    assert.equal(thrownError(error, CONTEXT, ROUTE), error);
  });

  it('names the TLS problem from the TLS code table, with the code for the log', () => {
    const cases: [string, string][] = [
      ['DEPTH_ZERO_SELF_SIGNED_CERT', 'certSelfSigned'],
      ['SELF_SIGNED_CERT_IN_CHAIN', 'certUnknownRoot'],
      ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'certUnknownIssuer'],
      ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'certUnknownIssuer'],
      ['CERT_HAS_EXPIRED', 'certExpired'],
      ['ERR_TLS_CERT_ALTNAME_INVALID', 'certWrongHost'],
      ['CERT_REVOKED', 'certOther'],
    ];
    for (const [code, id] of cases) {
      const error = thrownError(systemError(code, true), CONTEXT, ROUTE);
      assert.equal(error.code, 'network', code);
      assert.equal(error.text?.id, id, code);
      assert.deepEqual(error.text?.args, { origin: LAB, code });
      assert.equal(error.detail, code);
    }
  });

  it('says which wait ran out', () => {
    const cases: [string, string][] = [
      ['UND_ERR_CONNECT_TIMEOUT', 'connecting'],
      ['UND_ERR_HEADERS_TIMEOUT', 'waiting for an answer'],
      ['UND_ERR_BODY_TIMEOUT', 'receiving data'],
    ];
    for (const [code, what] of cases) {
      const error = thrownError(systemError(code), CONTEXT, ROUTE);
      assert.equal(error.code, 'timeout');
      assert.deepEqual(error.text?.args, { origin: LAB, what });
    }
  });

  it('says a stalled body as the answer timeout it broke, however late a busy machine fired the timer', async () => {
    // A body that sends nothing, watched under a 200 ms answer timeout, on a machine too busy to
    // run the timer until 600 ms have passed: the lab sent nothing for 0.2 s (and more), never
    // "for 0.6 s" one run and "for 0.2 s" the next.
    const source = new PassThrough();
    const body = watchedBody(source, 200);
    const failed = new Promise<unknown>((resolve) => body.once('error', resolve));
    body.resume();
    await new Promise((resolve) => setImmediate(resolve)); // the reader is waiting for bytes
    const busyUntil = Date.now() + 600;
    while (Date.now() < busyUntil) {
      // the machine is busy
    }
    const stall = await failed;
    assert.ok(stall instanceof BodyStallError, String(stall));
    assert.ok(stall.stall.waitedMs >= 600, `waited ${stall.stall.waitedMs} ms`);
    const error = thrownError(stall, CONTEXT, ROUTE);
    assert.equal(error.code, 'timeout');
    assert.equal(
      error.message,
      'The lab at https://lab.example.com sent its headers, then nothing for 0.2 s.',
    );
    source.destroy();
  });

  it('takes an abort, or any failure once the caller cancelled, as a cancellation', () => {
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    assert.equal(thrownError(abort, CONTEXT, ROUTE).code, 'cancelled');
    assert.equal(thrownError(systemError('UND_ERR_ABORTED'), CONTEXT, ROUTE).code, 'cancelled');
    const signal = AbortSignal.abort();
    assert.equal(
      thrownError(systemError('ECONNRESET'), { ...CONTEXT, signal }, ROUTE).code,
      'cancelled',
    );
  });

  it('says in words why the lab could not be reached, naming the origin that was asked', () => {
    const refused = thrownError(systemError('ECONNREFUSED'), CONTEXT, ROUTE);
    assert.equal(refused.text?.id, 'unreachable');
    assert.deepEqual(refused.text?.args, { origin: LAB, reason: 'connection refused' });
    assert.equal(refused.detail, 'ECONNREFUSED: ECONNREFUSED while talking');
    const redirected = thrownError(
      systemError('ECONNRESET'),
      { ...CONTEXT, target: new URL('https://files.example.com/r.pdf') },
      ROUTE,
    );
    assert.deepEqual(redirected.text?.args, {
      origin: 'https://files.example.com',
      reason: 'the connection was dropped',
    });
    const notFound = thrownError(systemError('ENOTFOUND'), CONTEXT, ROUTE);
    assert.equal(notFound.text?.id, 'hostNotFound');
    const bare = thrownError(new Error('socket hang up'), CONTEXT, ROUTE);
    assert.deepEqual(bare.text?.args, { origin: LAB, reason: 'socket hang up' });
    assert.equal(bare.detail, 'socket hang up');
    assert.deepEqual(thrownError('???', CONTEXT, ROUTE).text?.args, {
      origin: LAB,
      reason: 'network error',
    });
  });

  it('blames the proxy when the connection through it failed, naming who chose it', () => {
    const route: LabRoute = {
      origin: LAB,
      network: { noProxy: [], httpsProxy: PROXY, httpsProxySource: 'HTTPS_PROXY' },
    };
    const error = thrownError(systemError('ENOTFOUND'), { ...CONTEXT, proxy: PROXY }, route);
    assert.equal(error.text?.id, 'proxyUnreachable');
    assert.deepEqual(error.text?.args, {
      proxy: PROXY,
      proxySource: 'HTTPS_PROXY',
      reason: 'host name not found',
    });
    const unnamed = thrownError(systemError('ECONNREFUSED'), { ...CONTEXT, proxy: PROXY }, ROUTE);
    assert.equal(unnamed.text?.args.proxySource, 'your proxy settings');
  });

  it("reads a refused tunnel: missing or rejected proxy credentials, by where they came from, or the proxy's refusal", () => {
    const tunnel = (status: number) =>
      new TransportError('ERR_PROXY_TUNNEL', `Proxy response (${status}) !== 200`, status);
    const context = { ...CONTEXT, proxy: PROXY };
    const none = thrownError(tunnel(407), context, ROUTE);
    assert.equal(none.text?.id, 'proxyAuth');
    assert.match(none.detail!, /no credentials were sent/);
    const header = thrownError(tunnel(407), context, {
      origin: LAB,
      network: { noProxy: [], proxyAuthorization: 'Basic abc' },
    });
    assert.equal(header.text?.id, 'proxyAuthRejected');
    assert.match(header.detail!, /credentials from http\.proxyAuthorization/);
    const userInfo = thrownError(
      tunnel(401),
      { ...CONTEXT, proxy: 'http://me:secret@proxy.corp:3128' },
      ROUTE,
    );
    assert.equal(userInfo.text?.id, 'proxyUrlAuthRejected');
    const refused = thrownError(tunnel(403), context, ROUTE);
    assert.equal(refused.text?.id, 'proxyRefused');
    assert.equal(refused.status, 403);
    assert.equal(
      thrownError(tunnel(403), CONTEXT, ROUTE).text?.id,
      'unreachable',
      'without a proxy there is no tunnel to blame',
    );
  });
});

describe('errorMapping: which failures are worth another attempt', () => {
  it('retries timeouts and passing network faults, never a TLS problem or rejected proxy credentials', () => {
    const mapped = (raw: unknown) => isTransient(thrownError(raw, CONTEXT, ROUTE), raw);
    assert.equal(mapped(systemError('ECONNRESET')), true);
    assert.equal(mapped(systemError('ECONNREFUSED', true)), true);
    assert.equal(mapped(systemError('UND_ERR_HEADERS_TIMEOUT')), true);
    assert.equal(mapped(systemError('ENOTFOUND')), false);
    assert.equal(mapped(systemError('CERT_HAS_EXPIRED')), false);
    assert.equal(mapped(new Error('socket hang up')), false);
    const tunnel = Object.assign(
      new TransportError('ERR_PROXY_TUNNEL', 'Proxy response (407) !== 200', 407),
      { cause: { code: 'ECONNRESET' } },
    );
    const proxyAuth = thrownError(tunnel, { ...CONTEXT, proxy: PROXY }, ROUTE);
    assert.equal(isTransient(proxyAuth, tunnel), false);
  });

  it('never lets a LabApiError from a status be mistaken for a network fault', () => {
    const status = new LabApiError('server', 'Server failed.', { status: 503 });
    assert.equal(isTransient(status, systemError('ECONNRESET')), false);
  });
});
