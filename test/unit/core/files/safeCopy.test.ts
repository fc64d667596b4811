import * as assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LabApiError } from '../../../../core/errors/errors';
import { labError } from '../../../../core/errors/messages';
import { copyFileSafely } from '../../../../core/files/safeCopy';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('copyFileSafely', () => {
  let work: string;
  let from: string;
  let folder: string;
  const bytes = randomBytes(300 * 1024);
  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-safe-copy-'));
    from = path.join(work, 'source.pdf');
    folder = path.join(work, 'folder');
    await fs.writeFile(from, bytes);
  });
  afterEach(() => fs.rm(work, { recursive: true, force: true }));

  const leftovers = async (): Promise<string[]> =>
    (await fs.readdir(folder)).filter((name) => name.endsWith('.part'));

  it('a source of another size than expected is refused before it is copied or read (issue 57: a cached copy recorded at 1 KB is never read at 2 GiB)', async () => {
    const copies: string[] = [];
    const copyFile = fs.copyFile;
    fs.copyFile = ((source: string, ...rest: never[]) => {
      copies.push(String(source));
      return (copyFile as (...args: unknown[]) => Promise<void>)(source, ...rest);
    }) as typeof fs.copyFile;
    try {
      for (const expectedBytes of [1100, bytes.length + 1]) {
        const error = await copyFileSafely({ from, folder, fileName: 'a.pdf', expectedBytes }).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        assert.ok(error instanceof LabApiError);
        assert.equal(
          error.text?.id,
          expectedBytes < bytes.length ? 'transferLonger' : 'transferShort',
        );
      }
      assert.deepEqual(copies, [], 'the source was never copied');
    } finally {
      fs.copyFile = copyFile;
    }
    assert.deepEqual(await leftovers(), []);
  });

  it('copies a file under its name with its size, SHA-256 and time, a copy and not a link', async () => {
    await fs.chmod(from, 0o600);
    const saved = (await copyFileSafely({
      from,
      folder,
      fileName: 'a.pdf',
      expectedBytes: bytes.length,
    }))!;
    assert.equal(saved.path, path.join(await fs.realpath(folder), 'a.pdf'));
    assert.equal(saved.bytes, bytes.length);
    assert.equal(saved.sha256, sha256(bytes));
    const stats = await fs.stat(saved.path);
    assert.equal(saved.mtimeMs, stats.mtimeMs);
    assert.equal(stats.nlink, 1);
    assert.equal(
      stats.mode & 0o777,
      0o644 & ~process.umask(),
      "a workspace file's usual mode, not the private cache's",
    );
    await fs.appendFile(saved.path, 'edited');
    assert.deepEqual(
      await fs.readFile(from),
      bytes,
      'editing the copy leaves the source as it was',
    );
    assert.deepEqual(await leftovers(), []);
  });

  it('hashes a large file (streamed) as well as a small one', async () => {
    const large = randomBytes(5 * 1024 * 1024 + 7);
    await fs.writeFile(from, large);
    const saved = (await copyFileSafely({
      from,
      folder,
      fileName: 'large.pdf',
      expectedBytes: large.length,
    }))!;
    assert.equal(saved.sha256, sha256(large));
    assert.equal(saved.bytes, large.length);
  });

  it('leaves nothing, and an existing file untouched, when the size or the SHA-256 is wrong', async () => {
    await fs.mkdir(folder);
    await fs.writeFile(path.join(folder, 'a.pdf'), 'earlier');
    await assert.rejects(
      copyFileSafely({
        from,
        folder,
        fileName: 'a.pdf',
        ifExists: 'overwrite',
        expectedBytes: bytes.length + 1,
      }),
      (error: unknown) => error instanceof LabApiError && error.text?.id === 'transferShort',
    );
    const refusal = labError('invalidResponse', 'cacheCorrupt', { sha256: 'x' });
    await assert.rejects(
      copyFileSafely({
        from,
        folder,
        fileName: 'a.pdf',
        ifExists: 'overwrite',
        expectedBytes: bytes.length,
        checkSha256: (actual) => (actual === sha256(bytes) ? refusal : undefined),
      }),
      (error: unknown) => error === refusal,
    );
    assert.equal(await fs.readFile(path.join(folder, 'a.pdf'), 'utf8'), 'earlier');
    assert.deepEqual(await leftovers(), []);
  });

  it('never replaces a file with "fail", nor a link or a folder with "overwrite"', async () => {
    await fs.mkdir(folder);
    await fs.writeFile(path.join(folder, 'there.pdf'), 'there');
    await assert.rejects(
      copyFileSafely({
        from,
        folder,
        fileName: 'there.pdf',
        ifExists: 'fail',
        expectedBytes: bytes.length,
      }),
      (error: unknown) => error instanceof LabApiError && error.code === 'fileExists',
    );
    assert.equal(await fs.readFile(path.join(folder, 'there.pdf'), 'utf8'), 'there');
    const outside = path.join(work, 'outside.pdf');
    await fs.writeFile(outside, 'outside');
    await fs.symlink(outside, path.join(folder, 'link.pdf'));
    await fs.mkdir(path.join(folder, 'dir.pdf'));
    for (const fileName of ['link.pdf', 'dir.pdf']) {
      await assert.rejects(
        copyFileSafely({
          from,
          folder,
          fileName,
          ifExists: 'overwrite',
          expectedBytes: bytes.length,
        }),
        (error: unknown) => error instanceof LabApiError && error.text?.id === 'writeInTheWay',
      );
    }
    assert.equal(await fs.readFile(outside, 'utf8'), 'outside');
    assert.deepEqual(await leftovers(), []);
  });

  it('stops before writing when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      copyFileSafely({
        from,
        folder,
        fileName: 'a.pdf',
        expectedBytes: bytes.length,
        signal: controller.signal,
      }),
      (error: unknown) => error instanceof LabApiError && error.code === 'cancelled',
    );
    await assert.rejects(fs.stat(path.join(folder, 'a.pdf')), { code: 'ENOENT' });
  });

  it('resolves to undefined when the source cannot be read (not there, small or large; a file in its path), and writes nothing', async () => {
    // Not there, or under a file where a folder of its path should be (a cache path that is a file).
    for (const [absent, expectedBytes] of [
      [path.join(work, 'absent.pdf'), 10],
      [path.join(work, 'absent.pdf'), 5 * 1024 * 1024 + 1],
      [path.join(from, 'under-a-file.pdf'), 10],
    ] as const) {
      const saved = await copyFileSafely({
        from: absent,
        folder,
        fileName: 'a.pdf',
        expectedBytes,
      });
      assert.equal(saved, undefined);
    }
    await assert.rejects(fs.stat(path.join(folder, 'a.pdf')), { code: 'ENOENT' });
  });
});
