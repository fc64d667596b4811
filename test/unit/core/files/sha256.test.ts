import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { OFF_THREAD_SHA256_BYTES, sha256For } from '../../../../src/core/files/sha256';

describe('SHA-256 beside the download', () => {
  it('hashes a large file on the worker thread and a small one here, both to the same digest as in one piece', async () => {
    const data = randomBytes(OFF_THREAD_SHA256_BYTES + 123_457);
    const expected = createHash('sha256').update(data).digest('hex');
    const large = sha256For(data.length);
    const small = sha256For(64 * 1024);
    const unknown = sha256For(undefined);
    assert.equal(large.thread, 'worker');
    assert.equal(small.thread, 'caller');
    assert.equal(unknown.thread, 'caller', 'a body of unknown length is hashed here');
    // Uneven chunks, as a socket delivers them.
    for (let offset = 0, step = 1; offset < data.length; offset += step, step = (step * 7 + 13) % 200_000 || 1) {
      const chunk = data.subarray(offset, offset + step);
      large.update(chunk);
      small.update(chunk);
    }
    assert.equal(await large.digest(), expected);
    assert.equal(await small.digest(), expected);
  });

  it('keeps several files apart on the one worker, and says when the source must wait for it', async () => {
    const files = [randomBytes(12 * 1024 * 1024), randomBytes(9 * 1024 * 1024)];
    const streams = files.map((file) => sha256For(file.length));
    let saturated = false;
    for (let offset = 0; offset < files[0]!.length; offset += 64 * 1024) {
      streams.forEach((stream, i) => stream.update(files[i]!.subarray(offset, offset + 64 * 1024)));
      saturated ||= streams[0]!.saturated;
    }
    assert.ok(saturated, 'twelve MiB handed over at once is more than may wait for the worker');
    await new Promise<void>((resolve) => streams[0]!.whenReady(resolve));
    assert.equal(streams[0]!.saturated, false);
    assert.deepEqual(await Promise.all(streams.map((stream) => stream.digest())), files.map((file) => createHash('sha256').update(file).digest('hex')));
  });

  it('a stream given up (a failed download) is forgotten; the next one is unaffected', async () => {
    const dropped = sha256For(OFF_THREAD_SHA256_BYTES);
    dropped.update(randomBytes(3 * 1024 * 1024));
    dropped.dispose();
    const data = randomBytes(OFF_THREAD_SHA256_BYTES);
    const next = sha256For(data.length);
    next.update(data);
    assert.equal(await next.digest(), createHash('sha256').update(data).digest('hex'));
  });

  it('keeps the process alive while a digest is awaited, and not a moment longer (a command-line run ends by itself)', function () {
    this.timeout(20_000);
    const module = path.resolve(__dirname, '../../../../src/core/files/sha256.js');
    const script = `const { sha256For } = require(${JSON.stringify(module)}); const s = sha256For(9 << 20); s.update(Buffer.alloc(9 << 20, 1)); s.digest().then((d) => console.log(d));`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 15_000 });
    assert.equal(run.signal, null, 'the process ended by itself');
    assert.equal(run.stdout.trim(), createHash('sha256').update(Buffer.alloc(9 << 20, 1)).digest('hex'), 'and only after the digest arrived');
  });
});
