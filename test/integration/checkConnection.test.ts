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
} from './helpers';

const labData = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('labData');
const httpConfig = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('http');
const GLOBAL = vscode.ConfigurationTarget.Global;
const PROXY_PASSWORD = 'Pr0xy-IT-Pa55word';
const WRONG_PASSWORD = 'Wr0ng-IT-Pa55word';

async function logText(): Promise<string> {
  const files = await labDataLogFiles();
  return (await Promise.all(files.map((file) => fs.readFile(file, 'utf8')))).join('\n');
}

function assertNothingShows(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) {
    assert.ok(!text.includes(secret), `"${secret}" shows in:\n${text}`);
  }
}

/** Every spelling of the proxy's credentials and the token. */
function secrets(password: string): string[] {
  return [
    LEAK_CHECK_TOKEN,
    password,
    `alice:${password}`,
    Buffer.from(`alice:${password}`).toString('base64'),
    'alice@',
  ];
}

describe('Check Connection: the way to a lab, step by step, in the log and a read-only document', function () {
  this.timeout(120_000);
  let api: LabDataExtensionApi;
  let certs: TestCertificates;
  let plain: MockLabServer;
  let secure: MockLabServer;
  let proxy: ForwardProxy;
  let remote: string;
  const savedEnv = {
    HTTPS_PROXY: process.env.HTTPS_PROXY,
    https_proxy: process.env.https_proxy,
    NO_PROXY: process.env.NO_PROXY,
    no_proxy: process.env.no_proxy,
  };

  before(async () => {
    api = await activateExtension();
    certs = makeTestCertificates();
    plain = new MockLabServer({
      reports: 12,
      samples: 4,
      tokens: { [LEAK_CHECK_TOKEN]: { label: 'leak check' } },
    });
    secure = new MockLabServer({
      reports: 12,
      samples: 4,
      tls: { key: certs.key, cert: certs.cert },
      tokens: { [LEAK_CHECK_TOKEN]: { label: 'leak check' } },
    });
    await plain.start();
    await secure.start();
    proxy = await startForwardProxy({ auth: `alice:${PROXY_PASSWORD}` });
    remote = secure.baseUrlAt('lab.test');
    for (const key of Object.keys(savedEnv)) {
      delete process.env[key];
    }
    await labData().update('baseUrl', undefined, GLOBAL);
    await labData().update('caCertificates', [certs.caFile], GLOBAL);
    await httpConfig().update(
      'proxy',
      proxy.url.replace('http://', `http://alice:${PROXY_PASSWORD}@`),
      GLOBAL,
    );
    await labData().update(
      'labs',
      [
        { name: 'Local', baseUrl: plain.baseUrl },
        { name: 'Remote', baseUrl: remote },
      ],
      GLOBAL,
    );
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => lab.name),
        ['Local', 'Remote'],
      ),
    );
    assert.equal(
      (await signIn(plain.baseUrl, LEAK_CHECK_TOKEN, 'Local')) !== undefined,
      true,
      'signed in to Local',
    );
    assert.equal(
      (await signIn(remote, LEAK_CHECK_TOKEN, 'Remote')) !== undefined,
      true,
      'signed in to Remote through the proxy',
    );
  });

  after(async () => {
    Object.assign(
      process.env,
      Object.fromEntries(Object.entries(savedEnv).filter(([, value]) => value !== undefined)),
    );
    await httpConfig().update('proxy', undefined, GLOBAL);
    await labData().update('caCertificates', undefined, GLOBAL);
    await labData().update('labs', undefined, GLOBAL);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await plain.stop();
    await secure.stop();
    await proxy.stop();
    certs.remove();
  });

  it('labData.checkConnection({ lab }) for a signed-in local lab returns the report with every step, opens it read-only and logs it, with no token anywhere', async () => {
    const text = (await vscode.commands.executeCommand('labData.checkConnection', {
      lab: 'Local',
    })) as string;
    assert.equal(typeof text, 'string');
    assert.match(text, /^Lab Data: Check Connection$/m);
    assert.match(
      text,
      new RegExp(`^Lab "Local" at ${plain.baseUrl.replace(/\./g, '\\.')}: every step passed$`, 'm'),
    );
    assert.match(
      text,
      /^ {2}Its requests: (VS Code's network stack \(its proxy, proxy sign-in and certificates\)|Lab Data's own connection \(undici\)): .+$/m,
      'the report says which transport the lab uses, and why',
    );
    assert.match(text, /^ {2}1\. Name resolution: ok, \d+ ms: /m);
    assert.match(text, /^ {2}2\. Proxy: ok, \d+ ms: direct$/m);
    assert.match(text, /^ {2}3\. Connection: ok, \d+ ms: connected to 127\.0\.0\.1:\d+$/m);
    assert.match(text, /^ {2}4\. TLS: skipped: /m);
    assert.match(
      text,
      new RegExp(
        `^ {2}5\\. Authenticated request: ok, \\d+ ms: HTTP 200, 1 report of ${plain.reportsFor(LEAK_CHECK_TOKEN).length}$`,
        'm',
      ),
    );
    assert.ok(!text.includes('Lab "Remote"'), 'only the lab named');
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.scheme, 'labdata-connection');
    assert.equal(editor?.document.getText(), text);
    const log = await eventually(async () => {
      const all = await logText();
      assert.match(all, /\[Check Connection\] Lab "Local" at .*: every step passed/);
      return all;
    });
    assertNothingShows(text, [LEAK_CHECK_TOKEN]);
    assertNothingShows(log, [LEAK_CHECK_TOKEN]);
  });

  it('a lab behind http.proxy with credentials in its address: the proxy is named with http.proxy, the tunnel answered 200, TLS trusted by the CA file; no credential shows', async () => {
    const before = proxy.lines().length;
    const text = (await vscode.commands.executeCommand('labData.checkConnection', {
      lab: 'Remote',
    })) as string;
    assert.match(text, /Lab "Remote" at https:\/\/lab\.test:\d+: every step passed/, text);
    assert.match(
      text,
      new RegExp(
        `2\\. Proxy: ok, \\d+ ms: ${proxy.url.replace(/\./g, '\\.')} \\(from http\\.proxy\\)`,
      ),
    );
    assert.match(text, /credentials: from the user info of the address in http\.proxy/);
    assert.match(text, /3\. Connection: ok, \d+ ms: tunnel to lab\.test:\d+ open \(HTTP 200\)/);
    assert.match(
      text,
      new RegExp(
        `4\\. TLS: ok, \\d+ ms: trusted, by the CA file ${certs.caFile.replace(/[.\\/]/g, (c) => `\\${c}`)} \\(labData\\.caCertificates\\)`,
      ),
    );
    assert.match(text, /certificate 1: lab\.test, issued by Lab Data Test CA, valid to/);
    assert.match(text, /5\. Authenticated request: ok, \d+ ms: HTTP 200/);
    assert.ok(
      proxy
        .lines()
        .slice(before)
        .some((line) => line.startsWith('CONNECT lab.test:')),
      'the check went through the proxy',
    );
    assertNothingShows(text, secrets(PROXY_PASSWORD));
    assertNothingShows(await logText(), secrets(PROXY_PASSWORD));
  });

  it('a wrong proxy password: the tunnel’s 407 is said plainly, and neither password nor token shows in the report or the log', async () => {
    await httpConfig().update(
      'proxy',
      proxy.url.replace('http://', `http://alice:${WRONG_PASSWORD}@`),
      GLOBAL,
    );
    try {
      const text = (await vscode.commands.executeCommand('labData.checkConnection', {
        lab: 'Remote',
      })) as string;
      assert.match(text, /Lab "Remote" at https:\/\/lab\.test:\d+: failed at Connection/, text);
      assert.match(
        text,
        /3\. Connection: failed, \d+ ms: the proxy rejected the credentials from the user name and password in the proxy address \(http\.proxy\) \(HTTP 407\)/,
      );
      assertNothingShows(text, secrets(WRONG_PASSWORD));
      assertNothingShows(await logText(), secrets(WRONG_PASSWORD));
    } finally {
      await httpConfig().update(
        'proxy',
        proxy.url.replace('http://', `http://alice:${PROXY_PASSWORD}@`),
        GLOBAL,
      );
    }
  });

  it('with no lab named it checks every lab', async () => {
    const text = (await vscode.commands.executeCommand('labData.checkConnection')) as string;
    assert.match(text, /Lab "Local"/);
    assert.match(text, /Lab "Remote"/);
    assertNothingShows(text, secrets(PROXY_PASSWORD));
  });
});
