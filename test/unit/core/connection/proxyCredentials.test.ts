import * as assert from 'node:assert/strict';
import type { LabApiError } from '../../../../core/errors/errors';
import { LabApi } from '../../../../core/api/labApi';
import {
  parseLabDefinition,
  isInvalidLab,
  type LabDefinition,
} from '../../../../core/api/labDefinition';
import {
  loadCertificateAuthorities,
  proxyCredentialSource,
  proxyProblem,
  proxySecrets,
  proxyUserInfo,
  resolveProxySettings,
  type NetworkOptions,
} from '../../../../core/connection/network';
import { RateLimitGate } from '../../../../core/connection/timing';
import { buildSupportReport } from '../../../../core/derived/supportReport';
import { redactSecrets, serverText } from '../../../../core/errors/serverText';
import { MockLabServer } from '../../../mock/server';
import { makeTestCertificates, type TestCertificates } from '../../../support/certificates';
import { startForwardProxy, type ForwardProxy } from '../../../support/forwardProxy';
import { FIXED_NOW, SECRET_TOKEN, closedPort, rejection, renderings } from '../../helpers';

/** The proxy's real password, and a wrong one; neither may show anywhere. */
const PROXY_PASSWORD = 'Pr0xy-Pa55word';
const WRONG_PASSWORD = 'Wr0ng-Pa55word';

function lab(entry: Record<string, unknown>): LabDefinition {
  const parsed = parseLabDefinition(entry, 0);
  assert.ok(!isInvalidLab(parsed), isInvalidLab(parsed) ? parsed.error.message : '');
  return parsed;
}

/** With the user info of a proxy URL replaced (`user:password`, `user`, or none). */
function withUserInfo(proxyUrl: string, userInfo: string): string {
  return proxyUrl.replace('http://', `http://${userInfo}@`);
}

const supportContext = {
  tenant: 'lab.test',
  integration: 'Lab Data tests',
  at: FIXED_NOW,
  timeZone: 'UTC',
};

describe('proxy credentials: where a rejected one came from, and never shown (a real forward proxy with Basic authentication)', function () {
  this.timeout(30_000);
  let certs: TestCertificates;
  let server: MockLabServer;
  let ca: string[] | undefined;
  let remote: LabDefinition;
  /** Challenges with 407, as most proxies do. */
  let proxy407: ForwardProxy;
  /** Challenges with 401, as some do. */
  let proxy401: ForwardProxy;

  before(async () => {
    certs = makeTestCertificates();
    server = new MockLabServer({
      now: FIXED_NOW,
      reports: 5,
      samples: 5,
      tls: { key: certs.key, cert: certs.cert },
      tokens: { [SECRET_TOKEN]: { label: 'leak check' } },
    });
    await server.start();
    proxy407 = await startForwardProxy({ auth: `alice:${PROXY_PASSWORD}` });
    proxy401 = await startForwardProxy({ auth: `alice:${PROXY_PASSWORD}`, challenge: 401 });
    ca = loadCertificateAuthorities([certs.caFile]).ca;
    // lab.test resolves only at the proxy, so every request below goes through it.
    remote = lab({ name: 'Remote', baseUrl: `https://lab.test:${new URL(server.baseUrl).port}` });
  });

  after(async () => {
    await server.stop();
    await proxy407.stop();
    await proxy401.stop();
    certs.remove();
  });

  /** Lists reports through `network`; the error, every log line and the support report it would make. */
  async function failThrough(
    network: Omit<NetworkOptions, 'ca'>,
  ): Promise<{ error: LabApiError; lines: string[]; report: string }> {
    const lines: string[] = [];
    const client = new LabApi({
      lab: remote,
      token: SECRET_TOKEN,
      network: { ...network, ca },
      rateLimitGate: new RateLimitGate(),
      retry: { baseDelayMs: 1, maxDelayMs: 2, retries: 1 },
      log: (level, message) => lines.push(`${level} ${message}`),
    });
    try {
      const error = (await rejection(client.listReports())) as LabApiError;
      return { error, lines, report: buildSupportReport(error, supportContext) };
    } finally {
      await client.close();
    }
  }

  function assertNothingShows(secrets: readonly string[], ...texts: string[]): void {
    const all = texts.join('\n');
    for (const secret of secrets) {
      assert.ok(!all.includes(secret), `"${secret}" shows in:\n${all}`);
    }
  }

  for (const [status, proxy] of [
    [407, (): ForwardProxy => proxy407],
    [401, (): ForwardProxy => proxy401],
  ] as const) {
    it(`a wrong password in HTTPS_PROXY (${status} to the CONNECT) is named as the user info in HTTPS_PROXY, with the proxy as scheme, host and port, and never shown`, async () => {
      const network = resolveProxySettings({
        env: { HTTPS_PROXY: withUserInfo(proxy().url, `alice:${WRONG_PASSWORD}`) },
      });
      const { error, lines, report } = await failThrough(network);
      assert.equal(error.text?.id, 'proxyUrlAuthRejected', error.message);
      assert.equal(
        error.message,
        `The proxy at ${proxy().url} rejected the user name and password in its address in HTTPS_PROXY (HTTP ${status}); correct them there.`,
      );
      assert.equal(error.attempts, undefined, 'rejected credentials are not tried again');
      assert.match(
        report,
        new RegExp(`What happened: The proxy at ${proxy().url.replace(/\./g, '\\.')} rejected`),
      );
      assertNothingShows(
        [
          WRONG_PASSWORD,
          `alice:${WRONG_PASSWORD}`,
          Buffer.from(`alice:${WRONG_PASSWORD}`).toString('base64'),
          'alice@',
        ],
        renderings(error),
        report,
        ...lines,
      );
    });

    it(`a wrong http.proxyAuthorization (${status} to the CONNECT) is named as such, with the proxy and the setting that chose it`, async () => {
      const credentials = `Basic ${Buffer.from(`alice:${WRONG_PASSWORD}`).toString('base64')}`;
      const network = resolveProxySettings({
        proxy: proxy().url,
        proxyAuthorization: credentials,
        env: { HTTPS_PROXY: 'http://ignored.example:1' },
      });
      const { error, lines, report } = await failThrough(network);
      assert.equal(error.text?.id, 'proxyAuthRejected', error.message);
      assert.equal(
        error.message,
        `The proxy at ${proxy().url} (from http.proxy) rejected the credentials in http.proxyAuthorization (HTTP ${status}); correct that setting in your user settings.`,
      );
      assert.equal(error.attempts, undefined);
      assertNothingShows(
        [credentials, Buffer.from(`alice:${WRONG_PASSWORD}`).toString('base64')],
        renderings(error),
        report,
        ...lines,
      );
    });

    it(`no credentials sent (a user name without a password in http.proxy): the ${status} asks for them, naming the proxy and http.proxy, not the user`, async () => {
      const network = resolveProxySettings({ proxy: withUserInfo(proxy().url, 'alice') });
      assert.equal(
        proxyCredentialSource(network.httpsProxy!, network),
        undefined,
        'undici sends user info only with a password',
      );
      const { error, lines, report } = await failThrough(network);
      assert.equal(error.text?.id, 'proxyAuth', error.message);
      assert.match(
        error.message,
        new RegExp(
          `^The proxy at ${proxy().url.replace(/\./g, '\\.')} \\(from http\\.proxy\\) asks for credentials \\(HTTP ${status}\\); set http\\.proxyAuthorization`,
        ),
      );
      assertNothingShows(['alice'], renderings(error), report, ...lines);
    });
  }

  it('the right password in the proxy URL reaches the lab through the proxy; it shows in no log line', async () => {
    const lines: string[] = [];
    const network = resolveProxySettings({
      env: { https_proxy: withUserInfo(proxy407.url, `alice:${PROXY_PASSWORD}`) },
    });
    assert.equal(
      network.httpsProxySource,
      'https_proxy',
      'the variable is named as it was spelled',
    );
    const before = proxy407.lines().length;
    const client = new LabApi({
      lab: remote,
      token: SECRET_TOKEN,
      network: { ...network, ca },
      rateLimitGate: new RateLimitGate(),
      log: (level, message) => lines.push(`${level} ${message}`),
    });
    try {
      assert.ok((await client.listReports()).items.length > 0);
    } finally {
      await client.close();
    }
    assert.ok(
      proxy407
        .lines()
        .slice(before)
        .some((line) => line.startsWith('CONNECT lab.test:')),
      'the proxy saw the CONNECT',
    );
    assert.ok(lines.length > 0);
    assertNothingShows(
      [PROXY_PASSWORD, Buffer.from(`alice:${PROXY_PASSWORD}`).toString('base64')],
      ...lines,
    );
  });

  it('an unreachable proxy names the variable that chose it, without the credentials in it', async () => {
    const port = await closedPort();
    const { error, report } = await failThrough(
      resolveProxySettings({
        env: { HTTP_PROXY: `http://alice:${WRONG_PASSWORD}@127.0.0.1:${port}` },
      }),
    );
    assert.equal(error.text?.id, 'proxyUnreachable', error.message);
    assert.equal(
      error.message,
      `Cannot reach the proxy at http://127.0.0.1:${port} (connection refused); check HTTP_PROXY.`,
    );
    assertNothingShows([WRONG_PASSWORD, 'alice'], renderings(error), report);
  });
});

describe('proxy addresses with credentials, in any text', () => {
  it('the password of a proxy the core was given is redacted wherever it shows, as written and decoded, even echoed by a server', async () => {
    const proxy = 'http://bob:S%40fe-Pr0xy-Pass@proxy.example:3128';
    const client = new LabApi({
      lab: lab({ name: 'Any', baseUrl: 'https://lab.example' }),
      token: SECRET_TOKEN,
      network: { httpsProxy: proxy, noProxy: [] },
      rateLimitGate: new RateLimitGate(),
    });
    await client.close();
    for (const text of [
      `the proxy said S@fe-Pr0xy-Pass`,
      'S%40fe-Pr0xy-Pass was refused',
      `Proxy-Authorization: ${Buffer.from('bob:S@fe-Pr0xy-Pass').toString('base64')}`,
      `proxy ${proxy} failed`,
    ]) {
      const shown = serverText(text);
      assertNone(shown, [
        'S@fe-Pr0xy-Pass',
        'S%40fe-Pr0xy-Pass',
        Buffer.from('bob:S@fe-Pr0xy-Pass').toString('base64'),
      ]);
      assert.match(shown, /\[redacted\]/);
    }
    assert.equal(
      serverText(`proxy ${proxy} failed`),
      'proxy http://[redacted]@proxy.example:3128 failed',
    );
  });

  it('the user info of any URL is dropped, however short the password (too short to register as a secret), user name included', () => {
    assert.equal(
      redactSecrets('via http://al:pw@proxy.example:3128/ and https://carol@proxy.example'),
      'via http://[redacted]@proxy.example:3128/ and https://[redacted]@proxy.example',
    );
    assert.equal(
      redactSecrets('http://a:p@ss@proxy.example:8080'),
      'http://[redacted]@proxy.example:8080',
      'up to the last @, as URL parsers read it',
    );
    assert.equal(
      redactSecrets('mail alice@example.com or see https://example.com/@alice'),
      'mail alice@example.com or see https://example.com/@alice',
      'an address or a path is not user info',
    );
  });

  it('a proxy address too malformed to parse still gives up its password, and its message shows neither', () => {
    const malformed = 'http://dave:An0ther-Secret@proxy.example:notaport';
    assert.deepEqual(proxyUserInfo(malformed), {
      user: 'dave',
      password: 'An0ther-Secret',
      written: 'dave:An0ther-Secret',
    });
    assert.ok(proxySecrets(malformed).includes('An0ther-Secret'));
    const problem = proxyProblem(malformed)!;
    assertNone(renderings(problem), ['An0ther-Secret', 'dave']);
    assert.deepEqual(
      proxySecrets('http://erin@proxy.example:3128'),
      [],
      'a user name alone is not a credential',
    );
    assert.deepEqual(proxySecrets('http://proxy.example:3128'), []);
  });

  it('who chose a proxy: http.proxy over the environment, else the variable as spelled', () => {
    assert.equal(
      resolveProxySettings({
        proxy: 'http://a.example:1',
        env: { HTTPS_PROXY: 'http://b.example:2' },
      }).httpsProxySource,
      'http.proxy',
    );
    assert.equal(
      resolveProxySettings({ env: { HTTPS_PROXY: 'http://b.example:2' } }).httpsProxySource,
      'HTTPS_PROXY',
    );
    assert.equal(
      resolveProxySettings({ env: { HTTP_PROXY: 'http://c.example:3' } }).httpsProxySource,
      'HTTP_PROXY',
    );
    assert.equal(
      resolveProxySettings({ env: { http_proxy: 'http://c.example:3' } }).httpProxySource,
      'http_proxy',
    );
    assert.equal(resolveProxySettings({}).httpsProxySource, undefined);
  });
});

function assertNone(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) {
    assert.ok(!text.includes(secret), `"${secret}" shows in: ${text}`);
  }
}
