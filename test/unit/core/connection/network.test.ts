import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as path from 'node:path';
import * as http from 'node:http';
import * as net from 'node:net';
import { rootCertificates } from 'node:tls';
import type { LabApiError } from '../../../../core/errors/errors';
import { LabApi } from '../../../../core/api/labApi';
import {
  parseLabDefinition,
  isInvalidLab,
  type LabDefinition,
} from '../../../../core/api/labDefinition';
import {
  bypassesProxy,
  describeProxy,
  loadCertificateAuthorities,
  proxyFor,
  resolveProxySettings,
  type NetworkOptions,
} from '../../../../core/connection/network';
import { RateLimitGate } from '../../../../core/connection/timing';
import { Agent, ProxyAgent } from '../../../../core/connection/undiciTransport';
import * as undici from 'undici';
import { MockLabHost, MockLabServer } from '../../../mock/server';
import { makeTestCertificates, type TestCertificates } from '../../../support/certificates';
import { startForwardProxy, type ForwardProxy } from '../../../support/forwardProxy';
import { FIXED_NOW, SECRET_TOKEN, rejection } from '../../helpers';

const FAST = { retry: { baseDelayMs: 1, maxDelayMs: 2, retries: 1 } } as const;

function lab(entry: Record<string, unknown>): LabDefinition {
  const parsed = parseLabDefinition(entry, 0);
  assert.ok(!isInvalidLab(parsed), isInvalidLab(parsed) ? parsed.error.message : '');
  return parsed;
}

function api(definition: LabDefinition, token: string, network?: NetworkOptions): LabApi {
  return new LabApi({
    lab: definition,
    token,
    network,
    rateLimitGate: new RateLimitGate(),
    ...FAST,
  });
}

describe("undici's pools", () => {
  it('are the very classes and request undici exports (taken from their modules to keep fetch and WebSocket out of the bundle)', async () => {
    // Ours add a guard to every socket (see "close-delimited bodies"); otherwise they are undici's own.
    assert.equal(Object.getPrototypeOf(Agent), undici.Agent);
    assert.equal(Object.getPrototypeOf(ProxyAgent), undici.ProxyAgent);
    const agent = new Agent();
    try {
      // undici's index adds `request` to every dispatcher; ours calls the same function without it.
      assert.equal(typeof (agent as { request?: unknown }).request, 'function');
      assert.equal(
        (agent as { request?: unknown }).request,
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        require('undici/lib/api/api-request.js'),
      );
    } finally {
      await agent.close();
    }
  });

  it("serve the core on their own, as in the bundle, where undici's index is never loaded: direct and through a proxy", async function () {
    // The fresh process makes test certificates and starts a lab, a TLS lab and a proxy: on a busy
    // machine that took over 30 s once. The timeout only tells a hang; run asynchronously, so that
    // mocha's timer can fire while the child runs.
    this.timeout(120_000);
    const result = await promisify(execFile)(
      process.execPath,
      [path.join(__dirname, 'withoutUndiciIndex.js')],
      { encoding: 'utf8' },
    ).catch((error: Error & { stderr?: string }) => {
      throw new Error(`the fresh process failed: ${error.stderr ?? error.message}`);
    });
    assert.deepEqual(JSON.parse(result.stdout), {
      directReports: 50,
      proxiedReports: 50,
      tunnelled: true,
      index: false,
    });
  });
});

describe('noProxy patterns', () => {
  const url = (text: string): URL => new URL(text);
  it('match exact hosts, domain suffixes, *, host:port, IP addresses and IPv4 ranges', () => {
    const cases: Array<[string, string, boolean]> = [
      ['lab.example.com', 'https://lab.example.com/x', true],
      ['lab.example.com', 'https://sub.lab.example.com/x', true],
      ['lab.example.com', 'https://evil-lab.example.com/x', false],
      ['.corp.example', 'https://a.corp.example', true],
      ['.corp.example', 'https://corp.example', true],
      ['*.corp.example', 'https://b.a.corp.example', true],
      ['.corp.example', 'https://corp.example.evil', false],
      ['*', 'https://anything.example', true],
      ['lab.example.com:8443', 'https://lab.example.com:8443', true],
      ['lab.example.com:8443', 'https://lab.example.com', false],
      ['lab.example.com:443', 'https://lab.example.com', true],
      ['10.1.2.3', 'https://10.1.2.3', true],
      ['10.1.2.3', 'https://10.1.2.4', false],
      ['10.0.0.0/8', 'https://10.200.3.4', true],
      ['10.0.0.0/8', 'https://11.0.0.1', false],
      ['[::1]', 'https://[::1]:8443', true],
      ['https://lab.example.com/', 'https://lab.example.com', true],
      ['LAB.Example.COM', 'https://lab.example.com', true],
    ];
    for (const [pattern, target, expected] of cases) {
      assert.equal(bypassesProxy(url(target), [pattern]), expected, `${pattern} vs ${target}`);
    }
  });

  it('never proxy loopback labs, and proxy https labs unless bypassed', () => {
    const network: NetworkOptions = {
      httpsProxy: 'http://proxy:3128',
      httpProxy: 'http://proxy:3128',
      noProxy: ['.internal'],
    };
    assert.equal(proxyFor(url('http://127.0.0.1:8787/x'), network), undefined);
    assert.equal(proxyFor(url('https://localhost:8443/x'), network), undefined);
    assert.equal(proxyFor(url('https://lab.example.com/x'), network), 'http://proxy:3128');
    assert.equal(proxyFor(url('https://lab.internal/x'), network), undefined);
  });

  it('take VS Code’s http.proxy over the environment, read either case, and merge both noProxy lists', () => {
    const fromEnv = resolveProxySettings({
      env: {
        https_proxy: 'http://env-https:1',
        HTTP_PROXY: 'http://env-http:2',
        NO_PROXY: 'a.example, b.example',
      },
      noProxy: ['c.example'],
    });
    assert.equal(fromEnv.httpsProxy, 'http://env-https:1');
    assert.equal(fromEnv.httpProxy, 'http://env-http:2');
    assert.deepEqual(fromEnv.noProxy, ['c.example', 'a.example', 'b.example']);
    assert.equal(
      resolveProxySettings({ env: { HTTP_PROXY: 'http://only-http:2' } }).httpsProxy,
      'http://only-http:2',
      'https falls back to HTTP_PROXY',
    );
    const explicit = resolveProxySettings({
      proxy: 'http://setting:3',
      env: { HTTPS_PROXY: 'http://env:1' },
    });
    assert.equal(explicit.httpsProxy, 'http://setting:3');
    assert.equal(resolveProxySettings({}).httpsProxy, undefined);
  });

  it('describe a proxy without its credentials', () => {
    assert.equal(describeProxy('http://alice:s3cret@proxy.corp:3128/'), 'http://proxy.corp:3128');
  });
});

describe('certificate authorities', () => {
  it('add labData.caCertificates and NODE_EXTRA_CA_CERTS to Node’s roots, never replace them', () => {
    const files: Record<string, string> = {
      '/ca/corp.pem': '-----BEGIN CERTIFICATE-----\nCORP\n-----END CERTIFICATE-----\n',
      '/ca/extra.pem': '-----BEGIN CERTIFICATE-----\nEXTRA\n-----END CERTIFICATE-----\n',
    };
    const read = (file: string): string => {
      if (!(file in files)) {
        throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      }
      return files[file]!;
    };
    const { ca, problems } = loadCertificateAuthorities(
      ['/ca/corp.pem'],
      { NODE_EXTRA_CA_CERTS: '/ca/extra.pem' },
      read,
    );
    assert.deepEqual(problems, []);
    assert.ok(ca);
    assert.equal(ca.length, rootCertificates.length + 2);
    assert.ok(ca.some((pem) => pem.includes('CORP')) && ca.some((pem) => pem.includes('EXTRA')));
    assert.equal(
      loadCertificateAuthorities([], {}, read).ca,
      undefined,
      'nothing configured: Node’s defaults apply',
    );
    const broken = loadCertificateAuthorities(
      ['/ca/missing.pem', '/ca/extra.pem', '/ca/notpem'],
      {},
      (file) => (file === '/ca/notpem' ? 'hello' : read(file)),
    );
    assert.deepEqual(
      broken.problems.map((p) => p.text?.id),
      ['caFileUnreadable', 'caFileNoPem'],
    );
  });
});

describe('HTTPS labs, private CAs and proxies (real TLS, a real forward proxy)', function () {
  this.timeout(30_000);
  let certs: TestCertificates;
  let server: MockLabServer;
  let proxy: ForwardProxy;
  let authProxy: ForwardProxy;

  before(async () => {
    certs = makeTestCertificates();
    server = new MockLabServer({
      now: FIXED_NOW,
      reports: 40,
      samples: 40,
      tls: { key: certs.key, cert: certs.cert },
      tokens: { [SECRET_TOKEN]: { label: 'leak check' } },
    });
    await server.start();
    proxy = await startForwardProxy();
    authProxy = await startForwardProxy({ auth: 'alice:s3cret' });
  });

  after(async () => {
    await server.stop();
    await proxy.stop();
    await authProxy.stop();
    certs.remove();
  });

  it('an HTTPS lab signed by a private CA fails with the certificate message, and works once the CA is trusted', async () => {
    const definition = lab({ name: 'Private', baseUrl: server.baseUrl });
    const untrusted = api(definition, SECRET_TOKEN);
    const error = (await rejection(untrusted.listReports())) as LabApiError;
    await untrusted.close();
    assert.equal(error.text?.id, 'certUnknownIssuer');
    assert.match(error.message, /labData\.caCertificates/);
    const { ca } = loadCertificateAuthorities([certs.caFile]);
    const trusted = api(definition, SECRET_TOKEN, { noProxy: [], ca });
    assert.equal((await trusted.listReports()).items.length > 0, true);
    await trusted.close();
  });

  it('a chain that ends in a root nobody trusts (as a TLS-inspecting proxy sends it) says so, with where to trust that root, never "self-signed"', async () => {
    const inspecting = new MockLabServer({
      now: FIXED_NOW,
      reports: 5,
      tls: { key: certs.key, cert: `${certs.cert.trim()}\n${certs.caPem.trim()}\n` },
      tokens: { [SECRET_TOKEN]: { label: 'leak check' } },
    });
    await inspecting.start();
    try {
      const untrusted = api(lab({ name: 'Inspected', baseUrl: inspecting.baseUrl }), SECRET_TOKEN);
      const error = (await rejection(untrusted.listReports())) as LabApiError;
      await untrusted.close();
      assert.equal(error.text?.id, 'certUnknownRoot');
      assert.match(
        error.message,
        /ends in a root this machine does not trust\. That is often a proxy that inspects TLS: .*operating system’s trust store .*labData\.caCertificates/,
      );
      assert.doesNotMatch(error.message, /self-signed/);
    } finally {
      await inspecting.stop();
    }
  });

  it('a certificate for another host name is named as such', async () => {
    // other.test reaches the same server through the proxy, but the certificate names lab.test, localhost and 127.0.0.1 only.
    const port = new URL(server.baseUrl).port;
    const client = api(
      lab({ name: 'WrongHost', baseUrl: `https://other.test:${port}` }),
      SECRET_TOKEN,
      { httpsProxy: proxy.url, noProxy: [], ca: loadCertificateAuthorities([certs.caFile]).ca },
    );
    const error = (await rejection(client.listReports())) as LabApiError;
    await client.close();
    assert.equal(error.text?.id, 'certWrongHost', error.message);
    assert.match(error.message, /certificate is for another host name/);
  });

  it('reaches a non-loopback HTTPS lab only through the proxy, with CONNECT, and the proxy never sees the token', async () => {
    const port = new URL(server.baseUrl).port;
    const definition = lab({ name: 'Remote', baseUrl: `https://lab.test:${port}` });
    const ca = loadCertificateAuthorities([certs.caFile]).ca;
    const direct = api(definition, SECRET_TOKEN, { noProxy: [], ca });
    const directError = (await rejection(direct.listReports())) as LabApiError;
    await direct.close();
    assert.equal(directError.text?.id, 'hostNotFound', 'lab.test resolves only at the proxy');

    const before = proxy.lines().length;
    const viaProxy = api(definition, SECRET_TOKEN, { httpsProxy: proxy.url, noProxy: [], ca });
    server.takeRequests();
    const page = await viaProxy.listReports();
    await viaProxy.close();
    assert.ok(page.items.length > 0);
    const seen = proxy.lines().slice(before);
    assert.ok(
      seen.some((line) => line.startsWith(`CONNECT lab.test:${port} `)),
      seen.join('\n'),
    );
    assert.ok(
      seen.every(
        (line) =>
          !line.includes(SECRET_TOKEN) &&
          !/authorization"/i.test(line.replace(/proxy-authorization/gi, '')),
      ),
      'the proxy saw no token and no Authorization header',
    );
    assert.ok(
      server.takeRequests().every((request) => request.scope === 'leak check'),
      'the lab got its token through the tunnel',
    );
  });

  it('bypasses the proxy for noProxy hosts', async () => {
    const port = new URL(server.baseUrl).port;
    const definition = lab({ name: 'Bypassed', baseUrl: `https://lab.test:${port}` });
    const before = proxy.lines().length;
    const client = api(definition, SECRET_TOKEN, {
      httpsProxy: proxy.url,
      noProxy: ['.test'],
      ca: loadCertificateAuthorities([certs.caFile]).ca,
    });
    const error = (await rejection(client.listReports())) as LabApiError;
    await client.close();
    assert.equal(error.text?.id, 'hostNotFound', 'went direct, where lab.test does not resolve');
    assert.equal(proxy.lines().length, before, 'the proxy saw nothing');
  });

  it('a proxy that asks for credentials (407) gets its own message naming the proxy; http.proxyAuthorization answers it', async () => {
    const port = new URL(server.baseUrl).port;
    const definition = lab({ name: 'Authed', baseUrl: `https://lab.test:${port}` });
    const ca = loadCertificateAuthorities([certs.caFile]).ca;
    const refused = api(definition, SECRET_TOKEN, { httpsProxy: authProxy.url, noProxy: [], ca });
    const error = (await rejection(refused.listReports())) as LabApiError;
    await refused.close();
    assert.equal(error.text?.id, 'proxyAuth');
    assert.match(
      error.message,
      new RegExp(
        `The proxy at ${authProxy.url.replace(/[.]/g, '\\.')} \\(from your proxy settings\\) asks for credentials.*http\\.proxyAuthorization`,
      ),
    );
    assert.equal(error.attempts, undefined, 'a 407 is not retried');

    const credentials = `Basic ${Buffer.from('alice:s3cret').toString('base64')}`;
    const allowed = api(definition, SECRET_TOKEN, {
      httpsProxy: authProxy.url,
      noProxy: [],
      ca,
      proxyAuthorization: credentials,
    });
    assert.ok((await allowed.listReports()).items.length > 0);
    await allowed.close();
    // Credentials in the proxy URL work too, and never show in a message.
    const inUrl = api(definition, SECRET_TOKEN, {
      httpsProxy: authProxy.url.replace('http://', 'http://alice:s3cret@'),
      noProxy: [],
      ca,
    });
    assert.ok((await inUrl.listReports()).items.length > 0);
    await inUrl.close();
  });

  it('a proxy that cannot be reached is named, not the lab', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port: deadPort } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const client = api(lab({ name: 'Dead', baseUrl: 'https://lab.test:9' }), SECRET_TOKEN, {
      httpsProxy: `http://user:pw@127.0.0.1:${deadPort}`,
      noProxy: [],
    });
    const error = (await rejection(client.listReports())) as LabApiError;
    await client.close();
    assert.equal(error.text?.id, 'proxyUnreachable');
    assert.match(
      error.message,
      new RegExp(
        `Cannot reach the proxy at http://127\\.0\\.0\\.1:${deadPort} \\(connection refused\\)`,
      ),
    );
    assert.ok(
      !error.message.includes('pw') && !JSON.stringify(error).includes('user:pw'),
      'no proxy credentials in the error',
    );
  });
});

describe('several tenants on one origin, renamed endpoints, other envelopes', function () {
  this.timeout(20_000);
  let host: MockLabHost;
  let meridian: MockLabServer;
  let beta: MockLabServer;

  before(async () => {
    meridian = new MockLabServer({
      now: FIXED_NOW,
      reports: 30,
      samples: 30,
      tokens: { 'meridian-token': { label: 'meridian' } },
    });
    beta = new MockLabServer({
      now: FIXED_NOW,
      seed: 7,
      reports: 25,
      samples: 30,
      basePath: '/tenant-b',
      envelope: 'top-level',
      endpointNames: { reports: 'certificates', file: 'pdf' },
      tokens: { 'beta-token': { label: 'beta' } },
    });
    host = new MockLabHost([meridian, beta]);
    await host.start();
  });

  after(async () => {
    await host.stop();
  });

  it('lists and downloads through renamed endpoints, each tenant with its own token', async () => {
    const origin = new URL(meridian.baseUrl).origin;
    assert.equal(new URL(beta.baseUrl).origin, origin, 'one origin, two tenants');
    const a = api(lab({ name: 'Meridian', baseUrl: meridian.baseUrl }), 'meridian-token');
    const b = api(
      lab({
        name: 'Beta',
        baseUrl: beta.baseUrl,
        endpoints: {
          reports: '/api/v1/certificates',
          report: '/api/v1/certificates/{report_id}',
          reportFile: '/api/v1/certificates/{report_id}/pdf',
        },
      }),
      'beta-token',
    );
    assert.equal(
      (await a.listReports({ pageSize: 100 })).items.length,
      meridian.reportsFor('meridian-token').length,
    );
    const betaPage = await b.listReports({ pageSize: 100 });
    assert.deepEqual(
      betaPage.items.map((r) => r.report_id),
      beta.reportsFor('beta-token').map((r) => r.report_id),
    );
    const one = await b.getReport(betaPage.items[0]!.report_id);
    assert.equal(one.report_id, betaPage.items[0]!.report_id);
    assert.deepEqual(
      beta.takeRequests().map((r) => [r.path.replace(/RPT-[\w-]+/, 'ID'), r.scope]),
      [
        ['/tenant-b/api/v1/certificates', 'beta'],
        ['/tenant-b/api/v1/certificates/ID', 'beta'],
      ],
    );
    assert.ok(meridian.takeRequests().every((r) => r.scope === 'meridian'));
    // The default name is not served by the renamed tenant.
    const wrong = api(lab({ name: 'BetaDefaults', baseUrl: beta.baseUrl }), 'beta-token');
    assert.equal(((await rejection(wrong.listReports())) as LabApiError).status, 404);
    await Promise.all([a.close(), b.close(), wrong.close()]);
  });
});

describe('only the lab signs you out', () => {
  it('a 401 from another origin after a redirect is not the lab rejecting the token', async () => {
    const login = http.createServer((_request, response) => {
      response.writeHead(401, { 'content-type': 'text/html' });
      response.end('<html>log in</html>');
    });
    await new Promise<void>((resolve) => login.listen(0, '127.0.0.2', resolve));
    const loginUrl = `http://127.0.0.2:${(login.address() as net.AddressInfo).port}/login`;
    const server = new MockLabServer({
      now: FIXED_NOW,
      reports: 5,
      samples: 5,
      faults: { redirectFileTo: loginUrl },
    });
    await server.start();
    const events: string[] = [];
    const client = new LabApi({
      lab: lab({ name: 'R', baseUrl: server.baseUrl }),
      token: 'demo-full-access',
      rateLimitGate: new RateLimitGate(),
      ...FAST,
      onConnection: (event) => events.push(event.kind),
    });
    try {
      const reportId = server
        .reportsFor('demo-full-access')
        .find((r) => r.download_available)!.report_id;
      const error = (await rejection(
        client.downloadReportFile(reportId, {
          folder: '/tmp/lab-data-never-written',
          fileName: 'x.pdf',
        }),
      )) as LabApiError;
      assert.equal(error.text?.id, 'unauthorizedElsewhere');
      assert.notEqual(error.code, 'unauthorized');
      assert.ok(!events.includes('unauthorized'), 'no sign-out event');
      server.setFaults({ status: { status: 401, times: 1 } });
      await rejection(client.listReports());
      assert.ok(events.includes('unauthorized'), 'the lab’s own 401 does signal it');
    } finally {
      await client.close();
      await server.stop();
      await new Promise((resolve) => login.close(resolve));
    }
  });
});
