import * as assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { decodeBody } from '../../../../core/connection/contentEncoding';

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

// Issue 38: a coded body that ends before its coding does was cut short by the server.
describe('decodeBody with a coded body cut short', () => {
  const whole = gzipSync(Buffer.from('%PDF-1.7 '.repeat(500)));

  for (const at of [0, 10, Math.floor(whole.length / 2), whole.length - 1]) {
    it(`a gzip body cut after ${at} of ${whole.length} bytes fails as a connection broken off (UND_ERR_SOCKET)`, async () => {
      const decoded = decodeBody(Readable.from([whole.subarray(0, at)]), ['gzip']);
      await assert.rejects(drain(decoded), (error: NodeJS.ErrnoException) => {
        assert.equal(error.code, 'UND_ERR_SOCKET');
        assert.match(error.message, /ended early/);
        return true;
      });
    });
  }

  it('a gzip body that ends before anyone reads it is no uncaught exception: the reader finds the error in its state', async () => {
    const body = new PassThrough();
    const decoded = decodeBody(body, ['gzip']);
    body.end();
    // Nobody reads: the error arrives in the stream's state on a later turn of the event loop.
    const deadline = Date.now() + 5_000;
    while (!decoded.errored && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal((decoded.errored as NodeJS.ErrnoException | null)?.code, 'UND_ERR_SOCKET');
    await assert.rejects(drain(decoded), { code: 'UND_ERR_SOCKET' });
  });

  it('a whole gzip body decodes as before', async () => {
    const decoded = decodeBody(Readable.from([whole]), ['gzip']);
    assert.equal((await drain(decoded)).toString(), '%PDF-1.7 '.repeat(500));
  });
});
