import * as assert from 'node:assert/strict';
import { failureLine } from '../../support/failureLine';

describe('failureLine', () => {
  it('names the test and the first line of its error', () => {
    const error = new Error('locator.waitFor: Timeout 15000ms exceeded.\nCall log:\n  - waiting');
    assert.equal(
      failureLine('the Reports view saves a report', error),
      'the Reports view saves a report — locator.waitFor: Timeout 15000ms exceeded.',
    );
  });

  it('skips blank lines, shortens a long reason and takes what is not an Error', () => {
    assert.equal(failureLine('t', new Error('\n\n  second line  ')), 't — second line');
    assert.equal(failureLine('t', 'x'.repeat(500)), `t — ${'x'.repeat(240)}`);
    assert.equal(failureLine('t', undefined), 't');
  });

  it('reads the message of an error mocha --parallel hands over from a worker (a plain object)', () => {
    // The worker's error arrives serialised: its fields, no longer an Error.
    const error = { name: 'AssertionError', message: '3 !== 4\n+ expected', stack: '…' };
    assert.equal(failureLine('t', error), 't — 3 !== 4');
  });
});
