import { LabApiError } from '../errors/errors';
import { redactSecrets } from '../errors/serverText';
import { LIST_PARAMETERS } from '../api/query';

export interface SupportContext {
  /** The lab's host, which names the tenant. */
  readonly tenant: string;
  /** E.g. "Lab Data for VS Code 0.1.0 (VS Code 1.100.3)". */
  readonly integration: string;
  readonly at: Date;
  /** IANA time zone of the user, e.g. "Europe/Berlin". */
  readonly timeZone: string;
}

function offset(at: Date): string {
  const minutes = -at.getTimezoneOffset();
  const sign = minutes >= 0 ? '+' : '-';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

function localTimestamp(at: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())} (UTC${offset(at)})`;
}

/**
 * The support report spec section 7 asks for: time with time zone, endpoint path without secrets,
 * HTTP status, request or correlation id, tenant and integration, sanitised request parameters,
 * and whether a production workflow is blocked. It never contains a token: it is built only
 * from the error's own fields, and everything passes through redaction of `secrets`.
 */
export function buildSupportReport(
  error: LabApiError,
  context: SupportContext,
  secrets: readonly string[] = [],
): string {
  const params = Object.entries(error.params ?? {})
    .map(([key, value]) => `${key}=${LIST_PARAMETERS.has(key) ? value : '[withheld]'}`)
    .join(', ');
  const lines = [
    'Lab Data API support report',
    `Timestamp: ${localTimestamp(context.at)} ${context.timeZone}; ${context.at.toISOString()}`,
    `Endpoint: GET ${error.path ?? '(no request was sent)'}`,
    `HTTP status: ${error.status ?? 'none (no response)'}`,
    `Request ID: ${error.requestId ?? 'not provided by the server'}`,
    `Tenant: ${context.tenant}`,
    `Integration: ${context.integration}`,
    `Request parameters: ${params || 'none'}`,
    `What happened: ${error.message}${error.attempts && error.attempts > 1 ? ` (after ${error.attempts} attempts)` : ''}`,
    'Is a production workflow blocked? (yes/no): ',
  ];
  return redactSecrets(lines.join('\n'), secrets);
}
