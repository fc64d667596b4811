import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LabApi, type LabApiOptions } from '../../../../core/api/labApi';
import { parseBaseUrl } from '../../../../core/connection/baseUrl';
import { HttpClient, type ConnectionEvent } from '../../../../core/connection/httpClient';
import { LabOutage } from '../../../../core/connection/labOutage';
import { RateLimitGate } from '../../../../core/connection/timing';
import {
  MIN_BYTES_PER_ANSWER_TIMEOUT,
  type TransportFactory,
} from '../../../../core/connection/transport';
import { LabApiError, isCancellation } from '../../../../core/errors/errors';
import { HttpCache } from '../../../../core/files/httpCache';
import {
  closedPort,
  FULL,
  SECRET_TOKEN,
  rejection,
  renderings,
  startMockLab,
  type MockLab,
} from '../../helpers';
import { FaultServer, httpHead, type FaultAnswer } from '../../../support/faultServer';

/**
 * The core's promises about every request, held over the transport `factory` builds: the same
 * suite runs over each transport behind the seam (connection/transport.ts), so a second transport
 * keeps every promise the first one does. Each test drives the core (LabApi, HttpClient) against
 * the mock lab on 127.0.0.1, as the extension and the command-line tool do.
 */
export function transportContract(name: string, factory: TransportFactory): void {
  describe(`the core's promises over the ${name} transport`, () => {
    let lab: MockLab;
    let root: string;
    let reportId: string;
    let folderCount = 0;
    /** Errors the tests saw, checked at the end for the token. */
    const seen: unknown[] = [];

    const api = (options: Partial<Omit<LabApiOptions, 'lab'>> = {}, token = FULL): LabApi =>
      lab.api(token, { transport: factory, ...options });
    const folder = async (): Promise<string> => {
      const made = path.join(root, `f${++folderCount}`);
      await fs.mkdir(made);
      return made;
    };
    const failure = async (promise: Promise<unknown>): Promise<LabApiError> => {
      const error = await rejection(promise);
      seen.push(error);
      assert.ok(error instanceof LabApiError, String(error));
      return error;
    };

    before(async () => {
      lab = await startMockLab({ reports: 40 });
      root = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-contract-'));
      reportId = lab.server.reportsFor(FULL).find((report) => report.download_available)!.report_id;
    });
    after(async () => {
      await lab.close();
      await fs.rm(root, { recursive: true, force: true });
    });
    beforeEach(() => {
      lab.server.setFaults({});
      lab.server.takeRequests();
      lab.server.takeMaxInFlight();
    });

    it('sends the token and Accept to the lab, and reads its JSON', async () => {
      const page = await api().listReports({ pageSize: 5 });
      assert.equal(page.items.length, 5);
      const [request] = lab.server.takeRequests();
      assert.equal(request!.hadAuthorization, true);
      assert.equal(request!.scope, 'full scope: every client, project and data area');
      assert.equal(request!.accept, 'application/json');
    });

    it('streams a PDF to disk whole, with its SHA-256, and reports progress', async () => {
      const into = await folder();
      const progress: number[] = [];
      const saved = await api().downloadReportFile(reportId, {
        folder: into,
        fileName: 'r.pdf',
        onProgress: (bytes) => progress.push(bytes),
      });
      const expected = lab.server.pdfFor(reportId);
      assert.ok((await fs.readFile(path.join(into, 'r.pdf'))).equals(expected));
      assert.equal(saved.bytes, expected.length);
      assert.equal(progress.at(-1), expected.length);
    });

    it('undoes gzip, deflate and br on JSON and PDF bodies alike', async () => {
      const expected = lab.server.pdfFor(reportId);
      for (const compress of ['gzip', 'deflate', 'br'] as const) {
        lab.server.setFaults({ compress });
        const page = await api().listReports({ pageSize: 3 });
        assert.equal(page.items.length, 3, compress);
        const into = await folder();
        await api().downloadReportFile(reportId, { folder: into, fileName: 'r.pdf' });
        assert.ok((await fs.readFile(path.join(into, 'r.pdf'))).equals(expected), compress);
      }
    });

    it('refuses a file over the size cap, declared or found while streaming, leaving nothing', async () => {
      const size = lab.server.pdfFor(reportId).length;
      for (const faults of [{}, { closeDelimitedFiles: true }]) {
        lab.server.setFaults(faults);
        const into = await folder();
        const error = await failure(
          api().downloadReportFile(reportId, {
            folder: into,
            fileName: 'r.pdf',
            maxBytes: size - 1,
          }),
        );
        assert.match(error.text?.id ?? '', /^fileTooLarge/, JSON.stringify(faults));
        assert.deepEqual(await fs.readdir(into), []);
      }
      const within = await api({ maxFileBytes: size }).downloadReportFile(reportId, {
        folder: await folder(),
        fileName: 'r.pdf',
      });
      assert.equal(within.bytes, size);
    });

    it('fails a body shorter than its Content-Length, and a connection dropped halfway, leaving nothing', async () => {
      for (const faults of [
        { shortFile: { fraction: 0.5, times: 1 } },
        { dropFileAt: { fraction: 0.5, times: 1 } },
      ]) {
        lab.server.setFaults(faults);
        const into = await folder();
        const error = await failure(
          api().downloadReportFile(reportId, { folder: into, fileName: 'r.pdf' }),
        );
        assert.match(error.message, /broke off|ended early|Cannot reach/, JSON.stringify(faults));
        assert.ok(!isCancellation(error));
        assert.deepEqual(await fs.readdir(into), []);
      }
    });

    it('stops promptly when cancelled mid-download, leaving nothing', async () => {
      lab.server.setFaults({ stallFileAt: { fraction: 0.5, times: 1 } });
      const into = await folder();
      const controller = new AbortController();
      const started = Date.now();
      const error = await rejection(
        api().downloadReportFile(reportId, {
          folder: into,
          fileName: 'r.pdf',
          signal: controller.signal,
          onProgress: () => controller.abort(),
        }),
      );
      assert.ok(isCancellation(error), String(error));
      assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
      assert.deepEqual(await fs.readdir(into), []);
    });

    it('stops promptly when cancelled while waiting to retry', async () => {
      lab.server.setFaults({ status: { status: 503, times: Infinity } });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 150);
      const started = Date.now();
      const error = await rejection(
        api({ retry: { baseDelayMs: 20_000, maxDelayMs: 20_000 } }).listReports(
          {},
          controller.signal,
        ),
      );
      assert.ok(isCancellation(error), String(error));
      // Promptly: far inside the back-off (10 s at the least, with its jitter), on a busy machine too.
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    });

    it('times out a lab that never answers, and a body that stalls, leaving nothing', async () => {
      lab.server.setFaults({ hangHeaders: { times: 10 } });
      const waiting = await failure(
        api({ timeouts: { headersMs: 200 }, retry: { retries: 0 } }).listReports(),
      );
      assert.equal(waiting.code, 'timeout');
      assert.match(waiting.message, /waiting for an answer/);
      lab.server.setFaults({ stallFileAt: { fraction: 0.5, times: 1 } });
      const into = await folder();
      const stalled = await failure(
        api({ timeouts: { bodyIdleMs: 200 } }).downloadReportFile(reportId, {
          folder: into,
          fileName: 'r.pdf',
        }),
      );
      assert.equal(stalled.code, 'timeout');
      assert.deepEqual(await fs.readdir(into), []);
    });

    it('retries a 500 once and then succeeds; never retries a 404', async () => {
      lab.server.setFaults({ status: { status: 500, times: 1 } });
      assert.equal((await api().listReports({ pageSize: 2 })).items.length, 2);
      assert.deepEqual(
        lab.server.takeRequests().map((request) => request.status),
        [500, 200],
      );
      lab.server.setFaults({ status: { status: 404, times: Infinity } });
      const error = await failure(api().getReport(reportId));
      assert.equal(error.code, 'notFound');
      assert.equal(lab.server.takeRequests().length, 1);
    });

    it('pauses every caller of the lab once after a 429', async () => {
      const shared = api({ rateLimitGate: new RateLimitGate(), maxConcurrentRequests: 4 });
      lab.server.setFaults({ rateLimit: { times: 1, retryAfter: '1' }, latencyMs: 30 });
      const started = Date.now();
      const pages = await Promise.all(
        [1, 2, 3, 4].map((page) => shared.listReports({ page, pageSize: 5 })),
      );
      assert.ok(pages.every((page) => page.items.length === 5));
      const requests = lab.server.takeRequests();
      assert.equal(requests.filter((request) => request.status === 429).length, 1);
      assert.equal(requests.length, 5, 'one retry for the limited request, no storm');
      assert.ok(Date.now() - started >= 900, `resumed after ${Date.now() - started} ms`);
    });

    it('keeps to the request limit', async () => {
      lab.server.setFaults({ latencyMs: 40 });
      const limited = api({ maxConcurrentRequests: 2 });
      await Promise.all(
        [1, 2, 3, 4, 5, 6, 7, 8].map((page) => limited.listReports({ page, pageSize: 5 })),
      );
      assert.equal(
        lab.server.takeMaxInFlight(),
        2,
        'two at a time, no more, and not one after another',
      );
    });

    it('follows a redirect to another origin without the token, and refuses one to plain http elsewhere', async () => {
      const authorizations: Array<string | undefined> = [];
      const other = http.createServer((request, response) => {
        authorizations.push(request.headers.authorization);
        response.writeHead(200, { 'content-type': 'application/pdf' });
        response.end('%PDF-1.4\n%%EOF\n');
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = other.address() as net.AddressInfo;
        lab.server.setFaults({ redirectFileTo: `http://127.0.0.1:${port}/files/r.pdf` });
        const saved = await api({}, SECRET_TOKEN).downloadReportFile(reportId, {
          folder: await folder(),
          fileName: 'r.pdf',
        });
        assert.equal(saved.bytes, 15);
        assert.deepEqual(authorizations, [undefined], 'the other origin never saw the token');
        lab.server.setFaults({ redirectFileTo: 'http://files.lab.example/r.pdf' });
        const error = await failure(
          api({}, SECRET_TOKEN).downloadReportFile(reportId, {
            folder: await folder(),
            fileName: 'r.pdf',
          }),
        );
        assert.equal(error.code, 'insecureRedirect');
      } finally {
        await new Promise((resolve) => other.close(resolve));
      }
    });

    it('says it cannot reach a lab that refuses the connection', async () => {
      const port = await closedPort();
      const unreachable = LabApi.forBaseUrl(`http://127.0.0.1:${port}`, {
        token: SECRET_TOKEN,
        transport: factory,
        retry: { baseDelayMs: 1, maxDelayMs: 2 },
      });
      try {
        const error = await failure(unreachable.listReports());
        assert.equal(error.code, 'network');
        assert.match(
          error.message,
          new RegExp(`Cannot reach the lab at http://127.0.0.1:${port} \\(connection refused\\)`),
        );
        assert.equal(error.attempts, 4);
      } finally {
        await unreachable.close();
      }
    });

    it("keeps a team cache server's files: a PUT streams its body whole, and a GET reads it back checked", async () => {
      const stored = new Map<string, Buffer>();
      const server = http.createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          if (request.method === 'PUT') {
            stored.set(request.url!, Buffer.concat(chunks));
            response.writeHead(201).end();
            return;
          }
          const held = stored.get(request.url!);
          response.writeHead(held ? 200 : 404, held ? { 'content-length': held.length } : {});
          response.end(request.method === 'HEAD' ? undefined : held);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/team`;
      const cache = new HttpCache(address, { transport: factory });
      try {
        const bytes = Buffer.alloc(300 * 1024, 7);
        const hash = createHash('sha256').update(bytes).digest('hex');
        const source = path.join(await folder(), 'R-1.pdf');
        await fs.writeFile(source, bytes);
        assert.equal(await cache.publish(source, hash, bytes.length), 'kept');
        assert.ok(stored.get(`/team/sha256/${hash.slice(0, 2)}/${hash}`)?.equals(bytes));
        const into = await folder();
        const restored = await cache.restore(hash, bytes.length, {
          folder: into,
          fileName: 'R-1.pdf',
          ifExists: 'fail',
        });
        assert.equal(restored?.sha256, hash);
      } finally {
        await cache.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('puts the token in no error, even one whose body echoes it', async () => {
      lab.server.setFaults({ status: { status: 401, times: 1 }, echoToken: true });
      const error = await failure(api({}, SECRET_TOKEN).listReports());
      assert.equal(error.code, 'unauthorized');
      assert.ok(seen.length >= 10, `errors seen: ${seen.length}`);
      for (const each of seen) {
        assert.ok(!renderings(each).includes(SECRET_TOKEN), renderings(each));
      }
    });

    stalledAnswers(factory);
  });
}

/** The answer timeout in these tests: short, and the same for the headers and the body. */
const STALL_TIMEOUT_MS = 400;
/** A JSON page of about 3 KB, as a lab sends one. */
const PAGE = Buffer.from(
  JSON.stringify({
    data: Array.from({ length: 40 }, (_, i) => ({
      report_id: `R-${1000 + i}`,
      title: 'a report of the lab',
    })),
  }),
);
const PAGE_HEAD = httpHead('200 OK', {
  'content-type': 'application/json',
  'content-length': String(PAGE.length),
  'x-request-id': 'req-stall-1',
  connection: 'close',
});

/**
 * Issue 49: the answer timeout covers the whole answer. A lab that sends its headers and then
 * nothing, part of a page and then nothing, or a page a byte at a time, ends at the answer
 * timeout with the sentence of what it did; the lab never counts as answering on headers alone,
 * and the log line names the lab and says how long after the headers the body stopped.
 */
function stalledAnswers(factory: TransportFactory): void {
  describe('a lab that stalls after its headers', () => {
    let server: FaultServer;
    let url: string;
    let client: HttpClient | undefined;
    const events: ConnectionEvent[] = [];
    const lines: string[] = [];
    /** Times the lab's breaker heard that the lab answered. */
    let answers = 0;
    class CountingOutage extends LabOutage {
      override answered(): void {
        answers++;
        super.answered();
      }
    }
    before(async () => {
      server = new FaultServer(() => ({ kind: 'silent' }));
      url = await server.start();
    });
    after(() => server.stop());
    afterEach(async () => {
      server.dropAll();
      await client?.close();
      client = undefined;
      events.length = 0;
      lines.length = 0;
      answers = 0;
    });

    const ask = async (
      answer: FaultAnswer,
    ): Promise<{ error: LabApiError | undefined; tookMs: number }> => {
      server.answerWith(() => answer);
      client = new HttpClient({
        baseUrl: parseBaseUrl(url),
        labName: 'Stalling lab',
        token: SECRET_TOKEN,
        transport: factory,
        timeouts: { headersMs: STALL_TIMEOUT_MS, bodyIdleMs: STALL_TIMEOUT_MS },
        retry: { retries: 0 },
        onConnection: (event) => events.push(event),
        log: (_level, message) => lines.push(message),
        outage: new CountingOutage(url),
      });
      const started = Date.now();
      const error = await client.getJson('/api/v1/reports', { page: '1' }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      assert.ok(error === undefined || error instanceof LabApiError, String(error));
      assert.ok(
        lines.every((line) => !line.includes(SECRET_TOKEN)),
        'never the token in the log',
      );
      return { error, tookMs: Date.now() - started };
    };
    /** Ends within the answer timeout and a generous margin for a busy machine. */
    const inTime = (tookMs: number): void =>
      assert.ok(tookMs < STALL_TIMEOUT_MS + 3_000, `took ${tookMs} ms`);
    /**
     * The log line's measured silence ("sent nothing for 0.4 s"): at least the answer timeout, and
     * within the same margin (a timer fires late on a busy machine, never early).
     */
    const silentInTime = (line: string | undefined): void => {
      const seconds = Number(/sent nothing for (\d+\.\d) s/.exec(line ?? '')?.[1]);
      assert.ok(
        seconds >= STALL_TIMEOUT_MS / 1000 && seconds * 1000 < STALL_TIMEOUT_MS + 3_000,
        String(line),
      );
    };

    it('headers and then nothing: "sent its headers, then nothing", never answering', async () => {
      const { error, tookMs } = await ask({ kind: 'stall', bytes: PAGE_HEAD });
      assert.equal(error?.code, 'timeout');
      // Said as the answer timeout it broke, however late a busy machine's timer fired.
      assert.match(
        error.message,
        /^The lab at http:\/\/127\.0\.0\.1:\d+ sent its headers, then nothing for 0\.4 s\.$/,
      );
      inTime(tookMs);
      assert.ok(
        !events.some((event) => event.kind === 'online'),
        `headers alone made the lab answer: ${JSON.stringify(events)}`,
      );
      assert.deepEqual(
        events.map((event) => event.kind),
        ['offline'],
      );
      assert.equal(answers, 0, 'the breaker never heard the lab answer');
      const stalled = lines.find((line) => line.includes('the body stopped'));
      assert.match(
        stalled ?? lines.join('\n'),
        /^\[http\] Stalling lab \(127\.0\.0\.1:\d+\) GET \/api\/v1\/reports\?page=1 → 200 in \d+ ms; the body stopped \d+\.\d s after the headers and sent nothing for \d+\.\d s \(request id req-stall-1\)$/,
      );
      silentInTime(stalled);
      assert.ok(
        lines.some((line) =>
          /^\[http\] Stalling lab \(127\.0\.0\.1:\d+\) GET \/api\/v1\/reports\?page=1 failed \(timeout, request id req-stall-1\) after \d+\.\d s; not retried$/.test(
            line,
          ),
        ),
        lines.join('\n'),
      );
    });

    it('part of a page and then nothing: "sent part of its answer, then nothing"', async () => {
      // More than a trickle brings in an answer timeout, at once, then nothing: a stop that no
      // busy machine can make look like a trickle (under the trickle's floor, a part that came a
      // moment after the reader began waiting would be judged as one).
      const part = MIN_BYTES_PER_ANSWER_TIMEOUT + 500;
      assert.ok(PAGE.length > part, `${PAGE.length} bytes`);
      const { error, tookMs } = await ask({
        kind: 'stall',
        bytes: Buffer.concat([PAGE_HEAD, PAGE.subarray(0, part)]),
      });
      assert.equal(error?.code, 'timeout');
      assert.match(
        error.message,
        /^The lab at http:\/\/127\.0\.0\.1:\d+ sent part of its answer, then nothing for 0\.4 s\.$/,
      );
      inTime(tookMs);
      assert.ok(!events.some((event) => event.kind === 'online'), JSON.stringify(events));
      // The log line says when after the headers the body stopped, and how much had come.
      const stopped = lines.find((line) => line.includes('the body stopped'));
      assert.match(
        stopped ?? lines.join('\n'),
        new RegExp(
          `^\\[http\\] Stalling lab \\(127\\.0\\.0\\.1:\\d+\\) GET /api/v1/reports\\?page=1 → 200 in \\d+ ms; the body stopped \\d+\\.\\d s after the headers \\(${part} bytes\\) and sent nothing for \\d+\\.\\d s \\(request id req-stall-1\\)$`,
        ),
      );
      silentInTime(stopped);
    });

    it('a page a byte at a time: "sent its answer too slowly"', async () => {
      const { error, tookMs } = await ask({
        kind: 'slow',
        head: PAGE_HEAD,
        bytes: PAGE,
        chunk: 1,
        everyMs: 20,
      });
      // The head at once, then a byte every 20 ms: far below 1 KiB in 0.4 s.
      assert.equal(error?.code, 'timeout');
      assert.match(
        error.message,
        /^The lab at http:\/\/127\.0\.0\.1:\d+ sent its answer too slowly: \d{1,2} bytes in 0\.4 s\.$/,
      );
      inTime(tookMs);
      assert.ok(!events.some((event) => event.kind === 'online'), JSON.stringify(events));
      assert.match(
        lines.find((line) => line.includes('too slowly')) ?? lines.join('\n'),
        /^\[http\] Stalling lab \(127\.0\.0\.1:\d+\) GET \/api\/v1\/reports\?page=1 → 200 in \d+ ms; the body came too slowly \(\d{1,2} bytes in \d+\.\d s\) and was given up \d+\.\d s after the headers \(request id req-stall-1\)$/,
      );
    });

    it('a page that comes slowly but steadily is read whole, and then the lab answers', async () => {
      const { error } = await ask({
        kind: 'slow',
        bytes: Buffer.concat([PAGE_HEAD, PAGE]),
        chunk: 600,
        everyMs: 100,
      });
      assert.equal(error, undefined);
      assert.deepEqual(
        events.map((event) => event.kind),
        ['online'],
      );
      assert.equal(answers, 1, 'the breaker heard the lab answer once the answer was whole');
    });
  });
}
