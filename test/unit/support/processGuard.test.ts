import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

/** The out/ folder's root, from this compiled file (out/test/unit/support). */
const OUT = path.resolve(__dirname, '..', '..', '..');
const ROOT = path.dirname(OUT);

describe('the process guard of the unit tests', () => {
  it('fails a test that leaves an error event unheard, a rejection unhandled or abort listeners piling up; passes a clean one', function () {
    this.timeout(30_000);
    const run = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'),
        '--no-config',
        '--require',
        path.join(OUT, 'test', 'support', 'processGuard.js'),
        '--reporter',
        'json',
        path.join(__dirname, 'processGuard.fixture.js'),
      ],
      { encoding: 'utf8', timeout: 25_000 },
    );
    const json = run.stdout.slice(run.stdout.indexOf('{'));
    const report = JSON.parse(json) as {
      stats: { passes: number; failures: number };
      failures: Array<{ fullTitle: string; err: { message: string } }>;
    };
    const failed = report.failures
      .map((failure) => `${failure.fullTitle} | ${failure.err.message}`)
      .join('\n');
    assert.match(failed, /an error event nobody listens to[^\n]*\|[^\n]*(aborted|uncaught)/i);
    assert.match(failed, /a rejection nobody handles[^\n]*\|[^\n]*(forgotten|unhandled)/i);
    assert.match(failed, /abort listeners that pile up[^\n]*\|[^\n]*MaxListenersExceededWarning/);
    assert.doesNotMatch(failed, /nothing wrong/);
    // Mocha may charge one uncaught exception twice (once more when the test's promise settles).
    assert.equal(report.stats.passes, 1, failed);
    assert.notEqual(run.status, 0);
  });
});
