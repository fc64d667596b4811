import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  PROGRESS_INTERVAL_MS,
  saveReports,
  type SaveProgress,
} from '../../../../core/sync/bulkSave';
import { listAllReports, syncFolder } from '../../../../core/sync/folderSync';
import { Throttle } from '../../../../core/async/concurrency';
import { FULL, startMockLab } from '../../helpers';

describe('progress throttle', () => {
  it('passes the first call at once, then at most one per interval, and flushes what it held back', () => {
    let now = 0;
    const calls: number[] = [];
    const throttle = new Throttle(
      100,
      () => calls.push(now),
      () => now,
    );
    for (now = 0; now < 1000; now += 1) {
      throttle.poke();
    }
    assert.deepEqual(calls, [0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    now = 950;
    throttle.poke();
    throttle.flush();
    assert.deepEqual(calls.slice(-1), [950], 'the last state is always told');
    throttle.flush();
    assert.equal(calls.length, 11, 'nothing held back, nothing told');
  });

  it('counts the interval from when the display has been told, so a slow telling never brings the next one closer', () => {
    let now = 0;
    const calls: number[] = [];
    const throttle = new Throttle(
      100,
      () => {
        calls.push(now);
        now += 30; // the display (or a pause of the process) takes 30 ms while being told
      },
      () => now,
    );
    for (; now < 600; now += 1) {
      throttle.poke();
    }
    assert.deepEqual(calls, [0, 130, 260, 390, 520]);
    for (let i = 1; i < calls.length; i++) {
      assert.ok(
        calls[i]! - (calls[i - 1]! + 30) >= 100,
        `tellings ${i - 1} and ${i} are too close`,
      );
    }
  });
});

describe('bulk save and folder sync (the core the commands run)', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-bulk-'));
  });
  afterEach(async () => {
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('tells its display at most ten times a second however many chunks arrive, and the exact total at the end', async function () {
    this.timeout(60_000);
    const lab = await startMockLab({ reports: 60, pdfBytes: 2 * 1024 * 1024 });
    try {
      const api = lab.api();
      const reports = (await listAllReports(api, { pageSize: 100 }))
        .filter((report) => report.download_available !== false)
        .slice(0, 30);
      const told: Array<SaveProgress & { at: number }> = [];
      const started = performance.now();
      const run = await saveReports(reports, {
        api,
        target: { folder, template: '${report_id}.pdf' },
        signal: new AbortController().signal,
        concurrency: 4,
        onProgress: (progress) => told.push({ ...progress, at: performance.now() }),
      });
      const elapsed = performance.now() - started;
      assert.equal(run.saved.length, 30);
      assert.equal(run.failed.length, 0);
      const last = told.at(-1)!;
      assert.equal(last.done, 30);
      assert.equal(last.bytes, run.bytes);
      // 60 MiB arrive in hundreds of chunks; the display hears of it once per interval, plus the final state.
      assert.ok(
        told.length <= Math.ceil(elapsed / PROGRESS_INTERVAL_MS) + 2,
        `${told.length} updates in ${elapsed.toFixed(0)} ms`,
      );
      for (let i = 2; i < told.length - 1; i++) {
        assert.ok(
          told[i]!.at - told[i - 1]!.at >= PROGRESS_INTERVAL_MS - 1,
          `updates ${i - 1} and ${i} are ${(told[i]!.at - told[i - 1]!.at).toFixed(0)} ms apart`,
        );
      }
      assert.ok(
        told.every((progress, i) => i === 0 || progress.done >= told[i - 1]!.done),
        'files done only grow',
      );
    } finally {
      await lab.close();
    }
  });

  it('syncs a folder: everything once, then one request and nothing written, then only what is new', async function () {
    this.timeout(60_000);
    const lab = await startMockLab({ reports: 40 });
    try {
      const api = lab.api(FULL);
      const target = { folder, template: '${report_id}.pdf' };
      const sync = () =>
        syncFolder(api, target, {
          list: (query) => listAllReports(api, { ...query, pageSize: 100 }),
          save: (reports, decide) =>
            saveReports(reports, {
              api,
              target,
              decide,
              signal: new AbortController().signal,
              concurrency: 4,
            }),
        });
      const first = await sync();
      const downloadable = lab.server
        .reportsFor(FULL)
        .filter((report) => report.download_available).length;
      assert.equal(first.run.saved.length, downloadable);
      const manifest = path.join(
        folder,
        (await fs.readdir(folder)).find((file) => file.endsWith('.json'))!,
      );
      const stamp = (await fs.stat(manifest)).mtimeMs;
      lab.server.takeRequests();
      const again = await sync();
      assert.equal(lab.server.takeRequests().length, 1, 'one list request');
      assert.equal(again.run.saved.length, 0);
      assert.equal(again.manifestWritten, false);
      assert.equal((await fs.stat(manifest)).mtimeMs, stamp, 'not even the manifest is written');
      const fresh = [lab.server.publishReport(), lab.server.publishReport()];
      const third = await sync();
      const requests = lab.server.takeRequests();
      assert.deepEqual(
        third.run.saved.map((saved) => saved.report.report_id).sort(),
        fresh.map((report) => report.report_id).sort(),
      );
      assert.equal(requests.filter((request) => request.path.endsWith('/file')).length, 2);
      assert.equal(requests.length, 3, 'one list request and one per new file');
    } finally {
      await lab.close();
    }
  });
});
