import * as assert from 'node:assert/strict';
import { LabApi } from '../../../../../core/api/labApi';
import { defaultLabDefinition } from '../../../../../core/api/labDefinition';
import { parseBaseUrl } from '../../../../../core/connection/baseUrl';
import {
  checkConnection,
  type CheckStep,
  type ConnectionCheck,
} from '../../../../../core/connection/check/checkConnection';
import { requestProblem } from '../../../../../core/connection/check/request';
import { RateLimitGate } from '../../../../../core/connection/timing';
import { MIN_BYTES_PER_ANSWER_TIMEOUT } from '../../../../../core/connection/transport';
import { connectionConclusion } from '../../../../../core/derived/connectionReport';
import { labError } from '../../../../../core/errors/messages';
import { FaultServer, httpHead, type FaultAnswer } from '../../../../support/faultServer';
import { SECRET_TOKEN } from '../../../helpers';

/**
 * The answer timeout of these checks: short, so a stalled lab costs two seconds, yet long enough
 * that a process starved of the CPU on a busy machine still reads headers that came at once before
 * its timer fires (Node runs due timers before it reads sockets: at 0.4 s, a starved client once
 * took a lab that sent its headers for one that sent nothing).
 */
const ANSWER_MS = 2_000;
const PATH = '/api/v1/reports';
const PAGE = Buffer.from(
  JSON.stringify({
    data: Array.from({ length: 30 }, (_, i) => ({
      report_id: `R-${1000 + i}`,
      title: 'a report of the lab',
    })),
    meta: { page: 1, page_size: 1, total_pages: 30, total_count: 30 },
  }),
);
/**
 * The part of the page a lab that stops sends: more than a trickle brings in an answer timeout, at
 * once, so no busy machine can make the stop look like a trickle.
 */
const PART = PAGE.subarray(0, MIN_BYTES_PER_ANSWER_TIMEOUT + 300);
const HEAD = httpHead('200 OK', {
  'content-type': 'application/json',
  'content-length': String(PAGE.length),
  connection: 'close',
});
const STALLS: ReadonlyArray<{
  readonly title: string;
  readonly answer: FaultAnswer;
  readonly problem: CheckStep['problem'];
  readonly summary: RegExp;
  readonly sentence: RegExp;
}> = [
  {
    title: 'a lab that accepts and never answers: no answer',
    answer: { kind: 'silent' },
    problem: 'noAnswer',
    summary: /^the lab accepted the connection but sent no answer within 2 s$/,
    sentence: /accepted the connection but sent no answer/,
  },
  {
    title: 'a lab that sends its headers and never the body: stuck',
    answer: { kind: 'stall', bytes: HEAD },
    problem: 'stuck',
    summary:
      /^the lab sent its headers \(HTTP 200\) but never the body: nothing for 2 s; the lab's service is stuck$/,
    sentence: /sends headers but never the body: the lab’s service is stuck\.$/,
  },
  {
    title: 'a lab that sends half a page and stops: stopped mid-answer',
    answer: { kind: 'stall', bytes: Buffer.concat([HEAD, PART]) },
    problem: 'stoppedMidAnswer',
    summary: /^the lab sent part of its answer \(HTTP 200, \d+ bytes\), then nothing for 2 s$/,
    sentence: /starts its answer and stops halfway/,
  },
  {
    title: 'a lab that trickles a byte at a time: too slow',
    answer: { kind: 'slow', head: HEAD, bytes: PAGE, chunk: 1, everyMs: 20 },
    problem: 'tooSlow',
    summary: /^the lab sent its answer too slowly \(HTTP 200\): \d{1,3} bytes in 2 s$/,
    sentence: /sends its answer too slowly to be used/,
  },
];

function requestStep(check: ConnectionCheck): CheckStep {
  const found = check.steps.find((step) => step.kind === 'request');
  assert.ok(found, JSON.stringify(check.steps));
  return found;
}

describe('Check Connection’s request: a stalled lab told from a healthy one (issue 49)', function () {
  this.timeout(20_000);
  let server: FaultServer;
  let url: string;
  const clients: LabApi[] = [];
  before(async () => {
    server = new FaultServer(() => ({ kind: 'silent' }));
    url = await server.start();
  });
  after(() => server.stop());
  afterEach(async () => {
    server.dropAll();
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  /** A check of the fault server's lab, signed out (the API path without a token) or signed in (through the lab's client). */
  const check = async (
    answer: FaultAnswer,
    signedIn: boolean,
  ): Promise<{ result: ConnectionCheck; heads: string[]; tookMs: number }> => {
    const heads: string[] = [];
    server.answerWith((_, head) => {
      heads.push(head);
      return answer;
    });
    const api = new LabApi({
      lab: defaultLabDefinition(parseBaseUrl(url), 'Stalling'),
      token: SECRET_TOKEN,
      rateLimitGate: new RateLimitGate(),
      timeouts: { headersMs: ANSWER_MS, bodyIdleMs: ANSWER_MS },
      retry: { baseDelayMs: 1, maxDelayMs: 2, retries: 3 },
      interactive: true,
    });
    clients.push(api);
    const started = Date.now();
    const result = await checkConnection({
      name: 'Stalling',
      baseUrl: url,
      network: { noProxy: [] },
      env: {},
      timeoutMs: 5_000,
      answerTimeoutMs: ANSWER_MS,
      path: PATH,
      ...(signedIn ? { request: (signal: AbortSignal) => api.checkReports(signal) } : {}),
    });
    return { result, heads, tookMs: Date.now() - started };
  };

  for (const signedIn of [false, true]) {
    describe(
      signedIn ? 'signed in, through the lab’s client' : 'signed out, on the checked connection',
      () => {
        for (const stall of STALLS) {
          it(stall.title, async () => {
            const { result, heads, tookMs } = await check(stall.answer, signedIn);
            const request = requestStep(result);
            assert.equal(request.outcome, 'failed', JSON.stringify(request));
            assert.equal(request.problem, stall.problem, request.summary);
            // A silence is said alike whoever gave up on it: the check, or the lab's own client.
            if (!signedIn || stall.problem === 'noAnswer') {
              assert.match(request.summary, stall.summary);
            }
            assert.match(connectionConclusion(result).sentence, stall.sentence);
            // It asked the API path, and ended within about one answer timeout and a margin.
            assert.match(heads[0] ?? '', new RegExp(`^GET ${PATH}`));
            assert.equal(/authorization: bearer/i.test(heads[0] ?? ''), signedIn);
            assert.ok(tookMs < 2 * ANSWER_MS + 3_000, `took ${tookMs} ms`);
          });
        }

        it('a healthy lab: the whole answer read, and the lab answers', async () => {
          const { result } = await check(
            { kind: 'cut', bytes: Buffer.concat([HEAD, PAGE]), cut: 'fin', delivery: 'pause' },
            signedIn,
          );
          const request = requestStep(result);
          assert.equal(request.outcome, 'ok', JSON.stringify(request));
          if (!signedIn) {
            assert.deepEqual(request.details, [
              `GET ${PATH} → HTTP/1.1 200 OK, ${PAGE.length} bytes`,
            ]);
          }
        });
      },
    );
  }

  it('a silence the lab’s client gave up on first is said as the check’s own: no answer within the answer timeout', async () => {
    server.answerWith(() => ({ kind: 'silent' }));
    const api = new LabApi({
      lab: defaultLabDefinition(parseBaseUrl(url), 'Stalling'),
      token: SECRET_TOKEN,
      rateLimitGate: new RateLimitGate(),
      // The client's own timeout (undici's, checked about once a second) ends the request well
      // before the check's bound of 10 s does, however busy the machine.
      timeouts: { headersMs: 100 },
      retry: { baseDelayMs: 1, maxDelayMs: 2, retries: 0 },
      interactive: true,
    });
    clients.push(api);
    const result = await checkConnection({
      name: 'Stalling',
      baseUrl: url,
      network: { noProxy: [] },
      env: {},
      timeoutMs: 5_000,
      answerTimeoutMs: 10_000,
      path: PATH,
      request: (signal: AbortSignal) => api.checkReports(signal),
    });
    const request = requestStep(result);
    assert.equal(request.problem, 'noAnswer', request.summary);
    assert.ok(request.ms < 9_000, `the client gave up first: ${request.ms} ms`);
    assert.equal(request.summary, 'the lab accepted the connection but sent no answer within 10 s');
  });

  it('names each body sentence of the lab’s client as its verdict', () => {
    const verdict = (id: 'bodyHeadersOnly' | 'bodyStopped' | 'bodyTooSlow'): string =>
      requestProblem(labError('timeout', id, { origin: url, seconds: 30, bytes: 3 }))!;
    assert.equal(verdict('bodyHeadersOnly'), 'stuck');
    assert.equal(verdict('bodyStopped'), 'stoppedMidAnswer');
    assert.equal(verdict('bodyTooSlow'), 'tooSlow');
    assert.equal(
      requestProblem(labError('timeout', 'timeout', { origin: url, what: 'connecting' })),
      'noAnswer',
    );
  });
});
