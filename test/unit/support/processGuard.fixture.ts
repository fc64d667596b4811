/**
 * Run by processGuard.test.ts in a child mocha, never as part of the suite: each test commits one
 * of the faults the process guard must turn into a failed test, and one commits none.
 */
import { EventEmitter } from 'node:events';

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

/**
 * What a faulty test awaits: mocha charges the fault's uncaught exception to the test and moves
 * on, so the test must never end on its own as well. One that settled afterwards would be ended
 * twice, and on a busy machine mocha then sometimes ends the whole run after it (seen: the later
 * faults never ran). Should the guard miss the fault, mocha's own timeout fails the test instead,
 * with a message the parent's check does not accept.
 */
const chargedToTheGuard = (): Promise<void> => new Promise(() => undefined);

describe('faults the process guard catches', () => {
  it('an error event nobody listens to', async () => {
    const body = new EventEmitter();
    setImmediate(() =>
      body.emit('error', Object.assign(new Error('aborted'), { code: 'UND_ERR_ABORTED' })),
    );
    await chargedToTheGuard();
  });

  it('a rejection nobody handles', async () => {
    void Promise.reject(new Error('forgotten'));
    await chargedToTheGuard();
  });

  it('abort listeners that pile up on a long-lived signal', async () => {
    const signal = new AbortController().signal;
    for (let i = 0; i < 11; i++) {
      signal.addEventListener('abort', () => undefined);
    }
    await chargedToTheGuard();
  });

  it('nothing wrong', async () => {
    const signal = new AbortController().signal;
    for (let i = 0; i < 11; i++) {
      const listener = (): void => undefined;
      signal.addEventListener('abort', listener);
      signal.removeEventListener('abort', listener);
    }
    await tick();
  });
});
