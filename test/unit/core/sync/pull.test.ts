import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ContentCache } from '../../../../core/files/contentCache';
import { relativePathProblem } from '../../../../core/files/fileNames';
import { saveReports } from '../../../../core/sync/bulkSave';
import { listAllReports } from '../../../../core/sync/folderSync';
import { verifyFolder } from '../../../../core/sync/provenance';
import {
  MANIFEST_FILE_NAME,
  currentSha256,
  readManifestStrictly,
  recordedSizeProblem,
  type ManifestEntry,
} from '../../../../core/sync/manifest';
import { pullFolder, reportPathFromSource } from '../../../../core/sync/pull';
import { DEFAULT_FILE_NAME_TEMPLATE } from '../../../../core/sync/reportFiles';
import { closedPort, startMockLab } from '../../helpers';
import { LabApi } from '../../../../core/api/labApi';

describe('restoring a folder from its manifest (core)', () => {
  it("finds a report's metadata path from the path its file came from, only in the spec's shape", () => {
    assert.equal(reportPathFromSource('/api/v1/reports/R-1/file', 'R-1'), '/api/v1/reports/R-1');
    assert.equal(
      reportPathFromSource('/lims/api/v1/certificates/A%2FB/pdf', 'A/B'),
      '/lims/api/v1/certificates/A%2FB',
    );
    assert.equal(reportPathFromSource('/files/R-1.pdf', 'R-1'), undefined);
    assert.equal(reportPathFromSource('/api/v1/reports/R-2/file', 'R-1'), undefined);
  });

  it('uses a recorded file name only when it stays in the folder and every system can hold it', () => {
    for (const good of ['R-1.pdf', 'C-1001/Certificate of Analysis/R-1.pdf', 'a b/ünï.pdf']) {
      assert.equal(relativePathProblem(good), undefined, good);
    }
    for (const bad of [
      '',
      '../x.pdf',
      'a/../../x.pdf',
      '/etc/passwd',
      'C:\\x.pdf',
      'C:x.pdf',
      '\\\\server\\share\\x.pdf',
      'a\\b.pdf',
      'CON.pdf',
      'sub/NUL',
      'x\u0000.pdf',
      'bell\u0007.pdf',
      'trailing.',
      'a//b.pdf',
      './x.pdf',
      'a/b/c/d/e/f/g.pdf',
      'rtl\u202egpj.pdf',
    ]) {
      assert.ok(relativePathProblem(bad), JSON.stringify(bad));
    }
  });

  describe('reading a manifest strictly', () => {
    let folder: string;
    beforeEach(async () => {
      folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-manifest-'));
    });
    afterEach(async () => {
      await fs.rm(folder, { recursive: true, force: true });
    });
    const write = (value: unknown): Promise<void> =>
      fs.writeFile(
        path.join(folder, MANIFEST_FILE_NAME),
        typeof value === 'string' ? value : JSON.stringify(value),
      );
    const sha = 'a'.repeat(64);
    const entry = (file: string, id = 'R-1'): object => ({
      report_id: id,
      file,
      bytes: 1,
      sha256: sha,
      saved_at: 'x',
      source: `/api/v1/reports/${id}/file`,
    });

    it('says what is wrong: missing, malformed, another version, a bad entry, two entries with one name', async () => {
      assert.equal((await readManifestStrictly(folder)).problems[0]?.kind, 'missing');
      await write('{ nope');
      assert.equal((await readManifestStrictly(folder)).problems[0]?.kind, 'malformed');
      await write({ version: 4, labs: {} });
      assert.deepEqual(
        (await readManifestStrictly(folder)).problems.map((problem) => problem.kind),
        ['version'],
      );
      await write('{\n<<<<<<< HEAD\n  "version": 3\n=======\n  "version": 2\n>>>>>>> theirs\n}\n');
      assert.deepEqual(
        (await readManifestStrictly(folder)).problems.map((problem) => problem.kind),
        ['conflict'],
      );
      await write({
        version: 2,
        labs: {
          lab: {
            origin: 'https://lab.example',
            files: {
              'R-1': entry('../R-1.pdf'),
              'R-2': { ...entry('R-2.pdf', 'R-2'), sha256: 'short' },
            },
          },
        },
      });
      const problems = (await readManifestStrictly(folder)).problems;
      assert.deepEqual(
        problems.map((problem) => problem.kind === 'entry' && problem.reportId),
        ['R-1', 'R-2'],
      );
      await write({
        version: 2,
        labs: {
          lab: {
            origin: 'https://lab.example',
            files: { 'R-1': entry('Same.pdf'), 'R-2': entry('same.pdf', 'R-2') },
          },
        },
      });
      assert.match(JSON.stringify((await readManifestStrictly(folder)).problems), /same file name/);
      await write({
        version: 2,
        labs: { lab: { origin: 'https://lab.example', files: { 'R-1': entry('R-1.pdf') } } },
      });
      // Issue 57: a "bytes" that cannot be a size (negative, fractional, a string, beyond any) is
      // refused, with the line it is on.
      for (const bad of [-1, 1.5, '1100', 1.05e166]) {
        const text = JSON.stringify(
          {
            version: 3,
            labs: {
              'https://lab.example': {
                name: 'lab',
                reports: {
                  'R-1': { file: 'R-1.pdf', sha256: sha, bytes: 1 },
                  'R-2': { file: 'R-2.pdf', sha256: sha, bytes: bad },
                },
              },
            },
          },
          null,
          2,
        );
        await write(text);
        const sized = (await readManifestStrictly(folder)).problems;
        assert.equal(sized.length, 1, JSON.stringify(sized));
        const problem = sized[0]!;
        assert.ok(problem.kind === 'entry');
        assert.equal(problem.reportId, 'R-2');
        assert.equal(
          problem.line,
          text.split('\n').findIndex((line) => line.includes(`"bytes": ${JSON.stringify(bad)}`)) +
            1,
        );
        assert.match(problem.reason, /its "bytes" is .*, not a size in bytes/);
      }
      assert.equal(recordedSizeProblem(0), undefined);
      assert.equal(recordedSizeProblem(undefined), undefined);
      assert.match(recordedSizeProblem(-1)!, /negative/);
      assert.match(recordedSizeProblem(1.5)!, /not a whole number/);
      assert.match(recordedSizeProblem('1100')!, /a string/);
      assert.match(recordedSizeProblem(1.05e166)!, /too large/);
      await write({
        version: 2,
        labs: { lab: { origin: 'https://lab.example', files: { 'R-1': entry('R-1.pdf') } } },
      });
      const good = await readManifestStrictly(folder);
      assert.deepEqual(good.problems, []);
      assert.equal(good.manifest?.labs.lab?.files['R-1']?.file, 'R-1.pdf');
    });
  });

  it('trusts a recorded SHA-256 while size and time are as recorded; computes it otherwise, or when asked', async () => {
    const folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-sha-'));
    try {
      const file = path.join(folder, 'r.pdf');
      await fs.writeFile(file, 'abc');
      const stats = await fs.stat(file);
      const real = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
      const recorded: ManifestEntry = {
        report_id: 'R',
        file: 'r.pdf',
        bytes: 3,
        sha256: 'f'.repeat(64),
        mtime_ms: stats.mtimeMs,
        saved_at: 'x',
        source: '/s',
      };
      assert.equal(
        await currentSha256(file, recorded),
        recorded.sha256,
        'not read: size and time say unchanged',
      );
      assert.equal(await currentSha256(file, recorded, true), real, 'rehash reads it');
      assert.equal(
        await currentSha256(file, { ...recorded, mtime_ms: stats.mtimeMs - 5000 }),
        real,
        'another time: read',
      );
      assert.equal(
        await currentSha256(file, { ...recorded, bytes: 4 }),
        real,
        'another size: read',
      );
      assert.equal(
        await currentSha256(file, { ...recorded, mtime_ms: undefined }),
        real,
        'no recorded time (an older manifest): read',
      );
      assert.equal(await currentSha256(path.join(folder, 'gone.pdf'), recorded), undefined);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });

  it('keeps every file pulled from the lab in the cache by the time the run ends; a pull without the lab restores them all from it, and verify trusts them unread', async () => {
    const lab = await startMockLab({ reports: 20 });
    const work = await fs.mkdtemp(path.join(tmpdir(), 'lab-pull-cache-'));
    try {
      const api = lab.api();
      const source = path.join(work, 'source');
      const reports = (await listAllReports(api, {})).filter((report) => report.download_available);
      await saveReports(reports.slice(0, 8), {
        api,
        target: { folder: source, template: DEFAULT_FILE_NAME_TEMPLATE },
        signal: new AbortController().signal,
        concurrency: 4,
      });
      const manifestText = await fs.readFile(path.join(source, MANIFEST_FILE_NAME));
      const fresh = async (name: string): Promise<string> => {
        const folder = path.join(work, name);
        await fs.mkdir(folder);
        await fs.writeFile(path.join(folder, MANIFEST_FILE_NAME), manifestText);
        return folder;
      };
      const cache = new ContentCache(path.join(work, 'cache'));
      const fromLab = await fresh('from-lab');
      const pulled = await pullFolder(fromLab, (await readManifestStrictly(fromLab)).manifest!, {
        apiFor: () => api,
        cache,
      });
      assert.deepEqual(
        pulled.files.map((file) => `${file.state} ${file.from}`),
        Array.from({ length: 8 }, () => 'restored lab'),
      );
      // Nothing awaited after the run: the copies into the cache are done when it resolves.
      assert.equal((await cache.list()).length, 8);

      const fromCache = await fresh('from-cache');
      const restored = await pullFolder(
        fromCache,
        (await readManifestStrictly(fromCache)).manifest!,
        { apiFor: () => undefined, cache: new ContentCache(path.join(work, 'cache')) },
      );
      assert.deepEqual(
        restored.files.map((file) => `${file.state} ${file.from}`),
        Array.from({ length: 8 }, () => 'restored cache'),
      );
      for (const file of restored.files) {
        assert.deepEqual(
          await fs.readFile(path.join(fromCache, file.file)),
          await fs.readFile(path.join(source, file.file)),
        );
      }
      assert.deepEqual(
        (await fs.readdir(fromCache)).filter((name) => name.endsWith('.part')),
        [],
      );
      // The restored files' times are recorded: a retouched file of the same size and time is trusted unread.
      const first = path.join(fromCache, restored.files[0]!.file);
      const { atime, mtime, size } = await fs.stat(first);
      await fs.writeFile(first, Buffer.alloc(size, 0x20));
      await fs.utimes(first, atime, mtime);
      const verified = await verifyFolder(fromCache, {});
      assert.equal(verified.ok.length, 8);
    } finally {
      await lab.close();
      await fs.rm(work, { recursive: true, force: true });
    }
  });

  describe('every file a cache holds is restored, whatever the lab part does', () => {
    let lab: Awaited<ReturnType<typeof startMockLab>>;
    let work: string;
    let manifestText: Buffer;
    let shas: string[];
    before(async () => {
      lab = await startMockLab({ reports: 30 });
      work = await fs.mkdtemp(path.join(tmpdir(), 'lab-pull-edges-'));
      const api = lab.api();
      const source = path.join(work, 'source');
      const reports = (await listAllReports(api, {})).filter((report) => report.download_available);
      const cache = new ContentCache(path.join(work, 'cache'));
      await saveReports(reports.slice(0, 12), {
        api,
        target: { folder: source, template: DEFAULT_FILE_NAME_TEMPLATE },
        signal: new AbortController().signal,
        concurrency: 4,
        cache,
      });
      manifestText = await fs.readFile(path.join(source, MANIFEST_FILE_NAME));
      const manifest = (await readManifestStrictly(source)).manifest!;
      shas = Object.values(manifest.labs).flatMap((section) =>
        Object.values(section.files).map((entry) => entry.sha256),
      );
    });
    after(async () => {
      await lab.close();
      await fs.rm(work, { recursive: true, force: true });
    });

    /** A fresh clone's folder, and a copy of the cache without the first recorded file (and, asked, one corrupt entry). */
    const clone = async (
      name: string,
      corrupt = false,
    ): Promise<{ folder: string; cache: ContentCache }> => {
      const folder = path.join(work, name);
      await fs.mkdir(folder);
      await fs.writeFile(path.join(folder, MANIFEST_FILE_NAME), manifestText);
      const cacheFolder = path.join(work, `${name}-cache`);
      await fs.cp(path.join(work, 'cache'), cacheFolder, { recursive: true });
      const cache = new ContentCache(cacheFolder);
      // The cache's own layout (sha256/<first two>/<hash>), as a team's shared folder holds it.
      const entryPath = (sha: string): string =>
        path.join(cacheFolder, 'sha256', sha.slice(0, 2), sha);
      await fs.rm(entryPath(shas[0]!));
      if (corrupt) {
        const { size } = await fs.stat(entryPath(shas[1]!));
        await fs.writeFile(entryPath(shas[1]!), Buffer.alloc(size, 0x41));
      }
      return { folder, cache };
    };

    const states = (files: ReadonlyArray<{ state: string; from?: string }>): string[] =>
      [...new Set(files.map((file) => `${file.state} ${file.from ?? ''}`.trim()))].sort();

    it('with no token: all but the one file the cache lacks are restored; that one fails as "no token", not as a refused one', async () => {
      const { folder, cache } = await clone('no-token');
      const asked = lab.server.requests.length;
      const pulled = await pullFolder(folder, (await readManifestStrictly(folder)).manifest!, {
        apiFor: () => undefined,
        cache,
      });
      assert.deepEqual(states(pulled.files), ['failed', 'restored cache']);
      const failed = pulled.files.filter((file) => file.state === 'failed');
      assert.equal(failed.length, 1);
      assert.equal(failed[0]!.error?.text?.id, 'noToken');
      assert.doesNotMatch(failed[0]!.error!.message, /did not accept/);
      assert.equal(pulled.files.filter((file) => file.from === 'cache').length, 11);
      assert.equal(lab.server.requests.length, asked, 'no request went to the lab');
    });

    it('with a corrupt cache entry too: the corrupt one and the missing one fail, every other is restored', async () => {
      const { folder, cache } = await clone('corrupt', true);
      const pulled = await pullFolder(folder, (await readManifestStrictly(folder)).manifest!, {
        apiFor: () => undefined,
        cache,
        concurrency: 1,
      });
      assert.equal(pulled.files.filter((file) => file.from === 'cache').length, 10);
      assert.equal(pulled.files.filter((file) => file.state === 'failed').length, 2);
    });

    it('with the lab refusing the token, or down: the cache restores run to the end, the lab part fails once per lab', async () => {
      const down = LabApi.forBaseUrl(`http://127.0.0.1:${await closedPort()}`, {
        token: 'x',
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
      });
      for (const [name, apiFor] of [
        ['refused', () => lab.api('not-a-token')],
        ['down', () => down],
      ] as const) {
        const { folder, cache } = await clone(name);
        const pulled = await pullFolder(folder, (await readManifestStrictly(folder)).manifest!, {
          apiFor,
          cache,
          concurrency: 1,
        });
        assert.equal(pulled.files.filter((file) => file.from === 'cache').length, 11, name);
        assert.equal(pulled.files.filter((file) => file.state === 'failed').length, 1, name);
      }
      await down.close();
    });

    it('with --update and no token: what the cache holds is restored and said as not checked at the lab, never as not restored', async () => {
      const { folder, cache } = await clone('update-no-token');
      const pulled = await pullFolder(folder, (await readManifestStrictly(folder)).manifest!, {
        apiFor: () => undefined,
        cache,
        update: true,
      });
      const restored = pulled.files.filter((file) => file.state === 'restored');
      assert.equal(restored.length, 11);
      assert.ok(restored.every((file) => file.error?.text?.id === 'noToken'));
      assert.equal(pulled.files.filter((file) => file.state === 'failed').length, 1);
    });

    it('a dry run meets the token rule as the real run does: no token, the file the cache lacks fails', async () => {
      const { folder, cache } = await clone('dry-no-token');
      const planned = await pullFolder(folder, (await readManifestStrictly(folder)).manifest!, {
        apiFor: () => undefined,
        cache,
        dryRun: true,
      });
      assert.equal(planned.files.filter((file) => file.from === 'cache').length, 11);
      const failed = planned.files.filter((file) => file.state === 'failed');
      assert.equal(failed.length, 1);
      assert.equal(failed[0]!.error?.text?.id, 'noToken');
    });
  });
});
