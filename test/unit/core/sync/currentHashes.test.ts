import * as assert from 'node:assert/strict';
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
});
