import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ContentCache, defaultCacheFolder } from '../../../../core/files/contentCache';

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('the content cache', () => {
  let work: string;
  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-cache-'));
  });
  afterEach(async () => {
    await fs.rm(work, { recursive: true, force: true });
  });

  it("lives in the platform's cache folder unless one is chosen", () => {
    assert.equal(
      defaultCacheFolder({ XDG_CACHE_HOME: '/x/cache' }, 'linux', '/home/a'),
      '/x/cache/lab-data',
    );
    assert.equal(defaultCacheFolder({}, 'linux', '/home/a'), '/home/a/.cache/lab-data');
    assert.equal(defaultCacheFolder({}, 'darwin', '/Users/a'), '/Users/a/Library/Caches/lab-data');
    assert.match(
      defaultCacheFolder({ LOCALAPPDATA: 'C:\\Users\\a\\AppData\\Local' }, 'win32', 'C:\\Users\\a'),
      /lab-data/,
    );
  });

  it('keeps a private copy (never a link): editing the workspace file leaves the cache as it was', async () => {
    const bytes = Buffer.from('%PDF-1.7 one report');
    const file = path.join(work, 'R-1.pdf');
    await fs.writeFile(file, bytes);
    const cache = new ContentCache(path.join(work, 'cache'));
    await cache.keep(file, sha(bytes), bytes.length);
    await fs.appendFile(file, 'edited');
    const [held] = await cache.list();
    assert.equal(held?.sha256, sha(bytes));
    const stored = path.join(work, 'cache', 'sha256', sha(bytes).slice(0, 2), sha(bytes));
    assert.equal((await fs.stat(stored)).mode & 0o777, 0o600, 'readable by the user alone');
    assert.equal((await fs.stat(path.dirname(stored))).mode & 0o777, 0o700);
    const out = path.join(work, 'out');
    await fs.mkdir(out);
    const restored = await cache.restore(sha(bytes), bytes.length, {
      folder: out,
      fileName: 'R-1.pdf',
      ifExists: 'fail',
    });
    assert.ok(restored);
    assert.deepEqual(await fs.readFile(path.join(out, 'R-1.pdf')), bytes);
  });

  it("answers what it holds from its folders' listings, each read once a lookup: a fresh cache is one look", async () => {
    const cache = new ContentCache(path.join(work, 'cache'));
    const bytes = Buffer.from('%PDF-1.7 listed');
    const file = path.join(work, 'R.pdf');
    await fs.writeFile(file, bytes);
    const before = cache.lookup();
    assert.equal(await before(sha(bytes)), false, 'nothing there yet: no cache folder at all');
    // Kept by another process: a lookup keeps the listing it read.
    await new ContentCache(path.join(work, 'cache')).keep(file, sha(bytes), bytes.length);
    assert.equal(await before(sha(bytes)), false, 'a lookup keeps the listing it read');
    const after = cache.lookup();
    assert.equal(await after(sha(bytes)), true);
    // Kept by this object: counted in, even by a lookup taken before.
    const mine = Buffer.from('%PDF-1.7 kept by this one');
    await fs.writeFile(file, mine);
    await cache.keep(file, sha(mine), mine.length);
    assert.equal(await after(sha(mine)), true, 'its own keeps are counted in');
    assert.equal(await after(sha(Buffer.from('other'))), false);
    assert.equal(await after('../../etc/passwd'), false, 'only a SHA-256 is looked for');
  });

  it('makes each of its folders once, and again when another process removed it since (a prune)', async () => {
    const warnings: string[] = [];
    const cache = new ContentCache(path.join(work, 'cache'), {
      warn: (message) => warnings.push(message),
    });
    const bytes = Buffer.from('%PDF-1.7 kept, pruned, kept again');
    const file = path.join(work, 'R.pdf');
    await fs.writeFile(file, bytes);
    await cache.keep(file, sha(bytes), bytes.length);
    // Its folder removed behind the cache's back, as a prune from another process may.
    await fs.rm(path.join(work, 'cache', 'sha256'), { recursive: true, force: true });
    await cache.keep(file, sha(bytes), bytes.length);
    assert.deepEqual(
      (await cache.list()).map((held) => held.sha256),
      [sha(bytes)],
    );
    assert.deepEqual(warnings, [], 'the cache went on keeping files');
    assert.equal(cache.writeProblem, undefined);
  });

  it('ignores, reports and removes a corrupt or truncated entry; nothing is left in the folder', async () => {
    const bytes = Buffer.from('%PDF-1.7 the recorded bytes');
    const file = path.join(work, 'R-1.pdf');
    await fs.writeFile(file, bytes);
    const warnings: string[] = [];
    const cache = new ContentCache(path.join(work, 'cache'), {
      warn: (message) => warnings.push(message),
    });
    await cache.keep(file, sha(bytes), bytes.length);
    const stored = path.join(work, 'cache', 'sha256', sha(bytes).slice(0, 2), sha(bytes));
    const out = path.join(work, 'out');
    await fs.mkdir(out);
    for (const broken of [Buffer.from('%PDF-1.7 the recorded bytez'), bytes.subarray(0, 10)]) {
      await fs.writeFile(stored, broken);
      const restored = await cache.restore(sha(bytes), bytes.length, {
        folder: out,
        fileName: 'R-1.pdf',
        ifExists: 'fail',
      });
      assert.equal(restored, undefined);
      assert.deepEqual(await fs.readdir(out), [], 'no partial file');
      assert.equal(await cache.has(sha(bytes)), false, 'the corrupt entry is removed');
      await cache.keep(file, sha(bytes), bytes.length);
      assert.equal(
        await cache.has(sha(bytes), bytes.length),
        true,
        'and replaced when the file is kept again',
      );
    }
    assert.equal(warnings.filter((warning) => /corrupt/.test(warning)).length, 2);
  });

  it('is read when it cannot be written (a read-only share), and says so once', async () => {
    const bytes = Buffer.from('%PDF-1.7 shared');
    const file = path.join(work, 'R-1.pdf');
    await fs.writeFile(file, bytes);
    const warnings: string[] = [];
    const shared = path.join(work, 'cache');
    const cache = new ContentCache(shared, {
      shared: true,
      warn: (message) => warnings.push(message),
    });
    await cache.keep(file, sha(bytes), bytes.length);
    const other = Buffer.from('%PDF-1.7 another');
    // Writes fail there (even for root, who ignores permissions): a file stands where its folder would go.
    await fs.writeFile(path.join(shared, 'sha256', sha(other).slice(0, 2)), 'in the way');
    await fs.writeFile(file, other);
    await cache.keep(file, sha(other), other.length);
    await cache.keep(file, sha(other), other.length);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /cannot be written .* going on without/);
    assert.ok(cache.writeProblem);
    const out = path.join(work, 'out');
    await fs.mkdir(out);
    assert.ok(
      await cache.restore(sha(bytes), bytes.length, {
        folder: out,
        fileName: 'R-1.pdf',
        ifExists: 'fail',
      }),
    );
  });
});

/** What keepOnFullDisk.ts printed. */
interface FullDiskRun {
  readonly bulk: { saved: number; failed: number; cancelled: boolean };
  readonly saved: Array<{ id: string; whole: boolean }>;
  readonly workspaceFiles: string[];
  readonly warnings: string[];
  readonly writeProblem?: string;
  readonly cacheFilesWhenFull: string[];
  readonly laterKept: boolean;
  readonly restoredWhole: boolean;
  readonly cacheFilesLater: string[];
}

const FULL_DISK_CHILD = path.join(__dirname, 'keepOnFullDisk.js');

/**
 * A private mount namespace for the child: as root a plain one (as on CI); as a normal user one
 * inside a user namespace of its own (`unshare -r`), where it may mount a tmpfs too.
 */
const UNSHARE = process.getuid?.() === 0 ? ['-m'] : ['-r', '-m'];

/** Whether this machine lets us make that namespace (some containers forbid user namespaces). */
function canUnshare(): boolean {
  return spawnSync('unshare', [...UNSHARE, 'true'], { timeout: 10_000 }).status === 0;
}

describe('the content cache on a full disk', function () {
  this.timeout(60_000);
  let work: string;

  let namespaces = true;
  before(() => {
    namespaces = canUnshare();
  });
  /** Skips a test that needs a mount of its own where none can be made (counted as skipped, never as passed). */
  function needsNamespace(test: Mocha.Context): void {
    if (!namespaces) {
      console.log(
        `    (skipped: \`unshare ${UNSHARE.join(' ')}\` is not permitted here, so no tmpfs can be mounted)`,
      );
      test.skip();
    }
  }

  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-cache-full-'));
  });

  afterEach(async () => {
    await fs.rm(work, { recursive: true, force: true });
  });

  it('a real ENOSPC in the cache (a 160 KiB tmpfs): the reports are saved whole, the cache warns once and holds no partial entry, and a later keep with space works', function () {
    needsNamespace(this);
    const workspace = path.join(work, 'lab-reports');
    const cache = path.join(work, 'cache');
    spawnSync('mkdir', [workspace, cache]);
    const script = [
      'set -e',
      `mount -t tmpfs -o size=160k tmpfs "${cache}"`,
      `head -c 100000 /dev/zero > "${cache}/filler"`,
      `exec "${process.execPath}" "${FULL_DISK_CHILD}" "${workspace}" "${cache}"`,
    ].join('\n');
    const result = spawnSync('unshare', [...UNSHARE, 'bash', '-c', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.status, 0, `the child failed (${result.status}): ${result.stderr}`);
    const run = JSON.parse(result.stdout) as FullDiskRun;

    assert.deepEqual(run.bulk, { saved: 5, failed: 0, cancelled: false }, 'the save succeeds');
    assert.deepEqual(
      run.saved.filter((file) => !file.whole),
      [],
      "every workspace file holds the lab's bytes",
    );
    assert.deepEqual(
      run.workspaceFiles.filter((name) => /\.(part|tmp)$/.test(name)),
      [],
      'no temporary file in the workspace',
    );
    assert.equal(run.writeProblem, 'ENOSPC');
    assert.equal(run.warnings.length, 1, run.warnings.join('\n'));
    assert.match(run.warnings[0]!, /cannot be written \(ENOSPC\); going on without keeping files/);
    assert.deepEqual(run.cacheFilesWhenFull, [], 'no partial or temporary entry is left');
    assert.equal(run.laterKept, true, 'a later run with space keeps the file');
    assert.equal(run.restoredWhole, true, 'and restores it whole');
    assert.equal(run.cacheFilesLater.length, 1, run.cacheFilesLater.join(', '));
    assert.match(run.cacheFilesLater[0]!, /^sha256\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
  });
});
