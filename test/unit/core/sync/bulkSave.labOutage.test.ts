import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LabApi } from '../../../../core/api/labApi';
import type { Report } from '../../../../core/api/records';
import { DEFAULT_RETRY_POLICY, RateLimitGate } from '../../../../core/connection/timing';
import { LabApiError } from '../../../../core/errors/errors';
import { saveReports } from '../../../../core/sync/bulkSave';
import { listAllReports, syncFolder } from '../../../../core/sync/folderSync';
import { readManifest } from '../../../../core/sync/manifest';
import { pullFolder } from '../../../../core/sync/pull';
import { DEFAULT_FILE_NAME_TEMPLATE } from '../../../../core/sync/reportFiles';
import { closedPort, startMockLab, type MockLab } from '../../helpers';

/** Files in the issue's case: a lab answering 503 to everything kept `pull` busy 258 s and 780 requests for 195 files. */
const FILES = 195;
const MAX_REQUESTS = 10;
const MAX_SECONDS = 30;

/**
 * A lab that fails as a whole fails fast in every bulk run of the core (the extension's Save All
 * and Sync, the tool's pull): a handful of requests, not four per file, with the lab's answer named.
 */
describe('a lab failing as a whole, in the bulk runs of the core (LabOutage through HttpClient)', function () {
  this.timeout(60_000);
  let lab: MockLab;
  let work: string;
  let reports: Report[];

  before(async () => {
    lab = await startMockLab({ reports: 280 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-outage-'));
    reports = (await listAllReports(lab.api(), {}))
      .filter((report) => report.download_available !== false)
      .slice(0, FILES);
    assert.equal(reports.length, FILES);
  });
  after(async () => {
    await lab?.close();
    await fs.rm(work, { recursive: true, force: true });
  });
  beforeEach(() => {
    lab.server.setFaults({});
    lab.server.takeRequests();
  });

  /** A client with the real retry policy (1 s × 2 back-off, 3 retries), as the extension and the tool use. */
  function realClient(): LabApi {
    return lab.api(undefined, { retry: DEFAULT_RETRY_POLICY });
  }

  function saveAll(api: LabApi, folder: string): ReturnType<typeof saveReports> {
    return saveReports(reports, {
      api,
      target: { folder, template: DEFAULT_FILE_NAME_TEMPLATE },
      signal: new AbortController().signal,
      concurrency: 4,
    });
  }

  function assertNamesTheAnswer(error: unknown): void {
    assert.ok(error instanceof LabApiError, String(error));
    assert.match(
      error.message,
      /503 Service Unavailable|The lab's server failed \(HTTP 503\)/,
      error.message,
    );
  }

  it('Save All of 195 reports against a lab answering 503 to everything: at most 10 requests and 30 s, every file failed with the answer named', async () => {
    lab.server.setFaults({ status: { status: 503, times: Infinity } });
    const started = Date.now();
    const run = await saveAll(realClient(), path.join(work, 'save-all'));
    const seconds = (Date.now() - started) / 1000;
    const requests = lab.server.takeRequests().length;
    assert.equal(run.saved.length, 0);
    assert.equal(run.failed.length, FILES);
    assert.ok(requests <= MAX_REQUESTS, `${requests} requests`);
    assert.ok(seconds < MAX_SECONDS, `${seconds} s`);
    run.failed.forEach(({ error }) => assertNamesTheAnswer(error));
    const notSent = run.failed.filter(
      ({ error }) => error instanceof LabApiError && error.text?.id === 'labOutageStatus',
    );
    assert.ok(notSent.length >= FILES - 4, `${notSent.length} failed without a request`);
    assert.match(
      (notSent[0]!.error as LabApiError).message,
      /^The lab at http:\/\/127\.0\.0\.1:\d+ answered 503 Service Unavailable to the last \d+ requests; the remaining files and pages were not requested\./,
    );
    assert.deepEqual(await fs.readdir(path.join(work, 'save-all')).catch(() => []), []);
  });

  it('pull of 195 missing files against a lab answering 503 to everything: at most 10 requests and 30 s', async () => {
    const folder = path.join(work, 'pulled');
    const fast = lab.api();
    const target = { folder, template: DEFAULT_FILE_NAME_TEMPLATE };
    await syncFolder(fast, target, {
      list: async () => reports,
      save: (chosen, decide) =>
        saveReports(chosen, {
          api: fast,
          target,
          decide,
          signal: new AbortController().signal,
          concurrency: 4,
        }),
    });
    const manifest = await readManifest(folder);
    for (const name of await fs.readdir(folder)) {
      if (name.endsWith('.pdf')) {
        await fs.rm(path.join(folder, name));
      }
    }
    lab.server.setFaults({ status: { status: 503, times: Infinity } });
    lab.server.takeRequests();
    const api = realClient();
    const started = Date.now();
    const result = await pullFolder(folder, manifest, { apiFor: () => api });
    const seconds = (Date.now() - started) / 1000;
    const requests = lab.server.takeRequests().length;
    assert.equal(result.files.length, FILES);
    assert.ok(
      result.files.every((file) => file.state === 'failed'),
      'every file failed',
    );
    assert.ok(requests <= MAX_REQUESTS, `${requests} requests`);
    assert.ok(seconds < MAX_SECONDS, `${seconds} s`);
    result.files.forEach((file) => assertNamesTheAnswer(file.error));
  });

  it('a passing hiccup (503 to four requests at once) costs a short wait and no file', async () => {
    lab.server.setFaults({ status: { status: 503, times: 4 } });
    const run = await saveAll(realClient(), path.join(work, 'hiccup'));
    assert.equal(run.failed.length, 0, run.failed.map(({ error }) => String(error)).join('\n'));
    assert.equal(run.saved.length, FILES);
  });

  it('one report whose file always fails with 500 fails alone; every other file is saved', async () => {
    const bad = reports[7]!.report_id;
    lab.server.setFaults({
      status: { status: 500, times: Infinity, path: new RegExp(`/reports/${bad}/file$`) },
    });
    const api = lab.api();
    const run = await saveAll(api, path.join(work, 'one-bad'));
    assert.deepEqual(
      run.failed.map(({ reportId }) => reportId),
      [bad],
    );
    assert.equal(run.saved.length, FILES - 1);
  });

  it('Save All against a lab that refuses connections ends in seconds, each file naming the refusal', async () => {
    const api = LabApi.forBaseUrl(`http://127.0.0.1:${await closedPort()}`, {
      token: 'demo-full-access',
      rateLimitGate: new RateLimitGate(),
    });
    try {
      const started = Date.now();
      const run = await saveAll(api, path.join(work, 'refused'));
      const seconds = (Date.now() - started) / 1000;
      assert.equal(run.failed.length, FILES);
      assert.ok(seconds < MAX_SECONDS, `${seconds} s`);
      for (const { error } of run.failed) {
        assert.ok(error instanceof LabApiError);
        assert.match(error.message, /connection refused/);
      }
    } finally {
      await api.close();
    }
  });
});
