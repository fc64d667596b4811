import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import { MockLabServer } from '../mock/server';
import { makeTestCertificates, type TestCertificates } from '../support/certificates';
import { startForwardProxy, type ForwardProxy } from '../support/forwardProxy';
import {
  LEAK_CHECK_TOKEN,
  activateExtension,
  eventually,
  labDataLogFiles,
  signIn,
  vscodeTrustedCertificates,
} from './helpers';

const labData = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('labData');
const httpConfig = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('http');
const GLOBAL = vscode.ConfigurationTarget.Global;

/** What the support report says happened on the last failed request (the user-facing sentence). */
async function lastFailureSentence(): Promise<string> {
  const text = (await vscode.commands.executeCommand('labData.copySupportReport')) as
    string | undefined;
  return /^What happened: (.*)$/m.exec(text ?? '')?.[1] ?? '';
}

/** Everything the "Lab Data" log holds so far in this run. */
async function logText(): Promise<string> {
  const files = await labDataLogFiles();
  return (await Promise.all(files.map((file) => fs.readFile(file, 'utf8')))).join('\n');
}

/** Lists the lab's reports through the command that needs no prompt; undefined when it failed. */
async function search(lab: string): Promise<{ ids: string[] } | undefined> {
  return (await vscode.commands.executeCommand('labData.searchReports', { lab })) as
    { ids: string[] } | undefined;
}

describe('corporate networks: proxies and private certificate authorities', function () {
  this.timeout(120_000);
  let api: LabDataExtensionApi;
  let certs: TestCertificates;
  let server: MockLabServer;
  let proxy: ForwardProxy;
  let authProxy: ForwardProxy;
  let remote: string;
  const savedEnv = {
    HTTPS_PROXY: process.env.HTTPS_PROXY,
    NO_PROXY: process.env.NO_PROXY,
    https_proxy: process.env.https_proxy,
    no_proxy: process.env.no_proxy,
  };

  before(async () => {
    api = await activateExtension();
    certs = makeTestCertificates();
    server = new MockLabServer({
      reports: 30,
      samples: 20,
      tls: { key: certs.key, cert: certs.cert },
      tokens: { [LEAK_CHECK_TOKEN]: { label: 'leak check' } },
    });
    await server.start();
    proxy = await startForwardProxy();
    authProxy = await startForwardProxy({ auth: 'alice:s3cret' });
    remote = `https://lab.test:${new URL(server.baseUrl).port}`;
    delete process.env.HTTPS_PROXY;
    delete process.env.https_proxy;
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
    await labData().update('baseUrl', undefined, GLOBAL);
    await labData().update(
      'labs',
      [
        { name: 'Private', baseUrl: server.baseUrl },
        { name: 'Remote', baseUrl: remote },
      ],
      GLOBAL,
    );
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => lab.name),
        ['Private', 'Remote'],
      ),
    );
  });

  after(async () => {
    Object.assign(
      process.env,
      Object.fromEntries(Object.entries(savedEnv).filter(([, value]) => value !== undefined)),
    );
    for (const key of ['proxy', 'noProxy', 'proxyAuthorization'] as const) {
      await httpConfig().update(key, undefined, GLOBAL);
    }
    await labData().update('caCertificates', undefined, GLOBAL);
    await labData().update('labs', undefined, GLOBAL);
    await server.stop();
    await proxy.stop();
    await authProxy.stop();
    certs.remove();
  });

  it('an HTTPS lab with a private CA fails with the certificate message, and works once the CA is in labData.caCertificates', async () => {
    assert.equal(await signIn(server.baseUrl, LEAK_CHECK_TOKEN, 'Private'), undefined);
    assert.match(
      await lastFailureSentence(),
      /issued by an authority this machine does not trust.*labData\.caCertificates/,
    );
    await labData().update('caCertificates', [certs.caFile], GLOBAL);
    assert.deepEqual(await signIn(server.baseUrl, LEAK_CHECK_TOKEN, 'Private'), {
      name: 'Private',
      baseUrl: server.baseUrl,
      host: new URL(server.baseUrl).host,
    });
    assert.equal((await search('Private'))?.ids.length, server.reportsFor(LEAK_CHECK_TOKEN).length);
  });

  it('with http.proxy set, a non-loopback HTTPS lab is reached through CONNECT, and the proxy never sees the token', async () => {
    assert.equal(
      await signIn(remote, LEAK_CHECK_TOKEN, 'Remote'),
      undefined,
      'lab.test resolves only at the proxy',
    );
    await httpConfig().update('proxy', proxy.url, GLOBAL);
    const before = proxy.lines().length;
    assert.equal(
      ((await signIn(remote, LEAK_CHECK_TOKEN, 'Remote')) as { name?: string } | undefined)?.name,
      'Remote',
    );
    assert.equal((await search('Remote'))?.ids.length, server.reportsFor(LEAK_CHECK_TOKEN).length);
    const seen = proxy.lines().slice(before);
    console.log(
      `      proxy log: ${seen.map((line) => line.split(' ').slice(0, 2).join(' ')).join(', ')}`,
    );
    assert.ok(
      seen.length > 0 &&
        seen.every((line) => line.startsWith(`CONNECT lab.test:${new URL(remote).port} `)),
      seen.join('\n'),
    );
    assert.ok(
      seen.every((line) => !line.includes(LEAK_CHECK_TOKEN) && !/"authorization"/i.test(line)),
      'the proxy saw neither the token nor an Authorization header',
    );
    const privateBefore = proxy.lines().length;
    assert.ok(await search('Private'));
    assert.equal(proxy.lines().length, privateBefore, 'a loopback lab is never proxied');
  });

  it('http.noProxy bypasses the proxy', async () => {
    await httpConfig().update('noProxy', ['.test'], GLOBAL);
    const before = proxy.lines().length;
    assert.equal(await search('Remote'), undefined);
    assert.match(
      await lastFailureSentence(),
      /Cannot reach the lab at https:\/\/lab\.test:\d+: its host name could not be found/,
    );
    assert.equal(proxy.lines().length, before);
    await httpConfig().update('noProxy', undefined, GLOBAL);
    assert.ok(await search('Remote'));
  });

  it('HTTPS_PROXY and NO_PROXY from the environment are honoured', async () => {
    process.env.HTTPS_PROXY = proxy.url;
    process.env.NO_PROXY = 'lab.test';
    await httpConfig().update('proxy', undefined, GLOBAL); // a settings change re-reads the environment too
    const before = proxy.lines().length;
    assert.equal(
      await search('Remote'),
      undefined,
      'NO_PROXY sends it direct, where lab.test does not resolve',
    );
    assert.equal(proxy.lines().length, before);
    delete process.env.NO_PROXY;
    await httpConfig().update('noProxy', ['unrelated.example'], GLOBAL); // any settings change re-reads the environment
    assert.ok(await search('Remote'), 'through HTTPS_PROXY');
    assert.ok(proxy.lines().length > before);
    delete process.env.HTTPS_PROXY;
    await httpConfig().update('noProxy', undefined, GLOBAL);
  });

  it('a proxy that asks for credentials (407) gets its own message, and http.proxyAuthorization answers it', async () => {
    await httpConfig().update('proxy', authProxy.url, GLOBAL);
    assert.equal(await search('Remote'), undefined);
    const sentence = await lastFailureSentence();
    assert.match(
      sentence,
      new RegExp(
        `^The proxy at ${authProxy.url.replace(/\./g, '\\.')} \\(from http\\.proxy\\) asks for credentials \\(HTTP 407\\); set http\\.proxyAuthorization`,
      ),
    );
    await httpConfig().update(
      'proxyAuthorization',
      `Basic ${Buffer.from('alice:s3cret').toString('base64')}`,
      GLOBAL,
    );
    assert.ok(await search('Remote'));
    const text = (await vscode.commands.executeCommand('labData.copySupportReport')) as string;
    assert.ok(
      !text.includes(Buffer.from('alice:s3cret').toString('base64')),
      'proxy credentials never reach a support report',
    );
  });

  it('a password in http.proxy: a wrong one is named as the user info in http.proxy, the right one works, and neither shows in a message, the log or the support report', async () => {
    await httpConfig().update('proxyAuthorization', undefined, GLOBAL);
    const wrongPassword = 'Wr0ng-Pr0xy-Pass';
    await httpConfig().update(
      'proxy',
      authProxy.url.replace('http://', `http://alice:${wrongPassword}@`),
      GLOBAL,
    );
    assert.equal(await search('Remote'), undefined);
    assert.equal(
      await lastFailureSentence(),
      `The proxy at ${authProxy.url} rejected the user name and password in its address in http.proxy (HTTP 407); correct them there.`,
    );
    const wrongReport = (await vscode.commands.executeCommand(
      'labData.copySupportReport',
    )) as string;

    await httpConfig().update(
      'proxyAuthorization',
      `Basic ${Buffer.from(`alice:${wrongPassword}`).toString('base64')}`,
      GLOBAL,
    );
    assert.equal(await search('Remote'), undefined);
    assert.match(
      await lastFailureSentence(),
      new RegExp(
        `^The proxy at ${authProxy.url.replace(/\./g, '\\.')} \\(from http\\.proxy\\) rejected the credentials in http\\.proxyAuthorization \\(HTTP 407\\)`,
      ),
    );
    await httpConfig().update('proxyAuthorization', undefined, GLOBAL);

    const before = authProxy.lines().length;
    await httpConfig().update(
      'proxy',
      authProxy.url.replace('http://', 'http://alice:s3cret@'),
      GLOBAL,
    );
    assert.ok(await search('Remote'), 'the user info in http.proxy answers the proxy');
    assert.ok(
      authProxy
        .lines()
        .slice(before)
        .some((line) => line.startsWith('CONNECT lab.test:')),
      'the proxy saw the CONNECT',
    );
    await eventually(async () =>
      assert.match(
        await logText(),
        /rejected the user name and password in its address in http\.proxy/,
      ),
    );
    const everything = `${wrongReport}\n${await logText()}`;
    for (const secret of [
      wrongPassword,
      'alice:s3cret',
      Buffer.from(`alice:${wrongPassword}`).toString('base64'),
      Buffer.from('alice:s3cret').toString('base64'),
    ]) {
      assert.ok(!everything.includes(secret), `${secret} shows in the log or the support report`);
    }
    await httpConfig().update('proxy', undefined, GLOBAL);
  });
});

describe("VS Code's own network stack: the proxy, proxy sign-in and settings VS Code uses reach Lab Data", function () {
  this.timeout(120_000);
  let api: LabDataExtensionApi;
  let server: MockLabServer;
  let proxy: ForwardProxy;
  let authProxy: ForwardProxy;
  let remote: string;

  before(async () => {
    api = await activateExtension();
    // An HTTPS lab whose host name resolves only at the proxy (a request that reaches it went through
    // the proxy), with a CA that VS Code's own fetch trusts (its test certificates) and no Lab Data setting names.
    const certs = vscodeTrustedCertificates();
    server = new MockLabServer({
      reports: 15,
      samples: 5,
      tls: { key: certs.key, cert: certs.cert },
      tokens: { [LEAK_CHECK_TOKEN]: { label: 'leak check' } },
    });
    await server.start();
    proxy = await startForwardProxy();
    authProxy = await startForwardProxy({ auth: 'carol:v5code' });
    remote = `https://lab.test:${new URL(server.baseUrl).port}`;
    await labData().update('caCertificates', undefined, GLOBAL);
    await labData().update('network', undefined, GLOBAL);
    await labData().update('baseUrl', undefined, GLOBAL);
    await labData().update('labs', [{ name: 'Behind the proxy', baseUrl: remote }], GLOBAL);
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => lab.name),
        ['Behind the proxy'],
      ),
    );
  });

  after(async () => {
    await vscode.commands.executeCommand('labData.signOut', { name: 'Behind the proxy' });
    for (const key of ['proxy', 'proxyAuthorization', 'proxySupport'] as const) {
      await httpConfig().update(key, undefined, GLOBAL);
    }
    await labData().update('network', undefined, GLOBAL);
    await labData().update('labs', undefined, GLOBAL);
    await server.stop();
    await proxy.stop();
    await authProxy.stop();
  });

  it('a proxy set only in http.proxy: the lab is reached through it by VS Code’s own fetch, and the log says so', async () => {
    await httpConfig().update('proxy', proxy.url, GLOBAL);
    const before = proxy.lines().length;
    assert.deepEqual(await signIn(remote, LEAK_CHECK_TOKEN, 'Behind the proxy'), {
      name: 'Behind the proxy',
      baseUrl: remote,
      host: new URL(remote).host,
    });
    assert.equal(
      (await search('Behind the proxy'))?.ids.length,
      server.reportsFor(LEAK_CHECK_TOKEN).length,
    );
    const seen = proxy.lines().slice(before);
    console.log(
      `      proxy log: ${seen.map((line) => line.split(' ').slice(0, 2).join(' ')).join(', ')}`,
    );
    assert.ok(
      seen.some((line) => line.includes(`lab.test:${new URL(remote).port}`)),
      `the proxy saw the lab's requests:\n${seen.join('\n')}`,
    );
    await eventually(async () =>
      assert.match(
        await logText(),
        /Lab requests go through VS Code's network stack \(its proxy, proxy sign-in and certificates\): labData\.network is "vscode"/,
      ),
    );
  });

  it('with http.proxySupport "off", the same request goes direct and the proxy sees nothing', async () => {
    await httpConfig().update('proxySupport', 'off', GLOBAL);
    try {
      const before = proxy.lines().length;
      assert.equal(
        await search('Behind the proxy'),
        undefined,
        'lab.test does not resolve without the proxy',
      );
      assert.equal(proxy.lines().length, before, 'the proxy saw nothing');
      assert.match(await lastFailureSentence(), /Cannot reach the lab at https:\/\/lab\.test:\d+/);
    } finally {
      await httpConfig().update('proxySupport', undefined, GLOBAL);
    }
    assert.ok(await search('Behind the proxy'), 'through the proxy again');
  });

  it('a proxy with Basic authentication in http.proxy and http.proxyAuthorization: reached through it (the proxy saw the CONNECT), on Lab Data’s own connection, which answers with the setting', async () => {
    await httpConfig().update('proxy', authProxy.url, GLOBAL);
    await httpConfig().update(
      'proxyAuthorization',
      `Basic ${Buffer.from('carol:v5code').toString('base64')}`,
      GLOBAL,
    );
    // Lab Data's own connection trusts what it is told: the lab's CA, named in labData.caCertificates.
    await labData().update('caCertificates', [vscodeTrustedCertificates().caFile], GLOBAL);
    const before = authProxy.lines().length;
    assert.ok(await search('Behind the proxy'));
    assert.ok(
      authProxy
        .lines()
        .slice(before)
        .some((line) => line.startsWith(`CONNECT lab.test:${new URL(remote).port}`)),
      'the proxy saw the CONNECT',
    );
    await eventually(async () =>
      assert.match(
        await logText(),
        /Lab requests go through Lab Data's own connection \(undici\): http\.proxyAuthorization is set/,
      ),
    );
    // http.proxySupport "off" holds on Lab Data's own connection too: the same request goes direct, and the proxy sees nothing.
    await httpConfig().update('proxySupport', 'off', GLOBAL);
    try {
      const offBefore = authProxy.lines().length;
      assert.equal(
        await search('Behind the proxy'),
        undefined,
        'lab.test does not resolve without the proxy',
      );
      assert.equal(authProxy.lines().length, offBefore, 'the proxy saw nothing');
    } finally {
      await httpConfig().update('proxySupport', undefined, GLOBAL);
    }
    await httpConfig().update('proxyAuthorization', undefined, GLOBAL);
    await labData().update('caCertificates', undefined, GLOBAL);
  });

  it('a lab whose definition names its own proxy (and certificates) takes Lab Data’s own connection through that proxy, whatever http.proxy says; its password shows nowhere', async () => {
    const password = 'v5code';
    await httpConfig().update('proxy', proxy.url, GLOBAL);
    await labData().update(
      'labs',
      [
        { name: 'Behind the proxy', baseUrl: remote },
        {
          name: 'Own proxy',
          baseUrl: remote,
          proxy: authProxy.url.replace('http://', `http://carol:${password}@`),
          caCertificates: [vscodeTrustedCertificates().caFile],
        },
      ],
      GLOBAL,
    );
    try {
      await eventually(async () =>
        assert.deepEqual(
          (await api.getState()).labs.map((lab) => lab.name),
          ['Behind the proxy', 'Own proxy'],
        ),
      );
      const [before, otherBefore] = [authProxy.lines().length, proxy.lines().length];
      assert.deepEqual(await signIn(remote, LEAK_CHECK_TOKEN, 'Own proxy'), {
        name: 'Own proxy',
        baseUrl: remote,
        host: new URL(remote).host,
      });
      assert.equal(
        (await search('Own proxy'))?.ids.length,
        server.reportsFor(LEAK_CHECK_TOKEN).length,
      );
      assert.ok(
        authProxy
          .lines()
          .slice(before)
          .some((line) => line.startsWith(`CONNECT lab.test:${new URL(remote).port}`)),
        'its own proxy saw the CONNECT',
      );
      assert.equal(proxy.lines().length, otherBefore, 'http.proxy saw nothing of it');
      await eventually(async () =>
        assert.match(
          await logText(),
          /Requests to Own proxy go through Lab Data's own connection \(undici\): its definition names its own proxy\./,
        ),
      );
      assert.ok(
        !(await logText()).includes(`carol:${password}`),
        'the proxy password shows nowhere in the log',
      );
    } finally {
      await vscode.commands.executeCommand('labData.signOut', { name: 'Own proxy' });
      await labData().update('labs', [{ name: 'Behind the proxy', baseUrl: remote }], GLOBAL);
    }
  });

  it('with VS Code’s network support for extensions off (http.fetchAdditionalSupport), Lab Data’s own connection takes over, with the explicit proxy, and says so once', async () => {
    await httpConfig().update('proxy', proxy.url, GLOBAL);
    // Lab Data's own connection trusts the lab's CA when told (labData.caCertificates would choose it too: the log gives the first reason that applies).
    await labData().update('caCertificates', [vscodeTrustedCertificates().caFile], GLOBAL);
    await httpConfig().update('fetchAdditionalSupport', false, GLOBAL);
    try {
      const before = proxy.lines().length;
      assert.ok(await search('Behind the proxy'));
      assert.ok(
        proxy
          .lines()
          .slice(before)
          .some((line) => line.startsWith(`CONNECT lab.test:${new URL(remote).port}`)),
        'through http.proxy, on undici',
      );
      await eventually(async () =>
        assert.match(
          await logText(),
          /Lab requests go through Lab Data's own connection \(undici\): VS Code's network support for extensions is off \(http\.fetchAdditionalSupport\)/,
        ),
      );
    } finally {
      await httpConfig().update('fetchAdditionalSupport', undefined, GLOBAL);
      await labData().update('caCertificates', undefined, GLOBAL);
    }
  });

  it('labData.network "direct": Lab Data’s own connection, with the same explicit settings; the log says which and why', async () => {
    await httpConfig().update('proxy', proxy.url, GLOBAL);
    await labData().update('network', 'direct', GLOBAL);
    await labData().update('caCertificates', [vscodeTrustedCertificates().caFile], GLOBAL);
    try {
      const before = proxy.lines().length;
      assert.ok(await search('Behind the proxy'));
      assert.ok(
        proxy
          .lines()
          .slice(before)
          .some((line) => line.startsWith(`CONNECT lab.test:${new URL(remote).port}`)),
        'undici tunnels through the proxy from http.proxy',
      );
      await eventually(async () =>
        assert.match(
          await logText(),
          /Lab requests go through Lab Data's own connection \(undici\): labData\.network is "direct"/,
        ),
      );
    } finally {
      await labData().update('network', undefined, GLOBAL);
      await labData().update('caCertificates', undefined, GLOBAL);
    }
  });
});

describe('certificates only the operating system or only NODE_EXTRA_CA_CERTS vouch for, with no Lab Data setting', function () {
  this.timeout(120_000);
  let api: LabDataExtensionApi;
  const servers: MockLabServer[] = [];

  /** An HTTPS lab on 127.0.0.1 with the server certificate the test run made in `dir` (scripts/run-integration.mjs). */
  async function labSignedIn(dir: string | undefined, name: string): Promise<MockLabServer> {
    assert.ok(dir, 'the test run made its certificates (scripts/run-integration.mjs)');
    const server = new MockLabServer({
      reports: 8,
      samples: 3,
      tls: {
        key: await fs.readFile(`${dir}/server.key`, 'utf8'),
        cert: await fs.readFile(`${dir}/server.pem`, 'utf8'),
      },
      tokens: { [LEAK_CHECK_TOKEN]: { label: 'leak check' } },
    });
    await server.start();
    servers.push(server);
    await labData().update('labs', [{ name, baseUrl: server.baseUrl }], GLOBAL);
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => lab.name),
        [name],
      ),
    );
    return server;
  }

  before(async () => {
    api = await activateExtension();
    await labData().update('caCertificates', undefined, GLOBAL);
    await labData().update('network', undefined, GLOBAL);
    await labData().update('baseUrl', undefined, GLOBAL);
    for (const key of ['proxy', 'proxyAuthorization', 'proxySupport'] as const) {
      await httpConfig().update(key, undefined, GLOBAL);
    }
  });

  after(async () => {
    await labData().update('network', undefined, GLOBAL);
    await labData().update('labs', undefined, GLOBAL);
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('a lab whose CA only the OS trust store holds works on both transports (code-server gets its own copy of the OS bundle)', async function () {
    if (process.env.LABDATA_TEST_OS_STORE !== 'bound') {
      console.log(
        `      skipped: ${process.env.LABDATA_TEST_OS_STORE ?? 'the test run could not give code-server its own OS bundle'}`,
      );
      this.skip();
    }
    const server = await labSignedIn(process.env.LABDATA_TEST_OS_CA_DIR, 'OS store');
    const logBefore = (await logText()).length;
    assert.deepEqual(
      await signIn(server.baseUrl, LEAK_CHECK_TOKEN, 'OS store'),
      { name: 'OS store', baseUrl: server.baseUrl, host: new URL(server.baseUrl).host },
      "VS Code's network stack trusts the OS store",
    );
    assert.equal(
      (await search('OS store'))?.ids.length,
      server.reportsFor(LEAK_CHECK_TOKEN).length,
    );
    assert.doesNotMatch(
      (await logText()).slice(logBefore),
      /did not trust the lab's certificate; Lab Data's own connection/,
      'no switch was needed: VS Code trusted it',
    );
    await labData().update('network', 'direct', GLOBAL);
    try {
      assert.equal(
        (await search('OS store'))?.ids.length,
        server.reportsFor(LEAK_CHECK_TOKEN).length,
        "Lab Data's own connection trusts the OS store too",
      );
      await eventually(async () =>
        assert.match(
          await logText(),
          /Lab requests go through Lab Data's own connection \(undici\): labData\.network is "direct"/,
        ),
      );
    } finally {
      await labData().update('network', undefined, GLOBAL);
      await vscode.commands.executeCommand('labData.signOut', { name: 'OS store' });
    }
  });

  it('a lab whose CA comes only from NODE_EXTRA_CA_CERTS (set for code-server) still signs in: that lab switches to Lab Data’s own connection, and the log says why', async () => {
    const server = await labSignedIn(process.env.LABDATA_TEST_EXTRA_CA_DIR, 'Extra CA');
    assert.deepEqual(await signIn(server.baseUrl, LEAK_CHECK_TOKEN, 'Extra CA'), {
      name: 'Extra CA',
      baseUrl: server.baseUrl,
      host: new URL(server.baseUrl).host,
    });
    assert.equal(
      (await search('Extra CA'))?.ids.length,
      server.reportsFor(LEAK_CHECK_TOKEN).length,
    );
    await eventually(async () =>
      assert.match(
        await logText(),
        /VS Code's network stack did not trust the lab's certificate; Lab Data's own connection, which adds NODE_EXTRA_CA_CERTS, is used for this lab from now on\./,
      ),
    );
    await vscode.commands.executeCommand('labData.signOut', { name: 'Extra CA' });
  });
});
