import * as assert from 'node:assert/strict';
import { connectStep } from '../../../../../core/connection/check/connect';
import { closedPort } from '../../../helpers';

describe('Check Connection’s connection step', () => {
  it('a refused connection fails as refused, naming the address; no socket is left', async () => {
    const port = await closedPort();
    const { step, socket } = await connectStep(
      new URL(`http://127.0.0.1:${port}`),
      undefined,
      undefined,
      { noProxy: [] },
      2_000,
      undefined,
    );
    assert.equal(step.outcome, 'failed');
    assert.equal(step.problem, 'refused');
    assert.match(
      step.summary,
      new RegExp(`^cannot connect to 127\\.0\\.0\\.1:${port}: connection refused`),
    );
    assert.equal(socket, undefined);
  });
});
