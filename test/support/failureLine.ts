import { errorText } from '../../core/errors/errorText';

/**
 * One line for a failed test: its full title and the first line of its error, so the summary at the
 * end of `npm test` (often all of a CI log that is kept) says why, not only what.
 */
export function failureLine(title: string, error: unknown): string {
  // Under mocha --parallel a worker's error reaches the reporter as a plain object with its fields.
  const serialised = (error as { message?: unknown } | null | undefined)?.message;
  const message =
    error === undefined
      ? ''
      : !(error instanceof Error) && typeof serialised === 'string'
        ? serialised
        : errorText(error);
  const first = message.split('\n').find((line) => line.trim() !== '') ?? '';
  const reason = first.trim().slice(0, 240);
  return reason ? `${title} — ${reason}` : title;
}
