import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LabApiError } from '../../../src/core/errors';
import { prepareFolder, writeFileSafely } from '../../../src/core/safeWriter';
import { Readable } from 'node:stream';

/** What writeUnderLimits.ts printed. */
interface LimitedRun {
  readonly single: { code?: string; message: string } | { saved: number };
  readonly bulk: { saved: number; failed: number; cancelled: boolean; messages: string[] };
  readonly files: string[];
  readonly bulkFiles: string[];
  readonly earlierIntact?: boolean;
}

const CHILD = path.join(__dirname, 'writeUnderLimits.js');

/** Runs the child under a shell prelude (mounts, ulimit) as root; the folder gets an earlier file first. */
function runLimited(prelude: string, folder: string): LimitedRun {
  const script = `set -e\n${prelude}\nexec "${process.execPath}" "${CHILD}" "${folder}"`;
  const result = spawnSync('unshare', ['-m', 'bash', '-c', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(result.status, 0, `the child failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as LimitedRun;
}

function assertFailedCleanly(run: LimitedRun, message: RegExp): void {
  assert.ok('message' in run.single, `the save must fail: ${JSON.stringify(run.single)}`);
  assert.equal(run.single.code, 'fileSystem');
  assert.match(run.single.message, message);
  assert.equal(run.earlierIntact, true, 'the earlier file of the same name is untouched');
  assert.deepEqual(run.files.filter((name) => name !== 'bulk'), ['earlier.pdf'], 'no partial or temporary file is left');
  assert.deepEqual(run.bulkFiles.filter((name) => name.endsWith('.part')), [], 'no temporary file in the bulk folder');
  assert.equal(run.bulk.cancelled, false, 'a failed write is never "cancelled"');
  assert.equal(run.bulk.saved + run.bulk.failed, 5);
  assert.ok(run.bulk.failed >= 1);
  for (const text of run.bulk.messages) {
    assert.match(text, message);
  }
}

describe('hardening 1: a failed write is a failure', function () {
  this.timeout(60_000);
  let folder: string;

  before(function () {
    assert.equal(process.getuid?.(), 0, 'these tests mount file systems in a private mount namespace and need root (as on CI)');
  });

  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-limits-'));
  });

  afterEach(async () => {
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('a full disk (a real ENOSPC on a 160 KiB tmpfs) says "The disk is full", counts as failed, leaves nothing', () => {
    const run = runLimited(`mount -t tmpfs -o size=160k tmpfs "${folder}"\nprintf earlier > "${folder}/earlier.pdf"\nhead -c 100000 /dev/zero > "${folder}/filler"`, folder);
    // The filler is gone from the listing only if it was never written; keep it out of the comparison.
    assertFailedCleanly({ ...run, files: run.files.filter((name) => name !== 'filler') }, /The disk is full/);
  });

  it('a file-size limit (a real EFBIG under ulimit -f) says so, counts as failed, leaves nothing', () => {
    const run = runLimited(`printf earlier > "${folder}/earlier.pdf"\nulimit -f 64`, folder);
    assertFailedCleanly(run, /larger than this system lets a file grow/);
  });

  it('a read-only file system says so, counts as failed, leaves nothing', () => {
    const run = runLimited(`mount -t tmpfs -o size=4m tmpfs "${folder}"\nprintf earlier > "${folder}/earlier.pdf"\nmkdir "${folder}/bulk"\nmount -o remount,ro "${folder}"`, folder);
    assertFailedCleanly(run, /read-only/);
    assert.equal(run.bulk.failed, 5, 'after the first, the others fail without being asked for');
  });

  it('no permission to write says so, in plain words (a folder the saving user may not write in)', async () => {
    await fs.writeFile(path.join(folder, 'earlier.pdf'), 'earlier');
    await fs.chmod(folder, 0o555);
    await fs.chmod(path.dirname(folder), 0o1777).catch(() => undefined);
    const run = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, CHILD, folder], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    assertFailedCleanly(JSON.parse(run.stdout) as LimitedRun, /No permission to write in/);
  });

  it('a file where a folder should be says so, before anything is written', async () => {
    await fs.writeFile(path.join(folder, 'reports'), 'a file');
    const source = Readable.from([Buffer.from('%PDF-1.4 x')]);
    const error = (await writeFileSafely({ folder: path.join(folder, 'reports', '2026'), root: folder, fileName: 'r.pdf', source }).catch((e: unknown) => e)) as LabApiError;
    assert.equal(error.code, 'fileSystem');
    assert.match(error.message, /A file stands where a folder should be/);
    assert.deepEqual(await fs.readdir(folder), ['reports']);
  });
});

describe('hardening 5: no folder outside the download root, ever', () => {
  let base: string;
  beforeEach(async () => {
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-root-'));
    await fs.mkdir(path.join(base, 'root', 'a'), { recursive: true });
    await fs.mkdir(path.join(base, 'outside'));
  });
  afterEach(async () => {
    await fs.rm(base, { recursive: true, force: true });
  });

  it('a link in the middle of the path is refused before any folder is created behind it', async () => {
    const root = path.join(base, 'root');
    await fs.symlink(path.join(base, 'outside'), path.join(root, 'a', 'link'));
    const error = (await prepareFolder(path.join(root, 'a', 'link', 'deep', 'er'), root).catch((e: unknown) => e)) as LabApiError;
    assert.equal(error.code, 'fileSystem');
    assert.match(error.message, /outside/);
    assert.deepEqual(await fs.readdir(path.join(base, 'outside')), [], 'nothing was created behind the link');
  });

  it('a link that stays inside the root is followed; ".." out of the root is refused without touching the disk', async () => {
    const root = path.join(base, 'root');
    await fs.symlink(path.join(root, 'a'), path.join(root, 'alias'));
    const prepared = await prepareFolder(path.join(root, 'alias', 'new'), root);
    assert.equal(prepared.resolved, path.join(await fs.realpath(root), 'a', 'new'));
    const error = (await prepareFolder(path.join(root, '..', 'outside', 'x'), root).catch((e: unknown) => e)) as LabApiError;
    assert.match(error.message, /outside/);
    assert.deepEqual(await fs.readdir(path.join(base, 'outside')), []);
  });
});
