import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LabApiError } from '../../../src/core/errors';
import { prepareFolder, writeFileSafely } from '../../../src/core/safeWriter';
import { Readable } from 'node:stream';
import type { PagingAnomaly } from '../../../src/core/pagination';
import { nextPageLink } from '../../../src/core/pageLinks';
import { PagedList } from '../../../src/views/pagedList';
import type { MockServerOptions } from '../../mock/server';
import { FULL, startMockLab } from '../helpers';

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

describe('hardening 2: never trust a server\'s paging', function () {
  this.timeout(30_000);
  const cases: Array<{ name: string; options: MockServerOptions }> = [
    { name: 'caps pages at 20 while 50 are asked for (and its metadata still says 50)', options: { faults: { pageSizeCap: 20 } } },
    { name: 'ignores page_size and uses its own 30, saying nothing of it', options: { envelope: 'no-meta', faults: { ownPageSize: 30 } } },
    { name: 'answers as Django REST Framework does (count, next, previous, results), 404 past the end', options: { envelope: 'drf', faults: { notFoundPastEnd: true } } },
    { name: 'answers DRF-style while capping pages at 20', options: { envelope: 'drf', faults: { pageSizeCap: 20, notFoundPastEnd: true } } },
    { name: 'sends a bare array with an RFC 8288 Link header', options: { envelope: 'link-header', faults: { pageSizeCap: 20 } } },
    { name: 'sends no metadata at all and caps pages at 20', options: { envelope: 'array', faults: { pageSizeCap: 20 } } },
    { name: 'answers a page past the end with 404 and sends no metadata', options: { envelope: 'array', faults: { notFoundPastEnd: true } } },
    { name: 'reports a total_count 40 too low', options: { faults: { totalCountOffset: -40 } } },
  ];
  for (const { name, options } of cases) {
    it(`every record exactly once when the server ${name}`, async () => {
      const lab = await startMockLab({ reports: 130, ...options });
      try {
        const expected = lab.server.reportsFor(FULL).map((r) => r.report_id);
        const anomalies: PagingAnomaly[] = [];
        for (const concurrency of [1, 4]) {
          const ids: string[] = [];
          for await (const page of lab.api().iterateReports({ pageSize: 50 }, { concurrency, onAnomaly: (a) => anomalies.push(a) })) {
            ids.push(...page.items.map((r) => r.report_id));
          }
          assert.deepEqual(ids, expected, `concurrency ${concurrency}`);
        }
        assert.deepEqual(anomalies.filter((a) => a.kind !== 'sequential'), []);
      } finally {
        await lab.close();
      }
    });
  }

  it('says plainly when it cannot be sure: a count higher than what the pages hold, or a server that ignores page', async () => {
    const lab = await startMockLab({ reports: 130, faults: { totalCountOffset: 25 } });
    try {
      const told: PagingAnomaly[] = [];
      const api = lab.api(FULL, { onPagingAnomaly: (a: PagingAnomaly) => told.push(a) });
      let count = 0;
      for await (const page of api.iterateReports({ pageSize: 50 })) {
        count += page.items.length;
      }
      const real = lab.server.reportsFor(FULL).length;
      assert.equal(count, real);
      assert.deepEqual(told.filter((a) => a.kind === 'fewerThanCounted'), [{ kind: 'fewerThanCounted', page: 4, received: real, counted: real + 25 }]);
    } finally {
      await lab.close();
    }
  });

  it('follows only same-origin next links; a foreign one is reported and pages are asked for by number', async () => {
    const lab = await startMockLab({ reports: 60, envelope: 'drf' });
    try {
      const told: PagingAnomaly[] = [];
      const api = lab.api(FULL, { onPagingAnomaly: (a: PagingAnomaly) => told.push(a) });
      const labUrl = api.lab.url;
      assert.deepEqual(nextPageLink('https://evil.example/api/v1/reports?page=2', undefined, labUrl, new URL(labUrl.baseUrl)), { link: undefined, foreign: true });
      assert.deepEqual(nextPageLink(`${labUrl.origin}/api/v1/reports?page=2&page_size=50`, undefined, labUrl, new URL(labUrl.baseUrl)), { link: '/api/v1/reports?page=2&page_size=50', foreign: false });
      assert.deepEqual(nextPageLink(undefined, '</api/v1/reports?page=3>; rel="next", </api/v1/reports?page=1>; rel="prev"', labUrl, new URL(labUrl.baseUrl)), { link: '/api/v1/reports?page=3', foreign: false });
      assert.deepEqual(nextPageLink(undefined, '</api/v1/reports?page=1>; rel="prev first"', labUrl, new URL(labUrl.baseUrl)), { link: null, foreign: false });
      const ids: string[] = [];
      for await (const page of api.iterateReports({ pageSize: 25 }, { concurrency: 1 })) {
        ids.push(...page.items.map((r) => r.report_id));
      }
      assert.equal(ids.length, lab.server.reportsFor(FULL).length);
      // Walking one page at a time, the server's next links were what was asked for.
      assert.ok(lab.server.takeRequests().slice(1).every((request) => request.query.page !== undefined));
      assert.deepEqual(told, []);
    } finally {
      await lab.close();
    }
  });

  it('the tree\'s pages end at a 404 past the end or a page of repeats, instead of failing or looping', async () => {
    const lab = await startMockLab({ reports: 40, envelope: 'array', faults: { notFoundPastEnd: true } });
    try {
      const api = lab.api();
      const list = new PagedList((page: number) => api.listReports({ page, pageSize: 20 }), (r: { report_id: string }) => r.report_id);
      await list.ensureLoaded();
      while (list.hasMore) {
        await list.loadMore();
      }
      assert.equal(list.error, undefined);
      assert.equal(list.items.length, lab.server.reportsFor(FULL).length);
    } finally {
      await lab.close();
    }
  });
});
