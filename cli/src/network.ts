import {
  describeProxy,
  loadCertificateAuthorities,
  proxyProblem,
  proxySecrets,
  resolveProxySettings,
  systemCertificates,
  type NetworkOptions,
} from '../../core/connection/network';
import { registerSecret } from '../../core/errors/serverText';
import { CliError, Exit } from './exitCodes';

/** How the tool reaches labs, and where that came from (for `--verbose`). */
export interface CliNetwork {
  readonly options: NetworkOptions;
  readonly described: string[];
}

/**
 * The tool's network, as the extension's own undici transport has it: the proxy from
 * `HTTPS_PROXY`/`HTTP_PROXY` (bypassed per `NO_PROXY`), and as trusted authorities Node's roots,
 * the operating system's store, `NODE_EXTRA_CA_CERTS` and every `--ca-file`, added together.
 */
export function networkFromEnvironment(
  env: NodeJS.ProcessEnv,
  caFiles: readonly string[],
): CliNetwork {
  const proxies = resolveProxySettings({ env });
  // A password in the proxy address never reaches the terminal, whatever prints it.
  [proxies.httpsProxy, proxies.httpProxy].forEach((proxy) =>
    proxySecrets(proxy).forEach(registerSecret),
  );
  for (const [proxy, source] of [
    [proxies.httpsProxy, proxies.httpsProxySource],
    [proxies.httpProxy, proxies.httpProxySource],
  ] as const) {
    const problem = proxy === undefined ? undefined : proxyProblem(proxy);
    if (problem) {
      throw new CliError(
        `${problem.message} (from ${source ?? 'HTTPS_PROXY or HTTP_PROXY'})`,
        Exit.usage,
      );
    }
  }
  const system = systemCertificates();
  const { ca, problems } = loadCertificateAuthorities(caFiles, env, undefined, system.certificates);
  if (problems.length > 0) {
    throw new CliError(problems.map((problem) => problem.message).join(' '), Exit.usage);
  }
  const described = [
    proxies.httpsProxy
      ? `proxy for https: ${describeProxy(proxies.httpsProxy)} (from ${proxies.httpsProxySource ?? 'the environment'})`
      : 'no proxy',
    `trusted authorities: Node's roots${system.source ? `, the system's (${system.source})` : ''}${env.NODE_EXTRA_CA_CERTS ? ', NODE_EXTRA_CA_CERTS' : ''}${caFiles.length > 0 ? `, ${caFiles.join(', ')}` : ''}`,
  ];
  return { options: { ...proxies, ...(ca ? { ca } : {}) }, described };
}
