import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { UP_TO_DATE, saveReports, type SaveOptions } from '../../../core/sync/bulkSave';
import { renderFileName, MAX_TEMPLATE_FOLDERS } from '../../../core/files/fileNames';
import { listAllReports, syncFolder } from '../../../core/sync/folderSync';
import { HttpClient } from '../../../core/connection/httpClient';
import { parseBaseUrl } from '../../../core/connection/baseUrl';
import { serverText } from '../../../core/errors/serverText';
import { recordSaved, updateManifest } from '../../../core/sync/manifest';
import type { Report } from '../../../core/api/records';
import { FULL, startMockLab, type MockLab } from '../helpers';

/** Issue 17's behaviour that lives in the core: identical files, template subfolders, the first sync's question, request lines. */
describe('what a first-time analyst trips over (the core)', function () {
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

  it('a template may put files in subfolders built from the record, each segment sanitised, never outside', async () => {
    const fields = { report_id: 'R-1', client_id: 'C-7', report_type: 'Certificate of Analysis' };
    assert.equal(
      renderFileName('${client_id}/${report_type}/${report_id}.pdf', fields),
      'C-7/Certificate of Analysis/R-1.pdf',
    );
    assert.equal(
      renderFileName('${client_id}\\${report_id}.pdf', fields),
      'C-7/R-1.pdf',
      'a backslash separates too',
    );
    assert.equal(
      renderFileName('../../${client_id}/../${report_id}.pdf', fields),
      'C-7/R-1.pdf',
      '".." segments are dropped',
    );
    const climbing = renderFileName('${client_id}/${report_id}.pdf', {
      ...fields,
      client_id: '../../etc',
    });
    assert.equal(climbing.split('/').length, 2, `a value cannot add a separator: ${climbing}`);
    assert.ok(!climbing.startsWith('.'), `nor climb: ${climbing}`);
    assert.equal(
      renderFileName('${project_id}/${report_id}.pdf', fields),
      'R-1.pdf',
      'a folder left empty by a missing field is dropped',
    );
    assert.equal(
      renderFileName('/abs/${report_id}.pdf', fields),
      'abs/R-1.pdf',
      'no absolute path',
    );
    assert.equal(renderFileName('C:\\x\\${report_id}.pdf', fields), 'C_/x/R-1.pdf', 'no drive');
    assert.equal(
      renderFileName(`${'a/'.repeat(12)}\${report_id}.pdf`, fields).split('/').length,
      MAX_TEMPLATE_FOLDERS + 1,
    );

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

  it('one info line per request with method, path, status, milliseconds and request id; headers at debug', async () => {
    const lines: Array<[string, string]> = [];
    const client = new HttpClient({
      baseUrl: parseBaseUrl(lab.baseUrl),
      token: FULL,
      log: (level, message) => lines.push([level, message]),
    });
    try {
      await client.getJson('/api/v1/reports', { page_size: '5' });
      const request = lab.server.requests.at(-1)!;
      const info = lines.filter(([level]) => level === 'info');
      assert.equal(info.length, 1);
      assert.match(
        info[0]![1],
        new RegExp(
          `^\\[http\\] GET /api/v1/reports\\?page_size=5 → 200 in \\d+ ms \\(request id ${request.requestId}\\)$`,
        ),
      );
      assert.ok(
        lines.some(
          ([level, message]) =>
            level === 'debug' &&
            /response headers: .*content-type: application\/json/.test(message),
        ),
      );
      assert.ok(!lines.some(([, message]) => message.includes(FULL)), 'never the token');
    } finally {
      await client.close();
    }
  });

  it('a lab’s reason "token expired" stays readable; a credential after Bearer, Basic or token is still redacted', () => {
    assert.equal(serverText('401: token expired'), '401: token expired');
    assert.equal(serverText('token revoked by admin'), 'token revoked by admin');
    assert.equal(serverText('token a1b2c3d4'), 'token [redacted]');
    assert.equal(serverText('token averyveryverylongsecretvalue'), 'token [redacted]');
    assert.equal(serverText('Authorization: Bearer abc'), 'Authorization: Bearer [redacted]');
    assert.equal(serverText('Basic dXNlcjpwYXNz'), 'Basic [redacted]');
  });
});
