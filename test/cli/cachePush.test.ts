import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME, readManifest, type ManifestEntry } from '../../core/sync/manifest';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Every file below `folder`, as paths relative to it (none when it is not there). */
async function filesIn(folder: string): Promise<string[]> {
  const entries = await fs
    .readdir(folder, { recursive: true, withFileTypes: true })
    .catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** What `status --json` says of each entry, by report id. */
function cachedOf(result: RunResult): Record<string, [string, boolean]> {
  const parsed = JSON.parse(result.stdout) as {
    entries: Array<{ report_id: string; local: string; cached: boolean }>;
  };
  return Object.fromEntries(
    parsed.entries.map((entry) => [entry.report_id, [entry.local, entry.cached]]),
  );
}

/** `unshare -m` where this machine permits it (as root; CI runs the tool's tests as root). */
async function canUnshare(): Promise<boolean> {
  if (process.getuid?.() !== 0) {
    return false;
  }
  return new Promise((resolve) => {
    const child = spawn('unshare', ['-m', 'true'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('close', (code) => resolve(code === 0));
  });
}

describe('lab-data cache push: a team cache anyone can fill and check (packed tool)', function () {
  this.timeout(120_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  /** Clone A's report folder, synced from the lab into A's private cache. */
  let a: string;
  let entries: ManifestEntry[];
  let team: string;
  let privateCache: string;

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 8, pdfBytes: 96 * 1024 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-push-'));
    team = path.join(work, 'team-cache');
    privateCache = path.join(work, 'private-cache');
    a = path.join(work, 'a', 'lab-reports');
    const sync = await tool.run(['sync', a], {
      env: {
        LAB_DATA_TOKEN: SECRET_TOKEN,
        LAB_DATA_URL: lab.baseUrl,
        LAB_DATA_CACHE: privateCache,
      },
    });
    assert.equal(sync.code, 0, said(sync));
    entries = Object.values(Object.values((await readManifest(a)).labs)[0]!.files);
    assert.ok(entries.length >= 6, `synced ${entries.length}`);
  });
  after(async () => {
    tool?.remove();
    // The first test stops the lab on purpose.
    await lab?.close().catch(() => undefined);
    await fs.rm(work, { recursive: true, force: true });
    for (const text of transcript) {
      assert.ok(!text.includes(SECRET_TOKEN), 'no output holds the token');
    }
  });

  it('push from one clone, pull in another with the lab stopped: status --check-cache exits 1, then 0; a second push copies nothing', async () => {
    const [changed, missing, pushedThenRemoved] = entries;
    const teamEnv = { LAB_DATA_CACHE: team };

    // Nothing in the team cache yet: CI's gate fails, naming every file.
    const gate = await tool.run(['status', a, '--check-cache'], { env: teamEnv });
    assert.equal(gate.code, 1, said(gate));
    for (const entry of entries) {
      assert.match(gate.stdout, new RegExp(`${entry.file}.*not in the cache`));
    }
    assert.match(gate.stdout, new RegExp(`lacks ${entries.length} recorded files`));
    const plain = await tool.run(['status', a], { env: teamEnv });
    assert.equal(
      plain.code,
      0,
      `without --check-cache the exit status is as before: ${said(plain)}`,
    );

    // A file changed since it was recorded, another gone: neither is pushed, each is named.
    await fs.appendFile(path.join(a, changed!.file), 'edited');
    await fs.rename(path.join(a, missing!.file), path.join(work, 'aside.pdf'));
    const first = await tool.run(['cache', 'push', a, '--cache', team]);
    assert.equal(first.code, 1, said(first));
    assert.match(
      first.stderr,
      new RegExp(
        `not pushed +${changed!.report_id} +${changed!.file}: changed since it was recorded`,
      ),
    );
    assert.match(first.stderr, new RegExp(`not pushed +${missing!.report_id} .*not in the folder`));
    assert.match(
      first.stderr,
      new RegExp(
        `pushed ${entries.length - 2} \\([0-9.]+ [KM]B\\), already there 0, not pushed 2 \\(1 changed, 1 missing\\)`,
      ),
    );
    assert.equal((await filesIn(team)).length, entries.length - 2);

    // status --json tells truthfully what the team cache holds, present in the folder or not.
    await fs.rm(path.join(a, pushedThenRemoved!.file));
    const json = await tool.run(['status', a, '--json', '--check-cache'], { env: teamEnv });
    assert.equal(json.code, 1, said(json));
    const cached = cachedOf(json);
    assert.deepEqual(cached[changed!.report_id], ['changed', false]);
    assert.deepEqual(cached[missing!.report_id], ['missing', false]);
    assert.deepEqual(cached[pushedThenRemoved!.report_id], ['missing', true]);
    for (const entry of entries.slice(3)) {
      assert.deepEqual(cached[entry.report_id], ['ok', true], entry.report_id);
    }
    assert.equal((JSON.parse(json.stdout) as { cache_lacks: number }).cache_lacks, 2);

    // A restored from its own cache (no lab, no token) and pushes again: only what was lacking.
    const restore = await tool.run(['pull', a, '--force'], {
      env: { LAB_DATA_CACHE: privateCache },
    });
    assert.equal(restore.code, 0, said(restore));
    const second = await tool.run(['cache', 'push', a], { env: teamEnv });
    assert.equal(second.code, 0, said(second));
    assert.match(
      second.stderr,
      new RegExp(`pushed 2 \\([0-9.]+ KB\\), already there ${entries.length - 2}, not pushed 0\\.`),
    );
    const stored = await filesIn(team);
    assert.equal(stored.length, entries.length);
    const inodes = await Promise.all(
      stored.map(async (name) => (await fs.stat(path.join(team, name))).ino),
    );
    const third = await tool.run(['cache', 'push', a, '--json'], { env: teamEnv });
    assert.equal(third.code, 0, said(third));
    const again = JSON.parse(third.stdout) as {
      pushed: number;
      pushed_bytes: number;
      already_there: number;
      not_pushed: number;
    };
    assert.deepEqual(
      {
        pushed: again.pushed,
        bytes: again.pushed_bytes,
        there: again.already_there,
        not: again.not_pushed,
      },
      { pushed: 0, bytes: 0, there: entries.length, not: 0 },
    );
    assert.deepEqual(
      await Promise.all(stored.map(async (name) => (await fs.stat(path.join(team, name))).ino)),
      inodes,
      'the second push copied nothing',
    );
    const green = await tool.run(['status', a, '--check-cache'], { env: teamEnv });
    assert.equal(green.code, 0, said(green));
    assert.match(green.stdout, /holds every recorded file/);

    // Clone B has the manifest alone; the lab is stopped. With a token and the lab's address…
    const b = path.join(work, 'b', 'lab-reports');
    await fs.mkdir(b, { recursive: true });
    await fs.copyFile(path.join(a, MANIFEST_FILE_NAME), path.join(b, MANIFEST_FILE_NAME));
    const address = lab.baseUrl;
    await lab.close();
    const pullB = await tool.run(['pull', b], {
      env: { ...teamEnv, LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: address },
    });
    assert.equal(pullB.code, 0, said(pullB));
    // …and clone C with no token at all.
    const c = path.join(work, 'c', 'lab-reports');
    await fs.mkdir(c, { recursive: true });
    await fs.copyFile(path.join(a, MANIFEST_FILE_NAME), path.join(c, MANIFEST_FILE_NAME));
    const pullC = await tool.run(['pull', c], { env: teamEnv });
    assert.equal(pullC.code, 0, said(pullC));
    for (const folder of [b, c]) {
      for (const entry of entries) {
        assert.equal(
          sha(await fs.readFile(path.join(folder, entry.file))),
          entry.sha256,
          entry.file,
        );
      }
    }
  });

  describe('bad input gets a clear message and nothing lost', () => {
    /** A folder of its own with every recorded file, restored from A's cache (no lab). */
    async function wholeCopy(name: string): Promise<string> {
      const folder = path.join(work, name, 'lab-reports');
      await fs.mkdir(folder, { recursive: true });
      await fs.copyFile(path.join(a, MANIFEST_FILE_NAME), path.join(folder, MANIFEST_FILE_NAME));
      const pull = await tool.run(['pull', folder], { env: { LAB_DATA_CACHE: privateCache } });
      assert.equal(pull.code, 0, said(pull));
      return folder;
    }

    it('a cache that cannot be written (its folder would be under a file): exit 1, the reason, nothing created', async () => {
      const blocker = path.join(work, 'not-a-folder');
      await fs.writeFile(blocker, 'a file');
      const result = await tool.run([
        'cache',
        'push',
        await wholeCopy('blocked'),
        '--cache',
        path.join(blocker, 'cache'),
      ]);
      assert.equal(result.code, 1, said(result));
      assert.match(
        result.stderr,
        /The cache .*not-a-folder\/cache cannot be written: .*No write was tried after it/,
      );
      assert.match(result.stderr, /nothing half-written is left in the cache/);
      assert.equal(await fs.readFile(blocker, 'utf8'), 'a file');
    });

    it('a folder without a manifest: exit 2 before anything is pushed, even with good folders given', async () => {
      const empty = path.join(work, 'empty');
      await fs.mkdir(empty);
      const cache = path.join(work, 'unused-cache');
      const result = await tool.run(['cache', 'push', a, empty, '--cache', cache]);
      assert.equal(result.code, 2, said(result));
      assert.match(result.stderr, /There is no manifest at/);
      assert.deepEqual(await filesIn(cache), []);
    });

    it('a read-only disk (a tmpfs mounted ro) and a full one (a 160 KiB tmpfs): exit 1, the reason said, no partial entry; a read-only cache that holds everything is fine', async function () {
      if (!(await canUnshare())) {
        console.log(
          '    (skipped: `unshare -m` is not permitted here, so no tmpfs can be mounted)',
        );
        this.skip();
      }
      const cache = path.join(work, 'mounted');
      await fs.mkdir(cache);
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        XDG_CACHE_HOME: path.join(work, 'xdg'),
      };
      const push = `"${tool.bin}" cache push "${await wholeCopy('mounts')}" --cache "${cache}"`;
      const script = [
        // Full: 100,000 bytes of a 160 KiB disk taken, then a 96 KiB report does not fit.
        `mount -t tmpfs -o size=160k tmpfs "${cache}"`,
        `head -c 100000 /dev/zero > "${cache}/filler"`,
        `${push} 2>&1; echo "exit $?"`,
        `echo "files: $(cd "${cache}" && find . -type f | sort | tr '\\n' ' ')"`,
        `umount "${cache}"`,
        // Read-only and empty.
        `mount -t tmpfs -o ro tmpfs "${cache}"`,
        `${push} 2>&1; echo "exit $?"`,
        `umount "${cache}"`,
        // Filled, then read-only: nothing to write, so nothing fails.
        `mount -t tmpfs tmpfs "${cache}"`,
        `${push} >/dev/null 2>&1`,
        `mount -o remount,ro "${cache}"`,
        `${push} 2>&1; echo "exit $?"`,
      ].join('\n');
      const run = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
        const child = spawn('unshare', ['-m', 'bash', '-c', script], {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, out }));
      });
      transcript.push(run.out);
      const [full, readOnly, filled] = run.out.split(/^exit \d+$/m).map((part) => part.trim());
      const codes = [...run.out.matchAll(/^exit (\d+)$/gm)].map((match) => Number(match[1]));
      assert.deepEqual(codes, [1, 1, 0], run.out);
      assert.match(full!, /cannot be written: The disk is full/);
      assert.match(full!, /nothing half-written is left in the cache/);
      assert.match(full!, /Free space there/, 'the advice fits a full disk');
      assert.match(
        full!,
        /pushed 0 \(0 B\), already there 0, not pushed \d+ \(\d+ refused by the cache\)/,
      );
      assert.match(readOnly!, /^files: \.\/filler\s*$/m, 'no partial entry or temporary file');
      assert.match(readOnly!, /cannot be written: The disk holding .* is read-only/);
      assert.match(filled!, new RegExp(`already there ${entries.length}, not pushed 0\\.`));
    });
  });
});
