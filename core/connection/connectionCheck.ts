import { X509Certificate } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { serverText } from '../errors/serverText';
import {
  bypassesProxy,
  describeProxy,
  pemCertificates,
  proxyCredentialSource,
  proxyFor,
  proxyProblem,
  proxySource,
  type NetworkOptions,
} from './network';
import { isLoopbackHost } from './baseUrl';
import { tlsProblemOf } from './tlsProblems';
import { errorText } from '../errors/errorText';
import { LabApiError } from '../errors/errors';
import { DEFAULT_TIMEOUTS } from './httpClient';

/** The steps of a connection check, in the order they run. */
export type CheckStepKind = 'resolve' | 'proxy' | 'connect' | 'tls' | 'request';

export type CheckOutcome = 'ok' | 'failed' | 'skipped';

/** What a failed step found, for the plain sentence and the next thing to try (`core/derived/connectionReport.ts`). */
export type CheckProblem =
  | 'notFound'
  | 'proxyNotFound'
  | 'proxyInvalid'
  | 'refused'
  | 'connectTimeout'
  | 'unreachable'
  | 'proxyUnreachable'
  | 'proxyCredentials'
  | 'proxyRefused'
  | 'untrusted'
  | 'tlsFailed'
  | 'noAnswer'
  | 'tokenRejected'
  | 'forbidden'
  | 'labError';

/** One step: how it went, how long it took, one line that says so and the facts behind it. */
export interface CheckStep {
  readonly kind: CheckStepKind;
  readonly outcome: CheckOutcome;
  readonly ms: number;
  readonly summary: string;
  readonly details: readonly string[];
  /** Set on a failed step: what it found. */
  readonly problem?: CheckProblem;
  /** Set on a failed step when the check knows what to do about it, in plain words. */
  readonly advice?: string;
  /** The request step: whether it went with the token (false: an answer without one, signed out). */
  readonly signedIn?: boolean;
}

/** What the authenticated request of the last step found. */
export interface RequestProbe {
  readonly status: number;
  readonly requestId?: string;
  readonly records: number;
  readonly totalCount?: number;
}

export interface ConnectionCheck {
  readonly lab: string;
  readonly baseUrl: string;
  /** How the lab's own requests leave (which transport, and why), as the caller said. */
  readonly transport?: string;
  readonly steps: readonly CheckStep[];
  /** No step failed. */
  readonly ok: boolean;
}

export interface ConnectionCheckOptions {
  /** How the lab's own requests leave (which transport, and why), for the report. */
  readonly transport?: string;
  /** The lab's name, for the report. */
  readonly name: string;
  /** The lab's base URL (`https://lab.example.com/lims`). */
  readonly baseUrl: string;
  /** The network options the lab's requests use (proxy, its source, credentials, authorities). */
  readonly network: NetworkOptions;
  /** The files of `labData.caCertificates`, to say which one trusted the chain. */
  readonly caFiles?: readonly string[];
  /** For `NODE_EXTRA_CA_CERTS`. */
  readonly env?: NodeJS.ProcessEnv;
  /** The authenticated one-item request through the lab's own client; undefined when signed out. */
  readonly request?: (signal: AbortSignal) => Promise<RequestProbe>;
  readonly signal?: AbortSignal;
  /** How long each network step may take (10 s, the connect timeout of every request). */
  readonly timeoutMs?: number;
  /** How long the lab may take to answer the last step's request (30 s, the answer timeout of every request). */
  readonly answerTimeoutMs?: number;
  /** Told as each step starts, so a person sees what is being waited for. */
  readonly onStep?: (kind: CheckStepKind) => void;
  readonly read?: (file: string) => string;
}

const DEFAULT_STEP_TIMEOUT_MS = DEFAULT_TIMEOUTS.connectMs;
const DEFAULT_ANSWER_TIMEOUT_MS = DEFAULT_TIMEOUTS.headersMs;

class StepTimeout extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms / 1000} s`);
  }
}

/** `work`, failing with a {@link StepTimeout} after `ms` and with the abort reason when `signal` aborts; `cleanup` runs when either gives up. */
function bounded<T>(
  work: Promise<T>,
  ms: number,
  signal: AbortSignal | undefined,
  cleanup: () => void = () => undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void =>
      finish(() => reject(signal?.reason ?? new Error('cancelled')), true);
    const timer = setTimeout(() => finish(() => reject(new StepTimeout(ms)), true), ms);
    let done = false;
    function finish(settle: () => void, gaveUp: boolean): void {
      if (done) {
        return;
      }
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (gaveUp) {
        cleanup();
      }
      settle();
    }
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => finish(() => resolve(value), false),
      (error: unknown) => finish(() => reject(error), false),
    );
  });
}

function elapsed(started: bigint): number {
  return Math.round(Number(process.hrtime.bigint() - started) / 1e6);
}

/** A system error in words: its code, and for the common ones what it means. */
function reasonOf(error: unknown): string {
  if (error instanceof StepTimeout) {
    return error.message;
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'the connection was dropped',
    ENOTFOUND: 'host name not found',
    EAI_AGAIN: 'the name server did not answer',
    ETIMEDOUT: 'timed out',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
  };
  const message = serverText(errorText(error));
  return code ? `${words[code] ?? message} (${code})` : message;
}

/** What a failed connection found: refused, too slow, or not reachable at all. */
function connectProblem(error: unknown): CheckProblem {
  if (error instanceof StepTimeout) {
    return 'connectTimeout';
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNREFUSED'
    ? 'refused'
    : code === 'ETIMEDOUT'
      ? 'connectTimeout'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'notFound'
        : 'unreachable';
}

function stripBrackets(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}

function defaultPort(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/** Resolves one host name; an IP address needs no lookup. */
async function lookUp(
  host: string,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<{ ok: true; text: string } | { ok: false; text: string }> {
  if (net.isIP(host) !== 0) {
    return { ok: true, text: `${host} is an address; nothing to look up` };
  }
  try {
    const found = await bounded(dns.lookup(host, { all: true }), ms, signal);
    return { ok: true, text: `${host} → ${found.map((entry) => entry.address).join(', ')}` };
  } catch (error) {
    if (signal?.aborted) {
      throw error;
    }
    return { ok: false, text: `${host}: ${reasonOf(error)}` };
  }
}

/** The `Proxy-Authorization` a tunnel sends, as the undici transport would: `http.proxyAuthorization`, else the proxy address's user info. */
function proxyCredentials(proxy: URL, network: NetworkOptions): string | undefined {
  if (network.proxyAuthorization) {
    return network.proxyAuthorization;
  }
  if (!proxy.username || !proxy.password) {
    return undefined;
  }
  const decode = (text: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  return `Basic ${Buffer.from(`${decode(proxy.username)}:${decode(proxy.password)}`).toString('base64')}`;
}

/** Opens a TCP (or, for an https proxy, TLS) connection to `host:port`. */
function openSocket(
  host: string,
  port: number,
  options: { secure: boolean; ca?: readonly string[] },
  ms: number,
  signal: AbortSignal | undefined,
): Promise<net.Socket> {
  const socket = options.secure
    ? tls.connect({
        host,
        port,
        ...(net.isIP(host) === 0 ? { servername: host } : {}),
        ...(options.ca ? { ca: [...options.ca] } : {}),
      })
    : net.connect({ host, port });
  const connected = new Promise<net.Socket>((resolve, reject) => {
    socket.once(options.secure ? 'secureConnect' : 'connect', () => {
      socket.removeListener('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
  return bounded(connected, ms, signal, () => socket.destroy());
}

/**
 * Writes `request` on `socket` and reads the answer's status line (an HTTP head, up to 16 KiB);
 * `who` names the other end in the error when it is not HTTP or closes first.
 */
function statusLineOf(
  socket: net.Socket,
  request: string,
  who: string,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<{ status: number; statusLine: string }> {
  const answered = new Promise<{ status: number; statusLine: string }>((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0 && received.length < 16 * 1024) {
        return;
      }
      cleanup();
      const statusLine = received
        .subarray(0, Math.max(0, received.indexOf('\r\n')))
        .toString('latin1');
      const status = Number(/^HTTP\/\d(?:\.\d)?\s+(\d{3})/.exec(statusLine)?.[1] ?? NaN);
      if (Number.isNaN(status)) {
        reject(
          new Error(
            `${who}'s answer is not HTTP: ${serverText(statusLine || received.subarray(0, 80).toString('latin1'), 80)}`,
          ),
        );
        return;
      }
      resolve({ status, statusLine: serverText(statusLine, 120) });
    };
    const onEnd = (): void => {
      cleanup();
      reject(new Error(`${who} closed the connection without an answer`));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    function cleanup(): void {
      socket.removeListener('data', onData);
      socket.removeListener('end', onEnd);
      socket.removeListener('error', onError);
    }
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
    socket.write(request);
  });
  return bounded(answered, ms, signal, () => socket.destroy());
}

/** Sends a CONNECT for `target` and reads the proxy's answer: its status and status line. */
function connectThrough(
  socket: net.Socket,
  target: string,
  credentials: string | undefined,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<{ status: number; statusLine: string }> {
  return statusLineOf(
    socket,
    `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${credentials ? `Proxy-Authorization: ${credentials}\r\n` : ''}\r\n`,
    'the proxy',
    ms,
    signal,
  );
}

interface PeerCertificate {
  readonly subject?: Record<string, string | string[]>;
  readonly issuer?: Record<string, string | string[]>;
  readonly valid_to?: string;
  readonly raw?: Buffer;
  readonly issuerCertificate?: PeerCertificate;
}

/** A certificate's name for a person: its common name, else its organisation. */
function nameOf(name: Record<string, string | string[]> | undefined): string {
  const first = (value: string | string[] | undefined): string | undefined =>
    Array.isArray(value) ? value[0] : value;
  const text = first(name?.CN) ?? first(name?.O) ?? first(name?.OU);
  return text ? serverText(text, 120) : '(no name)';
}

/** The chain the server sent, leaf first, up to the root Node found for it. */
function chainOf(leaf: PeerCertificate): PeerCertificate[] {
  const chain: PeerCertificate[] = [];
  let current: PeerCertificate | undefined = leaf;
  while (
    current &&
    Object.keys(current).length > 0 &&
    !chain.includes(current) &&
    chain.length < 10
  ) {
    chain.push(current);
    current = current.issuerCertificate;
  }
  return chain;
}

function validTo(certificate: PeerCertificate): string {
  const date = certificate.valid_to ? new Date(certificate.valid_to) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString().slice(0, 10) : 'unknown';
}

/** Which set of authorities holds the root (or the issuer) of `top`: Node's roots, a CA file, or the configured list. */
function trustedBy(
  top: PeerCertificate,
  options: ConnectionCheckOptions,
  read: (file: string) => string,
): string {
  let anchor: X509Certificate;
  try {
    anchor = new X509Certificate(top.raw!);
  } catch {
    return 'the trusted authorities';
  }
  const holds = (pems: readonly string[]): boolean =>
    pems.some((pem) => {
      try {
        const candidate = new X509Certificate(pem);
        return (
          candidate.fingerprint256 === anchor.fingerprint256 ||
          (anchor.checkIssued(candidate) && anchor.verify(candidate.publicKey))
        );
      } catch {
        return false;
      }
    });
  const fileCertificates = (file: string): string[] => {
    try {
      return pemCertificates(read(file));
    } catch {
      return [];
    }
  };
  if (holds(tls.rootCertificates)) {
    return "Node's built-in roots";
  }
  for (const file of options.caFiles ?? []) {
    if (holds(fileCertificates(file))) {
      return `the CA file ${file} (labData.caCertificates)`;
    }
  }
  const extra = (options.env ?? process.env).NODE_EXTRA_CA_CERTS;
  if (extra && holds(fileCertificates(extra))) {
    return `the CA file ${extra} (NODE_EXTRA_CA_CERTS)`;
  }
  if (options.network.ca && holds(options.network.ca)) {
    return 'the operating system’s trust store';
  }
  return 'the trusted authorities';
}

/** What a verification failure means and what to do about it. */
function untrustedAdvice(code: string): string {
  switch (tlsProblemOf(code)) {
    case 'unknownRoot':
    case 'unknownIssuer':
      return 'The chain ends in a root certificate this machine does not trust. This is often a proxy that inspects TLS (your organisation’s), or a private certificate authority. To trust its root, get the root certificate (PEM) from your IT department and add it to the operating system’s trust store, or name the file in the labData.caCertificates setting. Lab Data never switches verification off.';
    case 'selfSigned':
      return 'The lab’s certificate is self-signed. If you trust it, name a file holding it (PEM) in the labData.caCertificates setting.';
    case 'expired':
      return 'A certificate of the chain has expired or is not valid yet (check this machine’s clock); ask the lab to renew it.';
    case 'wrongHost':
      return 'The certificate is for another host name; check the lab address.';
    default:
      return 'If your organisation uses a private certificate authority, add it to the operating system’s trust store or to the labData.caCertificates setting.';
  }
}

/** The TLS handshake over `socket` (direct or through the tunnel), never rejecting a chain before it is described. */
async function tlsStep(
  socket: net.Socket,
  url: URL,
  options: ConnectionCheckOptions,
  ms: number,
): Promise<Omit<CheckStep, 'ms'> & { secure?: tls.TLSSocket }> {
  const host = stripBrackets(url.hostname);
  const secure = tls.connect({
    socket,
    host,
    ...(net.isIP(host) === 0 ? { servername: host } : {}),
    ...(options.network.ca ? { ca: [...options.network.ca] } : {}),
    // Verification is judged below from `authorized`, so the chain can be described either way; no data is sent.
    rejectUnauthorized: false,
  });
  try {
    await bounded(
      new Promise<void>((resolve, reject) => {
        secure.once('secureConnect', () => {
          secure.removeListener('error', reject);
          resolve();
        });
        secure.once('error', reject);
      }),
      ms,
      options.signal,
      () => secure.destroy(),
    );
  } catch (error) {
    if (options.signal?.aborted) {
      throw error;
    }
    secure.destroy();
    return {
      kind: 'tls',
      outcome: 'failed',
      summary: `the TLS handshake failed: ${reasonOf(error)}`,
      details: [],
      problem: 'tlsFailed',
    };
  }
  const chain = chainOf(secure.getPeerCertificate(true) as unknown as PeerCertificate);
  const details = [`protocol: ${secure.getProtocol() ?? 'unknown'}`];
  chain.forEach((certificate, index) =>
    details.push(
      `certificate ${index + 1}: ${nameOf(certificate.subject)}, issued by ${nameOf(certificate.issuer)}, valid to ${validTo(certificate)}`,
    ),
  );
  if (secure.authorized) {
    const by =
      chain.length > 0
        ? trustedBy(
            chain[chain.length - 1]!,
            options,
            options.read ?? ((file) => readFileSync(file, 'utf8')),
          )
        : 'the trusted authorities';
    details.push(`trusted by ${by}`);
    return { kind: 'tls', outcome: 'ok', summary: `trusted, by ${by}`, details, secure };
  }
  const code = serverText(String(secure.authorizationError ?? 'unknown'), 80);
  const advice = untrustedAdvice(code);
  secure.destroy();
  return {
    kind: 'tls',
    outcome: 'failed',
    summary: `not trusted: ${code}`,
    details,
    problem: 'untrusted',
    advice,
  };
}

/** A later step that did not run because `failed` did. */
function notTried(kind: CheckStepKind, failed: CheckStepKind): CheckStep {
  const names: Readonly<Record<CheckStepKind, string>> = {
    resolve: 'the name lookup',
    proxy: 'the proxy',
    connect: 'the connection',
    tls: 'TLS',
    request: 'the request',
  };
  return {
    kind,
    outcome: 'skipped',
    ms: 0,
    summary: `not tried: ${names[failed]} failed`,
    details: [],
  };
}

/** What a failed authenticated request found. */
function requestProblem(error: unknown): CheckProblem {
  if (!(error instanceof LabApiError)) {
    return 'labError';
  }
  switch (error.code) {
    case 'timeout':
      return 'noAnswer';
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
  const port = defaultPort(url);
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

  // 1. Name resolution: the lab's host; through a proxy, the proxy's host (the proxy looks the lab up).
  onStep('resolve');
  let started = process.hrtime.bigint();
  const labName = await lookUp(host, ms, signal);
  const proxyName = proxyUrl
    ? await lookUp(stripBrackets(proxyUrl.hostname), ms, signal)
    : undefined;
  if (proxyName) {
    const labLine = labName.ok
      ? labName.text
      : `${labName.text}; through the proxy only the proxy needs to find it`;
    steps.push({
      kind: 'resolve',
      outcome: proxyName.ok ? 'ok' : 'failed',
      ms: elapsed(started),
      summary: proxyName.ok ? 'the proxy’s host was found' : 'the proxy’s host was not found',
      details: [`lab: ${labLine}`, `proxy: ${proxyName.text}`],
      ...(proxyName.ok ? {} : { problem: 'proxyNotFound' as const }),
    });
  } else {
    steps.push({
      kind: 'resolve',
      outcome: labName.ok ? 'ok' : 'failed',
      ms: elapsed(started),
      summary: !labName.ok
        ? 'the lab’s host was not found'
        : net.isIP(host) !== 0
          ? 'an address: nothing to look up'
          : 'the lab’s host was found',
      details: [labName.text],
      ...(labName.ok ? {} : { problem: 'notFound' as const }),
    });
  }
  if (!(proxyName ?? labName).ok) {
    return result();
  }

  // 2. The proxy in use and who chose it.
  onStep('proxy');
  started = process.hrtime.bigint();
  if (proxy !== undefined) {
    const problem = proxyProblem(proxy);
    const source = proxySource(proxy, options.network) ?? 'your proxy settings';
    const credentials = proxyCredentialSource(proxy, options.network);
    const details = [
      `proxy: ${describeProxy(proxy)}, chosen by ${source}`,
      `credentials: ${credentials === 'proxyAuthorization' ? 'from http.proxyAuthorization' : credentials === 'proxyUrl' ? `from the user info of the address in ${source}` : 'none sent'}`,
    ];
    if (problem) {
      details.push(problem.message);
    }
    steps.push({
      kind: 'proxy',
      outcome: problem ? 'failed' : 'ok',
      ms: elapsed(started),
      summary: `${describeProxy(proxy)} (from ${source})`,
      details,
      ...(problem ? { problem: 'proxyInvalid' as const, advice: `Correct ${source}.` } : {}),
    });
    if (problem) {
      return result();
    }
  } else {
    const configured =
      url.protocol === 'https:' ? options.network.httpsProxy : options.network.httpProxy;
    const why = isLoopbackHost(url.hostname)
      ? 'a lab on this machine is never reached through a proxy'
      : configured && bypassesProxy(url, options.network.noProxy)
        ? `the lab's host is in noProxy (http.noProxy or NO_PROXY), so ${describeProxy(configured)} is bypassed`
        : 'no proxy is set (http.proxy, HTTPS_PROXY, HTTP_PROXY)';
    steps.push({
      kind: 'proxy',
      outcome: 'ok',
      ms: elapsed(started),
      summary: 'direct',
      details: [why],
    });
  }

  // 3. The connection: the tunnel's answer through a proxy, else a direct TCP connection.
  onStep('connect');
  started = process.hrtime.bigint();
  let socket: net.Socket | undefined;
  const target = `${net.isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  if (proxyUrl && proxy !== undefined) {
    const proxyHost = stripBrackets(proxyUrl.hostname);
    const proxyPort = Number(proxyUrl.port || (proxyUrl.protocol === 'https:' ? 443 : 80));
    try {
      socket = await openSocket(
        proxyHost,
        proxyPort,
        { secure: proxyUrl.protocol === 'https:', ca: options.network.ca },
        ms,
        signal,
      );
      const sent = proxyCredentials(proxyUrl, options.network);
      const answer = await connectThrough(socket, target, sent, ms, signal);
      const source = proxySource(proxy, options.network) ?? 'your proxy settings';
      const details = [`CONNECT ${target} → ${answer.statusLine}`];
      if (answer.status >= 200 && answer.status < 300) {
        steps.push({
          kind: 'connect',
          outcome: 'ok',
          ms: elapsed(started),
          summary: `tunnel to ${target} open (HTTP ${answer.status})`,
          details,
        });
      } else {
        socket.destroy();
        socket = undefined;
        let summary: string;
        let advice: string;
        const credentialsAsked = answer.status === 407 || answer.status === 401;
        if (credentialsAsked) {
          const from =
            proxyCredentialSource(proxy, options.network) === 'proxyAuthorization'
              ? 'http.proxyAuthorization'
              : `the user name and password in the proxy address (${source})`;
          summary =
            sent === undefined
              ? `the proxy asks for credentials (HTTP ${answer.status}) and none were sent: set http.proxyAuthorization, or write user:password@ into the proxy address`
              : `the proxy rejected the credentials from ${from} (HTTP ${answer.status}): the user name or password is wrong`;
          advice =
            sent === undefined
              ? 'Give the proxy your user name and password: set http.proxyAuthorization, or write user:password@ into the proxy address.'
              : `Correct the user name or password in ${from}.`;
        } else {
          summary = `the proxy refused the tunnel to ${target} (HTTP ${answer.status}); ask your network administrators to allow the lab, or add it to http.noProxy`;
          advice =
            'Ask your network administrators to allow the lab through the proxy, or add the lab to http.noProxy if it is reached without one.';
        }
        steps.push({
          kind: 'connect',
          outcome: 'failed',
          ms: elapsed(started),
          summary,
          details,
          problem: credentialsAsked ? 'proxyCredentials' : 'proxyRefused',
          advice,
        });
        return result();
      }
    } catch (error) {
      if (signal?.aborted) {
        throw error;
      }
      socket?.destroy();
      const source = proxySource(proxy, options.network) ?? 'your proxy settings';
      steps.push({
        kind: 'connect',
        outcome: 'failed',
        ms: elapsed(started),
        summary: `cannot reach the proxy at ${describeProxy(proxy)}: ${reasonOf(error)}`,
        details: [`check ${source}`],
        problem: 'proxyUnreachable',
        advice: `Check ${source}, or ask your IT department whether the proxy is running.`,
      });
      return result();
    }
  } else {
    try {
      socket = await openSocket(host, port, { secure: false }, ms, signal);
      steps.push({
        kind: 'connect',
        outcome: 'ok',
        ms: elapsed(started),
        summary: `connected to ${target}`,
        details: [
          `local ${socket.localAddress ?? '?'}:${socket.localPort ?? '?'} → ${socket.remoteAddress ?? host}:${socket.remotePort ?? port}`,
        ],
      });
    } catch (error) {
      if (signal?.aborted) {
        throw error;
      }
      steps.push({
        kind: 'connect',
        outcome: 'failed',
        ms: elapsed(started),
        summary: `cannot connect to ${target}: ${reasonOf(error)}`,
        details: [],
        problem: connectProblem(error),
      });
      return result();
    }
  }

  // 4. TLS, for an https lab.
  onStep('tls');
  started = process.hrtime.bigint();
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
      steps.push(await requestWithoutToken(channel, url, answerMs, signal, started));
    }
  } finally {
    channel.destroy();
    socket.destroy();
  }
  return result();
}

/** The last step signed in: one request through the lab's own client, bounded by the answer timeout whatever its retries. */
async function authenticatedRequest(
  request: (signal: AbortSignal) => Promise<RequestProbe>,
  answerMs: number,
  signal: AbortSignal | undefined,
  started: bigint,
): Promise<CheckStep> {
  const own = new AbortController();
  const stop = (): void => own.abort(signal?.reason);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const probe = await bounded(request(own.signal), answerMs, signal, () => own.abort());
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
    if (error instanceof StepTimeout) {
      return {
        kind: 'request',
        outcome: 'failed',
        ms: elapsed(started),
        summary: `the lab accepted the connection but sent no answer within ${answerMs / 1000} s`,
        details: [],
        problem: 'noAnswer',
        signedIn: true,
      };
    }
    const facts = error as { status?: number; requestId?: string; message?: string };
    const status = typeof facts.status === 'number' ? `HTTP ${facts.status}: ` : '';
    return {
      kind: 'request',
      outcome: 'failed',
      ms: elapsed(started),
      summary: `${status}${serverText(facts.message ?? String(error), 300)}`,
      details: facts.requestId ? [`request id ${serverText(facts.requestId, 80)}`] : [],
      problem: requestProblem(error),
      signedIn: true,
    };
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

/** The last step signed out: one GET of the lab's address without a token on the checked connection; any HTTP answer means the lab answers. */
async function requestWithoutToken(
  channel: net.Socket,
  url: URL,
  answerMs: number,
  signal: AbortSignal | undefined,
  started: bigint,
): Promise<CheckStep> {
  const path = url.pathname || '/';
  try {
    const answer = await statusLineOf(
      channel,
      `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\nUser-Agent: lab-data-check\r\nConnection: close\r\n\r\n`,
      'the lab',
      answerMs,
      signal,
    );
    return {
      kind: 'request',
      outcome: 'ok',
      ms: elapsed(started),
      summary: `the lab answers (HTTP ${answer.status} without a token); not signed in, so no token was checked`,
      details: [`GET ${path} → ${answer.statusLine}`],
      signedIn: false,
    };
  } catch (error) {
    if (signal?.aborted) {
      throw error;
    }
    const timedOut = error instanceof StepTimeout;
    return {
      kind: 'request',
      outcome: 'failed',
      ms: elapsed(started),
      summary: timedOut
        ? `the lab accepted the connection but sent no answer within ${answerMs / 1000} s`
        : `no answer: ${reasonOf(error)}`,
      details: [`GET ${path} (without a token)`],
      problem: timedOut ? 'noAnswer' : 'unreachable',
      signedIn: false,
    };
  }
}
