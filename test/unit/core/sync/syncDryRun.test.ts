import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Report } from '../../../../core/api/records';
import { saveReports } from '../../../../core/sync/bulkSave';
import { listAllReports, syncFolder } from '../../../../core/sync/folderSync';
import { planFolderSync } from '../../../../core/sync/syncDryRun';
import { FULL, startMockLab, type MockLab } from '../../helpers';

/** Every file under a folder with its bytes (nothing written shows as an equal snapshot). */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const entries = await fs
    .readdir(folder, { recursive: true, withFileTypes: true })
    .catch(() => []);
  const files: Record<string, string> = {};
  for (const entry of entries.filter((candidate) => candidate.isFile())) {
    const file = path.join(entry.parentPath, entry.name);
    files[path.relative(folder, file)] = (await fs.readFile(file)).toString('base64');
  }
  return files;
}

describe('planning a folder sync without writing (sync --dry-run)', function () {
  this.timeout(60_000);
  let work: string;
  let lab: MockLab;
  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-dry-'));
    lab = await startMockLab({ reports: 12 });
  });
  afterEach(async () => {
    await lab.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  it('tells new, amended, up-to-date, kept and file-less reports apart, with the bytes the real sync then downloads, writing nothing', async () => {
    const api = lab.api(FULL);
    const folder = path.join(work, 'reports');
    const target = { folder, template: '${report_id}.pdf' };
    // The listing is a step: here it can hand out a report republished at the lab (a newer published_at).
    let republished: ReadonlySet<string> = new Set();
    const list = async (query: object): Promise<Report[]> =>
      (await listAllReports(api, { ...query, pageSize: 100 })).map((report) =>
        republished.has(report.report_id)
          ? { ...report, published_at: '2030-01-01T00:00:00Z' }
          : report,
      );
    const sync = () =>
      syncFolder(api, target, {
        filtered: true,
        list,
        save: (reports, decide) =>
          saveReports(reports, {
            api,
            target,
            decide,
            signal: new AbortController().signal,
            concurrency: 2,
            ask: () => Promise.resolve({ choice: 'skip', forAll: true }),
          }),
      });

    // A folder that does not exist yet: everything with a file is new, and the folder is not made.
    const first = await planFolderSync(api, target, { filtered: true, list });
    await assert.rejects(fs.stat(folder), /ENOENT/, 'the dry run made no folder');
    const visible = lab.server.reportsFor(FULL);
    const withFile = visible.filter((report) => report.download_available);
    assert.ok(withFile.length < visible.length, 'the mock has reports without a file');
    assert.equal(first.downloads, withFile.length);
    assert.equal(
      first.files.filter((file) => file.kind === 'noFile').length,
      visible.length - withFile.length,
    );
    assert.equal(first.sizeUnknown, 0);
    assert.equal(
      first.bytes,
      withFile.reduce((total, report) => total + lab.server.pdfFor(report.report_id).length, 0),
      'the sizes the lab gives with HEAD are those of the files it serves',
    );
    const saved = await sync();
    assert.equal(saved.run.saved.length, first.downloads);
    assert.equal(saved.run.bytes, first.bytes);

    // Then: one file deleted, one changed locally, one changed locally and republished, one republished.
    const [deleted, changed, conflicting, amended] = withFile.map((report) => report.report_id);
    await fs.rm(path.join(folder, `${deleted}.pdf`));
    await fs.appendFile(path.join(folder, `${changed}.pdf`), 'local note');
    await fs.appendFile(path.join(folder, `${conflicting}.pdf`), 'local note');
    republished = new Set([conflicting!, amended!]);
    const before = await snapshot(folder);
    const requestsBefore = lab.server.requests.length;
    const plan = await planFolderSync(api, target, { filtered: true, list });
    assert.deepEqual(await snapshot(folder), before, 'not a byte written: files, manifest, state');
    const kindOf = (id: string | undefined) =>
      plan.files.find((file) => file.reportId === id)?.kind;
    assert.equal(kindOf(deleted), 'new');
    assert.equal(kindOf(changed), 'changedLocally');
    assert.equal(kindOf(conflicting), 'ask');
    assert.equal(kindOf(amended), 'amended');
    assert.equal(plan.files.filter((file) => file.kind === 'upToDate').length, withFile.length - 4);
    assert.equal(plan.downloads, 2);
    const heads = lab.server.requests.slice(requestsBefore).filter((r) => r.method === 'HEAD');
    assert.deepEqual(
      heads.map((request) => path.basename(path.dirname(request.path))).sort(),
      [deleted, amended].sort(),
      'one HEAD per file to download, none for the others',
    );
    const again = await sync();
    assert.deepEqual(
      again.run.saved.map((file) => file.report.report_id).sort(),
      [deleted, amended].sort(),
    );
    assert.equal(again.run.bytes, plan.bytes);
    assert.equal(
      again.run.skipped.filter((skip) => !skip.upToDate && /changed locally/.test(skip.reason))
        .length,
      2,
      'both locally changed files were kept, as planned',
    );
  });

  it('counts a file whose size the lab will not give as size unknown, not as a wrong number', async () => {
    const api = lab.api(FULL);
    const target = { folder: path.join(work, 'reports'), template: '${report_id}.pdf' };
    const list = (query: object) => listAllReports(api, { ...query, pageSize: 100 });
    for (const status of [405, 501] as const) {
      lab.server.setFaults({ refuseHead: status });
      const plan = await planFolderSync(api, target, { list });
      assert.ok(plan.downloads > 0);
      assert.equal(plan.sizeUnknown, plan.downloads, `HEAD refused with ${status}`);
      assert.equal(plan.bytes, 0);
    }
    lab.server.setFaults({ closeDelimitedFiles: true });
    const noLength = await planFolderSync(api, target, { list });
    assert.equal(noLength.sizeUnknown, noLength.downloads, 'no Content-Length');
    lab.server.setFaults({ compress: 'gzip' });
    const encoded = await planFolderSync(api, target, { list });
    assert.equal(
      encoded.sizeUnknown,
      encoded.downloads,
      'a content-encoded length is not the file',
    );
  });
});
