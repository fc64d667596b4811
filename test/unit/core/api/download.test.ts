import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { LabApiError, isCancellation } from '../../../../core/errors/errors';
import { DEFAULT_MAX_PDF_BYTES, maxFileBytes } from '../../../../core/api/labApi';
import { writeFileSafely } from '../../../../core/files/safeWriter';
import { FULL, rejection, startMockLab, type MockLab } from '../../helpers';

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

async function listing(folder: string): Promise<string[]> {
  return (await fs.readdir(folder)).sort();
}

/** The files of this process's open descriptors that lie in `folder` (Linux: /proc/self/fd). */
async function openFilesIn(folder: string): Promise<string[]> {
  const real = await fs.realpath(folder);
  const links = await Promise.all(
    (await fs.readdir('/proc/self/fd')).map((fd) =>
      fs.readlink(`/proc/self/fd/${fd}`).catch(() => ''),
    ),
  );
  return links.filter((target) => target.startsWith(`${real}${path.sep}`));
}

describe('downloading report files', () => {
  let lab: MockLab;
  let folder: string;
  let reportId: string;
  before(async () => {
    lab = await startMockLab({ reports: 40 });
    reportId = lab.server.reportsFor(FULL).find((r) => r.download_available)!.report_id;
  });
  after(async () => {
    await lab.close();
  });
  beforeEach(async () => {
    lab.server.setFaults({});
    folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-dl-'));
  });
  afterEach(async () => {
    await fs.rm(folder, { recursive: true, force: true });
  });

  it("streams the PDF to disk: bytes and SHA-256 equal the server's, progress in bytes", async () => {
    const progress: number[] = [];
    const saved = await lab.api().downloadReportFile(reportId, {
      folder,
      fileName: `${reportId}.pdf`,
      onProgress: (bytes) => progress.push(bytes),
    });
    const expected = lab.server.pdfFor(reportId);
    const written = await fs.readFile(path.join(folder, `${reportId}.pdf`));
    assert.equal(saved.path, path.join(await fs.realpath(folder), `${reportId}.pdf`));
    assert.equal(saved.bytes, expected.length);
    assert.equal(saved.sha256, sha256(expected));
    assert.ok(written.equals(expected));
    assert.ok(written.subarray(0, 5).toString() === '%PDF-');
    assert.equal(progress.at(-1), expected.length);
    assert.deepEqual(await listing(folder), [`${reportId}.pdf`], 'no temporary file left');
    const request = lab.server.takeRequests().at(-1)!;
    assert.equal(request.accept, 'application/pdf');
  });

  it('a recorded size bounds the download: a Content-Length of another size is refused unread, a body is not read past it (issue 57)', async () => {
    const pdf = lab.server.pdfFor(reportId);
    const declared = await rejection(
      lab.api().downloadReportFile(reportId, {
        folder,
        fileName: 'recorded.pdf',
        expectedBytes: 1100,
      }),
    );
    assert.ok(declared instanceof LabApiError);
    assert.equal(declared.text?.id, 'sizeNotRecorded');
    assert.match(
      declared.message,
      new RegExp(`is ${pdf.length} bytes, not the 1100 bytes recorded`),
    );
    // The recorded size itself: the file as before.
    const saved = await lab.api().downloadReportFile(reportId, {
      folder,
      fileName: 'recorded.pdf',
      expectedBytes: pdf.length,
    });
    assert.equal(saved.sha256, sha256(pdf));
    assert.deepEqual(await listing(folder), ['recorded.pdf']);
  });

  it('the safe writer reads no body past its expected length (a Content-Length or a recorded size)', async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      for (;;) {
        pulled += 1;
        yield Buffer.alloc(64 * 1024, 0x25);
      }
    }
    const error = await rejection(
      writeFileSafely({
        folder,
        fileName: 'long.pdf',
        source: endless(),
        expectedBytes: 1100,
        // Only so that a writer without the bound stops at all (and this test fails, not hangs).
        maxBytes: 8 * 1024 * 1024,
      }),
    );
    assert.ok(error instanceof LabApiError);
    assert.equal(error.text?.id, 'transferLonger');
    assert.match(error.message, /longer than the 1100 bytes it should have/);
    assert.ok(pulled <= 2, `${pulled} chunks of 64 KiB were read for 1100 bytes`);
    assert.deepEqual(await listing(folder), []);
  });

  it('streams large files without holding them in memory', async function () {
    this.timeout(60_000);
    // Server and client share this process, so the bound is loose; holding the file would exceed it.
    const size = 256 * 1024 * 1024;
    const big = await startMockLab({ reports: 5, pdfBytes: size });
    try {
      const id = big.server.reportsFor(FULL).find((r) => r.download_available)!.report_id;
      const before = process.memoryUsage().rss;
      let peak = before;
      const saved = await big.api().downloadReportFile(id, {
        folder,
        fileName: 'big.pdf',
        onProgress: () => (peak = Math.max(peak, process.memoryUsage().rss)),
      });
      assert.ok(saved.bytes > size - 4096);
      // Hashed on the worker thread (a file this large): the same digest as the bytes on disk.
      assert.equal(saved.sha256, sha256(await fs.readFile(saved.path)));
      assert.ok(
        peak - before < size / 2,
        `memory grew by ${Math.round((peak - before) / 1024 / 1024)} MiB`,
      );
    } finally {
      await big.close();
    }
  });

  it('caps a file by labData.maxFileSizeMiB: from Content-Length before any byte is written, and while streaming', async () => {
    assert.equal(maxFileBytes(undefined), 2048 * 1024 * 1024, 'the default is 2 GiB');
    assert.equal(maxFileBytes(3), 3 * 1024 * 1024);
    for (const nonsense of [0, -5, Number.NaN, '12', null]) {
      assert.equal(maxFileBytes(nonsense), DEFAULT_MAX_PDF_BYTES, String(nonsense));
    }
    assert.equal(maxFileBytes(1e12), 1024 * 1024 * 1024 * 1024, 'bounded at 1 TiB');
    assert.equal(lab.api().maxFileBytes, DEFAULT_MAX_PDF_BYTES);
    const size = lab.server.pdfFor(reportId).length;
    await fs.writeFile(path.join(folder, 'keep.pdf'), 'earlier version');
    // A client built with a cap below the file: refused up front, from the declared length.
    const small = lab.api(FULL, { maxFileBytes: size - 1 });
    let error = (await rejection(
      small.downloadReportFile(reportId, { folder, fileName: 'keep.pdf', ifExists: 'overwrite' }),
    )) as LabApiError;
    assert.match(error.message, /larger than/);
    error = (await rejection(small.fetchReportFile(reportId))) as LabApiError;
    assert.match(error.message, /larger than/);
    assert.deepEqual(await listing(folder), ['keep.pdf']);
    assert.equal(await fs.readFile(path.join(folder, 'keep.pdf'), 'utf8'), 'earlier version');
    // The same cap, large enough: saved.
    assert.equal(
      (
        await lab
          .api(FULL, { maxFileBytes: size })
          .downloadReportFile(reportId, { folder, fileName: 'fits.pdf' })
      ).bytes,
      size,
    );
    // A body without a declared length is counted as it streams and stopped at the cap.
    const endless = Readable.from(
      (function* () {
        yield Buffer.from('%PDF-1.4\n');
        for (let i = 0; i < 64; i++) {
          yield Buffer.alloc(64 * 1024, 0x20);
        }
      })(),
    );
    error = (await rejection(
      writeFileSafely({ folder, fileName: 'endless.pdf', source: endless, maxBytes: 1024 * 1024 }),
    )) as LabApiError;
    assert.match(error.message, /larger than/);
    assert.deepEqual(
      await listing(folder),
      ['fits.pdf', 'keep.pdf'],
      'nothing left of the refused file',
    );
  });

  /**
   * Bodies a hostile or broken server sends. Each fails at once with its own sentence (well inside
   * the 60 s idle timeout left in place), leaves no file and no temporary file, keeps an existing
   * file, and leaves no file handle open in the folder. An error event nobody hears, or an
   * unhandled rejection, fails the test through the process guard (test/support/processGuard.ts).
   */
  const hostileBodies: Array<[string, object, RegExp, { maxBytes?: number }?]> = [
    ['a connection dropped at 50 %', { dropFileAt: { fraction: 0.5, times: 1 } }, /broke off/],
    [
      'a body shorter than Content-Length, the server closing its side',
      { shortFile: { fraction: 0.5, times: 1 } },
      /broke off/,
    ],
    [
      'a chunked body cut before its last chunk',
      { chunkedCut: { fraction: 0.5, times: 1 } },
      /broke off/,
    ],
    ['an HTML page sent as application/pdf', { notPdf: { times: 1 } }, /not a PDF/],
    ['a ZIP archive sent as application/pdf', { notPdf: { times: 1, body: 'zip' } }, /not a PDF/],
    ['an empty body sent as application/pdf', { notPdf: { times: 1, body: 'empty' } }, /not a PDF/],
    [
      'a gzip-compressed PDF without Content-Encoding',
      { notPdf: { times: 1, body: 'gzip' } },
      /not a PDF/,
    ],
    [
      'a body without a length that grows past the size cap',
      { endlessFile: { times: 1 } },
      /larger than the 1 MiB limit/,
      { maxBytes: 1024 * 1024 },
    ],
    [
      'a text/html answer (a login page)',
      { fileAsHtml: { times: 1 } },
      /text\/html instead of a PDF/,
    ],
  ];
  for (const [name, fault, message, limits] of hostileBodies) {
    it(`${name}: fails at once, leaves nothing behind, keeps an existing file, no handle left open`, async () => {
      const existing = path.join(folder, 'keep.pdf');
      await fs.writeFile(existing, 'earlier version');
      lab.server.setFaults(fault);
      const started = Date.now();
      const api = lab.api(FULL, { timeouts: { bodyIdleMs: 60_000 }, retry: { retries: 0 } });
      const error = (await rejection(
        api.downloadReportFile(reportId, {
          folder,
          fileName: 'keep.pdf',
          ifExists: 'overwrite',
          ...limits,
        }),
      )) as LabApiError;
      assert.ok(error instanceof LabApiError, String(error));
      assert.match(error.message, message);
      if (/broke off/.test(message.source)) {
        assert.match(error.message, /nothing was saved/);
        assert.equal(error.code, 'network');
      }
      assert.ok(
        Date.now() - started < 5000,
        `failed after ${Date.now() - started} ms, not at once`,
      );
      assert.deepEqual(await listing(folder), ['keep.pdf']);
      assert.equal(await fs.readFile(existing, 'utf8'), 'earlier version');
      assert.deepEqual(
        await openFilesIn(folder),
        [],
        'the temporary file was closed by us, not by the garbage collector',
      );
    });
  }

  it('times out a body that stalls halfway, and leaves nothing behind', async () => {
    lab.server.setFaults({ stallFileAt: { fraction: 0.5, times: 1 } });
    const api = lab.api(FULL, { timeouts: { bodyIdleMs: 200 } });
    const error = (await rejection(
      api.downloadReportFile(reportId, { folder, fileName: 'x.pdf' }),
    )) as LabApiError;
    assert.equal(error.code, 'timeout');
    assert.deepEqual(await listing(folder), []);
  });

  it('stops promptly when cancelled mid-download, and leaves nothing behind', async function () {
    this.timeout(30_000);
    const big = await startMockLab({ reports: 5, pdfBytes: 200 * 1024 * 1024 });
    try {
      const id = big.server.reportsFor(FULL).find((r) => r.download_available)!.report_id;
      const controller = new AbortController();
      const started = Date.now();
      const error = await rejection(
        big.api().downloadReportFile(id, {
          folder,
          fileName: 'big.pdf',
          signal: controller.signal,
          onProgress: (bytes) => bytes > 4 * 1024 * 1024 && controller.abort(),
        }),
      );
      assert.ok(isCancellation(error), String(error));
      assert.ok(Date.now() - started < 5000);
      assert.deepEqual(await listing(folder), []);
    } finally {
      await big.close();
    }
  });

  it('asks before overwriting: fail, overwrite, keep both', async () => {
    await fs.writeFile(path.join(folder, 'r.pdf'), 'mine');
    const error = (await rejection(
      lab.api().downloadReportFile(reportId, { folder, fileName: 'r.pdf' }),
    )) as LabApiError;
    assert.equal(error.code, 'fileExists');
    assert.equal(await fs.readFile(path.join(folder, 'r.pdf'), 'utf8'), 'mine');
    const both = await lab
      .api()
      .downloadReportFile(reportId, { folder, fileName: 'r.pdf', ifExists: 'keepBoth' });
    assert.equal(both.fileName, 'r (1).pdf');
    const replaced = await lab
      .api()
      .downloadReportFile(reportId, { folder, fileName: 'r.pdf', ifExists: 'overwrite' });
    assert.equal(replaced.fileName, 'r.pdf');
    assert.deepEqual(await listing(folder), ['r (1).pdf', 'r.pdf']);
    assert.ok((await fs.readFile(path.join(folder, 'r.pdf'))).equals(lab.server.pdfFor(reportId)));
  });

  it('saves the same file requested twice at once without corrupting it', async () => {
    const results = await Promise.allSettled(
      [0, 1].map(() => lab.api().downloadReportFile(reportId, { folder, fileName: 'twice.pdf' })),
    );
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    assert.equal(fulfilled.length, 1, 'one wins, the other is told the file exists');
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal((rejected.reason as LabApiError).code, 'fileExists');
    assert.ok(
      (await fs.readFile(path.join(folder, 'twice.pdf'))).equals(lab.server.pdfFor(reportId)),
    );
    assert.deepEqual(await listing(folder), ['twice.pdf']);
  });

  it('keeps hostile names inside the folder', async () => {
    for (const name of [
      '../../escape.pdf',
      '..\\x.pdf',
      '/etc/passwd',
      'C:\\x.pdf',
      'CON',
      'a\u0000b.pdf',
      'evil\u202Efdp.pdf',
      'x'.repeat(300),
      '',
      '.',
    ]) {
      const saved = await lab
        .api()
        .downloadReportFile(reportId, { folder, fileName: name, ifExists: 'keepBoth' });
      assert.equal(path.dirname(saved.path), await fs.realpath(folder), JSON.stringify(name));
    }
    assert.equal((await listing(folder)).length, 10);
    await assert.rejects(fs.access(path.join(folder, '..', 'escape.pdf')));
  });

  it('refuses a target that is a symbolic link, and a folder that resolves outside the root', async () => {
    const outside = await fs.mkdtemp(path.join(tmpdir(), 'lab-outside-'));
    try {
      await fs.symlink(path.join(outside, 'victim.pdf'), path.join(folder, 'link.pdf'));
      const linkError = (await rejection(
        lab
          .api()
          .downloadReportFile(reportId, { folder, fileName: 'link.pdf', ifExists: 'overwrite' }),
      )) as LabApiError;
      assert.equal(linkError.code, 'fileSystem');
      await assert.rejects(fs.access(path.join(outside, 'victim.pdf')));
      await fs.symlink(outside, path.join(folder, 'reports'));
      const folderError = (await rejection(
        lab.api().downloadReportFile(reportId, {
          folder: path.join(folder, 'reports'),
          root: folder,
          fileName: 'r.pdf',
        }),
      )) as LabApiError;
      assert.equal(folderError.code, 'fileSystem');
      assert.match(folderError.message, /outside/);
      assert.deepEqual(await listing(outside), []);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });

  it('reports permission denied clearly and leaves nothing behind', async function () {
    if (process.getuid?.() === 0) {
      // root ignores directory permissions; use a read-only bind instead: a path under a file.
      const file = path.join(folder, 'not-a-folder');
      await fs.writeFile(file, 'x');
      const error = (await rejection(
        lab
          .api()
          .downloadReportFile(reportId, { folder: path.join(file, 'sub'), fileName: 'r.pdf' }),
      )) as LabApiError;
      assert.equal(error.code, 'fileSystem');
      assert.match(error.message, /A file stands where a folder should be/);
      return;
    }
    await fs.chmod(folder, 0o500);
    try {
      const error = (await rejection(
        lab.api().downloadReportFile(reportId, { folder, fileName: 'r.pdf' }),
      )) as LabApiError;
      assert.equal(error.code, 'fileSystem');
      assert.match(error.message, /No permission to write in/);
      assert.deepEqual(await listing(folder), []);
    } finally {
      await fs.chmod(folder, 0o700);
    }
  });

  it('a report without a file answers 404 with a clear message', async () => {
    const noFile = lab.server.reportsFor(FULL).find((r) => !r.download_available);
    if (!noFile) {
      throw new Error('demo data has no report without a file');
    }
    const error = (await rejection(
      lab.api().downloadReportFile(noFile.report_id, { folder, fileName: 'x.pdf' }),
    )) as LabApiError;
    assert.equal(error.code, 'notFound');
    assert.deepEqual(await listing(folder), []);
  });
});

describe('the safe writer', () => {
  it('writes through a temporary file and reports ENOSPC-style failures cleanly', async () => {
    const folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-sw-'));
    try {
      const failing = new Readable({
        read() {
          this.push(Buffer.from('%PDF-1.4 partial'));
          this.destroy(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
        },
      });
      const error = (await rejection(
        writeFileSafely({ folder, fileName: 'x.pdf', source: failing }),
      )) as LabApiError;
      assert.equal(error.code, 'fileSystem');
      assert.match(error.message, /disk is full/);
      assert.deepEqual(await listing(folder), []);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });
});

describe('downloading files as real servers label and negotiate them', function () {
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
