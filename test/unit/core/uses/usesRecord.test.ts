import * as assert from 'node:assert/strict';
import {
  USES_FILE_NAME,
  isUsesText,
  laterUse,
  mergeUses,
  parseUses,
  usesRecord,
  usesText,
  type ReportUse,
} from '../../../../core/uses/usesRecord';
import { USES_GITATTRIBUTES_LINE } from '../../../../core/sync/resolveManifest';

const LAB = 'https://lab.example.com';
const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

function use(
  consumer: string,
  id: string,
  revision: string,
  extra: Partial<ReportUse> = {},
): ReportUse {
  return {
    consumer,
    lab: LAB,
    id,
    revision,
    sha256: revision === '1' ? A : B,
    how: 'read',
    ...extra,
  };
}

describe('core/uses/usesRecord: the committed record of uses', () => {
  it('writes sorted, one use a line, no times or machine paths, and reads back the same', () => {
    const record = usesRecord([
      use('notebooks/b.ipynb', 'RPT-2026-000002', '1'),
      use('analysis/a.py', 'RPT-2026-000001', '2'),
      use('analysis/a.py', 'RPT-2026-000000', '1', { how: 'named' }),
    ]);
    const text = usesText(record);
    assert.equal(
      text,
      `{
  "consumers": {
    "analysis/a.py": [
      {"how": "named", "id": "RPT-2026-000000", "lab": "${LAB}", "revision": "1", "sha256": "${A}"},
      {"how": "read", "id": "RPT-2026-000001", "lab": "${LAB}", "revision": "2", "sha256": "${B}"}
    ],
    "notebooks/b.ipynb": [
      {"how": "read", "id": "RPT-2026-000002", "lab": "${LAB}", "revision": "1", "sha256": "${A}"}
    ]
  },
  "version": 1
}
`,
    );
    assert.deepEqual(parseUses(text), record);
    assert.equal(usesText(parseUses(text)), text, 'deterministic');
    assert.ok(isUsesText(text));
    assert.ok(!isUsesText('{"version": 3, "labs": {}}'), 'a manifest is not a record of uses');
    assert.equal(USES_GITATTRIBUTES_LINE, `${USES_FILE_NAME} merge=lab-data`);
  });

  it('refuses conflict markers (naming the line), another version and a broken use', () => {
    assert.throws(() => parseUses('{\n<<<<<<< ours\n'), /conflict markers \(line 2\)/);
    assert.throws(() => parseUses('{"consumers": {}, "version": 9}'), /version 1/);
    assert.throws(
      () => parseUses('{"consumers": {"a.py": [{"id": "R-1"}]}, "version": 1}'),
      /a use of a\.py is not one/,
    );
    assert.deepEqual(parseUses(undefined), { uses: [] });
    assert.deepEqual(parseUses('  \n'), { uses: [] });
  });

  it('merges two branches use by use: both sides’ uses kept, a removal since the base wins, a change on one side taken', () => {
    const base = usesRecord([use('a.py', 'R-0001', '1'), use('gone.py', 'R-0001', '1')]);
    const ours = usesRecord([
      use('a.py', 'R-0001', '1'),
      use('ours.py', 'R-0002', '1'),
      use('gone.py', 'R-0001', '1'),
    ]);
    const theirs = usesRecord([use('a.py', 'R-0001', '2'), use('theirs.R', 'R-0003', '1')]);
    const merged = mergeUses(base, ours, theirs);
    assert.deepEqual(
      merged.uses.map((each) => `${each.consumer} ${each.id} ${each.revision}`),
      ['a.py R-0001 2', 'ours.py R-0002 1', 'theirs.R R-0003 1'],
    );
    assert.deepEqual(mergeUses(base, theirs, ours), merged, 'the same in either order');
  });

  it('when both sides changed one use: the newer revision, then a read over a name, then the first SHA-256, in either order', () => {
    const base = usesRecord([use('a.py', 'R-0001', '1')]);
    const two = use('a.py', 'R-0001', '2');
    const three = use('a.py', 'R-0001', '3', { how: 'named' });
    assert.equal(mergeUses(base, usesRecord([two]), usesRecord([three])).uses[0], three);
    assert.equal(mergeUses(base, usesRecord([three]), usesRecord([two])).uses[0], three);
    const named = use('a.py', 'R-0001', '2', { how: 'named', sha256: 'c'.repeat(64) });
    assert.equal(laterUse(named, two), two);
    assert.equal(laterUse(two, named), two);
    const other = use('a.py', 'R-0001', '2', { sha256: '0'.repeat(64) });
    assert.equal(laterUse(two, other), other);
    assert.equal(laterUse(other, two), other);
    assert.equal(laterUse(use('a.py', 'R-0001', '10'), use('a.py', 'R-0001', '9')).revision, '10');
  });
});
