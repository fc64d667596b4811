import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ContentCache } from '../../../../core/files/contentCache';
import { HttpCache } from '../../../../core/files/httpCache';
import { LayeredCache } from '../../../../core/files/layeredCache';

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('a team server behind the personal cache (core: LayeredCache)', () => {
  let work: string;
  let server: http.Server;
  let address: string;
  const held = new Map<string, Buffer>();
  const asked: string[] = [];

  before(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-layered-'));
    server = http.createServer((request, response) => {
      const name = path.basename(request.url ?? '');
      asked.push(`${request.method} ${name.slice(0, 8)}`);
      if (request.method === 'PUT') {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          held.set(name, Buffer.concat(chunks));
          response.writeHead(201).end();
        });
        return;
      }
      const bytes = held.get(name);
      if (!bytes) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-length': bytes.length });
      response.end(request.method === 'HEAD' ? undefined : bytes);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    address = `http://127.0.0.1:${(server.address() as AddressInfo).port}/team`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await fs.rm(work, { recursive: true, force: true });
  });

  function layered(name: string): LayeredCache {
    return new LayeredCache(
      new ContentCache(path.join(work, name), { shared: true }),
      new HttpCache(address),
    );
  }

  it('reads through: the server once, then the personal folder; keep never writes to the server', async () => {
    const bytes = Buffer.from('%PDF-1.7 layered');
    const hash = sha(bytes);
    held.set(hash, bytes);
    const cache = layered('personal');
    asked.length = 0;
    const first = await cache.restore(hash, bytes.length, {
      folder: await fs.mkdtemp(path.join(work, 'a-')),
      fileName: 'one.pdf',
      ifExists: 'fail',
    });
    assert.ok(first);
    assert.deepEqual(asked, [`GET ${hash.slice(0, 8)}`]);
    asked.length = 0;
    const second = await cache.restore(hash, bytes.length, {
      folder: await fs.mkdtemp(path.join(work, 'b-')),
      fileName: 'one.pdf',
      ifExists: 'fail',
    });
    assert.ok(second);
    assert.deepEqual(asked, [], 'the personal folder served it');

    const other = Buffer.from('%PDF-1.7 saved here');
    const file = path.join(work, 'saved.pdf');
    await fs.writeFile(file, other);
    await cache.keep(file, sha(other), other.length);
    assert.ok(await cache.local.has(sha(other), other.length));
    assert.ok(!(asked as string[]).some((line) => line.startsWith('PUT')), asked.join());
    assert.equal(await cache.publish(file, sha(other), other.length), 'kept');
    assert.ok(held.get(sha(other))?.equals(other), 'publish is the act that writes');
    await cache.close();
  });

  it('a corrupt copy on the server is found by check and replaced by keep (a repair)', async () => {
    const bytes = Buffer.from('%PDF-1.7 will be corrupted');
    const hash = sha(bytes);
    const bad = Buffer.from(bytes);
    bad[3] = bad[3]! ^ 0xff;
    held.set(hash, bad);
    const cache = layered('repairing');
    assert.equal(await cache.check(hash, bytes.length), 'corrupt');
    const file = path.join(work, 'good.pdf');
    await fs.writeFile(file, bytes);
    await cache.keep(file, hash, bytes.length);
    assert.ok(held.get(hash)?.equals(bytes), 'the good bytes replaced the corrupt copy');
    assert.equal(await cache.check(hash, bytes.length), 'good');
    await cache.close();
  });
});
