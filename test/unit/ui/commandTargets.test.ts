import * as assert from 'node:assert/strict';
import { commandTargets, TREE_ROW, type RecordRef } from '../../../src/ui/commandTargets';

const row = (ref: RecordRef): { ref: RecordRef; id: string } => ({
  ref,
  id: `${ref.lab}/${ref.id}`,
});
const r1 = row({ lab: 'Meridian', kind: 'report', id: 'R-1' });
const r2 = row({ lab: 'Meridian', kind: 'report', id: 'R-2' });

describe('command arguments', () => {
  it('a tree row that names nothing ("Load more…", as VS Code 1.139 passes the focused row to a title-bar button) is the UI asking, not automation', () => {
    const loadMore = { [TREE_ROW]: true, id: 'reports:more', list: { items: [] }, noun: 'reports' };
    assert.deepEqual(commandTargets([loadMore]), {
      lab: undefined,
      refs: [],
      ids: [],
      options: {},
      several: false,
      fromUi: true,
      clicked: false,
      automated: false,
    });
    assert.equal(commandTargets([null]).automated, false, 'no focused row: null');
    assert.deepEqual(commandTargets([{ ...r1, [TREE_ROW]: true }]).refs, [r1.ref]);
  });

  it('tell UI arguments (rows, selections, lab rows) from automation (ids and option objects)', () => {
    assert.deepEqual(commandTargets([r1]), {
      lab: 'Meridian',
      refs: [r1.ref],
      ids: [],
      options: {},
      several: false,
      fromUi: true,
      clicked: false,
      automated: false,
    });
    assert.equal(
      commandTargets([r1, [r1, r2]]).refs.length,
      2,
      'the selection wins when it holds the clicked row',
    );
    assert.equal(commandTargets([r1, [r1, r2]]).several, true);
    assert.deepEqual(commandTargets([{ labName: 'Beta' }]).lab, 'Beta');
    assert.equal(commandTargets([{ labName: 'Beta' }]).fromUi, true);
    const automation = commandTargets([{ lab: 'Beta', ids: ['A', 'B', 'A'], ifExists: 'skip' }]);
    assert.deepEqual(automation, {
      lab: 'Beta',
      refs: [],
      ids: ['A', 'B'],
      options: { ifExists: 'skip' },
      several: true,
      fromUi: false,
      clicked: false,
      automated: true,
    });
    assert.deepEqual(commandTargets(['R-7']), {
      lab: undefined,
      refs: [],
      ids: ['R-7'],
      options: {},
      several: false,
      fromUi: false,
      clicked: false,
      automated: false,
    });
    assert.deepEqual(commandTargets([{ id: 'R-7', lab: 'X' }]).ids, ['R-7']);
    assert.deepEqual(commandTargets([]), {
      lab: undefined,
      refs: [],
      ids: [],
      options: {},
      several: false,
      fromUi: false,
      clicked: false,
      automated: false,
    });
  });

  it("a row clicked for its context menu (clicked row, selected rows) is told from a title-bar button's selected row", () => {
    const lab = { labName: 'Beta' };
    assert.equal(commandTargets([lab, [lab]]).clicked, true, "a lab row's context menu");
    assert.equal(commandTargets([r1, [r1, r2]]).clicked, true, "a report row's context menu");
    assert.equal(
      commandTargets([lab]).clicked,
      false,
      'the row selected, passed to a title-bar button',
    );
    assert.equal(commandTargets([{ lab: 'Beta' }]).clicked, false, 'automation');
  });

  it('a selected row passed to a title-bar button is UI, never "use these options"', () => {
    const targets = commandTargets([r1]);
    assert.equal(targets.fromUi, true);
    assert.equal(targets.automated, false);
    assert.deepEqual(targets.options, {});
    // VS Code passes (focused row, selected rows) to a title-bar button, as to a context menu.
    assert.equal(commandTargets([r1, [r1, r2]]).automated, false);
    // A row with an options object is still the UI's call: the options never silence the prompts.
    assert.equal(commandTargets([r1, { status: 'amended' }]).automated, false);
    assert.equal(commandTargets([{ status: 'amended' }]).automated, true);
  });
});
