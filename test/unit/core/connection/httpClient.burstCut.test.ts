import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LabApiError } from '../../../../core/errors/errors';
import { FaultServer, httpHead } from '../../../support/faultServer';
import {
  TRANSPORTS,
  assertFolderHolds,
  faultClient,
  makeFolder,
  pdfOf,
  seededRandom,
  sentence,
  within,
} from './faultHarness';

// Issue 38: a server that sends the headers, part of the body and its FIN in one burst. The end of
// the body arrived before the writer listened for it, and the download never ended.
describe('a body cut in the same burst as its headers (issue 38)', function () {
  this.timeout(20_000);
  const pdf = pdfOf(400_000, seededRandom(38));
  let server: FaultServer;
  let baseUrl: string;
  before(async () => {
    server = new FaultServer(() => ({
      kind: 'cut',
      bytes: Buffer.concat([
        httpHead('200 OK', {
          'Content-Type': 'application/pdf',
          'Content-Length': String(pdf.length),
        }),
        pdf.subarray(0, 4_000),
      ]),
      cut: 'fin',
      delivery: 'burst',
    }));
    baseUrl = await server.start();
  });
  afterEach(() =>
    server.answerWith(() => ({
      kind: 'cut',
      bytes: Buffer.concat([
        httpHead('200 OK', {
          'Content-Type': 'application/pdf',
          'Content-Length': String(pdf.length),
        }),
        pdf.subarray(0, 4_000),
      ]),
      cut: 'fin',
      delivery: 'burst',
    })),
  );
  after(() => server.stop());

  for (const transport of TRANSPORTS) {
    it(`over ${transport.name}: headers, 4,000 of 400,000 bytes and the FIN in one write fail at once, nothing saved, nothing left open`, async () => {
      const folder = await makeFolder();
      const earlier = Buffer.from('%PDF-1.4 the earlier copy\n%%EOF\n');
      await fs.writeFile(path.join(folder, 'R-1.pdf'), earlier);
      const api = faultClient(baseUrl, transport.make);
      try {
        const started = Date.now();
        const { value, error } = await within(
          5_000,
          api.downloadReportFile('R-1', { folder, fileName: 'R-1.pdf', ifExists: 'overwrite' }),
          'the download',
        );
        assert.equal(value, undefined, 'nothing was saved');
        assert.ok(error instanceof LabApiError, String(error));
        assert.match(error.message, sentence('transferBroken'));
        assert.ok(Date.now() - started < 5_000);
        await assertFolderHolds(folder, 'R-1.pdf', earlier, 'after the burst');
      } finally {
        await api.close();
        await fs.rm(folder, { recursive: true, force: true });
      }
    });

    it(`over ${transport.name}: headers and the FIN of a close-delimited gzip body in one write end with a sentence, not an uncaught decoder error`, async () => {
      server.answerWith(() => ({
        kind: 'cut',
        bytes: httpHead('200 OK', {
          'Content-Type': 'application/pdf',
          'Content-Encoding': 'gzip',
          Connection: 'close',
        }),
        cut: 'fin',
        delivery: 'burst',
      }));
      const folder = await makeFolder();
      const earlier = Buffer.from('%PDF-1.4 the earlier copy\n%%EOF\n');
      await fs.writeFile(path.join(folder, 'R-1.pdf'), earlier);
      const api = faultClient(baseUrl, transport.make);
      try {
        const { error } = await within(
          5_000,
          api.downloadReportFile('R-1', { folder, fileName: 'R-1.pdf', ifExists: 'overwrite' }),
          'the download',
        );
        assert.ok(error instanceof LabApiError, String(error));
        // undici hands over the gzip stream and it ends early; `fetch` decodes it itself, to nothing.
        assert.match(
          error.message,
          transport.name === 'fetch' ? sentence('notPdf') : sentence('transferBroken'),
        );
        await assertFolderHolds(folder, 'R-1.pdf', earlier, 'after the burst');
      } finally {
        await api.close();
        await fs.rm(folder, { recursive: true, force: true });
      }
    });
  }
});
