import type { PageMeta } from './listEnvelope';

/** One page of a list, with what is known of the whole. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly page: number;
  readonly pageSize: number;
  readonly totalPages?: number;
  readonly totalCount?: number;
  /** Whether another page should be asked for. */
  readonly hasMore: boolean;
  /** Records on this page that could not be read (no id); they are logged, not shown. */
  readonly skipped: number;
}

/**
 * Decides whether a page is the last one. Prefers `total_pages`, then `total_count`; without
 * metadata, a short or empty page ends the list.
 */
export function hasMorePages(meta: PageMeta, page: number, requestedPageSize: number, recordCount: number): boolean {
  if (recordCount === 0) {
    return false;
  }
  if (meta.total_pages !== undefined) {
    return page < meta.total_pages;
  }
  const pageSize = meta.page_size ?? requestedPageSize;
  if (meta.total_count !== undefined) {
    return (page - 1) * pageSize + recordCount < meta.total_count;
  }
  return recordCount >= pageSize;
}

export type PagingAnomaly =
  | { readonly kind: 'repeatedPage'; readonly page: number }
  | { readonly kind: 'pageCap'; readonly page: number }
  | { readonly kind: 'duplicates'; readonly page: number; readonly count: number };

export interface IteratePagesOptions<T> {
  readonly startPage?: number;
  /** Hard cap on pages fetched, so a server whose pagination never ends cannot loop forever. */
  readonly maxPages?: number;
  readonly keyOf: (item: T) => string | undefined;
  readonly onAnomaly?: (anomaly: PagingAnomaly) => void;
  readonly signal?: AbortSignal;
}

export const DEFAULT_MAX_PAGES = 2000;

/**
 * Walks a paged list page by page. Items already seen (by id) are dropped; a page made only of
 * items already seen means the server repeats itself, and the walk stops there.
 */
export async function* iteratePages<T>(fetchPage: (page: number) => Promise<Page<T>>, options: IteratePagesOptions<T>): AsyncGenerator<Page<T>> {
  const seen = new Set<string>();
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const first = options.startPage ?? 1;
  for (let page = first; ; page++) {
    if (page - first >= maxPages) {
      options.onAnomaly?.({ kind: 'pageCap', page });
      return;
    }
    const result = await fetchPage(page);
    const fresh: T[] = [];
    let duplicates = 0;
    for (const item of result.items) {
      const key = options.keyOf(item);
      if (key !== undefined && seen.has(key)) {
        duplicates++;
        continue;
      }
      if (key !== undefined) {
        seen.add(key);
      }
      fresh.push(item);
    }
    if (result.items.length > 0 && fresh.length === 0) {
      options.onAnomaly?.({ kind: 'repeatedPage', page });
      return;
    }
    if (duplicates > 0) {
      options.onAnomaly?.({ kind: 'duplicates', page, count: duplicates });
    }
    yield { ...result, items: fresh };
    if (!result.hasMore) {
      return;
    }
  }
}
