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
  | { readonly kind: 'duplicates'; readonly page: number; readonly count: number }
  /** The server's paging did not hold (a different page came back); the rest is walked one page at a time. */
  | { readonly kind: 'sequential'; readonly page: number };

export interface IteratePagesOptions<T> {
  readonly startPage?: number;
  /** Hard cap on pages fetched, so a server whose pagination never ends cannot loop forever. */
  readonly maxPages?: number;
  /**
   * Pages asked for at once once the first page says how many there are (1: one after another).
   * The HTTP layer's own limit and rate-limit gate still apply to every request.
   */
  readonly concurrency?: number;
  readonly keyOf: (item: T) => string | undefined;
  readonly onAnomaly?: (anomaly: PagingAnomaly) => void;
  readonly signal?: AbortSignal;
}

export const DEFAULT_MAX_PAGES = 2000;
/** Pages a concurrent walk may hold ahead of its reader, in multiples of its concurrency. */
const READ_AHEAD = 4;

/**
 * The last page a first page vouches for, when its paging can be trusted enough to ask for the
 * others at once: the server honoured the page asked for, the page is full, and the totals agree.
 */
export function knownLastPage(first: Page<unknown>, requested: number): number | undefined {
  const received = first.items.length + first.skipped;
  if (!first.hasMore || first.page !== requested || received !== first.pageSize || first.pageSize <= 0) {
    return undefined;
  }
  const fromCount = first.totalCount !== undefined ? Math.ceil(first.totalCount / first.pageSize) : undefined;
  if (first.totalPages !== undefined && fromCount !== undefined && first.totalPages !== fromCount) {
    return undefined;
  }
  const last = first.totalPages ?? fromCount;
  return last !== undefined && Number.isSafeInteger(last) && last > requested ? last : undefined;
}

/** Drops items already seen (by id) and tells of duplicates and pages that only repeat. */
class Deduplicator<T> {
  private readonly seen = new Set<string>();

  constructor(private readonly options: IteratePagesOptions<T>) {}

  /** The page with only fresh items, or undefined when it holds nothing but repeats (the walk ends). */
  fresh(result: Page<T>, page: number): Page<T> | undefined {
    const fresh: T[] = [];
    let duplicates = 0;
    for (const item of result.items) {
      const key = this.options.keyOf(item);
      if (key !== undefined && this.seen.has(key)) {
        duplicates++;
        continue;
      }
      if (key !== undefined) {
        this.seen.add(key);
      }
      fresh.push(item);
    }
    if (result.items.length > 0 && fresh.length === 0) {
      this.options.onAnomaly?.({ kind: 'repeatedPage', page });
      return undefined;
    }
    if (duplicates > 0) {
      this.options.onAnomaly?.({ kind: 'duplicates', page, count: duplicates });
    }
    return { ...result, items: fresh };
  }
}

/**
 * Walks a paged list, yielding pages in the server's order. Items already seen (by id) are
 * dropped; a page made only of items already seen means the server repeats itself, and the walk
 * stops there. Once the first page says how many pages there are (and its paging looks sound),
 * up to `concurrency` of the following pages are asked for at once; otherwise, and as soon as the
 * server's answers stop matching, pages are asked for one after another.
 */
export async function* iteratePages<T>(fetchPage: (page: number, signal?: AbortSignal) => Promise<Page<T>>, options: IteratePagesOptions<T>): AsyncGenerator<Page<T>> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const first = options.startPage ?? 1;
  const lastAllowed = first + maxPages - 1;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const dedupe = new Deduplicator(options);
  // Pages asked for ahead are cancelled with this when the caller stops early, one fails, or the
  // walk falls back to one page at a time.
  const ahead = new AbortController();
  const aheadSignal = options.signal ? AbortSignal.any([options.signal, ahead.signal]) : ahead.signal;
  const pending = new Map<number, Promise<Page<T>>>();
  // Set once the first page vouches for the page count; cleared when the walk goes one by one.
  let last: number | undefined;
  let next = first + 1;
  let inFlight = 0;
  let page = first;
  /** At most `concurrency` requests in flight, a new one as soon as any answers, and a bounded read-ahead. */
  const pump = (): void => {
    while (last !== undefined && inFlight < concurrency && next <= last && next < page + concurrency * READ_AHEAD) {
      const started = fetchPage(next, aheadSignal);
      inFlight++;
      // Awaited in order below; meanwhile a later page's failure must not go unhandled.
      started
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          inFlight--;
          pump();
        });
      pending.set(next++, started);
    }
  };
  try {
    for (; ; page++) {
      if (page > lastAllowed) {
        options.onAnomaly?.({ kind: 'pageCap', page });
        return;
      }
      pump();
      const asked = pending.get(page);
      pending.delete(page);
      const result = await (asked ?? fetchPage(page, options.signal));
      const fresh = dedupe.fresh(result, page);
      if (!fresh) {
        return;
      }
      yield fresh;
      if (!result.hasMore) {
        return;
      }
      if (page === first && concurrency > 1) {
        const known = knownLastPage(result, first);
        last = known === undefined ? undefined : Math.min(known, lastAllowed);
      } else if (last !== undefined && (result.page !== page || page >= last)) {
        if (result.page !== page) {
          options.onAnomaly?.({ kind: 'sequential', page });
        }
        // From here on (a page that did not match, or past the count the first page gave), one at a time.
        last = undefined;
        ahead.abort();
        pending.clear();
      }
    }
  } finally {
    ahead.abort();
  }
}
