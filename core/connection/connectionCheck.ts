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

/** The steps of a connection check, in the order they run. */
export type CheckStepKind = 'resolve' | 'proxy' | 'connect' | 'tls' | 'request';

export type CheckOutcome = 'ok' | 'failed' | 'skipped';

/** One step: how it went, how long it took, one line that says so and the facts behind it. */
export interface CheckStep {
  readonly kind: CheckStepKind;
  readonly outcome: CheckOutcome;
  readonly ms: number;
  readonly summary: string;
  readonly details: readonly string[];
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
  readonly read?: (file: string) => string;
}

const DEFAULT_STEP_TIMEOUT_MS = 10_000;

/** OpenSSL's words for a chain whose root this machine does not hold. */

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

/** Sends a CONNECT for `target` and reads the proxy's answer: its status and status line. */
function connectThrough(
  socket: net.Socket,
  target: string,
  credentials: string | undefined,
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
            `the proxy's answer is not HTTP: ${serverText(statusLine || received.subarray(0, 80).toString('latin1'), 80)}`,
          ),
        );
        return;
      }
      resolve({ status, statusLine: serverText(statusLine, 120) });
    };
    const onEnd = (): void => {
      cleanup();
      reject(new Error('the proxy closed the connection without an answer'));
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
    socket.write(
      `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${credentials ? `Proxy-Authorization: ${credentials}\r\n` : ''}\r\n`,
    );
  });
  return bounded(answered, ms, signal, () => socket.destroy());
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
  details.push(untrustedAdvice(code));
  secure.destroy();
  return { kind: 'tls', outcome: 'failed', summary: `not trusted: ${code}`, details };
}

/**
 * Checks one lab's connection step by step, as a person with a terminal would: the name lookup,
 * the proxy in use and who chose it, the tunnel's answer (or the direct connection), TLS with each
 * certificate and what trusted it, then one authenticated request through the lab's own client.
 * Plain Node (`dns`, `net`, `tls`); nothing is sent but a CONNECT and a TLS handshake, and the
 * token only by `request`. Every step is timed; none ever holds a credential in its text.
 */
export async function checkConnection(options: ConnectionCheckOptions): Promise<ConnectionCheck> {
  const ms = options.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
  const signal = options.signal;
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
  let reachable: boolean;

  // 1. Name resolution: the lab's host; through a proxy, the proxy's host (the proxy looks the lab up).
  let started = process.hrtime.bigint();
  const labName = await lookUp(host, ms, signal);
  const proxyName = proxyUrl
    ? await lookUp(stripBrackets(proxyUrl.hostname), ms, signal)
    : undefined;
  if (proxyName) {
    const labLine = labName.ok
      ? labName.text
      : `${labName.text}; through the proxy only the proxy needs to find it`;
    reachable = proxyName.ok;
    steps.push({
      kind: 'resolve',
      outcome: proxyName.ok ? 'ok' : 'failed',
      ms: elapsed(started),
      summary: proxyName.ok ? 'the proxy’s host was found' : 'the proxy’s host was not found',
      details: [`lab: ${labLine}`, `proxy: ${proxyName.text}`],
    });
  } else {
    reachable = labName.ok;
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
    });
  }

  // 2. The proxy in use and who chose it.
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
      reachable = false;
      details.push(problem.message);
    }
    steps.push({
      kind: 'proxy',
      outcome: problem ? 'failed' : 'ok',
      ms: elapsed(started),
      summary: `${describeProxy(proxy)} (from ${source})`,
      details,
    });
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
  started = process.hrtime.bigint();
  let socket: net.Socket | undefined;
  const target = `${net.isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  if (!reachable) {
    steps.push({
      kind: 'connect',
      outcome: 'skipped',
      ms: 0,
      summary: 'not tried: an earlier step failed',
      details: [],
    });
  } else if (proxyUrl && proxy !== undefined) {
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
        if (answer.status === 407 || answer.status === 401) {
          const from =
            proxyCredentialSource(proxy, options.network) === 'proxyAuthorization'
              ? 'http.proxyAuthorization'
              : `the user name and password in the proxy address (${source})`;
          summary =
            sent === undefined
              ? `the proxy asks for credentials (HTTP ${answer.status}) and none were sent: set http.proxyAuthorization, or write user:password@ into the proxy address`
              : `the proxy rejected the credentials from ${from} (HTTP ${answer.status}): the user name or password is wrong`;
        } else {
          summary = `the proxy refused the tunnel to ${target} (HTTP ${answer.status}); ask your network administrators to allow the lab, or add it to http.noProxy`;
        }
        steps.push({ kind: 'connect', outcome: 'failed', ms: elapsed(started), summary, details });
      }
    } catch (error) {
      if (signal?.aborted) {
        throw error;
      }
      socket?.destroy();
      socket = undefined;
      steps.push({
        kind: 'connect',
        outcome: 'failed',
        ms: elapsed(started),
        summary: `cannot reach the proxy at ${describeProxy(proxy)}: ${reasonOf(error)}`,
        details: [`check ${proxySource(proxy, options.network) ?? 'your proxy settings'}`],
      });
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
      });
    }
  }

  // 4. TLS, for an https lab.
  started = process.hrtime.bigint();
  if (url.protocol !== 'https:') {
    steps.push({
      kind: 'tls',
      outcome: 'skipped',
      ms: 0,
      summary: 'not used: the lab is reached over plain http (only a lab on this machine may be)',
      details: [],
    });
    socket?.destroy();
  } else if (!socket) {
    steps.push({
      kind: 'tls',
      outcome: 'skipped',
      ms: 0,
      summary: 'not tried: no connection',
      details: [],
    });
  } else {
    const { secure, ...step } = await tlsStep(socket, url, options, ms);
    secure?.destroy();
    socket.destroy();
    steps.push({ ...step, ms: elapsed(started) });
  }

  // 5. One authenticated request through the lab's own client (its transport, retries and all).
  started = process.hrtime.bigint();
  if (!options.request) {
    steps.push({
      kind: 'request',
      outcome: 'skipped',
      ms: 0,
      summary: 'not tried: not signed in to this lab',
      details: [],
    });
  } else {
    try {
      const probe = await options.request(signal ?? new AbortController().signal);
      const count = `${probe.records} report${probe.records === 1 ? '' : 's'}${probe.totalCount !== undefined ? ` of ${probe.totalCount}` : ''}`;
      steps.push({
        kind: 'request',
        outcome: 'ok',
        ms: elapsed(started),
        summary: `HTTP ${probe.status}, ${count}`,
        details: probe.requestId ? [`request id ${serverText(probe.requestId, 80)}`] : [],
      });
    } catch (error) {
      if (signal?.aborted) {
        throw error;
      }
      const facts = error as { status?: number; requestId?: string; message?: string };
      const status = typeof facts.status === 'number' ? `HTTP ${facts.status}: ` : '';
      steps.push({
        kind: 'request',
        outcome: 'failed',
        ms: elapsed(started),
        summary: `${status}${serverText(facts.message ?? String(error), 300)}`,
        details: facts.requestId ? [`request id ${serverText(facts.requestId, 80)}`] : [],
      });
    }
  }
  return {
    lab: options.name,
    baseUrl: options.baseUrl,
    ...(options.transport ? { transport: options.transport } : {}),
    steps,
    ok: steps.every((step) => step.outcome !== 'failed'),
  };
}
