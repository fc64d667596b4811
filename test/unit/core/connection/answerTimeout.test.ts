import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { answerTimeoutMs, DEFAULT_TIMEOUTS } from '../../../../core/connection/httpClient';

describe('answerTimeoutMs: how long a lab may take to answer', () => {
  it('is 30 s unless LAB_DATA_ANSWER_TIMEOUT gives the seconds (1 to 3600)', () => {
    assert.equal(answerTimeoutMs({}), 30_000);
    assert.equal(answerTimeoutMs({ LAB_DATA_ANSWER_TIMEOUT: '10' }), 10_000);
    assert.equal(answerTimeoutMs({ LAB_DATA_ANSWER_TIMEOUT: ' 120 ' }), 120_000);
    assert.equal(answerTimeoutMs({ LAB_DATA_ANSWER_TIMEOUT: '2.5' }), 2_500);
    for (const ignored of ['', 'soon', '0', '-5', '0.5', '3601', 'Infinity']) {
      assert.equal(answerTimeoutMs({ LAB_DATA_ANSWER_TIMEOUT: ignored }), 30_000, ignored);
    }
  });

  it('is what every request waits by default, read from the process environment when the core loads', () => {
    const httpClient = path.resolve(__dirname, '../../../../core/connection/httpClient.js');
    const loaded = (env: NodeJS.ProcessEnv): number =>
      Number(
        execFileSync(
          process.execPath,
          [
            '-e',
            `process.stdout.write(String(require(${JSON.stringify(httpClient)}).DEFAULT_TIMEOUTS.headersMs))`,
          ],
          { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' },
        ),
      );
    assert.equal(loaded({}), 30_000);
    assert.equal(loaded({ LAB_DATA_ANSWER_TIMEOUT: '10' }), 10_000);
    assert.equal(DEFAULT_TIMEOUTS.headersMs, answerTimeoutMs());
  });

  it('unset, a lab has 30 s for its headers and 30 s between two parts of its body, in the clients a person waits on and the background ones, and in Check Connection (issue 49)', () => {
    const out = path.resolve(__dirname, '../../../../core');
    // What each client hands the transport it builds, and the check's own default, in a process
    // whose environment has no LAB_DATA_ANSWER_TIMEOUT: the defaults themselves, without waiting 30 s.
    const script = `
      const { LabApi } = require(${JSON.stringify(path.join(out, 'api/labApi.js'))});
      const { defaultLabDefinition } = require(${JSON.stringify(path.join(out, 'api/labDefinition.js'))});
      const { parseBaseUrl } = require(${JSON.stringify(path.join(out, 'connection/baseUrl.js'))});
      const check = require(${JSON.stringify(path.join(out, 'connection/check/checkConnection.js'))});
      const seen = {};
      for (const interactive of [true, false]) {
        new LabApi({
          lab: defaultLabDefinition(parseBaseUrl('https://lab.example'), 'Lab'),
          token: 'a-token-of-thirty-characters-x',
          interactive,
          transport: (settings) => {
            seen[interactive ? 'interactive' : 'background'] = settings.timeouts;
            return { name: 'recording', proxyFor: () => undefined, send: () => Promise.reject(new Error('not sent')), close: () => Promise.resolve() };
          },
        });
      }
      seen.check = check.DEFAULT_ANSWER_TIMEOUT_MS;
      process.stdout.write(JSON.stringify(seen));`;
    const defaults = JSON.parse(
      execFileSync(process.execPath, ['-e', script], {
        env: { PATH: process.env.PATH },
        encoding: 'utf8',
      }),
    ) as Record<string, unknown>;
    const thirty = { connectMs: 10_000, headersMs: 30_000, bodyIdleMs: 30_000 };
    assert.deepEqual(defaults, { interactive: thirty, background: thirty, check: 30_000 });
  });
});
