import type * as net from 'node:net';
import { DEFAULT_TIMEOUTS } from '../httpClient';
import { proxyFor, proxyProblem } from '../network';
import { elapsed, notTried } from './bounds';
import { connectStep } from './connect';
import { proxyStep } from './proxy';
import { authenticatedRequest, requestWithoutToken } from './request';
import { resolveStep, stripBrackets } from './resolve';
import { tlsStep } from './tls';
import type { CheckStep, CheckStepKind, ConnectionCheck, ConnectionCheckOptions } from './types';

export type * from './types';

const DEFAULT_STEP_TIMEOUT_MS = DEFAULT_TIMEOUTS.connectMs;
/** How long the last step's request may take when the caller does not say: every request's answer timeout. */
export const DEFAULT_ANSWER_TIMEOUT_MS = DEFAULT_TIMEOUTS.headersMs;

/**
 * Checks one lab's connection step by step, as a person with a terminal would: the name lookup,
 * the proxy in use and who chose it, the tunnel's answer (or the direct connection), TLS with each
 * certificate and what trusted it, then one request: the authenticated one through the lab's own
 * client, or (signed out) one without a token, to hear that the lab answers at all. Plain Node
 * (`dns`, `net`, `tls`); the token goes only by `request`. Every step is timed and bounded (the
 * last by the answer timeout); the check stops at the first step that fails, and the steps after
 * it say they were not tried. None ever holds a credential in its text.
 */
export async function checkConnection(options: ConnectionCheckOptions): Promise<ConnectionCheck> {
  const ms = options.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
  const answerMs = options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS;
  const signal = options.signal;
  const onStep = options.onStep ?? (() => undefined);
  const url = new URL(options.baseUrl);
  const host = stripBrackets(url.hostname);
  const steps: CheckStep[] = [];
  const proxy = proxyFor(url, options.network);
  let proxyUrl: URL | undefined;
  try {
    proxyUrl = proxy === undefined || proxyProblem(proxy) ? undefined : new URL(proxy);
  } catch {
    proxyUrl = undefined;
  }
  const result = (): ConnectionCheck => {
    // Stopped at a failed step: the rest are listed as not tried, naming it.
    const failed = steps.find((step) => step.outcome === 'failed');
    const order: readonly CheckStepKind[] = ['resolve', 'proxy', 'connect', 'tls', 'request'];
    for (const kind of order.slice(steps.length)) {
      steps.push(notTried(kind, failed!.kind));
    }
    return {
      lab: options.name,
      baseUrl: options.baseUrl,
      ...(options.transport ? { transport: options.transport } : {}),
      steps,
      ok: steps.every((step) => step.outcome !== 'failed'),
    };
  };

  // 1. Name resolution: the lab's host; through a proxy, the proxy's host.
  onStep('resolve');
  steps.push(await resolveStep(host, proxyUrl, ms, signal));
  if (steps[0]!.outcome === 'failed') {
    return result();
  }

  // 2. The proxy in use and who chose it.
  onStep('proxy');
  steps.push(proxyStep(url, proxy, options.network));
  if (steps[1]!.outcome === 'failed') {
    return result();
  }

  // 3. The connection: the tunnel's answer through a proxy, else a direct TCP connection.
  onStep('connect');
  const connected = await connectStep(url, proxy, proxyUrl, options.network, ms, signal);
  steps.push(connected.step);
  const socket = connected.socket;
  if (!socket) {
    return result();
  }

  // 4. TLS, for an https lab.
  onStep('tls');
  let started = process.hrtime.bigint();
  let channel: net.Socket = socket;
  if (url.protocol !== 'https:') {
    steps.push({
      kind: 'tls',
      outcome: 'skipped',
      ms: 0,
      summary: 'not used: the lab is reached over plain http (only a lab on this machine may be)',
      details: [],
    });
  } else {
    const { secure, ...step } = await tlsStep(socket, url, options, ms);
    steps.push({ ...step, ms: elapsed(started) });
    if (!secure) {
      socket.destroy();
      return result();
    }
    channel = secure;
  }

  // 5. One request: with the token through the lab's own client, else one without a token on this connection.
  onStep('request');
  started = process.hrtime.bigint();
  try {
    if (options.request) {
      channel.destroy();
      steps.push(await authenticatedRequest(options.request, answerMs, signal, started));
    } else {
      steps.push(await requestWithoutToken(channel, url, options.path, answerMs, signal, started));
    }
  } finally {
    channel.destroy();
    socket.destroy();
  }
  return result();
}
