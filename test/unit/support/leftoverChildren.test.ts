import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** The out/ folder's root, from this compiled file (out/test/unit/support). */
const OUT = path.resolve(__dirname, '..', '..', '..');
const ROOT = path.dirname(OUT);

/** Whether a process of this id is still running (signal 0 only asks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the CLI tests end what a test left running', () => {
  it("a test that times out has its process ended when it ends; a suite's own process lives on until the suite ends it", async function () {
    // A hang detector: a mocha of its own on a busy machine.
    this.timeout(120_000);
    const scratch = mkdtempSync(path.join(tmpdir(), 'lab-data-leftovers-'));
    const pids = path.join(scratch, 'pids');
    try {
      const run = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          [
            path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js'),
            '--no-config',
            '--require',
            path.join(OUT, 'test', 'support', 'leftoverChildren.js'),
            '--reporter',
            'json',
            path.join(__dirname, 'leftoverChildren.fixture.js'),
          ],
          // A process left running keeps that mocha from ending: stopped here, it fails below.
          { encoding: 'utf8', env: { ...process.env, LEFTOVER_PIDS: pids }, timeout: 60_000 },
          (_error, stdout) => resolve({ code: child.exitCode, stdout }),
        );
      });
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
        stats: { passes: number; failures: number };
        failures: Array<{ title: string }>;
      };
      assert.deepEqual(
        report.failures.map((failure) => failure.title),
        ['times out while its process still runs'],
      );
      assert.equal(report.stats.passes, 1, 'the suite-wide process outlived the first test');
      const started = Object.fromEntries(
        readFileSync(pids, 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.split(' ') as [string, string]),
      );
      // The mocha run has ended: what its tests started must be gone, not left hanging.
      assert.equal(alive(Number(started.timedOut)), false, 'the timed-out test left its process');
      assert.equal(alive(Number(started.suite)), false, 'the suite ended its own');
    } finally {
      // Whatever the run left (when the plugin failed) is ended here, by its id.
      for (const line of readFileSync(pids, 'utf8').trim().split('\n')) {
        const pid = Number(line.split(' ')[1]);
        if (pid > 0 && alive(pid)) {
          process.kill(pid, 'SIGKILL');
        }
      }
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
