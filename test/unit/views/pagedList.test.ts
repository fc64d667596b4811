import * as assert from 'node:assert/strict';
import { PagedList } from '../../../src/views/pagedList';
import { FULL, startMockLab } from '../helpers';

describe('the paged list behind the tree views', function () {
  this.timeout(30_000);
  it("the tree's pages end at a 404 past the end or a page of repeats, instead of failing or looping", async () => {
    const lab = await startMockLab({
      reports: 40,
      envelope: 'array',
      faults: { notFoundPastEnd: true },
    });
    try {
      const api = lab.api();
      const list = new PagedList(
        (page: number) => api.listReports({ page, pageSize: 20 }),
        (r: { report_id: string }) => r.report_id,
      );
      await list.ensureLoaded();
      while (list.hasMore) {
        await list.loadMore();
      }
      assert.equal(list.error, undefined);
      assert.equal(list.items.length, lab.server.reportsFor(FULL).length);
    } finally {
      await lab.close();
    }
  });
});
