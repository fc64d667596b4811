import * as assert from 'node:assert/strict';
import { LabApi } from '../../../../../core/api/labApi';
import { defaultLabDefinition } from '../../../../../core/api/labDefinition';
import { parseBaseUrl } from '../../../../../core/connection/baseUrl';
import {
  checkConnection,
  type CheckStep,
  type ConnectionCheck,
} from '../../../../../core/connection/check/checkConnection';
import {
  loadCertificateAuthorities,
  resolveProxySettings,
  type NetworkOptions,
} from '../../../../../core/connection/network';
import { RateLimitGate } from '../../../../../core/connection/timing';
import { renderConnectionReport } from '../../../../../core/derived/connectionReport';
import { isNetworkFailure } from '../../../../../core/errors/errors';
import { labError } from '../../../../../core/errors/messages';
import { MockLabServer } from '../../../../mock/server';
import { makeTestCertificates, type TestCertificates } from '../../../../support/certificates';
import { startForwardProxy, type ForwardProxy } from '../../../../support/forwardProxy';
import { FIXED_NOW, SECRET_TOKEN, closedPort } from '../../../helpers';

const PROXY_PASSWORD = 'Pr0xy-Check-Pa55';
const WRONG_PASSWORD = 'Wr0ng-Check-Pa55';
const context = { integration: 'Lab Data tests', at: FIXED_NOW };

/** Every spelling of a credential that must never show. */
function forbidden(password: string): string[] {
  return [
    SECRET_TOKEN,
    password,
    `alice:${password}`,
    Buffer.from(`alice:${password}`).toString('base64'),
    'alice@',
  ];
}

function assertNothingShows(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) {
    assert.ok(!text.includes(secret), `"${secret}" shows in:\n${text}`);
  }
}

/** The report's paragraphs, each wrapped line joined back into one. */
function paragraphs(report: string): string[] {
  return report.split('\n\n').map((paragraph) => paragraph.replace(/\n +| *\n/g, ' '));
}

function step(check: ConnectionCheck, kind: CheckStep['kind']): CheckStep {
  const found = check.steps.find((candidate) => candidate.kind === kind);
  assert.ok(found, `no ${kind} step in ${JSON.stringify(check.steps)}`);
  return found;
}

describe('Check Connection: each step of a lab’s connection, timed, with no credential in the report', function () {
  this.timeout(60_000);
  let certs: TestCertificates;
  let plain: MockLabServer;
  let secure: MockLabServer;
  let proxy: ForwardProxy;
  let authProxy: ForwardProxy;
  let ca: string[] | undefined;
  const clients: LabApi[] = [];

  before(async () => {
    certs = makeTestCertificates();
    plain = new MockLabServer({
      now: FIXED_NOW,
      reports: 7,
      samples: 3,
      tokens: { [SECRET_TOKEN]: { label: 'check' } },
    });
    secure = new MockLabServer({
      now: FIXED_NOW,
      reports: 7,
      samples: 3,
      tls: { key: certs.key, cert: certs.cert },
      tokens: { [SECRET_TOKEN]: { label: 'check' } },
    });
    await plain.start();
    await secure.start();
    proxy = await startForwardProxy();
    authProxy = await startForwardProxy({ auth: `alice:${PROXY_PASSWORD}` });
    ca = loadCertificateAuthorities([certs.caFile]).ca;
  });

  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await plain.stop();
    await secure.stop();
    await proxy.stop();
    await authProxy.stop();
    certs.remove();
  });

  /** Runs the check for `baseUrl` over `network`, the request through a LabApi built the same way; returns the check and its report. */
  async function check(
    baseUrl: string,
    network: NetworkOptions,
    caFiles: readonly string[] = [],
  ): Promise<{ result: ConnectionCheck; report: string }> {
    const api = new LabApi({
      lab: defaultLabDefinition(parseBaseUrl(baseUrl), 'Check'),
      token: SECRET_TOKEN,
      network,
      rateLimitGate: new RateLimitGate(),
      retry: { baseDelayMs: 1, maxDelayMs: 2, retries: 1 },
    });
    clients.push(api);
    const result = await checkConnection({
      name: 'Check',
      baseUrl,
      network,
      caFiles,
      env: {},
      timeoutMs: 5_000,
      request: (signal) => api.checkReports(signal),
    });
    const report = renderConnectionReport([result], context);
    return { result, report };
  }

  it('a direct http lab: every step passes, the request answers 200 with one report, and each step is timed', async () => {
    const { result, report } = await check(plain.baseUrl, { noProxy: [] });
    assert.equal(result.ok, true, report);
    assert.deepEqual(
      result.steps.map((each) => [each.kind, each.outcome]),
      [
        ['resolve', 'ok'],
        ['proxy', 'ok'],
        ['connect', 'ok'],
        ['tls', 'skipped'],
        ['request', 'ok'],
      ],
    );
    assert.equal(step(result, 'proxy').summary, 'direct');
    assert.match(step(result, 'resolve').details[0]!, /^127\.0\.0\.1 is an address/);
    assert.match(step(result, 'request').summary, /^HTTP 200, 1 report of 7$/);
    assert.ok(result.steps.every((each) => Number.isInteger(each.ms) && each.ms >= 0));
    assert.match(report, /^“Check” answers and accepts your token: every step passed\.$/m);
    assert.match(report, /^ {2}5\. Authenticated request: ok, \d+ ms: HTTP 200, 1 report of 7$/m);
    assertNothingShows(report, [SECRET_TOKEN]);
  });

  it('a lab through a proxy with credentials in HTTPS_PROXY: the proxy is named with its source, the tunnel answers 200, TLS is trusted by the CA file', async () => {
    const remote = secure.baseUrlAt('lab.test');
    const network = {
      ...resolveProxySettings({
        env: { HTTPS_PROXY: authProxy.url.replace('http://', `http://alice:${PROXY_PASSWORD}@`) },
      }),
      ca,
    };
    const before = authProxy.lines().length;
    const { result, report } = await check(remote, network, [certs.caFile]);
    assert.equal(result.ok, true, report);
    assert.equal(step(result, 'proxy').summary, `${authProxy.url} (from HTTPS_PROXY)`);
    assert.ok(
      step(result, 'proxy').details.includes(
        'credentials: from the user info of the address in HTTPS_PROXY',
      ),
      report,
    );
    assert.match(
      step(result, 'resolve').details.join('\n'),
      /lab: lab\.test: .*through the proxy only the proxy needs to find it/,
    );
    assert.equal(
      step(result, 'connect').summary,
      `tunnel to lab.test:${new URL(remote).port} open (HTTP 200)`,
    );
    assert.match(step(result, 'connect').details[0]!, /^CONNECT lab\.test:\d+ → HTTP\/1\.1 200/);
    assert.equal(
      step(result, 'tls').summary,
      `trusted, by the CA file ${certs.caFile} (labData.caCertificates)`,
    );
    assert.match(report, /protocol: TLSv1\.[23]/);
    assert.match(
      report,
      /certificate 1: lab\.test, issued by Lab Data Test CA, valid to \d{4}-\d{2}-\d{2}/,
    );
    assert.match(step(result, 'request').summary, /^HTTP 200/);
    assert.ok(
      authProxy
        .lines()
        .slice(before)
        .some((line) => line.startsWith('CONNECT lab.test:')),
      'the proxy saw the CONNECT',
    );
    assertNothingShows(report, forbidden(PROXY_PASSWORD));
  });

  it('a proxy set in http.proxy without credentials is named as http.proxy', async () => {
    const remote = secure.baseUrlAt('lab.test');
    const { result, report } = await check(
      remote,
      {
        ...resolveProxySettings({
          proxy: proxy.url,
          env: { HTTPS_PROXY: 'http://ignored.example:1' },
        }),
        ca,
      },
      [certs.caFile],
    );
    assert.equal(result.ok, true, report);
    assert.equal(step(result, 'proxy').summary, `${proxy.url} (from http.proxy)`);
    assert.ok(step(result, 'proxy').details.includes('credentials: none sent'));
  });

  it('a wrong proxy password: the tunnel’s 407 is said plainly, naming where the credentials came from, and the password shows nowhere', async () => {
    const remote = secure.baseUrlAt('lab.test');
    const network = {
      ...resolveProxySettings({
        env: { HTTPS_PROXY: authProxy.url.replace('http://', `http://alice:${WRONG_PASSWORD}@`) },
      }),
      ca,
    };
    const { result, report } = await check(remote, network, [certs.caFile]);
    assert.equal(result.ok, false);
    const connect = step(result, 'connect');
    assert.equal(connect.outcome, 'failed');
    assert.equal(
      connect.summary,
      'the proxy rejected the credentials from the user name and password in the proxy address (HTTPS_PROXY) (HTTP 407): the user name or password is wrong',
    );
    assert.match(connect.details[0]!, /→ HTTP\/1\.1 407/);
    assert.equal(step(result, 'tls').outcome, 'skipped');
    assert.equal(step(result, 'request').outcome, 'skipped');
    assert.equal(step(result, 'request').summary, 'not tried: the connection failed');
    assert.match(report, /^The proxy did not accept a proxy user name and password\.$/m);
    assertNothingShows(report, forbidden(WRONG_PASSWORD));
  });

  it('a proxy that asks for credentials when none were sent says so, and how to send them', async () => {
    const remote = secure.baseUrlAt('lab.test');
    const { result } = await check(remote, {
      ...resolveProxySettings({ proxy: authProxy.url }),
      ca,
    });
    assert.match(
      step(result, 'connect').summary,
      /^the proxy asks for credentials \(HTTP 407\) and none were sent: set http\.proxyAuthorization/,
    );
  });

  it('an unreachable proxy: the connection step names it (scheme, host, port) and the setting that chose it', async () => {
    const port = await closedPort();
    const remote = secure.baseUrlAt('lab.test');
    const network = {
      ...resolveProxySettings({
        env: { HTTPS_PROXY: `http://alice:${WRONG_PASSWORD}@127.0.0.1:${port}` },
      }),
      ca,
    };
    const { result, report } = await check(remote, network, [certs.caFile]);
    const connect = step(result, 'connect');
    assert.equal(connect.outcome, 'failed');
    assert.equal(
      connect.summary,
      `cannot reach the proxy at http://127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
    );
    assert.deepEqual(connect.details, ['check HTTPS_PROXY']);
    assert.equal(step(result, 'proxy').summary, `http://127.0.0.1:${port} (from HTTPS_PROXY)`);
    assert.equal(
      step(result, 'request').outcome,
      'skipped',
      'the check stops at the first failure',
    );
    assertNothingShows(report, forbidden(WRONG_PASSWORD));
  });

  it('an https lab whose CA this machine does not trust: the chain is listed, the OpenSSL reason given, and the unknown root explained', async () => {
    const { result, report } = await check(secure.baseUrl, { noProxy: [] });
    const tls = step(result, 'tls');
    assert.equal(tls.outcome, 'failed', report);
    assert.match(
      tls.summary,
      /^not trusted: (UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/,
    );
    assert.ok(
      tls.details.some((line) =>
        /^certificate 1: lab\.test, issued by Lab Data Test CA, valid to/.test(line),
      ),
      report,
    );
    // The advice comes first, as what to try next, wrapped: read it as one paragraph.
    const flat = report.replace(/\n +/g, ' ');
    assert.match(
      flat,
      /^Next: The chain ends in a root certificate .*often a proxy that inspects TLS/m,
    );
    assert.match(
      flat,
      /operating system’s trust store, or name the file in the labData\.caCertificates setting/,
    );
    assert.equal(step(result, 'request').summary, 'not tried: TLS failed');
    assertNothingShows(report, [SECRET_TOKEN]);
  });

  it('an https lab trusted through a CA file in labData.caCertificates says "trusted, by the CA file"', async () => {
    const { result, report } = await check(secure.baseUrl, { noProxy: [], ca }, [certs.caFile]);
    assert.equal(result.ok, true, report);
    assert.equal(
      step(result, 'tls').summary,
      `trusted, by the CA file ${certs.caFile} (labData.caCertificates)`,
    );
    assert.match(report, /^ {2}4\. TLS: ok, \d+ ms: trusted, by the CA file/m);
  });

  it('a host that does not resolve, direct: name resolution fails and the connection is skipped', async () => {
    const { result, report } = await check('https://lab.invalid', { noProxy: [] });
    assert.equal(step(result, 'resolve').outcome, 'failed', report);
    assert.match(step(result, 'resolve').details[0]!, /^lab\.invalid: /);
    assert.equal(step(result, 'connect').outcome, 'skipped');
  });

  it('a lab that accepts and never answers: the request step fails after one answer timeout, said plainly, whatever the client’s retries', async () => {
    plain.setFaults({ hangHeaders: { times: Infinity } });
    try {
      const api = new LabApi({
        lab: defaultLabDefinition(parseBaseUrl(plain.baseUrl), 'Silent'),
        token: SECRET_TOKEN,
        rateLimitGate: new RateLimitGate(),
        timeouts: { headersMs: 200 },
        retry: { baseDelayMs: 1, maxDelayMs: 2, retries: 3 },
      });
      clients.push(api);
      const seen: string[] = [];
      const started = Date.now();
      const result = await checkConnection({
        name: 'Silent',
        baseUrl: plain.baseUrl,
        network: { noProxy: [] },
        env: {},
        timeoutMs: 5_000,
        answerTimeoutMs: 300,
        onStep: (kind) => seen.push(kind),
        // Each attempt times out at 200 ms and is retried: the step must still end at 300 ms.
        request: (signal) => api.checkReports(signal),
      });
      assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
      assert.deepEqual(seen, ['resolve', 'proxy', 'connect', 'tls', 'request']);
      const request = step(result, 'request');
      assert.equal(request.outcome, 'failed');
      assert.equal(request.problem, 'noAnswer');
      assert.equal(
        request.summary,
        'the lab accepted the connection but sent no answer within 0.3 s',
      );
      const report = renderConnectionReport([result], context);
      assert.match(
        paragraphs(report)[1]!,
        /^“Silent” accepted the connection but sent no answer: it may be down or overloaded\. Next: Try again in a few minutes/,
      );
    } finally {
      plain.setFaults({});
    }
  });

  it('signed out: one request without a token hears the lab answer; one that never answers is named after the answer timeout', async () => {
    plain.takeRequests();
    const { result: answered } = await (async () => ({
      result: await checkConnection({
        name: 'Out',
        baseUrl: plain.baseUrl,
        network: { noProxy: [] },
        env: {},
        timeoutMs: 5_000,
      }),
    }))();
    assert.equal(answered.ok, true);
    const request = step(answered, 'request');
    assert.equal(request.signedIn, false);
    assert.match(request.summary, /^the lab answers \(HTTP 404 without a token\); not signed in/);
    assert.match(renderConnectionReport([answered], context), /5\. Request without a token: ok/);
    const before = plain.takeRequests();
    assert.ok(
      before.every((each) => !each.hadAuthorization),
      'no token was sent',
    );
    plain.setFaults({ hangHeaders: { times: Infinity } });
    try {
      const silent = await checkConnection({
        name: 'Out',
        baseUrl: plain.baseUrl,
        network: { noProxy: [] },
        env: {},
        timeoutMs: 5_000,
        answerTimeoutMs: 300,
      });
      assert.equal(step(silent, 'request').outcome, 'failed');
      assert.equal(step(silent, 'request').problem, 'noAnswer');
    } finally {
      plain.setFaults({});
    }
  });

  it('a refused connection stops the check there: TLS and the request say they were not tried, and the report says so plainly first', async () => {
    const port = await closedPort();
    const result = await checkConnection({
      name: 'Gone',
      baseUrl: `http://127.0.0.1:${port}`,
      network: { noProxy: [] },
      env: {},
      request: () => Promise.reject(new Error('must not be asked')),
    });
    assert.deepEqual(
      result.steps.map((each) => [each.kind, each.outcome]),
      [
        ['resolve', 'ok'],
        ['proxy', 'ok'],
        ['connect', 'failed'],
        ['tls', 'skipped'],
        ['request', 'skipped'],
      ],
    );
    assert.equal(step(result, 'connect').problem, 'refused');
    assert.equal(step(result, 'request').summary, 'not tried: the connection failed');
    const report = renderConnectionReport([result], context);
    assert.ok(
      paragraphs(report)[1]!.startsWith(
        `127.0.0.1:${port} refused the connection: nothing answers at that address and port. Next: Check the address and port`,
      ),
      report,
    );
    assert.ok(
      report.indexOf('ECONNREFUSED') > report.indexOf('Next:'),
      'the code comes after the plain words',
    );
  });

  it('which errors offer Check Connection: the way to the lab (network, timeout, proxy, TLS, unusable settings), not the lab’s own answers', () => {
    assert.equal(
      isNetworkFailure(
        labError('network', 'unreachable', {
          origin: 'https://lab.example',
          reason: 'connection refused',
        }),
      ),
      true,
    );
    assert.equal(
      isNetworkFailure(
        labError('network', 'certUnknownIssuer', {
          origin: 'https://lab.example',
          code: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
        }),
      ),
      true,
    );
    assert.equal(
      isNetworkFailure(
        labError('timeout', 'timeout', { origin: 'https://lab.example', what: 'connecting' }),
      ),
      true,
    );
    assert.equal(
      isNetworkFailure(labError('unexpectedStatus', 'unauthorizedProxy', { status: 407 })),
      true,
    );
    assert.equal(
      isNetworkFailure(labError('invalidInput', 'proxyInvalid', { proxy: 'x', reason: 'y' })),
      true,
    );
    assert.equal(isNetworkFailure(labError('unauthorized', 'unauthorized')), false);
    assert.equal(isNetworkFailure(labError('notFound', 'notFound')), false);
    assert.equal(isNetworkFailure(new Error('anything')), false);
  });

  it('a token registered nowhere is still never in the report, even if a step echoed it', () => {
    const echoed: ConnectionCheck = {
      lab: 'Echo',
      baseUrl: 'https://lab.example',
      ok: false,
      steps: [
        {
          kind: 'request',
          outcome: 'failed',
          ms: 1,
          summary: `server said ${SECRET_TOKEN}`,
          details: [],
        },
      ],
    };
    assertNothingShows(renderConnectionReport([echoed], context, [SECRET_TOKEN]), [SECRET_TOKEN]);
  });
});
