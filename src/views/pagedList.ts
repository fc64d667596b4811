import { LabApiError } from '../../core/errors/errors';
import { NOTHING_SEEN, judgeAfter, type Page, type PagesSeen } from '../../core/api/pagination';

/**
 * The pages of one list loaded so far (a view's root, a client's projects, a project's reports).
 * Kept by the tree across refreshes, so "Load more" appends exactly the next page and a refresh
 * reloads as many pages as were shown.
 */
export class PagedList<T> {
  items: T[] = [];
  total?: number;
  hasMore = false;
  loaded = false;
  error?: unknown;
  private nextPage = 1;
  private pagesLoaded = 0;
  /** Records received and the longest page, to judge the next page from what the server sent. */
  private seen: PagesSeen = NOTHING_SEEN;
  private inFlight?: Promise<void>;
  /** Whether the last failure was a reload, so Retry reloads instead of fetching the next page. */
  private reloadFailed = false;

  constructor(
    private readonly fetchPage: (page: number) => Promise<Page<T>>,
    private readonly keyOf: (item: T) => string,
  ) {}

  /** Loads the first page unless it is already there (or failed; retry clears the failure). */
  async ensureLoaded(): Promise<void> {
    if (!this.loaded && this.error === undefined) {
      await this.loadMore();
    }
  }

  /** Appends the next page; concurrent calls share one request. */
  loadMore(): Promise<void> {
    this.inFlight ??= this.fetchNext().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /** Clears a failure and tries the failed page again. */
  retry(): Promise<void> {
    this.error = undefined;
    if (this.reloadFailed) {
      return this.reload();
    }
    return this.loaded ? this.loadMore() : this.ensureLoaded();
  }

  /**
   * Reloads from the first page, as many pages as were loaded before. What is shown stays until
   * the fresh pages arrive; if the reload fails, it stays, with the failure below it.
   */
  async reload(): Promise<void> {
    const pages = Math.max(1, this.pagesLoaded);
    const fresh = new PagedList(this.fetchPage, this.keyOf);
    for (let i = 0; i < pages && (i === 0 || fresh.hasMore) && fresh.error === undefined; i++) {
      await fresh.loadMore();
    }
    if (fresh.error !== undefined && this.loaded) {
      this.error = fresh.error;
      this.reloadFailed = true;
      return;
    }
    this.items = fresh.items;
    this.total = fresh.total;
    this.hasMore = fresh.hasMore;
    this.loaded = fresh.loaded;
    this.error = fresh.error;
    this.nextPage = fresh.nextPage;
    this.pagesLoaded = fresh.pagesLoaded;
    this.seen = fresh.seen;
    this.reloadFailed = false;
  }

  private async fetchNext(): Promise<void> {
    try {
      const page = await this.fetchPage(this.nextPage);
      const known = new Set(this.items.map(this.keyOf));
      const fresh = page.items.filter((item) => !known.has(this.keyOf(item)));
      this.items.push(...fresh);
      this.total = page.totalCount;
      const next = judgeAfter(page, { items: fresh, skipped: page.skipped }, this.seen);
      // A page of nothing but repeats (a server that ignores `page`) ends the list.
      this.hasMore = fresh.length > 0 && next.more;
      this.seen = next.seen;
      this.nextPage++;
      this.pagesLoaded++;
      this.loaded = true;
      this.error = undefined;
      this.reloadFailed = false;
    } catch (error) {
      if (this.loaded && error instanceof LabApiError && error.code === 'notFound') {
        // Past the last page, many servers answer 404 ("Invalid page") instead of an empty page.
        this.hasMore = false;
        return;
      }
      this.error = error;
    }
  }
}
