import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { saveReports } from '../../../../core/sync/bulkSave';
import { LabApiError } from '../../../../core/errors/errors';
import { parseListBody } from '../../../../core/api/listEnvelope';
import {
  NOTHING_SEEN,
  PageSeries,
  iteratePages,
  morePages,
  type Page,
  type PagingAnomaly,
} from '../../../../core/api/pagination';
import type { Envelope, MockServerOptions } from '../../../mock/server';
import { parseReport } from '../../../../core/api/records';
import { FULL, rejection, startMockLab } from '../../helpers';

describe('list envelopes', () => {
  it('finds records and metadata wherever a real server puts them', () => {
    const records = [{ report_id: 'a' }, { report_id: 'b' }];
    assert.deepEqual(parseListBody(records, 'reports', '/x'), { records, meta: {} });
    assert.deepEqual(
      parseListBody(
        { count: 2, next: 'https://lab/r?page=2', previous: null, results: records },
        'reports',
        '/x',
      ),
      { records, meta: { total_count: 2 }, next: 'https://lab/r?page=2' },
    );
    assert.equal(
      parseListBody({ data: records, links: { self: '/r?page=3' } }, 'reports', '/x').next,
      null,
      'a links object without next: the last page',
    );
    assert.equal(
      parseListBody({ data: records, _links: { next: { href: '/r?page=4' } } }, 'reports', '/x')
        .next,
      '/r?page=4',
    );
    assert.equal(
      parseListBody({ data: records, meta: { next: null, total_count: 2 } }, 'reports', '/x').next,
      null,
    );
    assert.deepEqual(
      parseListBody(
        { data: records, meta: { page: 2, page_size: 2, total_pages: 3, total_count: 6 } },
        'reports',
        '/x',
      ).meta,
      { page: 2, page_size: 2, total_pages: 3, total_count: 6 },
    );
    assert.deepEqual(
      parseListBody({ reports: records, page: 1, total_count: '2' }, 'reports', '/x'),
      { records, meta: { page: 1, total_count: 2 } },
    );
    assert.deepEqual(
      parseListBody(
        { results: records, pagination: { current_page: 4, per_page: 2 } },
        'reports',
        '/x',
      ),
      { records, meta: { page: 4, page_size: 2 } },
    );
    assert.deepEqual(
      parseListBody({ entries: records, links: ['x'] }, 'reports', '/x').records,
      records,
    );
    assert.deepEqual(parseListBody({ data: { items: records }, total: 2 }, 'reports', '/x'), {
      records,
      meta: { total_count: 2 },
    });
    assert.deepEqual(
      parseListBody({ data: [], meta: { page: 'x', total_pages: -1 } }, 'reports', '/x').meta,
      {},
    );
  });

  it('says clearly when a body is no list at all', () => {
    for (const body of [null, 'text', 42, { message: 'hello' }]) {
      assert.throws(
        () => parseListBody(body, 'reports', '/api/v1/reports'),
        (error: LabApiError) =>
          error.code === 'invalidResponse' && error.path === '/api/v1/reports',
      );
    }
  });

  it('decides whether more pages follow from what the server sent: links, its count, its page count, or a full page', () => {
    const page = (length: number, extra: object = {}) => ({
      items: Array.from({ length }),
      skipped: 0,
      page: 1,
      ...extra,
    });
    // Links are the server's own word.
    assert.equal(morePages(page(50, { next: '/r?page=2' }), NOTHING_SEEN, undefined, 50), true);
    assert.equal(
      morePages(page(50, { next: null, totalCount: 500 }), NOTHING_SEEN, undefined, 50),
      false,
    );
    // A count against what was received, whatever page size was asked for.
    assert.equal(
      morePages(page(20, { totalCount: 130 }), NOTHING_SEEN, 50, 50),
      true,
      'capped at 20 while 50 were asked (and page_size claims 50)',
    );
    assert.equal(
      morePages(page(20, { page: 7, totalCount: 130 }), { received: 120, longest: 20 }, 50, 50),
      true,
      'past the count on a full page: one more page confirms it',
    );
    assert.equal(
      morePages(page(10, { page: 7, totalCount: 130 }), { received: 120, longest: 20 }, 50, 50),
      false,
    );
    assert.equal(
      morePages(
        page(20, { page: 6, totalCount: 120 }),
        { received: 100, longest: 20 },
        undefined,
        50,
      ),
      true,
      'count reached on a full page: one more page confirms it',
    );
    assert.equal(
      morePages(page(50, { page: 2, totalPages: 3 }), { received: 50, longest: 50 }, undefined, 50),
      true,
    );
    assert.equal(
      morePages(
        page(30, { page: 3, totalPages: 3 }),
        { received: 100, longest: 50 },
        undefined,
        50,
      ),
      false,
    );
    // Nothing but records.
    assert.equal(morePages(page(50), NOTHING_SEEN, undefined, 50), true);
    assert.equal(
      morePages(page(20), NOTHING_SEEN, undefined, 50),
      true,
      'a short first page may be a cap: ask once more',
    );
    assert.equal(
      morePages(page(20), NOTHING_SEEN, 20, 50),
      true,
      'the server says its pages hold 20',
    );
    assert.equal(morePages(page(19), NOTHING_SEEN, 20, 50), false);
    assert.equal(
      morePages(page(20, { page: 2 }), { received: 20, longest: 20 }, undefined, 50),
      true,
    );
    assert.equal(
      morePages(page(7, { page: 3 }), { received: 40, longest: 20 }, undefined, 50),
      false,
    );
    assert.equal(
      morePages(page(0, { totalPages: 9 }), NOTHING_SEEN, undefined, 50),
      false,
      'an empty page ends the list',
    );
  });

  for (const envelope of [
    'data-meta',
    'array',
    'top-level',
    'nested-partial',
    'no-meta',
  ] as Envelope[]) {
    it(`walks every report exactly once with the "${envelope}" envelope`, async () => {
      const lab = await startMockLab({ envelope, reports: 130 });
      try {
        const ids: string[] = [];
        for await (const page of lab.api().iterateReports({ pageSize: 25 })) {
          ids.push(...page.items.map((r) => r.report_id));
        }
        const expected = lab.server.reportsFor(FULL).map((r) => r.report_id);
        assert.deepEqual(ids, expected);
        const requests = lab.server.takeRequests().length;
        // Without metadata, a list that ends on a full page costs one extra (empty) request.
        assert.ok(
          requests === Math.ceil(expected.length / 25) ||
            requests === Math.ceil(expected.length / 25) + (expected.length % 25 === 0 ? 1 : 0),
          `${requests} requests`,
        );
      } finally {
        await lab.close();
      }
    });
  }
});

describe('pagination edge cases', () => {
  it('stops at a repeated page and reports it', async () => {
    const lab = await startMockLab({ faults: { repeatFirstPage: true } });
    try {
      const anomalies: PagingAnomaly[] = [];
      const ids: string[] = [];
      for await (const page of lab
        .api()
        .iterateReports({ pageSize: 10 }, { onAnomaly: (a) => anomalies.push(a) })) {
        ids.push(...page.items.map((r) => r.report_id));
      }
      assert.equal(ids.length, 10);
      assert.deepEqual(anomalies, [{ kind: 'repeatedPage', page: 2 }]);
      assert.equal(lab.server.takeRequests().length, 2);
    } finally {
      await lab.close();
    }
  });

  it('stops pagination that never ends at the page cap', async () => {
    const lab = await startMockLab({ faults: { endlessPages: true } });
    try {
      const anomalies: PagingAnomaly[] = [];
      let pages = 0;
      for await (const page of lab
        .api()
        .iterateReports({ pageSize: 5 }, { maxPages: 7, onAnomaly: (a) => anomalies.push(a) })) {
        pages++;
        assert.equal(page.items.length, 5);
      }
      assert.equal(pages, 7);
      assert.deepEqual(anomalies, [{ kind: 'pageCap', page: 8 }]);
    } finally {
      await lab.close();
    }
  });

  it('drops items already seen on an earlier page and reports how many', async () => {
    const pages = [[1, 2, 3], [3, 4, 5], [6]];
    const anomalies: PagingAnomaly[] = [];
    const seen: number[] = [];
    const fetchPage = async (n: number) => ({
      items: pages[n - 1]!,
      page: n,
      pageSize: 3,
      hasMore: n < 3,
      skipped: 0,
    });
    for await (const page of iteratePages(fetchPage, {
      keyOf: String,
      onAnomaly: (a) => anomalies.push(a),
    })) {
      seen.push(...page.items);
    }
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(anomalies, [{ kind: 'duplicates', page: 2, count: 1 }]);
  });

  it('rejects malformed JSON, an HTML login page and oversized JSON with clear messages', async () => {
    const lab = await startMockLab();
    try {
      lab.server.setFaults({ malformedJson: { times: 1 } });
      let error = (await rejection(lab.api().listReports())) as LabApiError;
      assert.equal(error.code, 'invalidResponse');
      assert.match(error.message, /not valid JSON/);
      lab.server.setFaults({ htmlInsteadOfJson: { times: 1 } });
      error = (await rejection(lab.api().listReports())) as LabApiError;
      assert.match(error.message, /text\/html instead of JSON/);
      lab.server.setFaults({ oversizedJsonBytes: 2 * 1024 * 1024 });
      error = (await rejection(
        lab.api('demo-full-access', { maxJsonBytes: 1024 * 1024 }).listReports(),
      )) as LabApiError;
      assert.match(error.message, /larger than 1 MiB/);
    } finally {
      await lab.close();
    }
  });

  it('keeps records with wrong field types, leaving the bad fields out of the typed view', async () => {
    const report = parseReport({
      report_id: 42,
      sample_ids: 'S-1',
      download_available: 'yes',
      published_at: 17,
      extra: { nested: true },
    })!;
    assert.equal(report.report_id, '42');
    assert.equal(report.sample_ids, undefined);
    assert.equal(report.download_available, undefined);
    assert.equal(report.published_at, undefined);
    assert.deepEqual(report.raw.extra, { nested: true });
    assert.equal(parseReport({ title: 'no id' }), undefined);
  });
});

describe('concurrent listing', () => {
  /** A list of `count` numbered items served `pageSize` at a time, recording which pages are in flight at once. */
  function pagedList(
    count: number,
    pageSize: number,
    meta: { totalPages?: boolean; totalCount?: boolean } = { totalPages: true, totalCount: true },
  ) {
    const totalPages = Math.ceil(count / pageSize);
    let inFlight = 0;
    const stats = { peak: 0, asked: [] as number[], cancelled: 0 };
    const fetchPage = async (page: number, signal?: AbortSignal) => {
      stats.asked.push(page);
      inFlight++;
      stats.peak = Math.max(stats.peak, inFlight);
      try {
        // Later pages answer sooner, so order must come from the walk, not from arrival.
        // As a real request does, the listener goes when the page settles: nothing piles up on the walk's signal.
        await new Promise<void>((resolve, reject) => {
          const onAbort = (): void => {
            clearTimeout(timer);
            stats.cancelled++;
            reject(new Error('cancelled'));
          };
          const timer = setTimeout(
            () => {
              signal?.removeEventListener('abort', onAbort);
              resolve();
            },
            2 + ((totalPages - page) % 5) * 3,
          );
          signal?.addEventListener('abort', onAbort, { once: true });
        });
      } finally {
        inFlight--;
      }
      const items = Array.from(
        { length: Math.max(0, Math.min(pageSize, count - (page - 1) * pageSize)) },
        (_, i) => (page - 1) * pageSize + i + 1,
      );
      return {
        items,
        page,
        pageSize,
        totalPages: meta.totalPages ? totalPages : undefined,
        totalCount: meta.totalCount ? count : undefined,
        hasMore: page < totalPages,
        skipped: 0,
      };
    };
    return { fetchPage, stats };
  }

  async function walk<T>(pages: AsyncGenerator<{ items: readonly T[] }>): Promise<T[]> {
    const all: T[] = [];
    for await (const page of pages) {
      all.push(...page.items);
    }
    return all;
  }

  it('asks for the remaining pages at once, bounded, and yields them in server order', async () => {
    const { fetchPage, stats } = pagedList(1000, 10);
    const items = await walk(iteratePages(fetchPage, { keyOf: String, concurrency: 4 }));
    assert.deepEqual(
      items,
      Array.from({ length: 1000 }, (_, i) => i + 1),
    );
    assert.equal(
      stats.asked.length,
      101,
      'each page once, and one more: the count ended on a full page',
    );
    assert.equal(stats.peak, 4, 'never more than the concurrency in flight');
  });

  it('knows the page count from total_count alone, and stays sequential without totals', async () => {
    const counted = pagedList(95, 10, { totalCount: true });
    assert.equal(
      (await walk(iteratePages(counted.fetchPage, { keyOf: String, concurrency: 4 }))).length,
      95,
    );
    assert.equal(counted.stats.peak, 4);
    const bare = pagedList(95, 10, {});
    assert.equal(
      (await walk(iteratePages(bare.fetchPage, { keyOf: String, concurrency: 4 }))).length,
      95,
    );
    assert.equal(bare.stats.peak, 1, 'without a total there is nothing to ask ahead for');
  });

  it('de-duplicates across pages fetched at once, as a list that shifts while it is read does', async () => {
    const pages = [[1, 2, 3], [3, 4, 5], [5, 6, 7], [8]];
    const anomalies: PagingAnomaly[] = [];
    const fetchPage = async (n: number) => ({
      items: pages[n - 1] ?? [],
      page: n,
      pageSize: 3,
      totalPages: 4,
      totalCount: 10,
      hasMore: n < 4,
      skipped: 0,
    });
    assert.deepEqual(
      await walk(
        iteratePages(fetchPage, {
          keyOf: String,
          concurrency: 4,
          onAnomaly: (a) => anomalies.push(a),
        }),
      ),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.deepEqual(anomalies, [
      { kind: 'duplicates', page: 2, count: 1 },
      { kind: 'duplicates', page: 3, count: 1 },
      // Counted 10, 8 distinct arrived: the walk says it cannot be sure it has everything.
      { kind: 'fewerThanCounted', page: 5, received: 8, counted: 10 },
    ]);
  });

  it('falls back to one page at a time when the server answers with another page than asked', async () => {
    const anomalies: PagingAnomaly[] = [];
    // Page 3 comes back labelled as page 7: from there on the walk asks for one page at a time.
    const fetchPage = async (n: number) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return {
        items: n <= 6 ? [n * 10 + 1, n * 10 + 2] : [],
        page: n === 3 ? 7 : n,
        pageSize: 2,
        totalPages: 6,
        totalCount: 12,
        hasMore: n < 6,
        skipped: 0,
      };
    };
    const items = await walk(
      iteratePages(fetchPage, {
        keyOf: String,
        concurrency: 3,
        onAnomaly: (a) => anomalies.push(a),
      }),
    );
    assert.deepEqual(items, [11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62]);
    assert.deepEqual(anomalies, [{ kind: 'sequential', page: 3 }]);
    // A server that counts pages from 0 is never asked ahead at all.
    const zeroBased = pagedList(50, 10);
    const shifted = async (n: number, signal?: AbortSignal) => ({
      ...(await zeroBased.fetchPage(n, signal)),
      page: n - 1,
    });
    assert.equal((await walk(iteratePages(shifted, { keyOf: String, concurrency: 4 }))).length, 50);
    assert.equal(zeroBased.stats.peak, 1);
  });

  it('does not trust totals that disagree, or a first page shorter than its size', async () => {
    const disagree = pagedList(100, 10);
    const lying = async (n: number, signal?: AbortSignal) => ({
      ...(await disagree.fetchPage(n, signal)),
      totalPages: 50,
    });
    assert.equal((await walk(iteratePages(lying, { keyOf: String, concurrency: 4 }))).length, 100);
    assert.equal(
      disagree.stats.peak,
      1,
      'total_pages 50 with total_count 100 at 10 a page: sequential',
    );
    const capped = async (n: number) => ({
      items: n === 1 ? [1, 2, 3] : n === 2 ? [4, 5, 6] : [],
      page: n,
      pageSize: 5,
      totalCount: 6,
      hasMore: n < 2,
      skipped: 0,
    });
    assert.deepEqual(
      await walk(iteratePages(capped, { keyOf: String, concurrency: 4 })),
      [1, 2, 3, 4, 5, 6],
    );
  });

  it('cancels the pages in flight when the caller stops early, and stops at the page cap', async () => {
    const { fetchPage, stats } = pagedList(1000, 10);
    const seen: number[] = [];
    for await (const page of iteratePages(fetchPage, { keyOf: String, concurrency: 4 })) {
      seen.push(...page.items);
      if (seen.length >= 20) {
        break;
      }
    }
    assert.equal(seen.length, 20);
    // Read-ahead is bounded: at most four times the concurrency beyond the page being read.
    assert.ok(stats.asked.length <= 2 + 4 * 4, `${stats.asked.length} pages asked for`);
    assert.ok(stats.cancelled >= 1, 'pages asked ahead are cancelled, not left running');
    const anomalies: PagingAnomaly[] = [];
    const capped = pagedList(1000, 10);
    assert.equal(
      (
        await walk(
          iteratePages(capped.fetchPage, {
            keyOf: String,
            concurrency: 4,
            maxPages: 7,
            onAnomaly: (a) => anomalies.push(a),
          }),
        )
      ).length,
      70,
    );
    assert.deepEqual(anomalies, [{ kind: 'pageCap', page: 8 }]);
    assert.equal(capped.stats.asked.length, 7);
  });

  it('passes a failure of any page on, in order, and cancels the rest', async () => {
    const { fetchPage, stats } = pagedList(200, 10);
    const failing = async (n: number, signal?: AbortSignal) => {
      if (n === 5) {
        throw new Error('page 5 failed');
      }
      return fetchPage(n, signal);
    };
    const seen: number[] = [];
    await assert.rejects(async () => {
      for await (const page of iteratePages(failing, { keyOf: String, concurrency: 4 })) {
        seen.push(...page.items);
      }
    }, /page 5 failed/);
    assert.deepEqual(
      seen,
      Array.from({ length: 40 }, (_, i) => i + 1),
      'pages 1–4 arrive before the failure',
    );
    assert.ok(stats.asked.length <= 5 + 4 * 4, `${stats.asked.length} pages asked for`);
  });

  it('lists the mock lab concurrently against real HTTP: every report once, in order, in as many requests as pages', async () => {
    // Each page is held 50 ms at the lab, so pages asked for together are in flight together: the
    // lab counts them, where a time taken would say as much about a busy machine as about us.
    const lab = await startMockLab({ reports: 600, faults: { latencyMs: 50 } });
    try {
      const expected = lab.server.reportsFor(FULL).map((r) => r.report_id);
      const mostAtOnce = async (concurrency: number): Promise<number> => {
        lab.server.takeRequests();
        lab.server.takeMaxInFlight();
        const ids = (await walk(lab.api().iterateReports({ pageSize: 25 }, { concurrency }))).map(
          (r) => r.report_id,
        );
        assert.deepEqual(ids, expected);
        // A count that ends on a full page is confirmed with one more (empty) page.
        assert.equal(
          lab.server.takeRequests().length,
          Math.ceil(expected.length / 25) + (expected.length % 25 === 0 ? 1 : 0),
        );
        return lab.server.takeMaxInFlight();
      };
      assert.equal(await mostAtOnce(1), 1, 'one page at a time');
      const concurrent = await mostAtOnce(4);
      assert.ok(concurrent > 1 && concurrent <= 4, `${concurrent} pages in flight at once`);
    } finally {
      await lab.close();
    }
  });

  it("leaves no abort listener behind on the caller's signal: a long concurrent listing and a bulk save over real HTTP", async function () {
    this.timeout(30_000);
    const lab = await startMockLab({ reports: 400, pdfBytes: 8 * 1024 });
    try {
      const caller = new AbortController();
      const listeners = (): number => getEventListeners(caller.signal, 'abort').length;
      let most = 0;
      let pages = 0;
      for await (const page of lab
        .api()
        .iterateReports({ pageSize: 5 }, { concurrency: 4, signal: caller.signal })) {
        pages++;
        most = Math.max(most, listeners());
        assert.ok(page.items.length > 0);
      }
      assert.ok(pages >= 60, `${pages} pages`);
      assert.ok(most <= 5, `${most} listeners at once on the caller's signal`);
      assert.equal(listeners(), 0, 'every request took its listener away when it settled');
      const reports = (await lab.api().listReports({ pageSize: 100 })).items
        .filter((r) => r.download_available)
        .slice(0, 40);
      const folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-listeners-'));
      try {
        const run = await saveReports(reports, {
          api: lab.api(),
          target: { folder, root: folder, template: '${report_id}.pdf' },
          signal: caller.signal,
          concurrency: 4,
        });
        assert.equal(run.saved.length, reports.length);
        assert.equal(listeners(), 0, 'nothing left on the signal of a bulk save either');
      } finally {
        await fs.rm(folder, { recursive: true, force: true });
      }
    } finally {
      await lab.close();
    }
  });
});

describe('PageSeries: the paging rules every reader of a list shares', () => {
  const sent = (
    page: number,
    ids: string[],
    extra: Partial<Page<{ id: string }>> = {},
  ): Page<{ id: string }> => ({
    items: ids.map((id) => ({ id })),
    page,
    pageSize: 3,
    hasMore: true,
    skipped: 0,
    ...extra,
  });

  it('keeps only records not seen before, on earlier pages or the same one, and tells how many it dropped', () => {
    const told: PagingAnomaly[] = [];
    const series = new PageSeries<{ id: string }>(
      (item) => item.id,
      (a) => told.push(a),
    );
    assert.deepEqual(series.take(sent(1, ['a', 'b', 'c']), 1)?.items, [
      { id: 'a' },
      { id: 'b' },
      { id: 'c' },
    ]);
    const second = series.take(sent(2, ['c', 'd', 'd']), 2);
    assert.deepEqual(second?.items, [{ id: 'd' }]);
    assert.deepEqual(told, [{ kind: 'duplicates', page: 2, count: 2 }]);
    assert.deepEqual(series.seen, { received: 4, longest: 3 });
  });

  it('judges the next page from what the server sent, counting only fresh records against its total', () => {
    const series = new PageSeries<{ id: string }>((item) => item.id);
    assert.equal(series.take(sent(1, ['a', 'b', 'c'], { totalCount: 5 }), 1)?.hasMore, true);
    // Two records sent, one a repeat: 4 of 5 received, so the next page is asked for (counting the
    // page as sent would make 5 of 5 and end the list one record short).
    const second = series.take(sent(2, ['c', 'd'], { totalCount: 5, hasMore: false }), 2);
    assert.equal(second?.hasMore, true);
    assert.deepEqual(series.seen, { received: 4, longest: 3 });
  });

  it('ends the list at a page of nothing but repeats (a server that ignores the page asked for)', () => {
    const told: PagingAnomaly[] = [];
    const series = new PageSeries<{ id: string }>(
      (item) => item.id,
      (a) => told.push(a),
    );
    series.take(sent(1, ['a', 'b', 'c']), 1);
    assert.equal(series.take(sent(1, ['a', 'b', 'c']), 2), undefined);
    assert.deepEqual(told, [{ kind: 'repeatedPage', page: 2 }]);
    assert.deepEqual(series.seen, { received: 3, longest: 3 }, 'the repeats are not counted');
  });

  it('keeps records without a key, however alike', () => {
    const series = new PageSeries<{ id: string }>(() => undefined);
    assert.equal(series.take(sent(1, ['a', 'a']), 1)?.items.length, 2);
    assert.equal(series.take(sent(2, ['a']), 2)?.items.length, 1);
  });

  it('takes a 404 after the first page as the end of the list, and nothing else', () => {
    const series = new PageSeries<{ id: string }>((item) => item.id);
    const notFound = new LabApiError('notFound', 'Invalid page.');
    assert.equal(series.endedBy(notFound), false, 'a 404 for the first page is a failure');
    series.take(sent(1, ['a', 'b', 'c']), 1);
    assert.equal(series.endedBy(notFound), true);
    assert.equal(series.endedBy(new LabApiError('server', 'Server error.')), false);
    assert.equal(series.endedBy(new Error('Signed out.')), false);
  });
});

describe("never trust a server's paging", function () {
  this.timeout(30_000);
  const cases: Array<{ name: string; options: MockServerOptions }> = [
    {
      name: 'caps pages at 20 while 50 are asked for (and its metadata still says 50)',
      options: { faults: { pageSizeCap: 20 } },
    },
    {
      name: 'ignores page_size and uses its own 30, saying nothing of it',
      options: { envelope: 'no-meta', faults: { ownPageSize: 30 } },
    },
    {
      name: 'answers as Django REST Framework does (count, next, previous, results), 404 past the end',
      options: { envelope: 'drf', faults: { notFoundPastEnd: true } },
    },
    {
      name: 'answers DRF-style while capping pages at 20',
      options: { envelope: 'drf', faults: { pageSizeCap: 20, notFoundPastEnd: true } },
    },
    {
      name: 'sends a bare array with an RFC 8288 Link header',
      options: { envelope: 'link-header', faults: { pageSizeCap: 20 } },
    },
    {
      name: 'sends no metadata at all and caps pages at 20',
      options: { envelope: 'array', faults: { pageSizeCap: 20 } },
    },
    {
      name: 'answers a page past the end with 404 and sends no metadata',
      options: { envelope: 'array', faults: { notFoundPastEnd: true } },
    },
    { name: 'reports a total_count 40 too low', options: { faults: { totalCountOffset: -40 } } },
  ];
  for (const { name, options } of cases) {
    it(`every record exactly once when the server ${name}`, async () => {
      const lab = await startMockLab({ reports: 130, ...options });
      try {
        const expected = lab.server.reportsFor(FULL).map((r) => r.report_id);
        const anomalies: PagingAnomaly[] = [];
        for (const concurrency of [1, 4]) {
          const ids: string[] = [];
          for await (const page of lab
            .api()
            .iterateReports(
              { pageSize: 50 },
              { concurrency, onAnomaly: (a) => anomalies.push(a) },
            )) {
            ids.push(...page.items.map((r) => r.report_id));
          }
          assert.deepEqual(ids, expected, `concurrency ${concurrency}`);
        }
        assert.deepEqual(
          anomalies.filter((a) => a.kind !== 'sequential'),
          [],
        );
      } finally {
        await lab.close();
      }
    });
  }

  it('says plainly when it cannot be sure: a count higher than what the pages hold, or a server that ignores page', async () => {
    const lab = await startMockLab({ reports: 130, faults: { totalCountOffset: 25 } });
    try {
      const told: PagingAnomaly[] = [];
      const api = lab.api(FULL, { onPagingAnomaly: (a: PagingAnomaly) => told.push(a) });
      let count = 0;
      for await (const page of api.iterateReports({ pageSize: 50 })) {
        count += page.items.length;
      }
      const real = lab.server.reportsFor(FULL).length;
      assert.equal(count, real);
      assert.deepEqual(
        told.filter((a) => a.kind === 'fewerThanCounted'),
        [{ kind: 'fewerThanCounted', page: 4, received: real, counted: real + 25 }],
      );
    } finally {
      await lab.close();
    }
  });
});

describe('list metadata from the server is bounded', () => {
  it('absurd counts and page numbers are ignored rather than trusted', () => {
    const { meta } = parseListBody(
      { data: [], meta: { page: 1e300, total_count: 2 ** 60, total_pages: -3, page_size: 'NaN' } },
      'reports',
      '/x',
    );
    assert.deepEqual(meta, {});
  });
});
