import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import {
  ACCEPT_ENCODING,
  contentCodings,
  decodeBody,
} from '../../../../core/connection/contentEncoding';
import type { LabApiError } from '../../../../core/errors/errors';
import { FULL, rejection, startMockLab } from '../../helpers';

/** Everything a readable gives, as one buffer. */
async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

describe('content codings', () => {
  const text = Buffer.from('%PDF-1.4 '.repeat(5000));

  it('tells servers it decodes gzip, deflate and br, and reads the codings a response names', () => {
    assert.equal(ACCEPT_ENCODING, 'gzip, deflate, br');
    assert.deepEqual(contentCodings(undefined), []);
    assert.deepEqual(contentCodings('identity'), []);
    assert.deepEqual(contentCodings(' GZIP , br '), ['gzip', 'br']);
    assert.deepEqual(contentCodings('x-gzip'), ['x-gzip']);
    assert.equal(contentCodings('compress'), undefined, 'a coding it cannot decode');
    assert.equal(contentCodings('gzip, zstd'), undefined);
  });

  it('undoes each coding in turn, the last applied first', async () => {
    const twice = zlib.gzipSync(zlib.deflateSync(text));
    assert.ok(
      (await readAll(decodeBody(Readable.from([twice]), ['deflate', 'gzip']))).equals(text),
    );
    assert.ok(
      (await readAll(decodeBody(Readable.from([zlib.brotliCompressSync(text)]), ['br']))).equals(
        text,
      ),
    );
    const plain = Readable.from([text]);
    assert.equal(decodeBody(plain, []), plain, 'no coding: the body itself');
  });

  it('reads "deflate" both zlib-wrapped and raw, also split into small chunks', async () => {
    for (const compressed of [zlib.deflateSync(text), zlib.deflateRawSync(text)]) {
      const chunks = [];
      for (let at = 0; at < compressed.length; at += 7) {
        chunks.push(compressed.subarray(at, at + 7));
      }
      assert.ok((await readAll(decodeBody(Readable.from(chunks), ['deflate']))).equals(text));
    }
  });

  it('fails on a corrupt body, and destroying the decoded stream destroys the response body', async () => {
    await assert.rejects(
      readAll(decodeBody(Readable.from([Buffer.from('not gzip at all')]), ['gzip'])),
    );
    const body = new PassThrough();
    const decoded = decodeBody(body, ['gzip']);
    decoded.on('error', () => undefined);
    decoded.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(body.destroyed, true);
  });
});

describe('compressed lists and files from the lab', function () {
  this.timeout(30_000);
  for (const coding of ['gzip', 'deflate', 'deflate-raw', 'br'] as const) {
    it(`decodes ${coding} lists and files, with the size cap on the decoded bytes`, async () => {
      const lab = await startMockLab({ faults: { compress: coding } });
      const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-enc-'));
      try {
        const api = lab.api();
        const page = await api.listReports({ pageSize: 10 });
        assert.equal(page.items.length, 10);
        const report = page.items.find((r) => r.download_available)!;
        const saved = await api.downloadReportFile(report.report_id, { folder, fileName: 'r.pdf' });
        const plain = await startMockLab();
        try {
          assert.equal(
            saved.sha256,
            (
              await plain
                .api()
                .downloadReportFile(report.report_id, { folder, fileName: 'plain.pdf' })
            ).sha256,
          );
        } finally {
          await plain.close();
        }
        assert.ok(lab.server.takeRequests().every((request) => request.status === 200));
        const capped = (await rejection(
          lab.api(FULL, { maxJsonBytes: 2000 }).listReports({ pageSize: 50 }),
        )) as LabApiError;
        assert.match(capped.message, /larger than/);
      } finally {
        await lab.close();
        await fs.rm(folder, { recursive: true, force: true });
      }
    });
  }
});
