import * as assert from 'node:assert/strict';
import { manifestProblemText } from '../../../../core/sync/manifestProblems';

describe('manifestProblemText: why a manifest cannot be used, as both clients say it', () => {
  const file = '/work/lab-reports/lab-data-sync.json';

  it('names the file and what to do for each kind of problem', () => {
    assert.match(
      manifestProblemText({ kind: 'missing', file }),
      /There is no manifest at .*lab-data-sync\.json/,
    );
    assert.match(
      manifestProblemText({ kind: 'malformed', file, reason: 'bad JSON' }),
      /cannot be read: bad JSON\./,
    );
    assert.match(manifestProblemText({ kind: 'conflict', file }), /lab-data-sync\.json/);
    assert.match(manifestProblemText({ kind: 'version', file, version: 9 }), /9/);
    assert.match(manifestProblemText({ kind: 'version', file, version: 'x' }), /versions 1 to 3/);
    assert.match(
      manifestProblemText({
        kind: 'entry',
        file,
        lab: 'Lab',
        reportId: 'R-2',
        name: 'R-2.pdf',
        reason: 'its "bytes" is -1 (negative), not a size in bytes to check the file against',
        line: 12,
      }),
      /lab-data-sync\.json \(line 12\) lists "R-2\.pdf" for R-2 .*its "bytes" is -1/,
    );
  });

  it('shows manifest text made safe: no control or bidi characters reach a message', () => {
    const text = manifestProblemText({
      kind: 'entry',
      file,
      lab: 'Lab\u202e',
      reportId: 'R-1\u0007',
      name: '../x\u0000.pdf',
      reason: 'it leaves the folder',
    });
    assert.doesNotMatch(text, /[\u0000-\u001f\u202e]/);
    assert.match(text, /it leaves the folder/);
  });
});
