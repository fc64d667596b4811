import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME, readManifest } from '../../core/sync/manifest';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

/** Every file under a folder (the token must be in none of them). */
async function allFiles(folder: string): Promise<string[]> {
  const entries = await fs.readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('lab-data and a shared lockfile: a team, git, a content cache (packed tool)', function () {
  this.timeout(120_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  let shared: string;
  let gitEnv: NodeJS.ProcessEnv;

  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: 'pipe' });

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 10 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-team-'));
    shared = path.join(work, 'team-cache');
    gitEnv = {
      PATH: `${path.dirname(tool.bin)}${path.delimiter}${process.env.PATH}`,
      HOME: work,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Analyst',
      GIT_AUTHOR_EMAIL: 'analyst@example.com',
      GIT_COMMITTER_NAME: 'Analyst',
      GIT_COMMITTER_EMAIL: 'analyst@example.com',
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

  it('two clones sync at different times and merge with no conflict; fresh clones restore from the shared cache, even an amended report, and with the lab stopped', async () => {
    const env = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl, LAB_DATA_CACHE: shared };
    const origin = path.join(work, 'origin.git');
    git(work, 'init', '--bare', '--quiet', '-b', 'main', origin);
    const a = path.join(work, 'a');
    git(work, 'clone', '--quiet', origin, a);
    const install = await tool.run(['merge-manifest', '--install', a], { env: gitEnv });
    assert.equal(install.code, 0, said(install));
    assert.equal(
      await fs.readFile(path.join(a, '.gitattributes'), 'utf8'),
      'lab-data-sync.json merge=lab-data\nlab-data-uses.json merge=lab-data\n',
    );
    // This Node and this lab-data by absolute path, so a git whose PATH lacks lab-data finds them.
    assert.match(
      git(a, 'config', 'merge.lab-data.driver').trim(),
      /^'?\/\S*node'? '?\/\S*lab-data\.js'? merge-manifest %O %A %B %P$/,
    );
    await fs.writeFile(path.join(a, '.gitignore'), 'reports/*.pdf\n');
    git(a, 'add', '.');
    git(a, 'commit', '--quiet', '-m', 'the merge driver');
    git(a, 'push', '--quiet', 'origin', 'main');
    const b = path.join(work, 'b');
    git(work, 'clone', '--quiet', origin, b);
    assert.equal((await tool.run(['merge-manifest', '--install', b], { env: gitEnv })).code, 0);

    // A syncs first; the lab publishes a report; B syncs later.
    const syncA = await tool.run(['sync', path.join(a, 'reports')], { env });
    assert.equal(syncA.code, 0, said(syncA));
    git(a, 'add', 'reports');
    assert.deepEqual(
      git(a, 'diff', '--cached', '--name-only').trim().split('\n'),
      ['reports/lab-data-sync.json'],
      'only the lockfile is committed: PDFs are ignored here, the machine state ignores itself',
    );
    git(a, 'commit', '--quiet', '-m', 'reports (A)');
    git(a, 'push', '--quiet', 'origin', 'main');
    const added = lab.server.publishReport();
    const syncB = await tool.run(['sync', path.join(b, 'reports')], { env });
    assert.equal(syncB.code, 0, said(syncB));
    git(b, 'add', 'reports');
    git(b, 'commit', '--quiet', '-m', 'reports (B)');
    git(b, 'pull', '--quiet', '--no-rebase', '--no-edit', 'origin', 'main');
    assert.equal(git(b, 'status', '--porcelain').trim(), '', 'merged with no conflict');
    const merged = await fs.readFile(path.join(b, 'reports', MANIFEST_FILE_NAME), 'utf8');
    assert.doesNotMatch(merged, /<<<<<<<|mtime_ms|saved_at|watermark/);
    const ids = Object.keys(
      (JSON.parse(merged) as { labs: Record<string, { reports: Record<string, unknown> }> }).labs[
        new URL(lab.baseUrl).origin
      ]!.reports,
    );
    assert.ok(ids.includes(added.report_id), 'the report added between the syncs is kept');
    assert.equal(
      merged,
      await fs.readFile(path.join(b, 'reports', MANIFEST_FILE_NAME), 'utf8'),
      'deterministic',
    );
    git(b, 'push', '--quiet', 'origin', 'main');

    // After the commit, the lab amends a report: it serves only the new revision now.
    const amended = ids.find((id) => id !== added.report_id)!;
    lab.server.amendReport(amended);

    // A fresh clone without a cache cannot get the recorded revision anywhere: one precise line, exit 1.
    const bare = path.join(work, 'no-cache');
    git(work, 'clone', '--quiet', origin, bare);
    const lonely = await tool.run(['pull', path.join(bare, 'reports')], {
      env: { ...env, LAB_DATA_CACHE: path.join(work, 'empty-cache') },
    });
    assert.equal(lonely.code, 1, said(lonely));
    const lines = lonely.stderr.split('\n').filter((line) => line.includes(amended));
    assert.equal(lines.length, 1, said(lonely));
    assert.match(lines[0]!, /recorded revision 1, at the lab revision 2/);
    assert.match(
      lonely.stderr,
      /^1 file not restored: amended at the lab since recorded, and no cache has the recorded file\n.*\nTo take the lab's current files and record them: lab-data pull --update/m,
    );
    assert.doesNotMatch(lonely.stderr, /were kept|was kept/);

    // With the team's cache: the recorded revision is restored, and status --remote names the amendment.
    const c = path.join(work, 'c');
    git(work, 'clone', '--quiet', origin, c);
    const dry = await tool.run(['pull', path.join(c, 'reports'), '--dry-run', '--json'], { env });
    const planned = JSON.parse(dry.stdout) as { from_cache: { files: number; bytes: number } };
    const restored = await tool.run(['pull', path.join(c, 'reports'), '--json'], { env });
    assert.equal(restored.code, 0, said(restored));
    const result = JSON.parse(restored.stdout) as {
      from_cache: { files: number; bytes: number };
      from_lab: { files: number };
    };
    assert.deepEqual(result.from_cache, planned.from_cache, '--dry-run said what the run did');
    assert.equal(result.from_cache.files, ids.length);
    assert.equal(result.from_lab.files, 0);
    const status = await tool.run(['status', path.join(c, 'reports'), '--remote', '--json'], {
      env,
    });
    assert.equal(status.code, 1, said(status));
    const entries = (
      JSON.parse(status.stdout) as {
        entries: Array<{ report_id: string; local: string; remote: string; lab_revision: string }>;
      }
    ).entries;
    assert.deepEqual(
      entries.filter((entry) => entry.remote !== 'same').map((entry) => entry.report_id),
      [amended],
    );
    assert.ok(entries.every((entry) => entry.local === 'ok'));
    assert.equal((await tool.run(['verify', path.join(c, 'reports')], { env })).code, 0);
    // Taking the lab's current revision is one explicit step; it records it and keeps it in the cache too.
    const update = await tool.run(['pull', path.join(c, 'reports'), '--update'], { env });
    assert.equal(update.code, 0, said(update));
    assert.equal(
      (await readManifest(path.join(c, 'reports'))).labs[
        Object.keys((await readManifest(path.join(c, 'reports'))).labs)[0]!
      ]!.files[amended]!.revision,
      '2',
    );

    // The lab stopped, no token, no address: a fresh clone restores everything from the shared cache.
    await lab.close();
    const d = path.join(work, 'd');
    git(work, 'clone', '--quiet', origin, d);
    const offline = await tool.run(['pull', path.join(d, 'reports')], {
      env: { LAB_DATA_CACHE: shared },
    });
    assert.equal(offline.code, 0, said(offline));
    const verified = await tool.run(['verify', path.join(d, 'reports')], {
      env: { LAB_DATA_CACHE: shared },
    });
    assert.equal(verified.code, 0, said(verified));
    const local = await tool.run(['status', path.join(d, 'reports')], {
      env: { LAB_DATA_CACHE: shared },
    });
    assert.equal(local.code, 0, said(local));
    assert.match(local.stdout, /Nothing is out of step/);

    const cache = await tool.run(['cache', '--json'], { env: { LAB_DATA_CACHE: shared } });
    const held = JSON.parse(cache.stdout) as { files: number; bytes: number };
    assert.ok(held.files >= ids.length + 1, 'both revisions of the amended report are kept');
    const prune = await tool.run(
      ['cache', 'prune', '--keep-manifest', path.join(d, 'reports', MANIFEST_FILE_NAME)],
      { env: { LAB_DATA_CACHE: shared } },
    );
    assert.equal(prune.code, 0, said(prune));
    const after = JSON.parse(
      (await tool.run(['cache', '--json'], { env: { LAB_DATA_CACHE: shared } })).stdout,
    ) as { files: number };
    assert.equal(after.files, ids.length, 'what no manifest needs is gone');
    for (const folder of [a, b, c, d, bare, shared]) {
      for (const file of await allFiles(folder)) {
        assert.ok(!(await fs.readFile(file)).includes(SECRET_TOKEN), `${file} holds no token`);
      }
    }
    lab = await startMockLab({ reports: 10 });
  });

  describe('bad input gets a clear message and nothing lost', () => {
    let folder: string;
    let env: Record<string, string>;
    beforeEach(async () => {
      folder = await fs.mkdtemp(path.join(work, 'bad-'));
      env = {
        LAB_DATA_TOKEN: SECRET_TOKEN,
        LAB_DATA_URL: lab.baseUrl,
        LAB_DATA_CACHE: path.join(folder, 'cache'),
      };
      const synced = await tool.run(['sync', path.join(folder, 'reports')], { env });
      assert.equal(synced.code, 0, said(synced));
    });

    it('a manifest with conflict markers: every command names the fix; merge-manifest --resolve merges it', async () => {
      const file = path.join(folder, 'reports', MANIFEST_FILE_NAME);
      const text = await fs.readFile(file, 'utf8');
      const lines = text.split('\n');
      const at = lines.findIndex((line) => line.includes('"reports": {')) + 1;
      const ours = lines[at]!;
      const theirs = ours
        .replace(/"(RPT-[^"]+)"/, '"RPT-9999-000001"')
        .replace(/"file": "[^"]+"/, '"file": "extra.pdf"');
      const marked = [
        ...lines.slice(0, at),
        '<<<<<<< HEAD',
        ours,
        '=======',
        theirs,
        '>>>>>>> theirs',
        ...lines.slice(at + 1),
      ].join('\n');
      await fs.writeFile(file, marked);
      for (const command of ['pull', 'verify', 'status', 'sync']) {
        const result = await tool.run([command, path.join(folder, 'reports')], { env });
        assert.equal(result.code, 2, `${command}: ${said(result)}`);
        assert.match(result.stderr, /conflict markers.*lab-data merge-manifest --resolve/);
        assert.equal(await fs.readFile(file, 'utf8'), marked, `${command} wrote nothing`);
      }
      const resolved = await tool.run([
        'merge-manifest',
        '--resolve',
        path.join(folder, 'reports'),
      ]);
      assert.equal(resolved.code, 0, said(resolved));
      const manifest = await readManifest(path.join(folder, 'reports'));
      const files = Object.values(manifest.labs)[0]!.files;
      assert.ok(files['RPT-9999-000001'], 'their entry is merged in');
      assert.equal(
        Object.keys(files).length,
        text.split('\n').filter((line) => /^ {8}"/.test(line)).length + 1,
      );
    });

    it('two pulls into one folder: the second stops with a message and writes nothing', async () => {
      const reports = path.join(folder, 'reports');
      const pdf = (await fs.readdir(reports)).find((name) => name.endsWith('.pdf'))!;
      await fs.rm(path.join(reports, pdf));
      const before = await fs.readFile(path.join(reports, MANIFEST_FILE_NAME), 'utf8');
      // A running process (this test's) holds the lock, as another pull would.
      await fs.writeFile(path.join(reports, '.lab-data', 'lock'), String(process.pid));
      const second = await tool.run(['pull', reports], { env });
      assert.equal(second.code, 1, said(second));
      assert.match(
        second.stderr,
        new RegExp(`Another lab-data \\(process ${process.pid}\\) is working on`),
      );
      assert.ok(!(await fs.readdir(reports)).includes(pdf));
      assert.equal(await fs.readFile(path.join(reports, MANIFEST_FILE_NAME), 'utf8'), before);
      // A lock whose process is gone is taken over.
      await fs.writeFile(path.join(reports, '.lab-data', 'lock'), '999999999');
      const third = await tool.run(['pull', reports], { env });
      assert.equal(third.code, 0, said(third));
      assert.ok((await fs.readdir(reports)).includes(pdf));
    });

    it('a corrupt cache entry is reported, ignored and replaced from the lab', async () => {
      const reports = path.join(folder, 'reports');
      const manifest = await readManifest(reports);
      const entry = Object.values(Object.values(manifest.labs)[0]!.files)[0]!;
      const cached = path.join(folder, 'cache', 'sha256', entry.sha256.slice(0, 2), entry.sha256);
      await fs.writeFile(cached, 'truncated');
      await fs.rm(path.join(reports, entry.file));
      const pulled = await tool.run(['pull', reports], { env });
      assert.equal(pulled.code, 0, said(pulled));
      assert.match(pulled.stderr, /cache's copy of .* is corrupt/);
      assert.equal((await fs.stat(cached)).size, entry.bytes, 'replaced by the lab’s checked file');
      assert.equal((await tool.run(['verify', reports, '--rehash'], { env })).code, 0);
    });

    it('a cache folder that cannot be written: the pull goes on without it and says so once', async () => {
      const reports = path.join(folder, 'reports');
      const blocked = path.join(folder, 'blocked-cache');
      await fs.writeFile(blocked, 'a file where the cache folder would be');
      for (const name of (await fs.readdir(reports)).filter((file) => file.endsWith('.pdf'))) {
        await fs.rm(path.join(reports, name));
      }
      const pulled = await tool.run(['pull', reports], {
        env: { ...env, LAB_DATA_CACHE: blocked },
      });
      assert.equal(pulled.code, 0, said(pulled));
      assert.equal(pulled.stderr.match(/cannot be written/g)?.length, 1, said(pulled));
      assert.equal((await tool.run(['verify', reports], { env })).code, 0);
    });

    it('a version 4 manifest: a newer tool is needed, nothing overwritten', async () => {
      const file = path.join(folder, 'reports', MANIFEST_FILE_NAME);
      const text = JSON.stringify({ version: 4, labs: {} });
      await fs.writeFile(file, text);
      for (const command of ['pull', 'sync', 'status']) {
        const result = await tool.run([command, path.join(folder, 'reports')], { env });
        assert.equal(result.code, 2, `${command}: ${said(result)}`);
        assert.match(result.stderr, /version 4, which is newer .* update/);
      }
      assert.equal(await fs.readFile(file, 'utf8'), text);
    });
  });
});
