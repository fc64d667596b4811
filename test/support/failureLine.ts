import { errorText } from '../../core/errors/errorText';

/**
 * One line for a failed test: its full title and the first line of its error, so the summary at the
 * end of `npm test` (often all of a CI log that is kept) says why, not only what.
 */
export function failureLine(title: string, error: unknown): string {
  const message = error === undefined ? '' : errorText(error);
  const first = message.split('\n').find((line) => line.trim() !== '') ?? '';
  const reason = first.trim().slice(0, 240);
  return reason ? `${title} — ${reason}` : title;
}
