import type * as net from 'node:net';
import { PassThrough } from 'node:stream';
import { LabApiError } from '../../errors/errors';
import { serverText } from '../../errors/serverText';
import { bodyStallOf } from '../errorMapping';
import { watchedBody, type BodyStall } from '../transport';
import { bounded, elapsed, StepTimeout } from './bounds';
import { systemReason } from '../../errors/errorText';
import type { CheckProblem, CheckStep, RequestProbe } from './types';

/** The verdict for each way a body fails the answer timeout. */
const STALL_PROBLEMS: Readonly<Record<BodyStall['kind'], CheckProblem>> = {
  headersOnly: 'stuck',
  stopped: 'stoppedMidAnswer',
  tooSlow: 'tooSlow',
};
/** The LabApiError sentence (core/errors/messages.ts) of each way a body fails the answer timeout. */
const STALL_SENTENCES: Readonly<Record<string, CheckProblem>> = {
  bodyHeadersOnly: 'stuck',
  bodyStopped: 'stoppedMidAnswer',
  bodyTooSlow: 'tooSlow',
};

/** The words of a request step that heard nothing back within the answer timeout. */
function silentWords(answerMs: number): string {
  return `the lab accepted the connection but sent no answer within ${answerMs / 1000} s`;
}

/** What a failed authenticated request found. */
export function requestProblem(error: unknown): CheckProblem {
  if (!(error instanceof LabApiError)) {
    return 'labError';
  }
  switch (error.code) {
    case 'timeout':
      return STALL_SENTENCES[error.text?.id ?? ''] ?? 'noAnswer';
    case 'unauthorized':
      return 'tokenRejected';
    case 'forbidden':
      return 'forbidden';
    case 'network':
      return 'unreachable';
    default:
      return 'labError';
  }
}

/**
 * How much longer than one answer timeout the signed-in request may take: a lab that sends its
 * headers at once and then nothing fails in the client one answer timeout after its headers, and
 * that verdict ("stuck") must arrive before the check gives up on the request as silent.
 */
function headersGraceMs(answerMs: number): number {
  return Math.min(answerMs / 2, 5_000);
}

/**
 * The last step signed in: one request through the lab's own client, its whole answer read, bounded
 * whatever its retries by one answer timeout and a little (a body that stops right after its
 * headers is said by the client as what it was).
 */
export async function authenticatedRequest(
  request: (signal: AbortSignal) => Promise<RequestProbe>,
  answerMs: number,
  signal: AbortSignal | undefined,
  started: bigint,
): Promise<CheckStep> {
  const own = new AbortController();
  const stop = (): void => own.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const probe = await bounded(
      request(own.signal),
      answerMs + headersGraceMs(answerMs),
      signal,
      () => own.abort(),
    );
    const count = `${probe.records} report${probe.records === 1 ? '' : 's'}${probe.totalCount !== undefined ? ` of ${probe.totalCount}` : ''}`;
    return {
      kind: 'request',
      outcome: 'ok',
      ms: elapsed(started),
      summary: `HTTP ${probe.status}, ${count}`,
      details: probe.requestId ? [`request id ${serverText(probe.requestId, 80)}`] : [],
      signedIn: true,
    };
  } catch (error) {
    if (signal?.aborted) {
      throw error;
    }
    const problem = error instanceof StepTimeout ? 'noAnswer' : requestProblem(error);
    const facts = error as { status?: number; requestId?: string; message?: string };
    const status = typeof facts.status === 'number' ? `HTTP ${facts.status}: ` : '';
    return {
      kind: 'request',
      outcome: 'failed',
      ms: elapsed(started),
      // A silence is said in the same words whether the check or the lab's client gave up on it.
      summary:
        problem === 'noAnswer'
          ? silentWords(answerMs)
          : `${status}${serverText(facts.message ?? String(error), 300)}`,
      details: facts.requestId ? [`request id ${serverText(facts.requestId, 80)}`] : [],
      problem,
      signedIn: true,
    };
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

/** What a whole answer read on the checked connection brought. */
interface WholeAnswer {
  readonly status: number;
  readonly statusLine: string;
  readonly bytes: number;
}

/**
 * The words a signed-out request's step uses for a body that failed the answer timeout, said as
 * the timeout it broke (not the time a late timer measured).
 */
function stallSummary(stall: BodyStall, status: number): string {
  const seconds = Math.round(stall.limitMs / 100) / 10;
  switch (stall.kind) {
    case 'headersOnly':
      return `the lab sent its headers (HTTP ${status}) but never the body: nothing for ${seconds} s; the lab's service is stuck`;
    case 'stopped':
      return `the lab sent part of its answer (HTTP ${status}, ${stall.bytes} bytes), then nothing for ${seconds} s`;
    case 'tooSlow':
      return `the lab sent its answer too slowly (HTTP ${status}): ${stall.bytes} bytes in ${seconds} s`;
  }
}

/**
 * The last step signed out: one GET of the lab's API path (`path`, the request that failed, else
 * the lab's address) without a token on the checked connection, its whole answer read under the
 * answer timeout: the headers within it, then a body that neither stops nor trickles for as long.
 * Any whole HTTP answer means the lab answers; headers without the body mean it is stuck.
 */
export async function requestWithoutToken(
  channel: net.Socket,
  url: URL,
  path: string | undefined,
  answerMs: number,
  signal: AbortSignal | undefined,
  started: bigint,
): Promise<CheckStep> {
  const asked = path ?? (url.pathname || '/');
  let status: number | undefined;
  try {
    const answer = await wholeAnswerOf(
      channel,
      `GET ${asked} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\nUser-Agent: lab-data-check\r\nConnection: close\r\n\r\n`,
      answerMs,
      signal,
      (headers) => (status = headers),
    );
    return {
      kind: 'request',
      outcome: 'ok',
      ms: elapsed(started),
      summary: `the lab answers (HTTP ${answer.status} without a token); not signed in, so no token was checked`,
      details: [`GET ${asked} → ${answer.statusLine}, ${answer.bytes} bytes`],
      signedIn: false,
    };
  } catch (error) {
    if (signal?.aborted) {
      throw error;
    }
    const stall = bodyStallOf(error);
    const timedOut = error instanceof StepTimeout;
    return {
      kind: 'request',
      outcome: 'failed',
      ms: elapsed(started),
      summary: stall
        ? stallSummary(stall, status ?? 0)
        : timedOut
          ? silentWords(answerMs)
          : `no answer: ${systemReason(error)}`,
      details: [`GET ${asked} (without a token)`],
      problem: stall ? STALL_PROBLEMS[stall.kind] : timedOut ? 'noAnswer' : 'unreachable',
      signedIn: false,
    };
  }
}

/**
 * Writes `request` on `socket` and reads the whole answer: its head within `ms` (else a
 * {@link StepTimeout}), then its body (by Content-Length, chunked to its last chunk, or to the
 * connection's end) under `watchedBody`, failing as it does for a body that stops or trickles.
 * `onHeaders` hears the status once the head came.
 */
function wholeAnswerOf(
  socket: net.Socket,
  request: string,
  ms: number,
  signal: AbortSignal | undefined,
  onHeaders: (status: number) => void,
): Promise<WholeAnswer> {
  let received = Buffer.alloc(0);
  let body: PassThrough | undefined;
  let expected: number | undefined;
  let chunked = false;
  let fed = 0;
  let tail = '';
  let headed: (head: { status: number; statusLine: string }) => void = () => undefined;
  let failed: (error: Error) => void = () => undefined;
  const head = new Promise<{ status: number; statusLine: string }>((resolve, reject) => {
    headed = resolve;
    failed = reject;
  });
  const feed = (chunk: Buffer): void => {
    if (!body || body.writableEnded || chunk.length === 0) {
      return;
    }
    body.write(chunk);
    fed += chunk.length;
    tail = (tail + chunk.toString('latin1')).slice(-7);
    if ((expected !== undefined && fed >= expected) || (chunked && tail.endsWith('0\r\n\r\n'))) {
      body.end();
    }
  };
  const onData = (chunk: Buffer): void => {
    if (body) {
      feed(chunk);
      return;
    }
    received = Buffer.concat([received, chunk]);
    const end = received.indexOf('\r\n\r\n');
    if (end < 0) {
      if (received.length > 16 * 1024) {
        failed(new Error('the lab’s answer is not HTTP (no end to its headers)'));
      }
      return;
    }
    const headText = received.subarray(0, end).toString('latin1');
    const statusLine = headText.slice(0, Math.max(0, headText.indexOf('\r\n')) || headText.length);
    const status = Number(/^HTTP\/\d(?:\.\d)?\s+(\d{3})/.exec(statusLine)?.[1] ?? NaN);
    if (Number.isNaN(status)) {
      failed(new Error(`the lab’s answer is not HTTP: ${serverText(statusLine, 80)}`));
      return;
    }
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(headText)?.[1];
    expected =
      status === 204 || status === 304 ? 0 : length !== undefined ? Number(length) : undefined;
    chunked = /\r\ntransfer-encoding:[^\r]*chunked/i.test(headText);
    body = new PassThrough();
    headed({ status, statusLine: serverText(statusLine, 120) });
    if (expected === 0) {
      body.end();
    }
    feed(received.subarray(end + 4));
  };
  const onEnd = (): void => {
    if (body) {
      if (!body.writableEnded) {
        body.end();
      }
    } else {
      failed(new Error('the lab closed the connection without an answer'));
    }
  };
  const onError = (error: Error): void => {
    if (body) {
      body.destroy(error);
    } else {
      failed(error);
    }
  };
  socket.on('data', onData);
  socket.once('end', onEnd);
  socket.on('error', onError);
  socket.write(request);
  const whole = bounded(head, ms, signal, () => socket.destroy()).then(({ status, statusLine }) => {
    onHeaders(status);
    const watched = watchedBody(body!, ms);
    let bytes = 0;
    return new Promise<WholeAnswer>((resolve, reject) => {
      watched.on('data', (chunk: Buffer) => (bytes += chunk.length));
      watched.once('end', () => resolve({ status, statusLine, bytes }));
      watched.once('error', reject);
      signal?.addEventListener('abort', () => watched.destroy(signal.reason as Error), {
        once: true,
      });
    });
  });
  return whole.finally(() => {
    socket.removeListener('data', onData);
    socket.removeListener('end', onEnd);
    socket.removeListener('error', onError);
  });
}
