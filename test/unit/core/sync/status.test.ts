import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ContentCache } from '../../../../core/files/contentCache';
import { saveReports } from '../../../../core/sync/bulkSave';
import { listAllReports } from '../../../../core/sync/folderSync';
import { readManifest } from '../../../../core/sync/manifest';
import { folderStatus } from '../../../../core/sync/status';
import { DEFAULT_FILE_NAME_TEMPLATE } from '../../../../core/sync/reportFiles';
import { startMockLab, type MockLab } from '../../helpers';

describe('folder status (lab-data status)', () => {
  let lab: MockLab;
  let work: string;
  before(async () => {
    lab = await startMockLab({ reports: 30 });
  });
  after(() => lab.close());
  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-status-'));
  });
  afterEach(() => fs.rm(work, { recursive: true, force: true }));

  it('tells missing, changed and restorable entries without the lab; amended ones from list pages alone', async () => {
    const api = lab.api();
    const folder = path.join(work, 'reports');
    const cache = new ContentCache(path.join(work, 'cache'));
    const reports = (await listAllReports(api, {})).filter((report) => report.download_available);
    const run = await saveReports(reports.slice(0, 6), {
      api,
      target: { folder, template: DEFAULT_FILE_NAME_TEMPLATE },
      signal: new AbortController().signal,
      concurrency: 4,
      cache,
    });
    assert.equal(run.saved.length, 6);
    // Saving is recording: the one call wrote the manifest.
    const manifest = await readManifest(folder);
    const files = Object.values(Object.values(manifest.labs)[0]!.files);
    assert.equal(files.length, 6);
    const [missing, changed, amended] = files;
    await fs.rm(path.join(folder, missing!.file));
    await fs.appendFile(path.join(folder, changed!.file), 'edited');
    const offline = await folderStatus(folder, manifest, { cache });
    const state = (id: string): { local: string; cached: boolean } => {
      const entry = offline.entries.find((item) => item.reportId === id)!;
      return { local: entry.local, cached: entry.cached };
    };
    assert.deepEqual(state(missing!.report_id), { local: 'missing', cached: true });
    assert.deepEqual(state(changed!.report_id), { local: 'changed', cached: true });
    assert.equal(offline.inStep, false);

    lab.server.amendReport(amended!.report_id);
    lab.server.takeRequests();
    const remote = await folderStatus(folder, manifest, {
      cache,
      apiFor: () => api,
      synced: () => true,
    });
    const requests = lab.server.takeRequests();
    assert.ok(
      requests.every((request) => !/\/reports\/[^/?]+(\/file)?$/.test(request.path)),
      'no request per report',
    );
    const entry = remote.entries.find((item) => item.reportId === amended!.report_id)!;
    assert.equal(entry.remote, 'amended');
    assert.equal(entry.labRevision, String(Number(amended!.revision) + 1));
    assert.equal(remote.newAtLab.length, reports.length - 6, 'the rest is new at the lab');
    // A selection (lab-data status --client …) counts only its own reports as new.
    const one = reports[6]!.report_id;
    const selected = await folderStatus(folder, manifest, {
      apiFor: () => api,
      synced: () => true,
      countsAsNew: (_lab, report) => report.report_id === one,
    });
    assert.deepEqual(
      selected.newAtLab.map((report) => report.reportId),
      [one],
      'only what the selection counts is new',
    );

    await fs.rm(folder, { recursive: true });
    await fs.mkdir(folder);
    const empty = await folderStatus(folder, { version: 3, labs: {} });
    assert.equal(empty.inStep, true);
  });

  it("tells from the cache's listing whether it holds each recorded file, present in the folder or not", async () => {
    const api = lab.api();
    const folder = path.join(work, 'reports');
    const reports = (await listAllReports(api, {})).filter((report) => report.download_available);
    const privateCache = new ContentCache(path.join(work, 'cache'));
    await saveReports(reports.slice(0, 4), {
      api,
      target: { folder, template: DEFAULT_FILE_NAME_TEMPLATE },
      signal: new AbortController().signal,
      concurrency: 4,
      cache: privateCache,
    });
    const manifest = await readManifest(folder);
    const [keptPresent, keptMissing, lackedPresent, lackedMissing] = Object.values(
      Object.values(manifest.labs)[0]!.files,
    );
    // A team cache holding two of the four (one of them no longer in the folder).
    const team = new ContentCache(path.join(work, 'team'));
    for (const entry of [keptPresent!, keptMissing!]) {
      await team.keep(path.join(folder, entry.file), entry.sha256, entry.bytes);
    }
    await fs.rm(path.join(folder, keptMissing!.file));
    await fs.rm(path.join(folder, lackedMissing!.file));
    const result = await folderStatus(folder, manifest, { cache: team });
    const cached = Object.fromEntries(
      result.entries.map((entry) => [entry.reportId, [entry.local, entry.cached]]),
    );
    assert.deepEqual(cached, {
      [keptPresent!.report_id]: ['ok', true],
      [keptMissing!.report_id]: ['missing', true],
      [lackedPresent!.report_id]: ['ok', false],
      [lackedMissing!.report_id]: ['missing', false],
    });
    const whole = await folderStatus(folder, manifest, { cache: privateCache });
    assert.ok(
      whole.entries.every((entry) => entry.cached),
      'the cache the save kept them in holds every one',
    );
  });
});
