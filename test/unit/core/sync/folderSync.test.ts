import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { saveReports } from '../../../../core/sync/bulkSave';
import { listAllReports, syncFolder } from '../../../../core/sync/folderSync';
import { FULL, startMockLab, type MockLab } from '../../helpers';

describe('syncing a folder', function () {
  this.timeout(60_000);
  let folder: string;
  let lab: MockLab;
  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-first-'));
    lab = await startMockLab({ reports: 30 });
  });
  afterEach(async () => {
    await lab.close();
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('the first sync of a folder asks once with the reports listed; declined, nothing is written; later syncs do not ask', async () => {
    const api = lab.api(FULL);
    const target = { folder, template: '${report_id}.pdf' };
    const asked: number[] = [];
    let answer = false;
    const sync = () =>
      syncFolder(api, target, {
        list: (query) => listAllReports(api, { ...query, pageSize: 100 }),
        save: (reports, decide) =>
          saveReports(reports, {
            api,
            target,
            decide,
            signal: new AbortController().signal,
            concurrency: 2,
          }),
        confirm: async (reports) => (asked.push(reports.length), answer),
      });
    const declined = await sync();
    assert.equal(declined.declined, true);
    assert.deepEqual(await fs.readdir(folder), [], 'nothing written, not even the manifest');
    answer = true;
    const first = await sync();
    const visible = lab.server.reportsFor(FULL);
    assert.deepEqual(asked, [visible.length, visible.length]);
    assert.equal(first.files, visible.filter((report) => report.download_available).length);
    const again = await sync();
    assert.equal(asked.length, 2, 'a later sync asks nothing');
    assert.equal(again.run.saved.length, 0);
    assert.equal(again.files, first.files, 'the folder holds as many reports as before');
    const firstFlags: boolean[] = [];
    const filtered = await syncFolder(api, target, {
      filtered: true,
      list: (query) =>
        listAllReports(api, { ...query, clientId: visible[0]!.client_id, pageSize: 100 }),
      save: (reports, decide) =>
        saveReports(reports, {
          api,
          target,
          decide,
          signal: new AbortController().signal,
          concurrency: 2,
        }),
      confirm: async (reports, isFirst) => (
        firstFlags.push(isFirst),
        asked.push(reports.length),
        false
      ),
    });
    assert.deepEqual(firstFlags, [false], 'a filtered sync asks every time, not as a first sync');
    assert.equal(
      asked.at(-1),
      visible.filter((report) => report.client_id === visible[0]!.client_id).length,
    );
    assert.equal(filtered.declined, true);
    // A filtered sync writes only what its filter matches: a file deleted locally outside it waits for a full sync.
    const outside = visible.find(
      (report) => report.download_available && report.client_id !== visible[0]!.client_id,
    )!;
    await fs.rm(path.join(folder, `${outside.report_id}.pdf`));
    const matching = await syncFolder(api, target, {
      filtered: true,
      list: (query) =>
        listAllReports(api, { ...query, clientId: visible[0]!.client_id, pageSize: 100 }),
      save: (reports, decide) =>
        saveReports(reports, {
          api,
          target,
          decide,
          signal: new AbortController().signal,
          concurrency: 2,
        }),
      confirm: async () => true,
    });
    assert.ok(matching.listed.every((report) => report.client_id === visible[0]!.client_id));
    await assert.rejects(
      fs.access(path.join(folder, `${outside.report_id}.pdf`)),
      'not fetched again by the filtered sync',
    );
    const full = await sync();
    assert.equal(full.run.saved.length, 1, 'the next full sync fetches it');
  });
});
