import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import {
  AttemptFailure,
  answerDeadline,
  detailsOf,
  statusFailure,
} from '../../../../core/connection/attemptFailure';
import { LabApiError } from '../../../../core/errors/errors';
import type { TransportResponse } from '../../../../core/connection/transport';

/** A lab's answer of `status` with these headers and this body, as a transport gives it. */
function answer(
  status: number,
  headers: Record<string, string> = {},
  body = '',
): TransportResponse {
  return { status, headers, body: Readable.from(body ? [Buffer.from(body)] : []) };
}

const REQUEST = {
  path: '/api/v1/reports',
  params: { page: '2' },
  requestId: undefined,
  from: new URL('https://lab.test/api/v1/reports?page=2'),
  labOrigin: 'https://lab.test',
  longestWaitMs: 60_000,
};

describe('one attempt of a request: its deadline, its failure, a status in words', () => {
  it('an attempt without a deadline keeps the caller’s signal; with one, it aborts then and says it did', async () => {
    const caller = new AbortController();
    const none = answerDeadline(undefined, caller.signal);
    assert.equal(none.signal, caller.signal);
    assert.equal(none.fired(), false);

    const soon = answerDeadline(Date.now() + 20, caller.signal);
    await new Promise<void>((resolve) => soon.signal!.addEventListener('abort', () => resolve()));
    assert.equal(soon.fired(), true);
    assert.equal(caller.signal.aborted, false, 'the caller’s own signal is left alone');

    const cleared = answerDeadline(Date.now() + 20);
    cleared.clear();
    await new Promise((resolve) => setImmediate(resolve));
    const late = answerDeadline(Date.now() + 40);
    await new Promise<void>((resolve) => late.signal!.addEventListener('abort', () => resolve()));
    assert.equal(cleared.fired(), false, 'a cleared deadline never fires');
  });

  it('the facts of an error carry over to another sentence about it, with what is added', () => {
    const error = new LabApiError('server', 'Server failed.', {
      status: 503,
      path: '/api/v1/reports',
      requestId: 'r-1',
      reason: 'maintenance',
    });
    const retryAt = new Date('2026-11-28T12:00:00Z');
    assert.deepEqual(detailsOf(error, { retryAt }), {
      status: 503,
      path: '/api/v1/reports',
      requestId: 'r-1',
      params: undefined,
      retryAt,
      detail: undefined,
      reason: 'maintenance',
    });
  });

  it('a 429 with a Retry-After that fits is worth another attempt then; one too long to wait is said, not retried', async () => {
    const fits = await statusFailure(answer(429, { 'retry-after': '5' }), REQUEST);
    assert.ok(fits instanceof AttemptFailure);
    assert.equal(fits.error.code, 'rateLimited');
    assert.equal(fits.retryable, true);
    assert.equal(fits.retryAfterMs, 5_000);

    const tooLong = await statusFailure(answer(429, { 'retry-after': '3600' }), {
      ...REQUEST,
      longestWaitMs: 30_000,
    });
    assert.equal(tooLong.retryable, false);
    assert.equal(tooLong.retryAfterMs, 3_600_000);
    assert.ok(tooLong.error.retryAt, 'it says when to come back');
  });

  it('a 404 is not retried; the server’s reason and request id come from its error body, sanitised', async () => {
    const failure = await statusFailure(
      answer(
        404,
        { 'content-type': 'application/json' },
        JSON.stringify({ detail: 'No such\nreport', request_id: 'req-42' }),
      ),
      REQUEST,
    );
    assert.equal(failure.retryable, false);
    assert.equal(failure.error.status, 404);
    assert.equal(failure.error.requestId, 'req-42');
    assert.equal(failure.error.reason, 'No such report');
    assert.equal(failure.error.path, '/api/v1/reports');
  });

  it('a 503 without Retry-After is retried after the usual back-off', async () => {
    const failure = await statusFailure(answer(503), REQUEST);
    assert.equal(failure.retryable, true);
    assert.equal(failure.retryAfterMs, undefined);
  });
});
