import * as net from 'node:net';
import * as tls from 'node:tls';
import { serverText } from '../../errors/serverText';
import { describeProxy, proxyCredentialSource, proxySource, type NetworkOptions } from '../network';
import { bounded, elapsed, StepTimeout } from './bounds';
import { systemReason } from '../../errors/errorText';
import { defaultPort, stripBrackets } from './resolve';
import type { CheckProblem, CheckStep } from './types';

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
export function statusLineOf(
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

/**
 * Step 3, the connection: through a proxy, the tunnel's answer (a refusal said with what to do, the
 * credentials' source named and never shown); else a direct TCP connection. Gives the open socket
 * when the step passed.
 */
export async function connectStep(
  url: URL,
  proxy: string | undefined,
  proxyUrl: URL | undefined,
  network: NetworkOptions,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<{ readonly step: CheckStep; readonly socket?: net.Socket }> {
  const host = stripBrackets(url.hostname);
  const port = defaultPort(url);
  const target = `${net.isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  return proxyUrl && proxy !== undefined
    ? tunnelStep(target, { proxy, proxyUrl, network }, ms, signal)
    : directStep({ host, port, target }, ms, signal);
}

/** The connection through a proxy: the tunnel's answer, or why the proxy could not be reached. */
async function tunnelStep(
  target: string,
  via: { readonly proxy: string; readonly proxyUrl: URL; readonly network: NetworkOptions },
  ms: number,
  signal: AbortSignal | undefined,
): Promise<{ readonly step: CheckStep; readonly socket?: net.Socket }> {
  const started = process.hrtime.bigint();
  const { proxy, proxyUrl, network } = via;
  const source = proxySource(proxy, network) ?? 'your proxy settings';
  let socket: net.Socket | undefined;
  try {
    socket = await openSocket(
      stripBrackets(proxyUrl.hostname),
      Number(proxyUrl.port || (proxyUrl.protocol === 'https:' ? 443 : 80)),
      { secure: proxyUrl.protocol === 'https:', ca: network.ca },
      ms,
      signal,
    );
    const sent = proxyCredentials(proxyUrl, network);
    const answer = await connectThrough(socket, target, sent, ms, signal);
    const details = [`CONNECT ${target} → ${answer.statusLine}`];
    if (answer.status >= 200 && answer.status < 300) {
      return {
        step: {
          kind: 'connect',
          outcome: 'ok',
          ms: elapsed(started),
          summary: `tunnel to ${target} open (HTTP ${answer.status})`,
          details,
        },
        socket,
      };
    }
    socket.destroy();
    return {
      step: {
        kind: 'connect',
        outcome: 'failed',
        ms: elapsed(started),
        details,
        ...tunnelRefusal(answer.status, target, sent !== undefined, via),
      },
    };
  } catch (error) {
    if (signal?.aborted) {
      throw error;
    }
    socket?.destroy();
    return {
      step: {
        kind: 'connect',
        outcome: 'failed',
        ms: elapsed(started),
        summary: `cannot reach the proxy at ${describeProxy(proxy)}: ${systemReason(error)}`,
        details: [`check ${source}`],
        problem: 'proxyUnreachable',
        advice: `Check ${source}, or ask your IT department whether the proxy is running.`,
      },
    };
  }
}

/** A proxy's refusal of the tunnel in words: credentials asked for (none sent, or wrong), or the lab not allowed. */
function tunnelRefusal(
  status: number,
  target: string,
  credentialsSent: boolean,
  via: { readonly proxy: string; readonly network: NetworkOptions },
): Pick<CheckStep, 'summary' | 'problem' | 'advice'> {
  if (status !== 407 && status !== 401) {
    return {
      summary: `the proxy refused the tunnel to ${target} (HTTP ${status}); ask your network administrators to allow the lab, or add it to http.noProxy`,
      problem: 'proxyRefused',
      advice:
        'Ask your network administrators to allow the lab through the proxy, or add the lab to http.noProxy if it is reached without one.',
    };
  }
  if (!credentialsSent) {
    return {
      summary: `the proxy asks for credentials (HTTP ${status}) and none were sent: set http.proxyAuthorization, or write user:password@ into the proxy address`,
      problem: 'proxyCredentials',
      advice:
        'Give the proxy your user name and password: set http.proxyAuthorization, or write user:password@ into the proxy address.',
    };
  }
  const source = proxySource(via.proxy, via.network) ?? 'your proxy settings';
  const from =
    proxyCredentialSource(via.proxy, via.network) === 'proxyAuthorization'
      ? 'http.proxyAuthorization'
      : `the user name and password in the proxy address (${source})`;
  return {
    summary: `the proxy rejected the credentials from ${from} (HTTP ${status}): the user name or password is wrong`,
    problem: 'proxyCredentials',
    advice: `Correct the user name or password in ${from}.`,
  };
}

/** A direct TCP connection to the lab. */
async function directStep(
  to: { readonly host: string; readonly port: number; readonly target: string },
  ms: number,
  signal: AbortSignal | undefined,
): Promise<{ readonly step: CheckStep; readonly socket?: net.Socket }> {
  const started = process.hrtime.bigint();
  const { host, port, target } = to;
  try {
    const socket = await openSocket(host, port, { secure: false }, ms, signal);
    return {
      step: {
        kind: 'connect',
        outcome: 'ok',
        ms: elapsed(started),
        summary: `connected to ${target}`,
        details: [
          `local ${socket.localAddress ?? '?'}:${socket.localPort ?? '?'} → ${socket.remoteAddress ?? host}:${socket.remotePort ?? port}`,
        ],
      },
      socket,
    };
  } catch (error) {
    if (signal?.aborted) {
      throw error;
    }
    return {
      step: {
        kind: 'connect',
        outcome: 'failed',
        ms: elapsed(started),
        summary: `cannot connect to ${target}: ${systemReason(error)}`,
        details: [],
        problem: connectProblem(error),
      },
    };
  }
}
