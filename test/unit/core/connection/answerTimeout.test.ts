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
});
