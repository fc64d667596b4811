import { labError } from '../errors/messages';

/** Filters the spec names (section 4.9); every list accepts them, and only those given are sent. */
export interface ListFilters {
  /** ISO 8601 timestamp (or a Date); sent as `published_since` in UTC. */
  readonly publishedSince?: string | Date;
  readonly updatedSince?: string | Date;
  readonly receivedSince?: string | Date;
  readonly status?: string;
  readonly clientId?: string;
  readonly projectId?: string;
}

export interface PageRequest {
  readonly page?: number;
  readonly pageSize?: number;
}

export type ListQuery = ListFilters & PageRequest;

export const MAX_PAGE_SIZE = 1000;

/** Every query parameter {@link buildListQuery} can send. */
export const LIST_PARAMETERS: ReadonlySet<string> = new Set([
  'page',
  'page_size',
  'published_since',
  'updated_since',
  'received_since',
  'status',
  'client_id',
  'project_id',
]);

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Checks that a timestamp is ISO 8601 and returns it in UTC as `YYYY-MM-DDTHH:MM:SSZ`.
 * A date alone means midnight UTC; a time needs a zone (`Z` or `+hh:mm`), since guessing one
 * would silently shift a lab's filter by hours.
 */
export function toUtcTimestamp(value: string | Date, name = 'date'): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) {
      throw labError('invalidInput', 'dateInvalid', { name });
    }
    return value.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  const text = value.trim();
  const match = ISO_8601.exec(text);
  if (!match) {
    throw labError('invalidInput', 'dateNotIso', { name, text: text.slice(0, 40) });
  }
  const [, year, month, day, hour, minute, second, , zone] = match;
  if (hour !== undefined && zone === undefined) {
    throw labError('invalidInput', 'dateNoZone', { name, text });
  }
  const monthNumber = Number(month);
  const dayNumber = Number(day);
  const daysInMonth = new Date(Date.UTC(Number(year), monthNumber, 0)).getUTCDate();
  if (
    monthNumber < 1 ||
    monthNumber > 12 ||
    dayNumber < 1 ||
    dayNumber > daysInMonth ||
    Number(hour ?? 0) > 23 ||
    Number(minute ?? 0) > 59 ||
    Number(second ?? 0) > 59
  ) {
    throw labError('invalidInput', 'dateNotReal', { name, text });
  }
  const normalisedZone =
    zone === undefined
      ? 'Z'
      : zone.toUpperCase() === 'Z'
        ? 'Z'
        : zone.includes(':')
          ? zone
          : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const iso =
    hour === undefined
      ? `${year}-${month}-${day}T00:00:00Z`
      : `${year}-${month}-${day}T${hour}:${minute}:${second ?? '00'}${match[7] ? `.${match[7]}` : ''}${normalisedZone}`;
  const parsed = new Date(iso);
  if (Number.isNaN(parsed.getTime())) {
    throw labError('invalidInput', 'dateNotReal', { name, text });
  }
  return parsed.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function positiveInteger(value: number, name: string, max: number): string {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw labError('invalidInput', 'numberRange', { name, max });
  }
  return String(value);
}

function nonEmpty(value: string, name: string): string {
  const text = value.trim();
  if (text.length === 0 || text.length > 200) {
    throw labError('invalidInput', 'filterLength', { name });
  }
  return text;
}

/** Builds the query string parameters of a list request, validating each value before anything is sent. */
export function buildListQuery(query: ListQuery): Record<string, string> {
  const params: Record<string, string> = {};
  if (query.page !== undefined) {
    params.page = positiveInteger(query.page, 'page number', Number.MAX_SAFE_INTEGER);
  }
  if (query.pageSize !== undefined) {
    params.page_size = positiveInteger(query.pageSize, 'page size', MAX_PAGE_SIZE);
  }
  if (query.publishedSince !== undefined) {
    params.published_since = toUtcTimestamp(query.publishedSince, 'published-since date');
  }
  if (query.updatedSince !== undefined) {
    params.updated_since = toUtcTimestamp(query.updatedSince, 'updated-since date');
  }
  if (query.receivedSince !== undefined) {
    params.received_since = toUtcTimestamp(query.receivedSince, 'received-since date');
  }
  if (query.status !== undefined) {
    params.status = nonEmpty(query.status, 'status');
  }
  if (query.clientId !== undefined) {
    params.client_id = nonEmpty(query.clientId, 'client');
  }
  if (query.projectId !== undefined) {
    params.project_id = nonEmpty(query.projectId, 'project');
  }
  return params;
}

/** Encodes a record id as one path segment; refuses ids that would change the path's meaning. */
export function pathSegment(id: string, what: string): string {
  const text = String(id).trim();
  if (
    text.length === 0 ||
    text === '.' ||
    text === '..' ||
    text.length > 256 ||
    /[\u0000-\u001f\u007f]/.test(text)
  ) {
    throw labError('invalidInput', 'idInvalid', {
      text: text.slice(0, 40).replace(/[\u0000-\u001f\u007f]/g, '?'),
      what,
    });
  }
  return encodeURIComponent(text);
}
