import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { statEach } from '../../../../core/files/statEach';

describe('statEach', () => {
  let work: string;
  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-stat-each-'));
  });
  afterEach(() => fs.rm(work, { recursive: true, force: true }));

  it('gives each path its stat in order, undefined where nothing can be looked at, across batches', async () => {
    const files: Array<string | undefined> = [];
    for (let i = 0; i < 1200; i++) {
      const file = path.join(work, `f${i}.pdf`);
      if (i % 3 === 0) {
        await fs.writeFile(file, 'x'.repeat(i));
      }
      files.push(file);
    }
    await fs.writeFile(path.join(work, 'plain'), 'not a folder');
    files.push(undefined, path.join(work, 'plain', 'under-a-file.pdf'), work);
    const stats = await statEach(files);
    assert.equal(stats.length, files.length);
    for (let i = 0; i < 1200; i++) {
      assert.equal(stats[i]?.size, i % 3 === 0 ? i : undefined, `f${i}`);
    }
    assert.equal(stats[1200], undefined, 'no path given');
    assert.equal(stats[1201], undefined, 'ENOTDIR is nothing there, not a failure');
    assert.equal(stats[1202]?.isDirectory(), true);
  });

  it('lets other work run between batches, and stops when cancelled', async () => {
    const files = Array.from({ length: 3000 }, (_, i) => path.join(work, `missing-${i}`));
    const order: string[] = [];
    const stating = statEach(files).then(() => order.push('stat'));
    setImmediate(() => order.push('other'));
    await stating;
    assert.deepEqual(order, ['other', 'stat']);

    const controller = new AbortController();
    const stopped = statEach(files, controller.signal);
    controller.abort();
    await assert.rejects(stopped, { name: 'AbortError' });
  });
});
