import * as assert from 'node:assert/strict';
import { OTHER } from '../../../../core/derived/overview';
import {
  OTHER_STYLE,
  STYLE_COUNT,
  TypeStyles,
  styleOfSlot,
} from '../../../../core/derived/typeStyles';

describe('report type styles', () => {
  it('keeps a type its colour and pattern whatever other types a filter leaves', () => {
    const styles = new TypeStyles();
    const all = styles.of(['CoA', 'Field', 'Microbiology']);
    // Filtered: Microbiology alone, then most frequent first in another order.
    assert.deepEqual(styles.of(['Microbiology']), { Microbiology: all.Microbiology });
    const reordered = styles.of(['Field', 'Microbiology', 'CoA']);
    assert.deepEqual(reordered, all);
  });

  it('gives types first seen in the order given distinct colours and patterns', () => {
    const styles = new TypeStyles();
    const types = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
    const given = styles.of(types);
    assert.equal(new Set(types.map((type) => given[type]!.colour)).size, types.length);
    assert.equal(new Set(types.map((type) => given[type]!.pattern)).size, types.length);
    // A type seen only later (under a filter) takes the next slot, not one already given.
    const later = styles.of(['H'])['H']!;
    assert.ok(
      types.every(
        (type) => given[type]!.colour !== later.colour || given[type]!.pattern !== later.pattern,
      ),
    );
  });

  it('draws "Other" always in the neutral colour and its own pattern, and never gives that colour to a type', () => {
    const styles = new TypeStyles();
    assert.deepEqual(styles.of([OTHER, 'CoA'])[OTHER], OTHER_STYLE);
    for (let slot = 0; slot < 100; slot++) {
      assert.notEqual(styleOfSlot(slot).colour, OTHER_STYLE.colour, `slot ${slot}`);
    }
  });

  it('repeats a colour and pattern together only after every pairing is used', () => {
    const seen = new Set<string>();
    const pairings = (STYLE_COUNT - 1) * STYLE_COUNT;
    for (let slot = 0; slot < pairings; slot++) {
      const style = styleOfSlot(slot);
      seen.add(`${style.colour}/${style.pattern}`);
    }
    assert.equal(seen.size, pairings);
  });
});
