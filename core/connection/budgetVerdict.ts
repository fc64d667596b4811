import type { LabApiError } from '../errors/errors';
import { labError } from '../errors/messages';
import { formatClock } from './errorMapping';
import { durationWords } from './httpWords';
import { spendsBudget, type LabOutage } from './labOutage';
import { detailsOf, type AttemptFailure } from './attemptFailure';

/*
 * What a run's budget for a failing lab says of a failed attempt: whether the lab still fits in it,
 * and when it does not, the sentence that says what the lab did.
 */

/**
 * The budget's verdict on a failed attempt, before another after `delay` ms (undefined: none is
 * coming): undefined while the lab fits in the budget; else what the lab did, and whether that
 * spent the budget. A wait the lab asks for beyond what is left is said, not slept; a lab that
 * fails past the budget is not asked again; a timeout is said as the silence it was.
 */
export function overBudget(
  failure: AttemptFailure,
  delay: number | undefined,
  lab: { readonly outage: LabOutage; readonly origin: string; readonly headersMs: number },
): { readonly error: LabApiError; readonly spent: boolean } | undefined {
  const { error } = failure;
  const budgetMs = lab.outage.budgetMs;
  if (budgetMs === undefined || !spendsBudget(error)) {
    return undefined;
  }
  const left = lab.outage.budgetLeftMs();
  const wait = failure.retryAfterMs;
  if (wait !== undefined && wait > left) {
    const retryAt = new Date(Date.now() + wait);
    const seconds = (ms: number): number => Math.round(ms / 1000);
    return {
      error: labError(
        error.code,
        seconds(left) < seconds(budgetMs) ? 'waitOverBudgetLeft' : 'waitOverBudget',
        {
          origin: lab.origin,
          wait: durationWords(wait),
          budget: seconds(budgetMs),
          left: seconds(left),
          time: formatClock(retryAt),
        },
        detailsOf(error, { retryAt }),
      ),
      spent: true,
    };
  }
  const spent = left <= 0 || (delay !== undefined && delay >= left);
  if (!spent && (delay !== undefined || error.code !== 'timeout')) {
    return undefined;
  }
  return { error: silence(error, lab.origin, lab.headersMs) ?? error, spent };
}

/**
 * A timeout in the words of what the lab did: sent nothing for so long (a body that stopped or
 * trickled is already said so, by `watchedBody`).
 */
export function silence(
  error: LabApiError,
  origin: string,
  headersMs: number,
): LabApiError | undefined {
  if (error.text?.id.startsWith('body')) {
    return error;
  }
  return error.detail === 'UND_ERR_HEADERS_TIMEOUT'
    ? labError(
        'timeout',
        'silentFor',
        { origin: origin, seconds: Math.round(headersMs / 1000) },
        detailsOf(error),
      )
    : undefined;
}
