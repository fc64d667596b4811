import * as assert from 'node:assert/strict';
import { AttemptFailure } from '../../../../core/connection/attemptFailure';
import { overBudget, silence } from '../../../../core/connection/budgetVerdict';
import { LabOutage } from '../../../../core/connection/labOutage';
import { labError } from '../../../../core/errors/messages';
import { LabApiError } from '../../../../core/errors/errors';

const ORIGIN = 'https://lab.test';

/** A lab that did not answer within `headersMs` (undici's own headers timeout). */
function silent(): LabApiError {
  return new LabApiError('timeout', 'The lab did not answer.', {
    path: '/api/v1/reports',
    detail: 'UND_ERR_HEADERS_TIMEOUT',
  });
}

describe("a run's budget for a failing lab: its verdict on a failed attempt", () => {
  it('without a budget, or for a failure that is not the lab’s as a whole, there is no verdict', () => {
    const noBudget = new LabOutage(ORIGIN);
    const failure = new AttemptFailure(silent(), true);
    assert.equal(
      overBudget(failure, 1000, { outage: noBudget, origin: ORIGIN, headersMs: 30_000 }),
      undefined,
    );
    const outage = new LabOutage(ORIGIN, { budgetMs: 30_000 });
    const notFound = new AttemptFailure(
      new LabApiError('notFound', 'Report R-1 was not found.', { status: 404 }),
      false,
    );
    assert.equal(
      overBudget(notFound, undefined, { outage, origin: ORIGIN, headersMs: 30_000 }),
      undefined,
    );
  });

  it('a wait the lab asks for beyond what is left is said with how long it asks, and spends the budget', () => {
    let now = 1_000_000;
    const outage = new LabOutage(ORIGIN, { budgetMs: 30_000, now: () => now });
    const limited = labError('rateLimited', 'rateLimited', { origin: ORIGIN }, { status: 429 });
    outage.clock(limited, now);
    now += 10_000;
    const verdict = overBudget(new AttemptFailure(limited, true, 3_600_000), 3_600_000, {
      outage,
      origin: ORIGIN,
      headersMs: 30_000,
    });
    assert.ok(verdict);
    assert.equal(verdict.spent, true);
    assert.equal(verdict.error.text?.id, 'waitOverBudgetLeft');
    assert.match(verdict.error.message, /60 min|1 h/);
  });

  it('a lab still silent once the budget is spent: said as the silence it was, and spent', () => {
    let now = 5_000_000;
    const outage = new LabOutage(ORIGIN, { budgetMs: 30_000, now: () => now });
    const error = silent();
    outage.clock(error, now);
    now += 31_000;
    const verdict = overBudget(new AttemptFailure(error, true), 2_000, {
      outage,
      origin: ORIGIN,
      headersMs: 30_000,
    });
    assert.ok(verdict);
    assert.equal(verdict.spent, true);
    assert.equal(verdict.error.text?.id, 'silentFor');
    assert.equal(verdict.error.text?.args.seconds, 30);
  });

  it('a timeout is said as what the lab did; a body already said so is kept; anything else is not silence', () => {
    assert.equal(silence(silent(), ORIGIN, 10_000)?.text?.id, 'silentFor');
    assert.equal(silence(silent(), ORIGIN, 10_000)?.text?.args.seconds, 10);
    const body = labError('timeout', 'bodyStopped', { origin: ORIGIN, seconds: 30 }, {});
    assert.equal(silence(body, ORIGIN, 10_000), body);
    const refused = new LabApiError('network', 'Connection refused.', {});
    assert.equal(silence(refused, ORIGIN, 10_000), undefined);
  });
});
