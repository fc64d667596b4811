import { promises as dns } from 'node:dns';
import * as net from 'node:net';
import { bounded, elapsed } from './bounds';
import { systemReason } from '../../errors/errorText';
import type { CheckStep } from './types';

/** A host name without the brackets of an IPv6 address in a URL. */
export function stripBrackets(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}

/** The port a URL reaches: its own, or its scheme's. */
export function defaultPort(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/** Resolves one host name; an IP address needs no lookup. */
export async function lookUp(
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
    return { ok: false, text: `${host}: ${systemReason(error)}` };
  }
}

/**
 * Step 1, the name lookup: the lab's host; through a proxy, the proxy's host (the proxy looks the
 * lab up, so only the proxy's host must be found here).
 */
export async function resolveStep(
  host: string,
  proxyUrl: URL | undefined,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<CheckStep> {
  const started = process.hrtime.bigint();
  const labName = await lookUp(host, ms, signal);
  const proxyName = proxyUrl
    ? await lookUp(stripBrackets(proxyUrl.hostname), ms, signal)
    : undefined;
  if (proxyName) {
    const labLine = labName.ok
      ? labName.text
      : `${labName.text}; through the proxy only the proxy needs to find it`;
    return {
      kind: 'resolve',
      outcome: proxyName.ok ? 'ok' : 'failed',
      ms: elapsed(started),
      summary: proxyName.ok ? 'the proxy’s host was found' : 'the proxy’s host was not found',
      details: [`lab: ${labLine}`, `proxy: ${proxyName.text}`],
      ...(proxyName.ok ? {} : { problem: 'proxyNotFound' as const }),
    };
  }
  return {
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
  };
}
