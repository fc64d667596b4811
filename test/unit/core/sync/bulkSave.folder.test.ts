import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { UP_TO_DATE, saveReports, type SaveOptions } from '../../../../core/sync/bulkSave';
import { listAllReports } from '../../../../core/sync/folderSync';
import { recordSaved, updateManifest } from '../../../../core/sync/manifest';
import type { Report } from '../../../../core/api/records';
import { FULL, startMockLab, type MockLab } from '../../helpers';

describe('saving reports into a folder: up-to-date files, template subfolders', function () {
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

  const save = async (reports: readonly Report[], options: Partial<SaveOptions> = {}) => {
    const api = lab.api(FULL);
    const target = { folder, template: '${report_id}.pdf' };
    const run = await saveReports(reports, {
      api,
      target,
      signal: new AbortController().signal,
      concurrency: 2,
      ...options,
    });
    await updateManifest(folder, { name: api.lab.name, origin: api.origin }, (section) =>
      recordSaved(section, run.saved, new Date().toISOString(), (id) => api.paths.reportFile(id)),
    );
    return run;
  };
  it('a file the manifest shows identical is skipped as up to date without a question; a changed one is asked about', async () => {
    const api = lab.api(FULL);
    const reports = (await listAllReports(api, { pageSize: 100 }))
      .filter((report) => report.download_available !== false)
      .slice(0, 3);
    assert.equal((await save(reports)).saved.length, 3);
    const asked: string[] = [];
    lab.server.takeRequests();
    const again = await save(reports, {
      ask: async (fileName) => (asked.push(fileName), { choice: 'overwrite', forAll: false }),
    });
    assert.equal(asked.length, 0, 'no question for byte-identical files');
    assert.equal(again.saved.length, 0);
    assert.deepEqual(
      again.skipped.map((skip) => [skip.reason, skip.upToDate]),
      reports.map(() => [UP_TO_DATE, true]),
    );
    assert.equal(
      lab.server.takeRequests().filter((request) => request.path.endsWith('/file')).length,
      0,
      'no file is downloaded again',
    );

    await fs.appendFile(path.join(folder, `${reports[1]!.report_id}.pdf`), 'annotated');
    const third = await save(reports, {
      ask: async (fileName) => (asked.push(fileName), { choice: 'skip', forAll: false }),
    });
    assert.deepEqual(
      asked,
      [`${reports[1]!.report_id}.pdf`],
      'only the changed file is asked about',
    );
    assert.equal(third.skipped.filter((skip) => skip.upToDate).length, 2);

    // A newer revision at the lab is not "identical" even when the file is unchanged.
    const amended = lab.server.data.reports.find(
      (report) => report.report_id === reports[0]!.report_id,
    )!;
    amended.published_at = new Date(Date.now() + 60_000).toISOString();
    lab.server.dataChanged();
    const fresh = (await listAllReports(api, { pageSize: 100 })).filter(
      (report) => report.report_id === reports[0]!.report_id,
    );
    const fourth = await save(fresh, {
      ask: async (fileName) => (asked.push(fileName), { choice: 'skip', forAll: false }),
    });
    assert.equal(fourth.skipped[0]!.upToDate, undefined);
    assert.equal(asked.at(-1), `${reports[0]!.report_id}.pdf`);
  });

  it('a template with subfolders saves each report in the folders built from its record', async () => {
    const api = lab.api(FULL);
    const reports = (await listAllReports(api, { pageSize: 100 }))
      .filter((report) => report.download_available !== false)
      .slice(0, 4);
    const target = {
      folder,
      root: folder,
      template: '${client_id}/${report_type}/${report_id}.pdf',
    };
    const run = await saveReports(reports, {
      api,
      target,
      signal: new AbortController().signal,
      concurrency: 2,
    });
    assert.equal(run.saved.length, 4);
    for (const { report, file } of run.saved) {
      assert.equal(
        file.fileName,
        `${report.client_id}/${report.report_type}/${report.report_id}.pdf`,
      );
      assert.equal(
        file.path,
        path.join(folder, report.client_id!, report.report_type!, `${report.report_id}.pdf`),
      );
      await fs.access(file.path);
    }
  });
});
