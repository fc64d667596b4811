import { PageSeries, type Page } from '../../core/api/pagination';

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
  /** The core's paging rules over the pages loaded so far (repeats, when the list ends). */
  private series: PageSeries<T>;
  private inFlight?: Promise<void>;
  /** Whether the last failure was a reload, so Retry reloads instead of fetching the next page. */
  private reloadFailed = false;

  constructor(
    private readonly fetchPage: (page: number, signal?: AbortSignal) => Promise<Page<T>>,
    private readonly keyOf: (item: T) => string,
  ) {
    this.series = new PageSeries(keyOf);
  }

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
   * the fresh pages arrive; if the reload fails, it stays, with the failure below it. A reload
   * cancelled through `signal` changes nothing: what was shown stays, with no failure.
   */
  async reload(signal?: AbortSignal): Promise<void> {
    const pages = Math.max(1, this.pagesLoaded);
    const fresh = new PagedList(this.fetchPage, this.keyOf);
    for (let i = 0; i < pages && (i === 0 || fresh.hasMore) && fresh.error === undefined; i++) {
      await fresh.fetchNext(signal);
    }
    if (signal?.aborted) {
      return;
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
    this.series = fresh.series;
    this.reloadFailed = false;
  }

  private async fetchNext(signal?: AbortSignal): Promise<void> {
    try {
      const page = await this.fetchPage(this.nextPage, signal);
      const fresh = this.series.take(page, this.nextPage);
      this.items.push(...(fresh?.items ?? []));
      this.total = page.totalCount;
      this.hasMore = fresh?.hasMore ?? false;
      this.nextPage++;
      this.pagesLoaded++;
      this.loaded = true;
      this.error = undefined;
      this.reloadFailed = false;
    } catch (error) {
      if (this.series.endedBy(error)) {
        this.hasMore = false;
        return;
      }
      this.error = error;
    }
  }
}
