/** One page of a list, with what is known of the whole. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly page: number;
  /** How many records a full page holds, as far as is known (the server's word, else what was asked for). */
  readonly pageSize: number;
  readonly totalPages?: number;
  readonly totalCount?: number;
  /**
   * The server's link to the next page (same origin, path and query), `null` when its links say
   * this is the last page, undefined when it gave no links.
   */
  readonly next?: string | null;
  /** Whether another page should be asked for, judged from this page alone (see {@link morePages}). */
  readonly hasMore: boolean;
  /** Records on this page that could not be read (no id); they are logged, not shown. */
  readonly skipped: number;
}

/** What a walk has seen before a page: records received and the longest page. */
export interface PagesSeen {
  /** Records received on earlier pages (read or not). */
  readonly received: number;
  /** The most records an earlier page held (0 before the first page). */
  readonly longest: number;
}

export const NOTHING_SEEN: PagesSeen = { received: 0, longest: 0 };

/**
 * Whether to ask for the page after this one, from what the server actually sent, never from what
 * was asked for: its links when it gave any; else its count against the records received so far;
 * else its page count; else whether the page was as long as a full one. A count or page count
 * that is reached on a full page is checked with one more page (a server's totals can be wrong);
 * a first page shorter than asked for, with nothing to say why, may be a server's own cap, so the
 * next page is asked for too. An empty page always ends the list.
 */
export function morePages(
  page: Pick<Page<unknown>, 'items' | 'skipped' | 'page' | 'next' | 'totalCount' | 'totalPages'>,
  seen: PagesSeen,
  declaredPageSize: number | undefined,
  requested: number,
  fresh = page.items.length + page.skipped,
): boolean {
  const length = page.items.length + page.skipped;
  if (length === 0) {
    return false;
  }
  if (page.next !== undefined) {
    return page.next !== null;
  }
  const fullLength = seen.longest > 0 ? seen.longest : (declaredPageSize ?? requested);
  const full = length >= fullLength;
  if (page.totalCount !== undefined) {
    return seen.received + fresh < page.totalCount || full;
  }
  if (page.totalPages !== undefined) {
    return page.page < page.totalPages || full;
  }
  // Nothing but the records: a full page says "more"; so does a short first page nobody explained.
  return full || (seen.longest === 0 && declaredPageSize === undefined && length < requested);
}

/**
 * A page judged again with what its walk (or a tree's list) has seen: whether more follow, and
 * what has been seen including it. Length decisions use the page as sent (`sent`); counts use only
 * the records not seen before (`fresh`). The first page keeps its own verdict.
 */
export function judgeAfter(
  sent: Page<unknown>,
  fresh: Pick<Page<unknown>, 'items' | 'skipped'>,
  seen: PagesSeen,
): { readonly more: boolean; readonly seen: PagesSeen } {
  const freshCount = fresh.items.length + fresh.skipped;
  const more =
    seen.longest === 0
      ? sent.hasMore
      : morePages(sent, seen, sent.pageSize, sent.pageSize, freshCount);
  return {
    more,
    seen: {
      received: seen.received + freshCount,
      longest: Math.max(seen.longest, sent.items.length + sent.skipped),
    },
  };
}

export type PagingAnomaly =
  | { readonly kind: 'repeatedPage'; readonly page: number }
  /** The server counted more records than it sent before its pages ran out. */
  | {
      readonly kind: 'fewerThanCounted';
      readonly page: number;
      readonly received: number;
      readonly counted: number;
    }
  /** The server's link to the next page pointed elsewhere; pages were asked for by number instead. */
  | { readonly kind: 'foreignLink'; readonly page: number }
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
  if (
    !first.hasMore ||
    first.page !== requested ||
    received !== first.pageSize ||
    first.pageSize <= 0 ||
    first.next === null
  ) {
    return undefined;
  }
  const fromCount =
    first.totalCount !== undefined ? Math.ceil(first.totalCount / first.pageSize) : undefined;
  if (first.totalPages !== undefined && fromCount !== undefined && first.totalPages !== fromCount) {
    return undefined;
  }
  const last = first.totalPages ?? fromCount;
  return last !== undefined && Number.isSafeInteger(last) && last > requested ? last : undefined;
}

/**
 * The rules one paged list follows from page to page, kept once for every reader of a list (the
 * core's {@link iteratePages}, a tree's "Load more"): records already seen (by key) are dropped, a
 * page of nothing but repeats ends the list, whether another page follows is judged from what the
 * server sent so far, and a 404 after the first page ends the list instead of failing it.
 */
export class PageSeries<T> {
  private readonly keys = new Set<string>();
  private seenSoFar: PagesSeen = NOTHING_SEEN;
  private taken = 0;

  constructor(
    private readonly keyOf: (item: T) => string | undefined,
    private readonly onAnomaly?: (anomaly: PagingAnomaly) => void,
  ) {}

  /** Records received (read or not) and the longest page, over the pages taken so far. */
  get seen(): PagesSeen {
    return this.seenSoFar;
  }

  /**
   * Page `page` as the list keeps it: only records not seen before, and whether to ask for the
   * next one. Undefined when it held nothing but records already seen: the server ignores the
   * page asked for, and the list ends there.
   */
  take(sent: Page<T>, page: number): Page<T> | undefined {
    const fresh: T[] = [];
    let duplicates = 0;
    for (const item of sent.items) {
      const key = this.keyOf(item);
      if (key !== undefined && this.keys.has(key)) {
        duplicates++;
        continue;
      }
      if (key !== undefined) {
        this.keys.add(key);
      }
      fresh.push(item);
    }
    if (sent.items.length > 0 && fresh.length === 0) {
      this.onAnomaly?.({ kind: 'repeatedPage', page });
      return undefined;
    }
    if (duplicates > 0) {
      this.onAnomaly?.({ kind: 'duplicates', page, count: duplicates });
    }
    const next = judgeAfter(sent, { items: fresh, skipped: sent.skipped }, this.seenSoFar);
    this.seenSoFar = next.seen;
    this.taken++;
    return { ...sent, items: fresh, hasMore: next.more };
  }

  /** Whether `error`, thrown for the page after those taken, means the list has simply ended. */
  endedBy(error: unknown): boolean {
    // Past the last page, many servers answer 404 ("Invalid page") instead of an empty page.
    return this.taken > 0 && isNotFound(error);
  }
}

/**
 * Walks a paged list, yielding pages in the server's order. Items already seen (by id) are
 * dropped; a page made only of items already seen means the server repeats itself, and the walk
 * stops there. Once the first page says how many pages there are (and its paging looks sound),
 * up to `concurrency` of the following pages are asked for at once; otherwise, and as soon as the
 * server's answers stop matching, pages are asked for one after another.
 */
export async function* iteratePages<T>(
  fetchPage: (page: number, signal?: AbortSignal) => Promise<Page<T>>,
  options: IteratePagesOptions<T>,
): AsyncGenerator<Page<T>> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const first = options.startPage ?? 1;
  const lastAllowed = first + maxPages - 1;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const series = new PageSeries(options.keyOf, options.onAnomaly);
  // Pages asked for ahead are cancelled with this when the caller stops early, one fails, or the
  // walk falls back to one page at a time.
  const ahead = new AbortController();
  const aheadSignal = options.signal
    ? AbortSignal.any([options.signal, ahead.signal])
    : ahead.signal;
  const pending = new Map<number, Promise<Page<T>>>();
  // Set once the first page vouches for the page count; cleared when the walk goes one by one.
  let last: number | undefined;
  let next = first + 1;
  let inFlight = 0;
  let page = first;
  /** At most `concurrency` requests in flight, a new one as soon as any answers, and a bounded read-ahead. */
  const pump = (): void => {
    while (
      last !== undefined &&
      inFlight < concurrency &&
      next <= last &&
      next < page + concurrency * READ_AHEAD
    ) {
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
  let counted: number | undefined;
  // Set when the server's pages ran out (not when the caller stopped early).
  let ranOut = false;
  try {
    for (; ; page++) {
      if (page > lastAllowed) {
        options.onAnomaly?.({ kind: 'pageCap', page });
        return;
      }
      pump();
      const asked = pending.get(page);
      pending.delete(page);
      let result: Page<T>;
      try {
        result = await (asked ?? fetchPage(page, options.signal));
      } catch (error) {
        if (series.endedBy(error)) {
          ranOut = true;
          return;
        }
        throw error;
      }
      counted = result.totalCount ?? counted;
      const fresh = series.take(result, page);
      if (!fresh) {
        ranOut = true;
        return;
      }
      const more = fresh.hasMore;
      ranOut = !more;
      yield fresh;
      if (!more) {
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
    const { received } = series.seen;
    if (ranOut && counted !== undefined && received < counted) {
      options.onAnomaly?.({ kind: 'fewerThanCounted', page, received, counted });
    }
  }
}

function isNotFound(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'notFound'
  );
}
