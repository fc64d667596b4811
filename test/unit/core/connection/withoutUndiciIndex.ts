/**
 * Run in a fresh process by network.test ("undici's pools"): the core as the bundle runs it, with
 * undici's index never loaded. Lists reports from a loopback lab directly and from a TLS lab
 * through a forward proxy (CONNECT), then prints what it saw as JSON.
 */
import { LabApi } from '../../../../core/api/labApi';
import { parseLabDefinition, isInvalidLab } from '../../../../core/api/labDefinition';
import { loadCertificateAuthorities } from '../../../../core/connection/network';
import { MockLabServer } from '../../../mock/server';
import { makeTestCertificates } from '../../../support/certificates';
import { startForwardProxy } from '../../../support/forwardProxy';

async function main(): Promise<void> {
  const plain = new MockLabServer();
  const direct = LabApi.forBaseUrl(await plain.start(), { token: 'demo-full-access' });
  const directReports = (await direct.listReports()).items.length;
  await direct.close();
  await plain.stop();

  const certs = makeTestCertificates();
  const secure = new MockLabServer({ tls: { key: certs.key, cert: certs.cert } });
  const port = new URL(await secure.start()).port;
  const proxy = await startForwardProxy();
  const definition = parseLabDefinition({ name: 'Remote', baseUrl: `https://lab.test:${port}` }, 0);
  if (isInvalidLab(definition)) {
    throw new Error(definition.error.message);
  }
  const viaProxy = new LabApi({
    lab: definition,
    token: 'demo-full-access',
    network: {
      httpsProxy: proxy.url,
      noProxy: [],
      ca: loadCertificateAuthorities([certs.caFile]).ca,
    },
  });
  const proxiedReports = (await viaProxy.listReports()).items.length;
  const tunnelled = proxy.lines().some((line) => line.startsWith(`CONNECT lab.test:${port} `));
  await viaProxy.close();
  await proxy.stop();
  await secure.stop();
  certs.remove();
  const index = Object.keys(require.cache).some((file) => /undici[\\/]index\.js$/.test(file));
  process.stdout.write(JSON.stringify({ directReports, proxiedReports, tunnelled, index }));
}

main().catch((error: unknown) => {
  process.stderr.write(String(error instanceof Error ? error.stack : error));
  process.exit(1);
});
