import type { ChildProcess } from 'node:child_process';
import type * as Mocha from 'mocha';

/**
 * A mocha root-hook plugin (`require` in .mocharc.json and beside processGuard wherever mocha runs
 * the CLI tests) that ends the processes a test started and left running. A test that times out
 * (a hang detector tripping on a busy machine) leaves its `lab-data` run going: its requests then
 * reached the next test's servers, which saw a token they never expected and files they never
 * asked for, and one failure became four. Ended by their own ids, never by a name.
 */

/** The children started so far, with the test they were started in (its number). */
const running = new Map<ChildProcess, number>();
/** The number of the test running now; children started in a suite's `before` carry the one before it. */
let test = 0;

/** Ends `child` if it is still running when the test it was started in ends. */
export function endWithItsTest(child: ChildProcess): void {
  running.set(child, test);
  child.once('close', () => running.delete(child));
}

/** Ends the children started during the test that just ended; how many were still running. */
export function endLeftovers(): number {
  let ended = 0;
  for (const [child, startedIn] of running) {
    if (startedIn === test && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      ended += 1;
    }
  }
  return ended;
}

export const mochaHooks: Mocha.RootHookObject = {
  beforeEach() {
    test += 1;
  },
  afterEach() {
    const ended = endLeftovers();
    if (ended > 0) {
      console.log(`      ended ${ended} process(es) the test left running`);
    }
  },
};
