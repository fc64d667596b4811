import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { sha256Each } from '../../../../core/files/hashEach';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('sha256Each', () => {
  let work: string;
  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-hash-each-'));
  });
  afterEach(() => fs.rm(work, { recursive: true, force: true }));

  it('hashes every byte of each file in order, one read or many, and gives undefined where there is no file to read', async () => {
    const sizes = [0, 1, 2033, 1024 * 1024 - 1, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024 + 5];
    const bodies = sizes.map((size) => randomBytes(size));
    const files: Array<string | undefined> = [];
    for (const [index, body] of bodies.entries()) {
      const file = path.join(work, `f${index}.pdf`);
      await fs.writeFile(file, body);
      files.push(file);
    }
    await fs.mkdir(path.join(work, 'folder.pdf'));
    files.push(undefined, path.join(work, 'missing.pdf'), path.join(work, 'folder.pdf'));
    let hashed = 0;
    const hashes = await sha256Each(files, { onHashed: () => hashed++ });
    assert.deepEqual(hashes, [...bodies.map(sha256), undefined, undefined, undefined]);
    assert.equal(hashed, files.length);
  });

  it('refuses a named pipe at once instead of waiting for a writer', async function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const pipe = path.join(work, 'pipe.pdf');
    execFileSync('mkfifo', [pipe]);
    const plain = path.join(work, 'plain.pdf');
    await fs.writeFile(plain, 'plain');
    assert.deepEqual(await sha256Each([pipe, plain]), [undefined, sha256(Buffer.from('plain'))]);
  });

  it('lets other work run while a big file is hashed, and stops when cancelled', async () => {
    const big = path.join(work, 'big.pdf');
    const body = randomBytes(48 * 1024 * 1024);
    await fs.writeFile(big, body);
    const order: string[] = [];
    const hashing = sha256Each([big]).then((hashes) => {
      order.push('hashed');
      return hashes;
    });
    setImmediate(() => order.push('other'));
    assert.deepEqual(await hashing, [sha256(body)]);
    assert.deepEqual(order, ['other', 'hashed']);

    const controller = new AbortController();
    const stopped = sha256Each([big, big], { signal: controller.signal });
    controller.abort();
    await assert.rejects(stopped, { name: 'AbortError' });
  });
});
