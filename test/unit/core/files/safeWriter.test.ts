import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { buildSync } from 'esbuild';
import { LabApiError } from '../../../../core/errors/errors';
import { prepareFolder, writeFileSafely } from '../../../../core/files/safeWriter';

/** What writeUnderLimits.ts printed. */
interface LimitedRun {
  readonly single: { code?: string; message: string } | { saved: number };
  readonly bulk: { saved: number; failed: number; cancelled: boolean; messages: string[] };
  readonly files: string[];
  readonly bulkFiles: string[];
  readonly earlierIntact?: boolean;
}

const CHILD = path.join(__dirname, 'writeUnderLimits.js');

/**
 * A private mount namespace for the child: as root a plain one (as on CI); as a normal user one
 * inside a user namespace of its own (`unshare -r`), where it may mount a tmpfs too.
 */
const UNSHARE = process.getuid?.() === 0 ? ['-m'] : ['-r', '-m'];

/** Whether this machine lets us make that namespace (some containers forbid user namespaces). */
function canUnshare(): boolean {
  return spawnSync('unshare', [...UNSHARE, 'true'], { timeout: 10_000 }).status === 0;
}

/** Runs the child under a shell prelude (mounts, ulimit) in a private mount namespace; the folder gets an earlier file first. */
function runLimited(prelude: string, folder: string): LimitedRun {
  const script = `set -e\n${prelude}\nexec "${process.execPath}" "${CHILD}" "${folder}"`;
  const result = spawnSync('unshare', [...UNSHARE, 'bash', '-c', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(result.status, 0, `the child failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as LimitedRun;
}

function assertFailedCleanly(run: LimitedRun, message: RegExp): void {
  assert.ok('message' in run.single, `the save must fail: ${JSON.stringify(run.single)}`);
  assert.equal(run.single.code, 'fileSystem');
  assert.match(run.single.message, message);
  assert.equal(run.earlierIntact, true, 'the earlier file of the same name is untouched');
  assert.deepEqual(
    run.files.filter((name) => name !== 'bulk'),
    ['earlier.pdf'],
    'no partial or temporary file is left',
  );
  assert.deepEqual(
    run.bulkFiles.filter((name) => name.endsWith('.part')),
    [],
    'no temporary file in the bulk folder',
  );
  assert.equal(run.bulk.cancelled, false, 'a failed write is never "cancelled"');
  assert.equal(run.bulk.saved + run.bulk.failed, 5);
  assert.ok(run.bulk.failed >= 1);
  for (const text of run.bulk.messages) {
    assert.match(text, message);
  }
}

describe('writing a file: a failed write is a failure, in plain words, leaving nothing', function () {
  this.timeout(60_000);
  let folder: string;

  let namespaces = true;
  before(() => {
    namespaces = canUnshare();
  });
  /** Skips a test that needs a mount of its own where none can be made (counted as skipped, never as passed). */
  function needsNamespace(test: Mocha.Context): void {
    if (!namespaces) {
      console.log(
        `    (skipped: \`unshare ${UNSHARE.join(' ')}\` is not permitted here, so no tmpfs, read-only mount or file-size limit can be set up)`,
      );
      test.skip();
    }
  }

  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-limits-'));
  });

  afterEach(async () => {
    // A test may have made it read-only: writable again, so a normal user can remove it.
    await fs.chmod(folder, 0o755).catch(() => undefined);
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('a full disk (a real ENOSPC on a 160 KiB tmpfs) says "The disk is full", counts as failed, leaves nothing', function () {
    needsNamespace(this);
    const run = runLimited(
      `mount -t tmpfs -o size=160k tmpfs "${folder}"\nprintf earlier > "${folder}/earlier.pdf"\nhead -c 100000 /dev/zero > "${folder}/filler"`,
      folder,
    );
    // The filler is gone from the listing only if it was never written; keep it out of the comparison.
    assertFailedCleanly(
      { ...run, files: run.files.filter((name) => name !== 'filler') },
      /The disk is full/,
    );
  });

  it('a file-size limit (a real EFBIG under ulimit -f) says so, counts as failed, leaves nothing', function () {
    needsNamespace(this);
    const run = runLimited(`printf earlier > "${folder}/earlier.pdf"\nulimit -f 64`, folder);
    assertFailedCleanly(run, /larger than this system lets a file grow/);
  });

  it('a read-only file system says so, counts as failed, leaves nothing', function () {
    needsNamespace(this);
    const run = runLimited(
      `mount -t tmpfs -o size=4m tmpfs "${folder}"\nprintf earlier > "${folder}/earlier.pdf"\nmkdir "${folder}/bulk"\nmount -t tmpfs -o remount,ro tmpfs "${folder}"`,
      folder,
    );
    assertFailedCleanly(run, /read-only/);
    assert.equal(run.bulk.failed, 5, 'after the first, the others fail without being asked for');
  });

  it('no permission to write says so, in plain words (a folder the saving user may not write in)', async () => {
    await fs.writeFile(path.join(folder, 'earlier.pdf'), 'earlier');
    await fs.chmod(folder, 0o555);
    await fs.chmod(path.dirname(folder), 0o1777).catch(() => undefined);
    if (process.getuid?.() !== 0) {
      // A normal user may not write in a folder of mode 555: the child runs as this user.
      const run = spawnSync(process.execPath, [CHILD, folder], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(run.status, 0, run.stderr);
      assertFailedCleanly(JSON.parse(run.stdout) as LimitedRun, /No permission to write in/);
      return;
    }
    // Root writes anywhere, so the child runs as `nobody`. The checkout may sit where `nobody`
    // cannot enter (a private temporary folder, a home folder of mode 700): the child runs from
    // one bundled file in a folder every user can read.
    const child = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-child-'));
    try {
      await fs.chmod(child, 0o755);
      const bundled = path.join(child, 'writeUnderLimits.js');
      buildSync({
        entryPoints: [CHILD],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        outfile: bundled,
        logLevel: 'silent',
      });
      await fs.chmod(bundled, 0o644);
      const run = spawnSync(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, bundled, folder],
        { encoding: 'utf8', timeout: 60_000, cwd: child },
      );
      assert.equal(run.status, 0, run.stderr);
      assertFailedCleanly(JSON.parse(run.stdout) as LimitedRun, /No permission to write in/);
    } finally {
      await fs.rm(child, { recursive: true, force: true });
    }
  });

  it('a file where a folder should be says so, before anything is written', async () => {
    await fs.writeFile(path.join(folder, 'reports'), 'a file');
    const source = Readable.from([Buffer.from('%PDF-1.4 x')]);
    const error = (await writeFileSafely({
      folder: path.join(folder, 'reports', '2026'),
      root: folder,
      fileName: 'r.pdf',
      source,
    }).catch((e: unknown) => e)) as LabApiError;
    assert.equal(error.code, 'fileSystem');
    assert.match(error.message, /A file stands where a folder should be/);
    assert.deepEqual(await fs.readdir(folder), ['reports']);
  });
});

describe('prepareFolder: no folder outside the download root, ever', () => {
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
    const error = (await prepareFolder(path.join(root, 'a', 'link', 'deep', 'er'), root).catch(
      (e: unknown) => e,
    )) as LabApiError;
    assert.equal(error.code, 'fileSystem');
    assert.match(error.message, /outside/);
    assert.deepEqual(
      await fs.readdir(path.join(base, 'outside')),
      [],
      'nothing was created behind the link',
    );
  });

  it('a link that stays inside the root is followed; ".." out of the root is refused without touching the disk', async () => {
    const root = path.join(base, 'root');
    await fs.symlink(path.join(root, 'a'), path.join(root, 'alias'));
    const prepared = await prepareFolder(path.join(root, 'alias', 'new'), root);
    assert.equal(prepared.resolved, path.join(await fs.realpath(root), 'a', 'new'));
    const error = (await prepareFolder(path.join(root, '..', 'outside', 'x'), root).catch(
      (e: unknown) => e,
    )) as LabApiError;
    assert.match(error.message, /outside/);
    assert.deepEqual(await fs.readdir(path.join(base, 'outside')), []);
  });
});
