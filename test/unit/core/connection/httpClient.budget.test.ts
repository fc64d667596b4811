import * as assert from 'node:assert/strict';
import { parseBaseUrl } from '../../../../core/connection/baseUrl';
import { HttpClient, type HttpTimeouts } from '../../../../core/connection/httpClient';
import { durationWords } from '../../../../core/connection/httpWords';
import { RateLimitGate } from '../../../../core/connection/timing';
import type { TransportFactory } from '../../../../core/connection/transport';
import { LabApiError } from '../../../../core/errors/errors';
import { FaultServer, httpHead, type FaultAnswer } from '../../../support/faultServer';
import { rejection } from '../../helpers';
import { TRANSPORTS } from './faultHarness';

const PATH = '/api/v1/reports';

/** A complete JSON answer; `headers` added to its head. */
function answer(status: string, headers: Readonly<Record<string, string>> = {}): FaultAnswer {
  const body = Buffer.from('{"results":[]}');
  return {
    kind: 'cut',
    bytes: Buffer.concat([
      httpHead(status, {
        'content-type': 'application/json',
        'content-length': String(body.length),
        connection: 'close',
        ...headers,
      }),
      body,
    ]),
    cut: 'fin',
    delivery: 'burst',
  };
}

/** A client with a budget for a failing lab, short timeouts, and retries enough that only the budget stops it. */
function budgeted(
  baseUrl: string,
  budgetMs: number | undefined,
  options: { timeouts?: Partial<HttpTimeouts>; transport?: TransportFactory } = {},
): HttpClient {
  return new HttpClient({
    baseUrl: parseBaseUrl(baseUrl),
    token: 'budget-test-token',
    failingLabBudgetMs: budgetMs,
    timeouts: { connectMs: 1_000, headersMs: 1_000, bodyIdleMs: 1_000, ...options.timeouts },
    retry: { retries: 10, baseDelayMs: 50, maxDelayMs: 50 },
    rateLimitGate: new RateLimitGate(),
    transport: options.transport,
  });
}

describe('HttpClient with a budget for a lab failing as a whole (a run that must end)', function () {
  this.timeout(20_000);
  let server: FaultServer;
  let url: string;
  let client: HttpClient | undefined;
  beforeEach(async () => {
    server = new FaultServer(() => ({ kind: 'silent' }));
    url = await server.start();
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await server.stop();
  });

  it('honours Retry-After waits that fit, and says the one that does not fit what is left, without sleeping it', async () => {
    server.answerWith(() => answer('429 Too Many Requests', { 'retry-after-ms': '300' }));
    client = budgeted(url, 1_000);
    const started = Date.now();
    const error = (await rejection(client.getJson(PATH))) as LabApiError;
    const took = Date.now() - started;
    // Asked at 0, 300, 600 and 900 ms; at 900 ms only 100 ms are left of the second: not waited.
    // On a busy machine each answer comes later, and fewer asks fit in the second: every wait
    // that fitted was waited (300 ms each), the one that did not was said at once, within budget.
    const asked = server.requests;
    assert.ok(asked >= 2 && asked <= 4, `${asked} requests`);
    assert.ok(took >= (asked - 1) * 300 - 50 && took < 1_000, `${took} ms for ${asked} requests`);
    assert.equal(error.code, 'rateLimited');
    assert.equal(error.text?.id, 'waitOverBudgetLeft');
    assert.match(
      error.message,
      /^The lab at http:\/\/127\.0\.0\.1:\d+ asked to wait 1 s \(Retry-After\), longer than the 0 s left of the 1 s budget; not waited: try again after \d\d:\d\d\.$/,
    );
    assert.equal(error.attempts, asked);
  });

  it('a Retry-After longer than the whole budget (60 s, a day) is said at once; the lab is then not asked again in the run', async () => {
    for (const [retryAfter, words] of [
      ['60', '60 s'],
      ['86400', '24 h'],
    ] as const) {
      server.answerWith(() => answer('429 Too Many Requests', { 'retry-after': retryAfter }));
      client = budgeted(url, 30_000);
      const started = Date.now();
      const error = (await rejection(client.getJson(PATH))) as LabApiError;
      assert.ok(Date.now() - started < 1_000, `${Date.now() - started} ms`);
      assert.equal(server.requests, 1);
      assert.equal(
        error.message.replace(url, 'LAB').replace(/(\d{4}-\d\d-\d\d )?\d\d:\d\d\.$/, 'T.'),
        `The lab at LAB asked to wait ${words} (Retry-After), longer than the 30 s budget; not waited: try again after T.`,
      );
      assert.ok(error.retryAt && error.retryAt.getTime() > Date.now() + 59_000);
      const next = (await rejection(client.getJson(`${PATH}/R-2`))) as LabApiError;
      assert.equal(server.requests, 1, 'not sent');
      assert.equal(
        next.message,
        `${error.message} The remaining files and pages were not requested.`,
      );
      assert.equal(next.code, 'rateLimited');
      assert.equal(next.path, `${PATH}/R-2`);
      await client.close();
    }
  });

  it('a 503 asking for a wait beyond the budget is said the same way', async () => {
    server.answerWith(() => answer('503 Service Unavailable', { 'retry-after': '120' }));
    client = budgeted(url, 30_000);
    const error = (await rejection(client.getJson(PATH))) as LabApiError;
    assert.equal(server.requests, 1);
    assert.equal(error.code, 'server');
    assert.equal(error.status, 503);
    assert.match(
      error.message,
      /asked to wait 2 min \(Retry-After\), longer than the 30 s budget; not waited/,
    );
  });

  for (const transport of TRANSPORTS) {
    describe(`over ${transport.name}`, () => {
      it('a lab that accepts and never answers: eight requests, four at a time, end together after one answer timeout, the second four never sent', async () => {
        server.answerWith(() => ({ kind: 'silent' }));
        client = new HttpClient({
          baseUrl: parseBaseUrl(url),
          token: 'budget-test-token',
          failingLabBudgetMs: 1_000,
          timeouts: { connectMs: 1_000, headersMs: 1_000, bodyIdleMs: 1_000 },
          maxConcurrentRequests: 4,
          rateLimitGate: new RateLimitGate(),
          transport: transport.make,
        });
        const http = client;
        const started = Date.now();
        const errors = (await Promise.all(
          Array.from({ length: 8 }, (_, i) => rejection(http.getJson(`${PATH}/R-${i}`))),
        )) as LabApiError[];
        const took = Date.now() - started;
        assert.ok(took >= 950 && took < 2_500, `${took} ms`);
        assert.equal(server.requests, 4);
        const sent = errors.filter((error) => error.text?.id === 'silentFor');
        assert.equal(sent.length, 4, errors.map((error) => error.message).join('\n'));
        assert.match(
          sent[0]!.message,
          /^The lab at http:\/\/127\.0\.0\.1:\d+ accepted the connection and sent nothing for 1 s\.$/,
        );
        assert.equal(sent[0]!.code, 'timeout');
        for (const error of errors.filter((error) => error.text?.id !== 'silentFor')) {
          assert.equal(error.text?.id, 'labOutageBudget');
          assert.match(
            error.message,
            /sent nothing for 1 s\. The remaining files and pages were not requested\.$/,
          );
        }
      });

      it('a lab that sends its headers, then nothing: one answer timeout, said as such', async () => {
        server.answerWith(() => ({
          kind: 'stall',
          bytes: httpHead('200 OK', {
            'content-type': 'application/json',
            'content-length': '500',
          }),
        }));
        client = budgeted(url, 1_000, { transport: transport.make });
        const started = Date.now();
        const error = (await rejection(client.getJson(PATH))) as LabApiError;
        const took = Date.now() - started;
        assert.ok(took >= 950 && took < 2_500, `${took} ms`);
        assert.equal(server.requests, 1);
        assert.equal(error.code, 'timeout');
        assert.match(
          error.message,
          /^The lab at http:\/\/127\.0\.0\.1:\d+ sent its headers, then nothing for 1 s\.$/,
        );
      });
    });
  }

  it('a lab that fails fast and then stops answering: the attempt is cut where the budget ends, not a whole answer timeout later', async () => {
    server.answerWith((request) =>
      request < 2 ? answer('503 Service Unavailable') : { kind: 'silent' },
    );
    client = budgeted(url, 1_000, { timeouts: { headersMs: 10_000 } });
    const started = Date.now();
    const error = (await rejection(client.getJson(PATH))) as LabApiError;
    const took = Date.now() - started;
    assert.ok(took >= 950 && took < 2_000, `${took} ms`);
    assert.equal(server.requests, 3);
    assert.equal(error.code, 'timeout');
    assert.match(
      error.message,
      /^The lab at http:\/\/127\.0\.0\.1:\d+ accepted the connection and sent nothing for 1 s\.$/,
    );
    const next = (await rejection(client.getJson(`${PATH}/R-2`))) as LabApiError;
    assert.equal(server.requests, 3, 'not sent');
    assert.equal(next.text?.id, 'labOutageBudget');
  });

  it('retries within the budget: a lab that fails twice and then answers costs nothing but the waits', async () => {
    server.answerWith((request) =>
      request < 2 ? answer('503 Service Unavailable') : answer('200 OK'),
    );
    client = budgeted(url, 1_000);
    assert.deepEqual(await client.getJson(PATH), { results: [] });
    assert.equal(server.requests, 3);
  });

  it('without a budget (the extension today) a Retry-After within the cap is waited, as before', async () => {
    server.answerWith((request) =>
      request < 1 ? answer('429 Too Many Requests', { 'retry-after': '1' }) : answer('200 OK'),
    );
    client = budgeted(url, undefined);
    const started = Date.now();
    assert.deepEqual(await client.getJson(PATH), { results: [] });
    assert.ok(Date.now() - started >= 950, `${Date.now() - started} ms`);
    assert.equal(server.requests, 2);
  });

  it('says a wait in words a person reads', () => {
    assert.deepEqual(
      [500, 60_000, 119_000, 20 * 60_000, 86_400_000, 7 * 86_400_000].map(durationWords),
      ['1 s', '60 s', '119 s', '20 min', '24 h', '7 days'],
    );
  });
});
