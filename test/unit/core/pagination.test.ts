import * as assert from 'node:assert/strict';
import { LabApiError } from '../../../src/core/errors';
import { parseListBody } from '../../../src/core/listEnvelope';
import { hasMorePages, iteratePages, type PagingAnomaly } from '../../../src/core/pagination';
import type { Envelope } from '../../mock/server';
import { parseReport } from '../../../src/core/records';
import { FULL, rejection, startMockLab } from '../helpers';

describe('list envelopes', () => {
  it('finds records and metadata wherever a real server puts them', () => {
    const records = [{ report_id: 'a' }, { report_id: 'b' }];
    assert.deepEqual(parseListBody(records, 'reports', '/x'), { records, meta: {} });
    assert.deepEqual(parseListBody({ data: records, meta: { page: 2, page_size: 2, total_pages: 3, total_count: 6 } }, 'reports', '/x').meta, { page: 2, page_size: 2, total_pages: 3, total_count: 6 });
    assert.deepEqual(parseListBody({ reports: records, page: 1, total_count: '2' }, 'reports', '/x'), { records, meta: { page: 1, total_count: 2 } });
    assert.deepEqual(parseListBody({ results: records, pagination: { current_page: 4, per_page: 2 } }, 'reports', '/x'), { records, meta: { page: 4, page_size: 2 } });
    assert.deepEqual(parseListBody({ entries: records, links: ['x'] }, 'reports', '/x').records, records);
    assert.deepEqual(parseListBody({ data: { items: records }, total: 2 }, 'reports', '/x'), { records, meta: { total_count: 2 } });
    assert.deepEqual(parseListBody({ data: [], meta: { page: 'x', total_pages: -1 } }, 'reports', '/x').meta, {});
  });

  it('says clearly when a body is no list at all', () => {
    for (const body of [null, 'text', 42, { message: 'hello' }]) {
      assert.throws(() => parseListBody(body, 'reports', '/api/v1/reports'), (error: LabApiError) => error.code === 'invalidResponse' && error.path === '/api/v1/reports');
    }
  });

  it('decides the last page from total_pages, total_count, or a short page', () => {
    assert.equal(hasMorePages({ total_pages: 3 }, 2, 50, 50), true);
    assert.equal(hasMorePages({ total_pages: 3 }, 3, 50, 50), false);
    assert.equal(hasMorePages({ total_count: 120 }, 2, 50, 50), true);
    assert.equal(hasMorePages({ total_count: 100 }, 2, 50, 50), false);
    assert.equal(hasMorePages({}, 1, 50, 50), true);
    assert.equal(hasMorePages({}, 1, 50, 49), false);
    assert.equal(hasMorePages({ page_size: 20 }, 1, 50, 20), true, 'the server may cap the page size');
    assert.equal(hasMorePages({ total_pages: 9 }, 1, 50, 0), false, 'an empty page ends the list');
  });

  for (const envelope of ['data-meta', 'array', 'top-level', 'nested-partial', 'no-meta'] as Envelope[]) {
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
        assert.ok(requests === Math.ceil(expected.length / 25) || requests === Math.ceil(expected.length / 25) + (expected.length % 25 === 0 ? 1 : 0), `${requests} requests`);
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
      for await (const page of lab.api().iterateReports({ pageSize: 10 }, { onAnomaly: (a) => anomalies.push(a) })) {
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
      for await (const page of lab.api().iterateReports({ pageSize: 5 }, { maxPages: 7, onAnomaly: (a) => anomalies.push(a) })) {
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
    const fetchPage = async (n: number) => ({ items: pages[n - 1]!, page: n, pageSize: 3, hasMore: n < 3, skipped: 0 });
    for await (const page of iteratePages(fetchPage, { keyOf: String, onAnomaly: (a) => anomalies.push(a) })) {
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
      error = (await rejection(lab.api('demo-full-access', { maxJsonBytes: 1024 * 1024 }).listReports())) as LabApiError;
      assert.match(error.message, /larger than 1 MiB/);
    } finally {
      await lab.close();
    }
  });

  it('keeps records with wrong field types, leaving the bad fields out of the typed view', async () => {
    const report = parseReport({ report_id: 42, sample_ids: 'S-1', download_available: 'yes', published_at: 17, extra: { nested: true } })!;
    assert.equal(report.report_id, '42');
    assert.equal(report.sample_ids, undefined);
    assert.equal(report.download_available, undefined);
    assert.equal(report.published_at, undefined);
    assert.deepEqual(report.raw.extra, { nested: true });
    assert.equal(parseReport({ title: 'no id' }), undefined);
  });
});
