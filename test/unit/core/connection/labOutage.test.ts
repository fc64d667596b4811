import * as assert from 'node:assert/strict';
import {
  LabOutage,
  isLabWideFailure,
  type OutageTicket,
} from '../../../../core/connection/labOutage';
import { isCancellation, LabApiError } from '../../../../core/errors/errors';
import { labError } from '../../../../core/errors/messages';
import { rejection } from '../../helpers';

const ORIGIN = 'https://lab.example.com';
const unavailable = (): LabApiError =>
  labError('server', 'serverFailed', { status: 503 }, { status: 503 });
const refused = (): LabApiError =>
  labError('network', 'unreachable', { origin: ORIGIN, reason: 'connection refused' });
const notFound = (): LabApiError => labError('notFound', 'notFound', {}, { status: 404 });

/** A breaker on a clock the test moves. */
function breaker(): { outage: LabOutage; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  return { outage: new LabOutage(ORIGIN, { now: () => clock.now }), clock };
}

function ticket(path: string): OutageTicket {
  return { path };
}

/** Whether `promise` has settled after the microtasks now queued have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('LabOutage, the circuit breaker of one lab', () => {
  it('counts 5xx "try again" answers, 408, timeouts and unreachable labs as lab-wide; not 4xx, 501 or a broken body', () => {
    for (const status of [408, 500, 502, 503, 504]) {
      assert.ok(
        isLabWideFailure(labError('server', 'serverFailed', { status }, { status })),
        `${status}`,
      );
    }
    assert.ok(isLabWideFailure(refused()));
    assert.ok(
      isLabWideFailure(labError('timeout', 'timeout', { origin: ORIGIN, what: 'connecting' })),
    );
    assert.ok(isLabWideFailure(labError('network', 'hostNotFound', { origin: ORIGIN })));
    for (const status of [400, 401, 403, 404, 429, 501]) {
      assert.ok(
        !isLabWideFailure(labError('unexpectedStatus', 'unexpectedStatus', { status }, { status })),
        `${status}`,
      );
    }
    assert.ok(!isLabWideFailure(labError('network', 'transferBroken')));
    assert.ok(!isLabWideFailure(labError('network', 'certSelfSigned', { origin: ORIGIN })));
    assert.ok(!isLabWideFailure(labError('invalidResponse', 'notPdf')));
  });

  it('never trips on one request alone: a single bad file keeps every retry and the next request goes', async () => {
    const { outage } = breaker();
    const bad = ticket('/api/v1/reports/R-1/file');
    for (let attempt = 0; attempt < 4; attempt++) {
      await outage.admit(bad);
      outage.failed(bad, unavailable(), attempt === 3);
    }
    outage.release(bad);
    assert.equal(outage.state, 'closed');
    await outage.admit(ticket('/api/v1/reports/R-2/file'));
  });

  it('after three failed attempts from several requests, one probe goes on and the others wait for its verdict', async () => {
    const { outage } = breaker();
    const [a, b, c] = [ticket('/a'), ticket('/b'), ticket('/c')];
    for (const request of [a, b, c]) {
      await outage.admit(request);
    }
    outage.failed(a, unavailable(), false);
    outage.failed(b, unavailable(), false);
    assert.equal(outage.state, 'closed');
    outage.failed(c, unavailable(), false);
    assert.equal(outage.state, 'probing');
    // c tripped it and is the probe: its retries go; a and b (and anything new) wait.
    await outage.admit(c);
    const waitingA = outage.admit(a);
    const waitingNew = outage.admit(ticket('/d'));
    assert.equal(await settled(waitingA), false);
    assert.equal(await settled(waitingNew), false);
    // The probe gives up: the lab is down; the waiting requests fail without being sent.
    outage.failed(c, unavailable(), true);
    outage.release(c);
    assert.equal(outage.state, 'open');
    for (const waiting of [waitingA, waitingNew]) {
      const error = await rejection(waiting);
      assert.ok(error instanceof LabApiError);
      assert.equal(
        error.message,
        'The lab at https://lab.example.com answered 503 Service Unavailable to the last 4 requests; the remaining files and pages were not requested. Try again later.',
      );
      assert.equal(error.code, 'server');
      assert.equal(error.status, 503);
      assert.equal(error.text?.id, 'labOutageStatus');
    }
    const later = await rejection(outage.admit(ticket('/api/v1/reports/R-9/file')));
    assert.equal((later as LabApiError).path, '/api/v1/reports/R-9/file');
    assert.match((later as LabApiError).describe(), /not sent: the lab failed the last 4 requests/);
  });

  it('an answer from the lab while the probe is out lets everyone go on (a passing hiccup costs a short wait)', async () => {
    const { outage } = breaker();
    const [a, b, c] = [ticket('/a'), ticket('/b'), ticket('/c')];
    [a, b, c].forEach((request) => outage.failed(request, unavailable(), false));
    assert.equal(outage.state, 'probing');
    const waiting = outage.admit(a);
    assert.equal(await settled(waiting), false);
    outage.answered();
    await waiting;
    assert.equal(outage.state, 'closed');
    await outage.admit(b);
  });

  it('a 4xx answer is the lab answering: it resets the count', async () => {
    const { outage } = breaker();
    const [a, b, c] = [ticket('/a'), ticket('/b'), ticket('/c')];
    outage.failed(a, unavailable(), false);
    outage.failed(b, unavailable(), false);
    outage.failed(c, notFound(), true);
    outage.failed(a, unavailable(), false);
    outage.failed(b, unavailable(), false);
    assert.equal(outage.state, 'closed');
  });

  it('fails at once during the cool-down, then lets one probe through; its success closes the breaker', async () => {
    const { outage, clock } = breaker();
    const [a, b, c] = [ticket('/a'), ticket('/b'), ticket('/c')];
    outage.failed(a, refused(), true);
    outage.failed(b, refused(), true);
    outage.failed(c, refused(), true);
    assert.equal(outage.state, 'open');
    const error = (await rejection(outage.admit(ticket('/x')))) as LabApiError;
    assert.equal(
      error.message,
      'The lab at https://lab.example.com failed the last 3 requests (connection refused); the remaining files and pages were not requested. Try again later.',
    );
    assert.equal(error.code, 'network');
    clock.now += 9_999;
    await rejection(outage.admit(ticket('/y')));
    clock.now += 1;
    const probe = ticket('/refresh');
    await outage.admit(probe);
    assert.equal(outage.state, 'probing');
    const other = outage.admit(ticket('/z'));
    assert.equal(await settled(other), false);
    outage.answered();
    await other;
    assert.equal(outage.state, 'closed');
  });

  it('a probe that ends without a verdict (cancelled) hands over to a waiting request', async () => {
    const { outage } = breaker();
    const [a, b, c] = [ticket('/a'), ticket('/b'), ticket('/c')];
    [a, b, c].forEach((request) => outage.failed(request, unavailable(), false));
    const waiting = outage.admit(a);
    outage.release(c);
    await waiting;
    assert.equal(outage.state, 'probing');
  });

  it('a request waiting for the probe stops when cancelled', async () => {
    const { outage } = breaker();
    const [a, b, c] = [ticket('/a'), ticket('/b'), ticket('/c')];
    [a, b, c].forEach((request) => outage.failed(request, unavailable(), false));
    const controller = new AbortController();
    const waiting = outage.admit(a, controller.signal);
    controller.abort();
    assert.ok(isCancellation(await rejection(waiting)));
  });
});

describe("LabOutage with a run's budget for a lab failing as a whole", () => {
  const rateLimited = (): LabApiError =>
    labError('rateLimited', 'rateLimited', {}, { status: 429 });
  function budgeted(budgetMs: number): { outage: LabOutage; clock: { now: number } } {
    const clock = { now: 1_000_000 };
    return { outage: new LabOutage(ORIGIN, { now: () => clock.now, budgetMs }), clock };
  }

  it('has the whole budget while the lab answers, and none to count without one', () => {
    assert.equal(budgeted(30_000).outage.budgetLeftMs(), 30_000);
    assert.equal(breaker().outage.budgetLeftMs(), Number.POSITIVE_INFINITY);
    const { outage } = breaker();
    outage.clock(unavailable(), 0);
    assert.equal(outage.budgetLeftMs(), Number.POSITIVE_INFINITY, 'no budget, no clock');
  });

  it('counts from when the first failing attempt was sent (a timeout is as old as its request), through 429s, until the lab answers', () => {
    const { outage, clock } = budgeted(30_000);
    clock.now += 30_000;
    // A request sent 30 s ago timed out now: the whole budget went on it.
    outage.clock(
      labError('timeout', 'timeout', { origin: ORIGIN, what: 'waiting' }),
      clock.now - 30_000,
    );
    assert.equal(outage.budgetLeftMs(), 0);
    outage.answered();
    assert.equal(outage.budgetLeftMs(), 30_000);
    outage.clock(rateLimited(), clock.now);
    outage.failed(ticket('/a'), rateLimited(), false);
    clock.now += 20_000;
    assert.equal(outage.budgetLeftMs(), 10_000, 'a 429 is no answer to the budget');
    outage.clock(notFound(), clock.now);
    assert.equal(outage.budgetLeftMs(), 10_000, 'a 404 does not start or stop it by itself');
    outage.failed(ticket('/b'), notFound(), true);
    assert.equal(outage.budgetLeftMs(), 30_000, 'but it is an answer');
  });

  it('once spent, every request fails at once with the cause, also after a late answer, also one already admitted', async () => {
    const { outage } = budgeted(30_000);
    const early = ticket('/early');
    await outage.admit(early);
    const waiting = [ticket('/a'), ticket('/b'), ticket('/c')];
    waiting.forEach((request) => outage.failed(request, unavailable(), false));
    const held = outage.admit(ticket('/d'));
    const cause = labError('timeout', 'silentFor', { origin: ORIGIN, seconds: 30 });
    outage.exhaust(cause);
    for (const refused of [
      await rejection(held),
      await rejection(outage.admit(ticket('/e'))),
      outage.spentError(early),
    ]) {
      assert.ok(refused instanceof LabApiError);
      assert.equal(
        refused.message,
        'The lab at https://lab.example.com accepted the connection and sent nothing for 30 s. The remaining files and pages were not requested.',
      );
      assert.equal(refused.code, 'timeout');
      assert.equal(refused.text?.id, 'labOutageBudget');
    }
    outage.answered();
    assert.equal(outage.state, 'open');
    await rejection(outage.admit(ticket('/f')));
  });
});
