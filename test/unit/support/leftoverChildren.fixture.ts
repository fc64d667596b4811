// Run by leftoverChildren.test.ts in a mocha of its own (with the plugin required), never by npm
// test directly (its name does not end in .test.ts). Each test writes the id of what it started
// to the file LEFTOVER_PIDS names, so the test can look for them after this run ended.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { endWithItsTest } from '../../support/leftoverChildren';

/** A process that runs until it is ended, as a hung `lab-data` run would. */
function hang(name: string): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], {
    stdio: 'ignore',
  });
  endWithItsTest(child);
  appendFileSync(process.env.LEFTOVER_PIDS!, `${name} ${child.pid}\n`);
  return child;
}

describe('tests that start processes', () => {
  let suiteWide: ChildProcess;

  before(() => {
    suiteWide = hang('suite');
  });

  after(() => {
    suiteWide.kill('SIGKILL');
  });

  it('times out while its process still runs', function () {
    this.timeout(300);
    hang('timedOut');
    return new Promise(() => undefined);
  });

  it("finds the suite's process still running after the first test ended", () => {
    if (suiteWide.exitCode !== null || suiteWide.signalCode !== null) {
      throw new Error('the suite-wide process was ended with a test');
    }
  });
});
