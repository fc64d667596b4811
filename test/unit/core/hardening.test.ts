import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { LabApiError } from '../../../core/errors/errors';
import { prepareFolder, writeFileSafely } from '../../../core/files/safeWriter';
import { Readable } from 'node:stream';
import type { PagingAnomaly } from '../../../core/api/pagination';
import { nextPageLink } from '../../../core/api/pageLinks';
import { PagedList } from '../../../src/views/pagedList';
import type { MockServerOptions } from '../../mock/server';
import { FULL, SECRET_TOKEN, rejection, startMockLab } from '../helpers';
import { registerSecret, serverText } from '../../../core/errors/serverText';
import { buildSupportReport } from '../../../core/derived/supportReport';
import { parseReport } from '../../../core/api/records';
import { reportLine } from '../../../core/derived/chatText';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../../core/connection/timing';
import { HttpClient, declaredLength } from '../../../core/connection/httpClient';
import { formatClock } from '../../../core/connection/errorMapping';
import { parseListBody } from '../../../core/api/listEnvelope';
import { parseBaseUrl } from '../../../core/connection/baseUrl';

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

describe('hardening 1: a failed write is a failure', function () {
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

describe("hardening 2: never trust a server's paging", function () {
  this.timeout(30_000);
  const cases: Array<{ name: string; options: MockServerOptions }> = [
    {
      name: 'caps pages at 20 while 50 are asked for (and its metadata still says 50)',
      options: { faults: { pageSizeCap: 20 } },
    },
    {
      name: 'ignores page_size and uses its own 30, saying nothing of it',
      options: { envelope: 'no-meta', faults: { ownPageSize: 30 } },
    },
    {
      name: 'answers as Django REST Framework does (count, next, previous, results), 404 past the end',
      options: { envelope: 'drf', faults: { notFoundPastEnd: true } },
    },
    {
      name: 'answers DRF-style while capping pages at 20',
      options: { envelope: 'drf', faults: { pageSizeCap: 20, notFoundPastEnd: true } },
    },
    {
      name: 'sends a bare array with an RFC 8288 Link header',
      options: { envelope: 'link-header', faults: { pageSizeCap: 20 } },
    },
    {
      name: 'sends no metadata at all and caps pages at 20',
      options: { envelope: 'array', faults: { pageSizeCap: 20 } },
    },
    {
      name: 'answers a page past the end with 404 and sends no metadata',
      options: { envelope: 'array', faults: { notFoundPastEnd: true } },
    },
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
          for await (const page of lab
            .api()
            .iterateReports(
              { pageSize: 50 },
              { concurrency, onAnomaly: (a) => anomalies.push(a) },
            )) {
            ids.push(...page.items.map((r) => r.report_id));
          }
          assert.deepEqual(ids, expected, `concurrency ${concurrency}`);
        }
        assert.deepEqual(
          anomalies.filter((a) => a.kind !== 'sequential'),
          [],
        );
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
      assert.deepEqual(
        told.filter((a) => a.kind === 'fewerThanCounted'),
        [{ kind: 'fewerThanCounted', page: 4, received: real, counted: real + 25 }],
      );
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
      assert.deepEqual(
        nextPageLink(
          'https://evil.example/api/v1/reports?page=2',
          undefined,
          labUrl,
          new URL(labUrl.baseUrl),
        ),
        { link: undefined, foreign: true },
      );
      assert.deepEqual(
        nextPageLink(
          `${labUrl.origin}/api/v1/reports?page=2&page_size=50`,
          undefined,
          labUrl,
          new URL(labUrl.baseUrl),
        ),
        { link: '/api/v1/reports?page=2&page_size=50', foreign: false },
      );
      assert.deepEqual(
        nextPageLink(
          undefined,
          '</api/v1/reports?page=3>; rel="next", </api/v1/reports?page=1>; rel="prev"',
          labUrl,
          new URL(labUrl.baseUrl),
        ),
        { link: '/api/v1/reports?page=3', foreign: false },
      );
      assert.deepEqual(
        nextPageLink(
          undefined,
          '</api/v1/reports?page=1>; rel="prev first"',
          labUrl,
          new URL(labUrl.baseUrl),
        ),
        { link: null, foreign: false },
      );
      const ids: string[] = [];
      for await (const page of api.iterateReports({ pageSize: 25 }, { concurrency: 1 })) {
        ids.push(...page.items.map((r) => r.report_id));
      }
      assert.equal(ids.length, lab.server.reportsFor(FULL).length);
      // Walking one page at a time, the server's next links were what was asked for.
      assert.ok(
        lab.server
          .takeRequests()
          .slice(1)
          .every((request) => request.query.page !== undefined),
      );
      assert.deepEqual(told, []);
    } finally {
      await lab.close();
    }
  });

  it("the tree's pages end at a 404 past the end or a page of repeats, instead of failing or looping", async () => {
    const lab = await startMockLab({
      reports: 40,
      envelope: 'array',
      faults: { notFoundPastEnd: true },
    });
    try {
      const api = lab.api();
      const list = new PagedList(
        (page: number) => api.listReports({ page, pageSize: 20 }),
        (r: { report_id: string }) => r.report_id,
      );
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

describe('hardening 3: server text is data', function () {
  this.timeout(30_000);
  it('one function makes it one line, without controls or bidi overrides, capped, secrets redacted', () => {
    registerSecret(SECRET_TOKEN);
    assert.equal(serverText('a\nb\r\n\tc\u0000d\u0085e'), 'a b c d e');
    assert.equal(serverText('evil\u202Egnp.exe\u2066x\u2069\u200b'), 'evilgnp.exex');
    assert.equal(serverText('x'.repeat(300), 10), `${'x'.repeat(9)}…`);
    assert.equal(
      serverText(`token ${SECRET_TOKEN.slice(0, 5)}\u200b${SECRET_TOKEN.slice(5)} echoed`),
      'token [redacted] echoed',
      'a secret split by an invisible character is still found',
    );
    assert.equal(serverText(`${' '.repeat(5000)}${SECRET_TOKEN}`, 20), '[redacted]');
    assert.equal(serverText('Authorization: Bearer abc.def'), 'Authorization: Bearer [redacted]');
    assert.equal(serverText({ an: 'object' }), '');
  });

  it('an error body that echoes the token, with a forged line and bidi override, reaches message, log line and support report clean', async () => {
    const lab = await startMockLab({
      faults: { echoToken: true, status: { status: 400, times: 1 } },
    });
    try {
      const logged: string[] = [];
      const error = (await rejection(
        lab
          .api(SECRET_TOKEN, { log: (_level: string, line: string) => logged.push(line) })
          .listReports(),
      )) as LabApiError;
      for (const text of [
        error.message,
        error.describe(),
        JSON.stringify(error),
        error.reason ?? '',
        buildSupportReport(error, {
          tenant: 'lab',
          integration: 'Lab Data',
          at: new Date(),
          timeZone: 'UTC',
        }),
        ...logged,
      ]) {
        assert.ok(!text.includes(SECRET_TOKEN), `no token in: ${text}`);
        assert.ok(
          !/[\u0000-\u001f\u202a-\u202e]/.test(text.replace(/\n/g, '')),
          `no controls in: ${JSON.stringify(text)}`,
        );
      }
      assert.match(
        error.reason!,
        /injected failure 400 forged line for credential Bearer \[redacted\]/,
      );
    } finally {
      await lab.close();
    }
  });

  it('request ids from headers and bodies, names and ids in records are sanitised where they are shown', async () => {
    const line = reportLine(
      parseReport({
        report_id: 'R-1\u202e',
        report_type: `Type\n${SECRET_TOKEN}`,
        title: 'x'.repeat(500),
      })!,
    );
    assert.ok(
      !line.includes(SECRET_TOKEN) && !line.includes('\n') && !line.includes('\u202e'),
      line,
    );
  });
});

describe('hardening 4: every number from the server is bounded', () => {
  it('Retry-After of any magnitude or form gives a bounded wait or none, and a formattable time', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    for (const value of [
      '99999999999999999999999999',
      '1e400',
      '-5',
      '3.7',
      'Fri, 31 Dec 9999 23:59:59 GMT',
      'Thu, 01 Jan 1970 00:00:00 GMT',
      'soon',
      '',
      ' 12 ',
    ]) {
      const wait = parseRetryAfter(value, now);
      assert.ok(
        wait === undefined || (Number.isFinite(wait) && wait >= 0 && wait <= MAX_RETRY_AFTER_MS),
        `${value} → ${wait}`,
      );
      if (wait !== undefined) {
        assert.doesNotMatch(formatClock(new Date(now + wait), now), /NaN|Invalid/);
      }
    }
    assert.equal(parseRetryAfter('3.7', now), 3700);
    assert.equal(formatClock(new Date(Number.NaN)), 'later');
  });

  it('absurd Content-Length, counts and page numbers are ignored rather than trusted', () => {
    for (const value of ['-1', '1.5', '1e9', '99999999999999999999', '12, 12', 'abc']) {
      assert.equal(declaredLength(value), undefined, value);
    }
    assert.equal(declaredLength(' 1024 '), 1024);
    const { meta } = parseListBody(
      { data: [], meta: { page: 1e300, total_count: 2 ** 60, total_pages: -3, page_size: 'NaN' } },
      'reports',
      '/x',
    );
    assert.deepEqual(meta, {});
  });

  it('a huge Retry-After on a 429 fails fast with a readable time, never an invalid date', async () => {
    const lab = await startMockLab({
      faults: { rateLimit: { times: 1, retryAfter: '99999999999999999999' } },
    });
    try {
      const error = (await rejection(lab.api().listReports())) as LabApiError;
      assert.equal(error.code, 'rateLimited');
      assert.ok(error.retryAt && Number.isFinite(error.retryAt.getTime()));
      assert.doesNotMatch(error.message, /NaN|Invalid/);
    } finally {
      await lab.close();
    }
  });
});

describe('hardening 6: bodies that end when the connection closes', function () {
  this.timeout(30_000);
  for (const kib of [70, 100, 200]) {
    it(`download completely (${kib} KiB), also when the reader starts late: undici's paused-parser assertion never escapes`, async () => {
      const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-close-'));
      const lab = await startMockLab({
        reports: 8,
        pdfBytes: kib * 1024,
        faults: { closeDelimitedFiles: true },
      });
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown): void => void uncaught.push(error);
      process.on('uncaughtException', onUncaught);
      const http = new HttpClient({
        baseUrl: parseBaseUrl(lab.baseUrl),
        token: FULL,
        timeouts: { bodyIdleMs: 3000 },
      });
      try {
        const api = lab.api();
        const report = (await api.listReports()).items.find((r) => r.download_available)!;
        const whole = await api.fetchReportFile(report.report_id);
        assert.ok(whole.subarray(0, 5).equals(Buffer.from('%PDF-')));
        for (let i = 0; i < 3; i++) {
          const saved = await api.downloadReportFile(report.report_id, {
            folder,
            fileName: `r${i}.pdf`,
            ifExists: 'overwrite',
          });
          assert.equal(saved.bytes, whole.length);
        }
        // Reading 300 ms late: the server has closed the connection long before, with undici's parser paused.
        const body = await http.getStream(
          { path: api.paths.reportFile(report.report_id), accept: 'application/pdf' },
          async (response) => {
            await new Promise((resolve) => setTimeout(resolve, 300));
            const chunks: Buffer[] = [];
            for await (const chunk of response.body) {
              chunks.push(chunk as Buffer);
            }
            return Buffer.concat(chunks);
          },
        );
        assert.ok(body.equals(whole));
        assert.deepEqual(uncaught, []);
      } finally {
        process.off('uncaughtException', onUncaught);
        await http.close();
        await lab.close();
        await fs.rm(folder, { recursive: true, force: true });
      }
    });
  }
});

describe('hardening 7: content as real servers send it', function () {
  this.timeout(30_000);
  for (const type of [
    'binary/octet-stream',
    'application/force-download',
    'application/download',
    '',
  ]) {
    it(`accepts a PDF labelled "${type || 'nothing'}" when it starts with %PDF-`, async () => {
      const lab = await startMockLab({ faults: { fileContentType: type } });
      try {
        const report = (await lab.api().listReports()).items.find((r) => r.download_available)!;
        const file = await lab.api().fetchReportFile(report.report_id);
        assert.ok(file.subarray(0, 5).equals(Buffer.from('%PDF-')));
      } finally {
        await lab.close();
      }
    });
  }

  it('still refuses HTML and JSON, and an octet-stream that is not a PDF', async () => {
    for (const faults of [
      { fileContentType: 'text/html' },
      { fileContentType: 'application/json' },
      { fileContentType: 'application/octet-stream', notPdf: { times: 1 } },
    ]) {
      const lab = await startMockLab({ faults });
      try {
        const report = (await lab.api().listReports()).items.find((r) => r.download_available)!;
        const error = (await rejection(lab.api().fetchReportFile(report.report_id))) as LabApiError;
        assert.equal(error.code, 'invalidResponse');
      } finally {
        await lab.close();
      }
    }
  });

  for (const coding of ['gzip', 'deflate', 'deflate-raw', 'br'] as const) {
    it(`decodes ${coding} lists and files, with the size cap on the decoded bytes`, async () => {
      const lab = await startMockLab({ faults: { compress: coding } });
      const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-enc-'));
      try {
        const api = lab.api();
        const page = await api.listReports({ pageSize: 10 });
        assert.equal(page.items.length, 10);
        const report = page.items.find((r) => r.download_available)!;
        const saved = await api.downloadReportFile(report.report_id, { folder, fileName: 'r.pdf' });
        const plain = await startMockLab();
        try {
          assert.equal(
            saved.sha256,
            (
              await plain
                .api()
                .downloadReportFile(report.report_id, { folder, fileName: 'plain.pdf' })
            ).sha256,
          );
        } finally {
          await plain.close();
        }
        assert.ok(lab.server.takeRequests().every((request) => request.status === 200));
        const capped = (await rejection(
          lab.api(FULL, { maxJsonBytes: 2000 }).listReports({ pageSize: 50 }),
        )) as LabApiError;
        assert.match(capped.message, /larger than/);
      } finally {
        await lab.close();
        await fs.rm(folder, { recursive: true, force: true });
      }
    });
  }

  it('reads JSON that starts with a byte-order mark', async () => {
    const lab = await startMockLab({ faults: { jsonBom: true } });
    try {
      assert.ok((await lab.api().listReports()).items.length > 0);
    } finally {
      await lab.close();
    }
  });

  for (const [shape, expected] of [
    ['detail', /The lab said: “injected failure 400”/],
    [
      'fields',
      /The lab said: “status: injected failure 400; page_size: Ensure this value is less than or equal to 200\.”/,
    ],
    ['problem', /The lab said: “injected: injected failure 400”/],
    ['text', /The lab said: “400 Error injected failure 400”/],
  ] as const) {
    it(`gives the server's reason from a "${shape}" error body`, async () => {
      const lab = await startMockLab({
        faults: { errorShape: shape, status: { status: 400, times: 1 } },
      });
      try {
        const error = (await rejection(lab.api().listReports())) as LabApiError;
        assert.match(error.message, expected);
      } finally {
        await lab.close();
      }
    });
  }

  it('asks a file endpoint that refuses Accept: application/pdf (406) again with a broader Accept', async () => {
    const lab = await startMockLab({ faults: { refusePdfAccept: true } });
    try {
      const report = (await lab.api().listReports()).items.find((r) => r.download_available)!;
      lab.server.takeRequests();
      const file = await lab.api().fetchReportFile(report.report_id);
      assert.ok(file.subarray(0, 5).equals(Buffer.from('%PDF-')));
      assert.deepEqual(
        lab.server.takeRequests().map((r) => [r.status, r.accept]),
        [
          [406, 'application/pdf'],
          [200, '*/*'],
        ],
      );
    } finally {
      await lab.close();
    }
  });
});

describe('hardening 8: only the lab signs you out', () => {
  it("a 401 that carries a proxy challenge is not the lab's verdict on the token", async () => {
    const lab = await startMockLab({
      faults: {
        status: { status: 401, times: 1, headers: { 'proxy-authenticate': 'Basic realm="corp"' } },
      },
    });
    try {
      const events: string[] = [];
      const error = (await rejection(
        lab
          .api(FULL, { onConnection: (event: { kind: string }) => events.push(event.kind) })
          .listReports(),
      )) as LabApiError;
      assert.notEqual(error.code, 'unauthorized');
      assert.match(error.message, /proxy/);
      assert.ok(!events.includes('unauthorized'));
    } finally {
      await lab.close();
    }
  });

  it("the lab's own 401 is", async () => {
    const lab = await startMockLab();
    try {
      const events: string[] = [];
      const error = (await rejection(
        lab
          .api('no-such-token', {
            onConnection: (event: { kind: string }) => events.push(event.kind),
          })
          .listReports(),
      )) as LabApiError;
      assert.equal(error.code, 'unauthorized');
      assert.ok(events.includes('unauthorized'));
      assert.match(error.message, /The lab said: “invalid credential”/);
    } finally {
      await lab.close();
    }
  });
});
