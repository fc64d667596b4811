import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME } from '../../core/sync/manifest';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

/** Every file under a folder (recursively, `.lab-data/` too) with its bytes; {} when there is no folder. */
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

interface DryRunJson {
  readonly dry_run: boolean;
  readonly listed: number;
  readonly counts: Record<string, number>;
  readonly files: ReadonlyArray<{ report_id: string; kind: string; bytes?: number }>;
  readonly downloads: number;
  readonly bytes: number;
  readonly size_unknown: number;
}

interface SyncJson {
  readonly listed: number;
  readonly saved: ReadonlyArray<{ report_id: string; file: string; bytes: number }>;
  readonly skipped: ReadonlyArray<{ report_id: string; reason: string }>;
  readonly bytes: number;
}

describe('lab-data sync --dry-run (packed tool)', function () {
  this.timeout(120_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  let env: Record<string, string>;

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 10 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-dry-'));
    env = {
      LAB_DATA_TOKEN: SECRET_TOKEN,
      LAB_DATA_URL: lab.baseUrl,
      LAB_DATA_CACHE: path.join(work, 'cache'),
    };
  });
  after(async () => {
    tool?.remove();
    await lab?.close();
    await fs.rm(work, { recursive: true, force: true });
    for (const text of transcript) {
      assert.ok(!text.includes(SECRET_TOKEN), 'no output holds the token');
    }
  });
  afterEach(() => lab.server.setFaults({}));

  it('prints the counts and bytes the real sync then transfers, and writes nothing (folder, manifest, state, cache)', async () => {
    const folder = path.join(work, 'reports');
    const cache = env.LAB_DATA_CACHE!;

    // A folder that does not exist yet: the dry run makes neither it nor the cache.
    const fresh = await tool.run(['sync', folder, '--dry-run', '--json'], { env });
    assert.equal(fresh.code, 0, said(fresh));
    await assert.rejects(fs.stat(folder), /ENOENT/, 'no folder made');
    await assert.rejects(fs.stat(cache), /ENOENT/, 'no cache made');
    const planned = JSON.parse(fresh.stdout) as DryRunJson;
    const first = await tool.run(['sync', folder, '--json'], { env });
    assert.equal(first.code, 0, said(first));
    const synced = JSON.parse(first.stdout) as SyncJson;
    assert.equal(synced.saved.length, planned.downloads);
    assert.equal(synced.bytes, planned.bytes);
    assert.equal(planned.size_unknown, 0);
    assert.equal(planned.counts.new, planned.downloads);

    // Later: the lab publishes two reports, and one saved file is deleted here.
    lab.server.publishReport();
    lab.server.publishReport();
    const deleted = synced.saved[0]!;
    await fs.rm(path.join(folder, deleted.file));
    const before = await snapshot(folder);
    const cacheBefore = await snapshot(cache);
    const manifestBefore = await fs.readFile(path.join(folder, MANIFEST_FILE_NAME));

    const text = await tool.run(['sync', folder, '--dry-run'], { env });
    assert.equal(text.code, 0, said(text));
    const json = await tool.run(['sync', folder, '--dry-run', '--json'], { env });
    assert.equal(json.code, 0, said(json));
    const plan = JSON.parse(json.stdout) as DryRunJson;
    assert.equal(plan.dry_run, true);
    assert.equal(plan.downloads, 3, 'two new at the lab, one deleted here');
    assert.equal(plan.counts.new, 3);
    assert.ok(plan.files.some((file) => file.report_id === deleted.report_id));
    assert.ok(plan.bytes > 0);
    assert.match(
      text.stderr + text.stdout,
      new RegExp(`would download 3 files \\([^)]*, ${plan.bytes} bytes\\); nothing was written`),
    );
    assert.match(text.stderr + text.stdout, new RegExp(`would download ${deleted.report_id} `));
    assert.deepEqual(await snapshot(folder), before, 'folder, manifest and .lab-data unchanged');
    assert.deepEqual(await fs.readFile(path.join(folder, MANIFEST_FILE_NAME)), manifestBefore);
    assert.deepEqual(await snapshot(cache), cacheBefore, 'no cache entry added');

    const real = await tool.run(['sync', folder, '--json'], { env });
    assert.equal(real.code, 0, said(real));
    const result = JSON.parse(real.stdout) as SyncJson;
    assert.equal(result.listed, plan.listed, 'the same listing (since the last sync)');
    assert.equal(result.saved.length, plan.downloads, 'exactly the files the dry run counted');
    assert.deepEqual(
      result.saved.map((file) => file.report_id).sort(),
      plan.files
        .filter((file) => file.kind === 'new')
        .map((file) => file.report_id)
        .sort(),
    );
    assert.equal(result.bytes, plan.bytes, 'exactly the bytes the dry run printed');
    let onDisk = 0;
    for (const file of result.saved) {
      onDisk += (await fs.stat(path.join(folder, file.file))).size;
    }
    assert.equal(onDisk, plan.bytes, 'and those bytes are on disk');

    // Nothing left to do: the dry run says so.
    const after = JSON.parse(
      (await tool.run(['sync', folder, '--dry-run', '--json'], { env })).stdout,
    ) as DryRunJson;
    assert.equal(after.downloads, 0);
    assert.equal(after.bytes, 0);
  });

  it('a filtered dry run counts up-to-date and locally changed files as the real run skips them; a lab refusing HEAD gives "size unknown"', async () => {
    const folder = path.join(work, 'filtered');
    const client = lab.server
      .reportsFor(SECRET_TOKEN)
      .find((report) => report.download_available)!.client_id!;
    const args = ['sync', folder, '--client', client];
    const first = JSON.parse((await tool.run([...args, '--json'], { env })).stdout) as SyncJson;
    assert.ok(first.saved.length >= 2, 'the client has reports to sync');
    await fs.appendFile(path.join(folder, first.saved[0]!.file), 'local note');
    await fs.rm(path.join(folder, first.saved[1]!.file));

    lab.server.setFaults({ refuseHead: 405 });
    const text = await tool.run([...args, '--dry-run'], { env });
    assert.equal(
      text.code,
      1,
      `a locally changed file would be kept, as the real run says: ${said(text)}`,
    );
    assert.match(text.stderr + text.stdout, /would download \S+ \S+ \(size unknown\)/);
    assert.match(
      text.stderr + text.stdout,
      /would download 1 file \(0 B, 0 bytes; 1 of size unknown\)/,
    );
    const plan = JSON.parse(
      (await tool.run([...args, '--dry-run', '--json'], { env })).stdout,
    ) as DryRunJson;
    assert.equal(plan.counts.changedLocally, 1);
    assert.equal(plan.counts.new, 1);
    assert.equal(plan.size_unknown, 1);
    assert.equal(plan.bytes, 0, 'no made-up number');
    lab.server.setFaults({});

    const real = await tool.run([...args, '--json'], { env });
    assert.equal(real.code, 1, said(real));
    const result = JSON.parse(real.stdout) as SyncJson;
    assert.deepEqual(
      result.saved.map((file) => file.report_id),
      [first.saved[1]!.report_id],
    );
    assert.equal(
      result.skipped.filter((skip) => skip.reason === 'up to date').length,
      plan.counts.upToDate,
    );
    assert.equal(
      result.skipped.filter((skip) => /changed locally/.test(skip.reason)).length,
      plan.counts.changedLocally,
    );
  });
});
