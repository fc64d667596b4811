import { isLoopbackHost } from '../baseUrl';
import {
  bypassesProxy,
  describeProxy,
  proxyCredentialSource,
  proxyProblem,
  proxySource,
  type NetworkOptions,
} from '../network';
import { elapsed } from './bounds';
import type { CheckStep } from './types';

/** Step 2, the proxy in use and who chose it (or why the lab is reached directly). */
export function proxyStep(url: URL, proxy: string | undefined, network: NetworkOptions): CheckStep {
  const started = process.hrtime.bigint();
  if (proxy === undefined) {
    const configured = url.protocol === 'https:' ? network.httpsProxy : network.httpProxy;
    const why = isLoopbackHost(url.hostname)
      ? 'a lab on this machine is never reached through a proxy'
      : configured && bypassesProxy(url, network.noProxy)
        ? `the lab's host is in noProxy (http.noProxy or NO_PROXY), so ${describeProxy(configured)} is bypassed`
        : 'no proxy is set (http.proxy, HTTPS_PROXY, HTTP_PROXY)';
    return {
      kind: 'proxy',
      outcome: 'ok',
      ms: elapsed(started),
      summary: 'direct',
      details: [why],
    };
  }
  const problem = proxyProblem(proxy);
  const source = proxySource(proxy, network) ?? 'your proxy settings';
  const credentials = proxyCredentialSource(proxy, network);
  const details = [
    `proxy: ${describeProxy(proxy)}, chosen by ${source}`,
    `credentials: ${credentials === 'proxyAuthorization' ? 'from http.proxyAuthorization' : credentials === 'proxyUrl' ? `from the user info of the address in ${source}` : 'none sent'}`,
  ];
  if (problem) {
    details.push(problem.message);
  }
  return {
    kind: 'proxy',
    outcome: problem ? 'failed' : 'ok',
    ms: elapsed(started),
    summary: `${describeProxy(proxy)} (from ${source})`,
    details,
    ...(problem ? { problem: 'proxyInvalid' as const, advice: `Correct ${source}.` } : {}),
  };
}
