import * as assert from 'node:assert/strict';
import { bounded, notTried, StepTimeout } from '../../../../../core/connection/check/bounds';
import { systemReason } from '../../../../../core/errors/errorText';
import type { CheckStepKind } from '../../../../../core/connection/check/types';
import { rejection } from '../../../helpers';

describe('Check Connection’s bounds: every step is timed and bounded', () => {
  it('a step that takes longer than its bound fails with a StepTimeout said in seconds, and is cleaned up', async () => {
    let cleaned = false;
    const error = await rejection(
      bounded(new Promise(() => undefined), 50, undefined, () => (cleaned = true)),
    );
    assert.ok(error instanceof StepTimeout);
    assert.equal(systemReason(error), 'no answer within 0.05 s');
    assert.equal(cleaned, true);
    assert.equal(await bounded(Promise.resolve(7), 50, undefined), 7);
  });

  it('a step after a failed one says which failed', () => {
    const kind: CheckStepKind = 'tls';
    assert.deepEqual(notTried(kind, 'connect'), {
      kind: 'tls',
      outcome: 'skipped',
      ms: 0,
      summary: 'not tried: the connection failed',
      details: [],
    });
  });
});
