import * as assert from 'node:assert/strict';
import type { Page } from '../../../core/api/pagination';
import { LabApiError } from '../../../core/errors/errors';
import { PagedList } from '../../../src/views/pagedList';
import { FULL, startMockLab } from '../helpers';

/** A tree's list over a server of `pages` (ids per page); past them, `past` is thrown. */
function listOver(pages: string[][], past: () => unknown) {
  const asked: number[] = [];
  const list = new PagedList<{ id: string }>(
    (page) => {
      asked.push(page);
      const ids = pages[page - 1];
      if (!ids) {
        return Promise.reject(past());
      }
      const result: Page<{ id: string }> = {
        items: ids.map((id) => ({ id })),
        page,
        pageSize: 2,
        hasMore: true,
        skipped: 0,
      };
      return Promise.resolve(result);
    },
    (item) => item.id,
  );
  return { list, asked };
}

/** Clicks "Load more" until the list says there is no more; the ids shown. */
async function loadAll(list: PagedList<{ id: string }>): Promise<string[]> {
  await list.ensureLoaded();
  while (list.hasMore) {
    await list.loadMore();
  }
  return list.items.map((item) => item.id);
}

describe("PagedList: a tree's list follows the core's paging rules", () => {
  it('ends at a 404 past the last page, without an error row', async () => {
    const { list, asked } = listOver(
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
      () => new LabApiError('notFound', 'Invalid page.'),
    );
    assert.deepEqual(await loadAll(list), ['a', 'b', 'c', 'd']);
    assert.deepEqual(asked, [1, 2, 3]);
    assert.equal(list.error, undefined);
  });

  it('shows a 404 for the first page as a failure', async () => {
    const { list } = listOver([], () => new LabApiError('notFound', 'Not found.'));
    await list.ensureLoaded();
    assert.equal((list.error as LabApiError).code, 'notFound');
    assert.equal(list.loaded, false);
  });

  it('shows each record once, and ends at a page of nothing but repeats', async () => {
    const { list, asked } = listOver(
      [
        ['a', 'b'],
        ['b', 'c', 'c'],
        ['a', 'c'],
      ],
      () => new Error('never asked'),
    );
    assert.deepEqual(await loadAll(list), ['a', 'b', 'c']);
    assert.deepEqual(asked, [1, 2, 3]);
    assert.equal(list.error, undefined);
  });
});

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

  it('a reload cancelled while the lab keeps silent ends at once and keeps the rows shown, with no failure', async () => {
    const lab = await startMockLab({ reports: 30 });
    try {
      const api = lab.api();
      const list = new PagedList(
        (page: number, signal?: AbortSignal) => api.listReports({ page, pageSize: 10 }, signal),
        (r: { report_id: string }) => r.report_id,
      );
      await list.ensureLoaded();
      const shown = list.items.map((report) => report.report_id);
      assert.equal(shown.length, 10);
      lab.server.setFaults({ hangHeaders: { times: Infinity } });
      lab.server.takeRequests();
      const controller = new AbortController();
      const reloading = list.reload(controller.signal);
      // Cancelled once the lab holds the reload's request (and keeps silent).
      const deadline = Date.now() + 10_000;
      while (lab.server.takeRequests().length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      const cancelledAt = Date.now();
      controller.abort();
      await reloading;
      // At once: far inside the answer timeout the silent lab would otherwise cost.
      assert.ok(Date.now() - cancelledAt < 5_000, 'the reload ended as soon as it was cancelled');
      assert.deepEqual(
        list.items.map((report) => report.report_id),
        shown,
      );
      assert.equal(list.error, undefined, 'a cancelled reload is no failure');
      assert.equal(list.loaded, true);
    } finally {
      lab.server.setFaults({});
      await lab.close();
    }
  });
});
