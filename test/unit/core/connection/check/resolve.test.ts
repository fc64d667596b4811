import * as assert from 'node:assert/strict';
import {
  defaultPort,
  resolveStep,
  stripBrackets,
} from '../../../../../core/connection/check/resolve';

describe('Check Connection’s name lookup', () => {
  it('an address needs no lookup; a port comes from the URL or its scheme', async () => {
    const step = await resolveStep('127.0.0.1', undefined, 1_000, undefined);
    assert.equal(step.outcome, 'ok');
    assert.equal(step.summary, 'an address: nothing to look up');
    assert.equal(stripBrackets('[::1]'), '::1');
    assert.equal(defaultPort(new URL('https://lab.example')), 443);
    assert.equal(defaultPort(new URL('http://lab.example:8080')), 8080);
  });

  it('through a proxy, only the proxy’s host must be found', async () => {
    const step = await resolveStep(
      'lab.invalid',
      new URL('http://127.0.0.1:3128'),
      2_000,
      undefined,
    );
    assert.equal(step.outcome, 'ok');
    assert.match(
      step.details[0]!,
      /^lab: lab\.invalid: .*; through the proxy only the proxy needs to find it$/,
    );
  });

  it('a host that is not found fails the step as notFound', async () => {
    const step = await resolveStep('lab.invalid', undefined, 2_000, undefined);
    assert.equal(step.outcome, 'failed');
    assert.equal(step.problem, 'notFound');
  });
});
