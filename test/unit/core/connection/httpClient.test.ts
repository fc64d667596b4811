import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { inspect } from 'node:util';
import * as http from 'node:http';
import { LabApiError, isCancellation } from '../../../../src/core/errors/errors';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { RateLimitGate } from '../../../../src/core/connection/timing';
import { LabApi } from '../../../../src/core/api/labApi';
import { SECRET_TOKEN, rejection, startMockLab, type MockLab } from '../../helpers';

/** Every way an error could reach a user, a log or a support ticket. */
function allRenderings(error: unknown): string {
  const e = error as LabApiError;
  return [String(e), e.message, e.stack, JSON.stringify(e), inspect(e, { depth: 5, showHidden: true }), e.describe?.(), e.detail].join('\n');
}

/** A raw TCP server for faults the mock lab cannot express (reset before headers). */
async function rawServer(onConnection: (socket: net.Socket) => void): Promise<{ url: string; close: () => Promise<void> }> {
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

  it('retries a 500 once and then succeeds silently', async () => {
    lab.server.setFaults({ status: { status: 500, times: 1 } });
    const page = await lab.api().listReports({ pageSize: 5 });
    assert.equal(page.items.length, 5);
    assert.deepEqual(lab.server.takeRequests().map((r) => r.status), [500, 200]);
  });

  for (const status of [500, 502, 503, 504]) {
    it(`gives up on a ${status} every time after 3 retries, naming status and request id`, async () => {
      lab.server.setFaults({ status: { status, times: Infinity } });
      const error = (await rejection(lab.api().listReports())) as LabApiError;
      assert.equal(error.code, 'server');
      assert.equal(error.status, status);
      assert.equal(error.attempts, 4);
      assert.match(error.requestId!, /^req-/);
      assert.match(error.describe(), new RegExp(`HTTP ${status}.*GET /api/v1/reports.*request id req-`));
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
    assert.deepEqual(errors.map((error) => error.text?.id), ['badRequest', 'unauthorized', 'forbidden', 'notFound']);
    const messages = errors.map((error) => error.message);
    assert.equal(new Set(messages).size, 4);
    assert.match(messages[0]!, /invalid; check the filter/);
    assert.match(messages[1]!, /sign in again/);
    assert.match(messages[2]!, /outside the scope/);
    assert.match(messages[3]!, /Not found/);
  });

  it('honours Retry-After in seconds, as an HTTP-date, in the past, and falls back to back-off on garbage', async () => {
    for (const retryAfter of ['1', new Date(Date.now() + 1000).toUTCString(), 'Sun, 01 Nov 2020 00:00:00 GMT', 'later, maybe']) {
      lab.server.setFaults({ rateLimit: { times: 1, retryAfter } });
      const started = Date.now();
      const page = await lab.api().listReports({ pageSize: 2 });
      const elapsed = Date.now() - started;
      assert.equal(page.items.length, 2, retryAfter);
      assert.deepEqual(lab.server.takeRequests().map((r) => r.status), [429, 200], retryAfter);
      if (retryAfter === '1') {
        assert.ok(elapsed >= 900, `waited ${elapsed} ms for Retry-After: 1`);
      } else {
        assert.ok(elapsed < 1500, `${retryAfter}: waited ${elapsed} ms`);
      }
    }
  });

  it('fails fast with "try again after HH:MM" when Retry-After is beyond the cap', async () => {
    lab.server.setFaults({ rateLimit: { times: 1, retryAfter: '3600' } });
    const started = Date.now();
    const error = (await rejection(lab.api().listReports())) as LabApiError;
    assert.ok(Date.now() - started < 1000);
    assert.equal(error.code, 'rateLimited');
    assert.match(error.message, /try again after \d{2}:\d{2}/);
    assert.ok(error.retryAt && error.retryAt.getTime() > Date.now() + 3500_000);
    assert.equal(lab.server.takeRequests().length, 1);
  });

  it('one 429 pauses every caller of the origin once', async () => {
    const gate = new RateLimitGate();
    const api = lab.api(undefined, { rateLimitGate: gate, maxConcurrentRequests: 4 });
    lab.server.setFaults({ rateLimit: { times: 1, retryAfter: '1' }, latencyMs: 30 });
    const started = Date.now();
    const pages = await Promise.all([1, 2, 3, 4].map((page) => api.listReports({ page, pageSize: 5 })));
    assert.ok(pages.every((p) => p.items.length === 5));
    const requests = lab.server.takeRequests();
    assert.equal(requests.filter((r) => r.status === 429).length, 1);
    assert.equal(requests.length, 5, 'one retry for the rate-limited request, no storm');
    assert.ok(Date.now() - started >= 900);
  });

  it('stops promptly when cancelled during a back-off wait', async () => {
    lab.server.setFaults({ status: { status: 503, times: Infinity } });
    const api = lab.api(undefined, { retry: { baseDelayMs: 5000, maxDelayMs: 5000 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const started = Date.now();
    const error = await rejection(api.listReports({}, controller.signal));
    assert.ok(isCancellation(error));
    assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
  });

  it('times out a server that accepts and never answers, and closes the socket', async () => {
    lab.server.setFaults({ hangHeaders: { times: 10 } });
    const api = lab.api(undefined, { timeouts: { headersMs: 200 }, retry: { retries: 1, baseDelayMs: 5 } });
    const error = (await rejection(api.listReports())) as LabApiError;
    assert.equal(error.code, 'timeout');
    assert.match(error.message, /timed out while waiting for an answer/);
    assert.equal(error.attempts, 2);
  });

  it('says "cannot reach" for a refused connection', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const api = LabApi.forBaseUrl(`http://127.0.0.1:${port}`, { token: SECRET_TOKEN, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
    const error = (await rejection(api.listReports())) as LabApiError;
    assert.equal(error.code, 'network');
    assert.match(error.message, new RegExp(`Cannot reach the lab at http://127.0.0.1:${port} \\(connection refused\\)`));
    assert.equal(error.attempts, 4);
    await api.close();
  });

  it('says "cannot reach" when the connection is reset before headers', async () => {
    const raw = await rawServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    try {
      const api = LabApi.forBaseUrl(raw.url, { token: SECRET_TOKEN, retry: { baseDelayMs: 1, maxDelayMs: 2 } });
      const error = (await rejection(api.listReports())) as LabApiError;
      assert.equal(error.code, 'network');
      assert.match(error.message, /Cannot reach the lab/);
      assert.ok(!allRenderings(error).includes(SECRET_TOKEN));
      await api.close();
    } finally {
      await raw.close();
    }
  });

  it('never sends the token to another origin on a redirect, and refuses a redirect to plain http', async () => {
    const seen: Array<string | undefined> = [];
    const other = http.createServer((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.end('%PDF-1.4\n%%EOF\n');
    });
    await new Promise<void>((resolve) => other.listen(0, 'localhost', resolve));
    const { port } = other.address() as net.AddressInfo;
    try {
      const report = lab.server.reportsFor('demo-full-access').find((r) => r.download_available)!;
      lab.server.setFaults({ redirectFileTo: `http://localhost:${port}/signed/file.pdf` });
      const folder = await mkdtemp(path.join(tmpdir(), 'lab-redirect-'));
      const saved = await lab.api(SECRET_TOKEN).downloadReportFile(report.report_id, { folder, fileName: 'r.pdf' });
      assert.equal(saved.bytes, 15);
      assert.deepEqual(seen, [undefined], 'the other origin received no Authorization header');
      lab.server.setFaults({ redirectFileTo: 'http://lab.example.com/file.pdf' });
      const error = (await rejection(lab.api(SECRET_TOKEN).downloadReportFile(report.report_id, { folder, fileName: 'x.pdf' }))) as LabApiError;
      assert.equal(error.code, 'insecureRedirect');
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
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
      const text = allRenderings(failure);
      assert.ok(!text.includes(SECRET_TOKEN), `token leaked in: ${text}`);
      assert.ok(!/bearer\s+\S*SECRET/i.test(text));
    }
  });
});
