import * as assert from 'node:assert/strict';
import {
  DEFAULT_RETRY_POLICY,
  MAX_RETRY_AFTER_MS,
  RateLimitGate,
  backoffDelay,
  parseRetryAfter,
} from '../../../../core/connection/timing';
import { formatClock } from '../../../../core/connection/errorMapping';

describe('retry timing', () => {
  it('backs off 1 s × 2 with 50–100 % jitter, capped at 30 s', () => {
    assert.equal(
      backoffDelay(0, DEFAULT_RETRY_POLICY, () => 1),
      1000,
    );
    assert.equal(
      backoffDelay(0, DEFAULT_RETRY_POLICY, () => 0),
      500,
    );
    assert.equal(
      backoffDelay(2, DEFAULT_RETRY_POLICY, () => 1),
      4000,
    );
    assert.equal(
      backoffDelay(10, DEFAULT_RETRY_POLICY, () => 1),
      30_000,
    );
    assert.equal(
      backoffDelay(10, DEFAULT_RETRY_POLICY, () => 0),
      15_000,
    );
  });

  it('reads Retry-After as seconds, an HTTP-date, a past date, retry-after-ms, or ignores garbage', () => {
    const now = Date.parse('2026-11-01T12:00:00Z');
    assert.equal(parseRetryAfter('2', now), 2000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('1.5', now), 1500);
    assert.equal(parseRetryAfter('Sun, 01 Nov 2026 12:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Sun, 01 Nov 2026 11:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('-5', now), undefined);
    assert.equal(parseRetryAfter('2026-11-01T12:00:30Z', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter('10', now, '250'), 250);
  });

  it('a rate-limit gate holds every waiter until the same moment', async () => {
    const gate = new RateLimitGate();
    gate.pauseUntil(Date.now() + 80);
    gate.pauseUntil(Date.now() + 10); // an earlier pause never shortens a later one
    assert.ok(gate.pausedUntil() !== undefined);
    const started = Date.now();
    await Promise.all([gate.wait(), gate.wait(), gate.wait()]);
    assert.ok(Date.now() - started >= 70, `waited ${Date.now() - started} ms`);
    assert.equal(gate.pausedUntil(), undefined);
  });
});

describe('Retry-After from the server is bounded', () => {
  it('Retry-After of any magnitude or form gives a bounded wait or none, and a formattable time', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    for (const value of [
      '99999999999999999999999999',
      '1e400',
      '-5',
      '3.7',
      'Fri, 31 Dec 9999 23:59:59 GMT',
      'Thu, 01 Jan 1970 00:00:00 GMT',
      'soon',
      '',
      ' 12 ',
    ]) {
      const wait = parseRetryAfter(value, now);
      assert.ok(
        wait === undefined || (Number.isFinite(wait) && wait >= 0 && wait <= MAX_RETRY_AFTER_MS),
        `${value} → ${wait}`,
      );
      if (wait !== undefined) {
        assert.doesNotMatch(formatClock(new Date(now + wait), now), /NaN|Invalid/);
      }
    }
    assert.equal(parseRetryAfter('3.7', now), 3700);
    assert.equal(formatClock(new Date(Number.NaN)), 'later');
  });
});
