import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { LabApiError } from '../../../../core/errors/errors';
import { LabApi } from '../../../../core/api/labApi';
import {
  FULL,
  SECRET_TOKEN,
  rejection,
  renderings,
  startMockLab,
  type MockLab,
} from '../../helpers';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HttpClient } from '../../../../core/connection/httpClient';
import { declaredLength } from '../../../../core/connection/labAnswer';
import { parseBaseUrl } from '../../../../core/connection/baseUrl';

/** A raw TCP server for faults the mock lab cannot express (reset before headers). */
async function rawServer(
  onConnection: (socket: net.Socket) => void,
): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      sockets.forEach((socket) => socket.destroy());
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('HttpClient: retries, rate limits and faults', () => {
  let lab: MockLab;
  before(async () => {
    lab = await startMockLab({ reports: 60 });
  });
  after(async () => {
    await lab.close();
  });
  beforeEach(() => {
    lab.server.setFaults({});
    lab.server.takeRequests();
  });

  it('sends the bearer token and Accept on every GET', async () => {
    await lab.api().listReports({ pageSize: 1 });
    const [request] = lab.server.takeRequests();
    assert.equal(request!.hadAuthorization, true);
    assert.equal(request!.scope, 'full scope: every client, project and data area');
    assert.equal(request!.accept, 'application/json');
  });

  for (const status of [500, 502, 503, 504]) {
    it(`gives up on a ${status} every time after 3 retries, naming status and request id`, async () => {
      lab.server.setFaults({ status: { status, times: Infinity } });
      const error = (await rejection(lab.api().listReports())) as LabApiError;
      assert.equal(error.code, 'server');
      assert.equal(error.status, status);
      assert.equal(error.attempts, 4);
      assert.match(error.requestId!, /^req-/);
      assert.match(
        error.describe(),
        new RegExp(`HTTP ${status}.*GET /api/v1/reports.*request id req-`),
      );
      assert.equal(lab.server.takeRequests().length, 4);
    });
  }

  for (const status of [400, 401, 403, 404]) {
    it(`never retries a ${status}`, async () => {
      lab.server.setFaults({ status: { status, times: Infinity } });
      const error = (await rejection(lab.api().listReports())) as LabApiError;
      assert.equal(error.status, status);
      assert.equal(lab.server.takeRequests().length, 1);
    });
  }

  it('gives 400, 401, 403 and 404 distinct sentences, each with its catalogue id', async () => {
    const errors: LabApiError[] = [];
    for (const status of [400, 401, 403, 404]) {
      lab.server.setFaults({ status: { status, times: 1 } });
      errors.push((await rejection(lab.api().listReports())) as LabApiError);
    }
    lab.server.setFaults({});
    assert.deepEqual(
      errors.map((error) => error.text?.id),
      ['badRequest', 'unauthorized', 'forbidden', 'notFound'],
    );
    const messages = errors.map((error) => error.message);
    assert.equal(new Set(messages).size, 4);
    assert.match(messages[0]!, /invalid; check the filter/);
    assert.match(messages[1]!, /sign in again/);
    assert.match(messages[2]!, /outside the scope/);
    assert.match(messages[3]!, /Not found/);
  });

  it('honours Retry-After in seconds, as an HTTP-date, in the past, and falls back to back-off on garbage', async () => {
    for (const retryAfter of [
      '1',
      new Date(Date.now() + 1000).toUTCString(),
      'Sun, 01 Nov 2020 00:00:00 GMT',
      'later, maybe',
    ]) {
      lab.server.setFaults({ rateLimit: { times: 1, retryAfter } });
      const started = Date.now();
      const page = await lab.api().listReports({ pageSize: 2 });
      const elapsed = Date.now() - started;
      assert.equal(page.items.length, 2, retryAfter);
      assert.deepEqual(
        lab.server.takeRequests().map((r) => r.status),
        [429, 200],
        retryAfter,
      );
      if (retryAfter === '1') {
        assert.ok(elapsed >= 900, `waited ${elapsed} ms for Retry-After: 1`);
      } else {
        // Never the fallback of a minute (nor the 60 s cap): a short wait, even on a busy machine.
        assert.ok(elapsed < 5_000, `${retryAfter}: waited ${elapsed} ms`);
      }
    }
  });

  it('fails fast with "try again after HH:MM" when Retry-After is beyond the cap', async () => {
    lab.server.setFaults({ rateLimit: { times: 1, retryAfter: '3600' } });
    const started = Date.now();
    const error = (await rejection(lab.api().listReports())) as LabApiError;
    // At once: far inside the hour asked for, whatever a busy machine adds.
    assert.ok(Date.now() - started < 5_000, `waited ${Date.now() - started} ms`);
    assert.equal(error.code, 'rateLimited');
    assert.match(error.message, /try again after \d{2}:\d{2}/);
    assert.ok(error.retryAt && error.retryAt.getTime() > Date.now() + 3500_000);
    assert.equal(lab.server.takeRequests().length, 1);
  });

  it('an interactive client (a person waits) says a Retry-After longer than one answer timeout, and never waits it', async () => {
    for (const [retryAfter, words] of [
      ['3600', '1 hour'],
      ['45', '45 s'],
    ] as const) {
      lab.server.setFaults({ rateLimit: { times: 1, retryAfter } });
      const api = lab.api(undefined, { interactive: true, timeouts: { headersMs: 2_000 } });
      const started = Date.now();
      const error = (await rejection(api.listReports())) as LabApiError;
      // Never waited: far inside the shortest wait asked for here (45 s).
      assert.ok(Date.now() - started < 5_000, `waited ${Date.now() - started} ms`);
      assert.equal(error.code, 'rateLimited');
      assert.match(
        error.message,
        new RegExp(
          `^The lab at http://127\\.0\\.0\\.1:\\d+ is limiting requests and asks to wait ${words} \\(Retry-After\\); not waited: try again after \\d{2}:\\d{2}\\.`,
        ),
      );
      assert.equal(lab.server.takeRequests().length, 1);
      await api.close();
    }
  });

  it('times out a server that accepts and never answers, and closes the socket', async () => {
    lab.server.setFaults({ hangHeaders: { times: 10 } });
    const api = lab.api(undefined, {
      timeouts: { headersMs: 200 },
      retry: { retries: 1, baseDelayMs: 5 },
    });
    const error = (await rejection(api.listReports())) as LabApiError;
    assert.equal(error.code, 'timeout');
    assert.match(error.message, /timed out while waiting for an answer/);
    assert.equal(error.attempts, 2);
  });

  it('an interactive client (a person waits) says a lab that never answers at once: one attempt, no silent retry', async () => {
    lab.server.setFaults({ hangHeaders: { times: Infinity, path: /\/reports$/ } });
    const api = lab.api(undefined, {
      timeouts: { headersMs: 200 },
      // Retries would wait at least 1 + 2 + 4 s: unmistakable beside one attempt on a busy machine.
      retry: { retries: 3, baseDelayMs: 2_000 },
      interactive: true,
    });
    const started = Date.now();
    const error = (await rejection(api.listReports())) as LabApiError;
    assert.equal(error.code, 'timeout');
    assert.equal(error.attempts, undefined, 'no second attempt');
    assert.equal(lab.server.takeRequests().length, 1);
    // undici's timers tick coarsely (about a second); four attempts would also wait 7 s or more.
    assert.ok(Date.now() - started < 5_000, `answered in ${Date.now() - started} ms`);
    // The lab's other paths still answer: the hang is the path's alone.
    lab.server.setFaults({ hangHeaders: { times: Infinity, path: /\/clients$/ } });
    assert.equal((await api.listReports({ pageSize: 1 })).items.length, 1);
    await api.close();
  });

  it('says "cannot reach" when the connection is reset before headers', async () => {
    const raw = await rawServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    try {
      const api = LabApi.forBaseUrl(raw.url, {
        token: SECRET_TOKEN,
        retry: { baseDelayMs: 1, maxDelayMs: 2 },
      });
      const error = (await rejection(api.listReports())) as LabApiError;
      assert.equal(error.code, 'network');
      assert.match(error.message, /Cannot reach the lab/);
      assert.ok(!renderings(error).includes(SECRET_TOKEN));
      await api.close();
    } finally {
      await raw.close();
    }
  });

  it('never puts the token in any error, whatever failed', async () => {
    const failures: unknown[] = [];
    const api = lab.api(SECRET_TOKEN, { timeouts: { headersMs: 150 }, retry: { retries: 0 } });
    const faults = [
      { status: { status: 500, times: 1 } },
      { status: { status: 401, times: 1 } },
      { status: { status: 403, times: 1 } },
      { rateLimit: { times: 1, retryAfter: '9999' } },
      { hangHeaders: { times: 1 } },
      { malformedJson: { times: 1 } },
      { htmlInsteadOfJson: { times: 1 } },
    ];
    for (const fault of faults) {
      lab.server.setFaults(fault);
      failures.push(await rejection(api.listReports()));
    }
    failures.push(await rejection(lab.api('wrong-' + SECRET_TOKEN).listReports()));
    failures.push(await rejection(api.getReport('nope')));
    for (const failure of failures) {
      assert.ok(failure instanceof LabApiError);
      const text = renderings(failure);
      assert.ok(!text.includes(SECRET_TOKEN), `token leaked in: ${text}`);
      assert.ok(!/bearer\s+\S*SECRET/i.test(text));
    }
  });
});

describe('HttpClient: every number from the server is bounded', () => {
  it('an absurd Content-Length is ignored rather than trusted', () => {
    for (const value of ['-1', '1.5', '1e9', '99999999999999999999', '12, 12', 'abc']) {
      assert.equal(declaredLength(value), undefined, value);
    }
    assert.equal(declaredLength(' 1024 '), 1024);
  });

  it('a huge Retry-After on a 429 fails fast with a readable time, never an invalid date', async () => {
    const lab = await startMockLab({
      faults: { rateLimit: { times: 1, retryAfter: '99999999999999999999' } },
    });
    try {
      const error = (await rejection(lab.api().listReports())) as LabApiError;
      assert.equal(error.code, 'rateLimited');
      assert.ok(error.retryAt && Number.isFinite(error.retryAt.getTime()));
      assert.doesNotMatch(error.message, /NaN|Invalid/);
    } finally {
      await lab.close();
    }
  });
});

describe('HttpClient: bodies that end when the connection closes', function () {
  this.timeout(30_000);
  for (const kib of [70, 100, 200]) {
    it(`download completely (${kib} KiB), also when the reader starts late: undici's paused-parser assertion never escapes`, async () => {
      const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-close-'));
      const lab = await startMockLab({
        reports: 8,
        pdfBytes: kib * 1024,
        faults: { closeDelimitedFiles: true },
      });
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown): void => void uncaught.push(error);
      process.on('uncaughtException', onUncaught);
      const http = new HttpClient({
        baseUrl: parseBaseUrl(lab.baseUrl),
        token: FULL,
        timeouts: { bodyIdleMs: 3000 },
      });
      try {
        const api = lab.api();
        const report = (await api.listReports()).items.find((r) => r.download_available)!;
        const whole = await api.fetchReportFile(report.report_id);
        assert.ok(whole.subarray(0, 5).equals(Buffer.from('%PDF-')));
        for (let i = 0; i < 3; i++) {
          const saved = await api.downloadReportFile(report.report_id, {
            folder,
            fileName: `r${i}.pdf`,
            ifExists: 'overwrite',
          });
          assert.equal(saved.bytes, whole.length);
        }
        // Reading 300 ms late: the server has closed the connection long before, with undici's parser paused.
        const body = await http.getStream(
          { path: api.paths.reportFile(report.report_id), accept: 'application/pdf' },
          async (response) => {
            await new Promise((resolve) => setTimeout(resolve, 300));
            const chunks: Buffer[] = [];
            for await (const chunk of response.body) {
              chunks.push(chunk as Buffer);
            }
            return Buffer.concat(chunks);
          },
        );
        assert.ok(body.equals(whole));
        assert.deepEqual(uncaught, []);
      } finally {
        process.off('uncaughtException', onUncaught);
        await http.close();
        await lab.close();
        await fs.rm(folder, { recursive: true, force: true });
      }
    });
  }
});

describe('HttpClient: JSON as real servers send it', () => {
  it('reads JSON that starts with a byte-order mark', async () => {
    const lab = await startMockLab({ faults: { jsonBom: true } });
    try {
      assert.ok((await lab.api().listReports()).items.length > 0);
    } finally {
      await lab.close();
    }
  });
});

describe('HttpClient: only the lab signs you out', () => {
  it("a 401 that carries a proxy challenge is not the lab's verdict on the token", async () => {
    const lab = await startMockLab({
      faults: {
        status: { status: 401, times: 1, headers: { 'proxy-authenticate': 'Basic realm="corp"' } },
      },
    });
    try {
      const events: string[] = [];
      const error = (await rejection(
        lab
          .api(FULL, { onConnection: (event: { kind: string }) => events.push(event.kind) })
          .listReports(),
      )) as LabApiError;
      assert.notEqual(error.code, 'unauthorized');
      assert.match(error.message, /proxy/);
      assert.ok(!events.includes('unauthorized'));
    } finally {
      await lab.close();
    }
  });

  it("the lab's own 401 is", async () => {
    const lab = await startMockLab();
    try {
      const events: string[] = [];
      const error = (await rejection(
        lab
          .api('no-such-token', {
            onConnection: (event: { kind: string }) => events.push(event.kind),
          })
          .listReports(),
      )) as LabApiError;
      assert.equal(error.code, 'unauthorized');
      assert.ok(events.includes('unauthorized'));
      assert.match(error.message, /The lab said: “invalid credential”/);
    } finally {
      await lab.close();
    }
  });
});

describe('HttpClient: its log', function () {
  this.timeout(60_000);
  let lab: MockLab;
  beforeEach(async () => {
    lab = await startMockLab({ reports: 30 });
  });
  afterEach(async () => {
    await lab.close();
  });

  it('one info line per request with method, path, status, milliseconds and request id; headers at debug', async () => {
    const lines: Array<[string, string]> = [];
    const client = new HttpClient({
      baseUrl: parseBaseUrl(lab.baseUrl),
      token: FULL,
      log: (level, message) => lines.push([level, message]),
    });
    try {
      await client.getJson('/api/v1/reports', { page_size: '5' });
      const request = lab.server.requests.at(-1)!;
      const info = lines.filter(([level]) => level === 'info');
      assert.equal(info.length, 1);
      assert.match(
        info[0]![1],
        new RegExp(
          `^\\[http\\] 127\\.0\\.0\\.1:\\d+ GET /api/v1/reports\\?page_size=5 → 200 in \\d+ ms \\(request id ${request.requestId}\\)$`,
        ),
      );
      assert.ok(
        lines.some(
          ([level, message]) =>
            level === 'debug' &&
            /response headers: .*content-type: application\/json/.test(message),
        ),
      );
      assert.ok(!lines.some(([, message]) => message.includes(FULL)), 'never the token');
    } finally {
      await client.close();
    }
  });
});
