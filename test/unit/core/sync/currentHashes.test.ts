import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { currentSha256s } from '../../../../core/sync/currentHashes';
import type { ManifestEntry } from '../../../../core/sync/manifest';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('currentSha256s', () => {
  let work: string;
  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-hashes-'));
  });
  afterEach(() => fs.rm(work, { recursive: true, force: true }));

  /** Writes a file and gives the entry that records it as saved just now. */
  async function saved(name: string, text: string): Promise<ManifestEntry> {
    const file = path.join(work, name);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text);
    const stats = await fs.stat(file);
    return {
      report_id: name,
      file: name,
      bytes: stats.size,
      sha256: sha256(text),
      mtime_ms: stats.mtimeMs,
    } as ManifestEntry;
  }

  it('trusts size and time, reads what they do not vouch for, and never looks outside the folder', async () => {
    const same = await saved('same.pdf', 'same bytes');
    // Same size and time, other bytes: trusted without reading (what --rehash is for).
    const retouched = await saved('sub/retouched.pdf', 'aaaa');
    const { atime, mtime } = await fs.stat(path.join(work, 'sub/retouched.pdf'));
    await fs.writeFile(path.join(work, 'sub/retouched.pdf'), 'bbbb');
    await fs.utimes(path.join(work, 'sub/retouched.pdf'), atime, mtime);
    const grown = await saved('grown.pdf', 'short');
    await fs.appendFile(path.join(work, 'grown.pdf'), ' and longer');
    const gone = await saved('gone.pdf', 'gone');
    await fs.rm(path.join(work, 'gone.pdf'));
    const timeless = { ...(await saved('timeless.pdf', 'no time')), mtime_ms: undefined };
    await fs.writeFile(path.join(path.dirname(work), 'outside.pdf'), 'outside');
    const outside = { ...same, file: '../outside.pdf' };
    const folderAsFile = { ...same, file: 'sub' };

    const entries = [same, retouched, grown, gone, timeless, outside, folderAsFile];
    const progress: number[] = [];
    const hashes = await currentSha256s(work, entries, {
      onProgress: (done, total) => progress.push(done / total),
    });
    assert.deepEqual(hashes, [
      same.sha256,
      retouched.sha256,
      sha256('short and longer'),
      undefined,
      sha256('no time'),
      undefined,
      undefined,
    ]);
    assert.equal(progress.at(-1), 1);

    const rehashed = await currentSha256s(work, entries, { rehash: true });
    assert.deepEqual(rehashed, [
      same.sha256,
      sha256('bbbb'),
      sha256('short and longer'),
      undefined,
      sha256('no time'),
      undefined,
      undefined,
    ]);
    await fs.rm(path.join(path.dirname(work), 'outside.pdf'));
  });

  it('rehashes every byte of many files, and takes a pipe put where a file was for no file', async () => {
    const entries: ManifestEntry[] = [];
    for (let i = 0; i < 300; i++) {
      entries.push(await saved(`r${i}.pdf`, `report ${i} `.repeat(i % 300)));
    }
    const edited = entries[100]!;
    await fs.writeFile(path.join(work, edited.file), 'edited');
    const piped = entries[250]!;
    if (process.platform !== 'win32') {
      await fs.rm(path.join(work, piped.file));
      execFileSync('mkfifo', [path.join(work, piped.file)]);
    }
    const progress: number[] = [];
    const hashes = await currentSha256s(work, entries, {
      rehash: true,
      onProgress: (done) => progress.push(done),
    });
    assert.deepEqual(
      hashes,
      entries.map((entry) =>
        entry === edited
          ? sha256('edited')
          : entry === piped && process.platform !== 'win32'
            ? undefined
            : entry.sha256,
      ),
    );
    assert.deepEqual(
      progress,
      entries.map((_, index) => index + 1),
    );
  });
});
