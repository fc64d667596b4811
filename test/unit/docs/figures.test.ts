import * as assert from 'node:assert/strict';
import {
  bytesPerReportFigures,
  figuresOff,
  tarballFigures,
  vsixFigures,
} from '../../support/docFigures';

// The measured side: test/cli/runOutput.test.ts packs the tool and syncs 500 reports, and checks
// both figures against what it measures (within 10 %); `npm run bench` prints them too.
describe('figures in the documents', () => {
  it('give one size for the packed tool, in each place it is given', () => {
    const found = tarballFigures();
    assert.ok(found.length >= 2, JSON.stringify(found));
    assert.deepEqual(
      [...new Set(found.map((figure) => figure.value))],
      [found[0]!.value],
      JSON.stringify(found),
    );
  });

  it('give one size for a report in the manifest, in each place it is given', () => {
    const found = bytesPerReportFigures();
    assert.ok(found.length >= 2, JSON.stringify(found));
    // "About 360 bytes" beside the bench's 358 B: one figure, rounded.
    const values = found.map((figure) => figure.value);
    assert.ok(Math.max(...values) <= Math.min(...values) * 1.05, JSON.stringify(found));
    assert.ok(Math.max(...values) <= 400, 'within the target the bench holds it to');
  });

  it('give the packaged extension a size, which the integration runner checks against the .vsix', () => {
    const found = vsixFigures();
    assert.ok(found.length >= 1, JSON.stringify(found));
    assert.deepEqual(figuresOff(found, found[0]!.value), []);
    assert.equal(
      figuresOff(found, found[0]!.value * 1.2).length,
      found.length,
      'a figure 20 % off is said',
    );
  });
});
