import * as assert from 'node:assert/strict';
import { nextPageLink } from '../../../../core/api/pageLinks';
import type { PagingAnomaly } from '../../../../core/api/pagination';
import { FULL, startMockLab } from '../../helpers';

describe('next page links', function () {
  this.timeout(30_000);
  it('follows only same-origin next links; a foreign one is reported and pages are asked for by number', async () => {
    const lab = await startMockLab({ reports: 60, envelope: 'drf' });
    try {
      const told: PagingAnomaly[] = [];
      const api = lab.api(FULL, { onPagingAnomaly: (a: PagingAnomaly) => told.push(a) });
      const labUrl = api.lab.url;
      assert.deepEqual(
        nextPageLink(
          'https://evil.example/api/v1/reports?page=2',
          undefined,
          labUrl,
          new URL(labUrl.baseUrl),
        ),
        { link: undefined, foreign: true },
      );
      assert.deepEqual(
        nextPageLink(
          `${labUrl.origin}/api/v1/reports?page=2&page_size=50`,
          undefined,
          labUrl,
          new URL(labUrl.baseUrl),
        ),
        { link: '/api/v1/reports?page=2&page_size=50', foreign: false },
      );
      assert.deepEqual(
        nextPageLink(
          undefined,
          '</api/v1/reports?page=3>; rel="next", </api/v1/reports?page=1>; rel="prev"',
          labUrl,
          new URL(labUrl.baseUrl),
        ),
        { link: '/api/v1/reports?page=3', foreign: false },
      );
      assert.deepEqual(
        nextPageLink(
          undefined,
          '</api/v1/reports?page=1>; rel="prev first"',
          labUrl,
          new URL(labUrl.baseUrl),
        ),
        { link: null, foreign: false },
      );
      const ids: string[] = [];
      for await (const page of api.iterateReports({ pageSize: 25 }, { concurrency: 1 })) {
        ids.push(...page.items.map((r) => r.report_id));
      }
      assert.equal(ids.length, lab.server.reportsFor(FULL).length);
      // Walking one page at a time, the server's next links were what was asked for.
      assert.ok(
        lab.server
          .takeRequests()
          .slice(1)
          .every((request) => request.query.page !== undefined),
      );
      assert.deepEqual(told, []);
    } finally {
      await lab.close();
    }
  });
});
