import { isJsonObject, type JsonObject } from './records';
import { labError } from '../errors/messages';

/** Pagination metadata (spec 2.3); any of it may be missing. */
export interface PageMeta {
  readonly page?: number;
  readonly page_size?: number;
  readonly total_pages?: number;
  readonly total_count?: number;
}

export interface ListBody {
  readonly records: readonly unknown[];
  readonly meta: PageMeta;
  /** The body's next-page link: a link, `null` for "no next page", undefined when it gives no links. */
  readonly next?: string | null;
}

/** A link value: a string, an object with an `href`, `null`/empty for none. */
function linkValue(value: unknown): string | null | undefined {
  if (value === null || value === '') {
    return null;
  }
  if (typeof value === 'string') {
    return value;
  }
  if (isJsonObject(value) && typeof value.href === 'string') {
    return value.href || null;
  }
  return undefined;
}

/**
 * The next-page link in the places servers put it: `next` beside the records (Django REST
 * Framework), `links.next` (JSON:API), `_links.next.href` (HAL), or `next` in a `meta`,
 * `pagination` or `paging` object. A links object without `next` says this is the last page.
 */
function readNext(body: JsonObject): string | null | undefined {
  if ('next' in body) {
    return linkValue(body.next);
  }
  for (const key of ['links', '_links']) {
    const links = body[key];
    if (isJsonObject(links)) {
      return 'next' in links ? linkValue(links.next) : null;
    }
  }
  for (const key of ['meta', 'pagination', 'paging']) {
    const holder = body[key];
    if (isJsonObject(holder) && 'next' in holder) {
      return linkValue(holder.next);
    }
  }
  return undefined;
}

const META_FIELDS = ['page', 'page_size', 'total_pages', 'total_count'] as const;
const META_ALIASES: Record<(typeof META_FIELDS)[number], readonly string[]> = {
  page: ['page', 'current_page', 'page_number'],
  page_size: ['page_size', 'per_page', 'limit', 'pageSize'],
  total_pages: ['total_pages', 'page_count', 'totalPages', 'last_page'],
  total_count: ['total_count', 'total', 'count', 'totalCount', 'total_records'],
};
const PREFERRED_RECORD_KEYS = ['data', 'items', 'results', 'records'];

function nonNegativeInteger(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  // Beyond a safe integer a count means nothing (and would make arithmetic on it wrong): ignored.
  return typeof number === 'number' && Number.isSafeInteger(number) && number >= 0
    ? number
    : undefined;
}

function readMeta(source: JsonObject): PageMeta {
  const meta: Record<string, number> = {};
  for (const field of META_FIELDS) {
    for (const alias of META_ALIASES[field]) {
      const value = nonNegativeInteger(source[alias]);
      if (value !== undefined) {
        meta[field] = value;
        break;
      }
    }
  }
  return meta;
}

function hasMeta(meta: PageMeta): boolean {
  return Object.keys(meta).length > 0;
}

/**
 * Finds the records and pagination metadata in a list response. The spec does not say where
 * records sit, so this accepts a top-level array, or an object whose records sit under a
 * list-valued property (`data`, `items`, `results`, `records`, the resource's own name, or the
 * only array of objects) with metadata at the top level or one level down (`meta`, `pagination`…).
 */
export function parseListBody(body: unknown, resource: string, path: string): ListBody {
  if (Array.isArray(body)) {
    return { records: body, meta: {} };
  }
  if (!isJsonObject(body)) {
    throw labError('invalidResponse', 'listUnknownShape', { resource }, { path });
  }
  const arrayKeys = Object.keys(body).filter((key) => Array.isArray(body[key]));
  const key =
    [resource, ...PREFERRED_RECORD_KEYS].find((name) => arrayKeys.includes(name)) ??
    (arrayKeys.length === 1
      ? arrayKeys[0]
      : arrayKeys.find((name) => (body[name] as unknown[]).some(isJsonObject)));
  let records: unknown[] | undefined = key === undefined ? undefined : (body[key] as unknown[]);
  if (records === undefined) {
    // One more place real servers use: `{ "data": { "items": [...] } }`.
    for (const value of Object.values(body)) {
      if (isJsonObject(value)) {
        const inner = [resource, ...PREFERRED_RECORD_KEYS].find((name) =>
          Array.isArray(value[name]),
        );
        if (inner) {
          records = value[inner] as unknown[];
          break;
        }
      }
    }
  }
  if (records === undefined) {
    throw labError('invalidResponse', 'listNoRecords', { resource }, { path });
  }
  let meta = readMeta(body);
  if (!hasMeta(meta)) {
    for (const value of Object.values(body)) {
      if (isJsonObject(value)) {
        const nested = readMeta(value);
        if (hasMeta(nested)) {
          meta = nested;
          break;
        }
      }
    }
  }
  const next = readNext(body);
  return next === undefined ? { records, meta } : { records, meta, next };
}
