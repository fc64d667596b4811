import * as assert from 'node:assert/strict';
import { sharedTitlePrefix, withoutSharedPrefix } from '../../../src/views/sharedTitles';

describe('sharedTitles', () => {
  it('finds the whole words every title of a list starts with', () => {
    const titles = ['Reservoir Algae Survey — Q3 round', 'Reservoir Algae Survey — Q4 round'];
    const prefix = sharedTitlePrefix(titles);
    assert.equal(prefix, 'Reservoir Algae Survey');
    assert.deepEqual(
      titles.map((title) => withoutSharedPrefix(title, prefix)),
      ['Q3 round', 'Q4 round'],
    );
  });

  it('drops a title that is nothing but the shared words (every report of a project named after it)', () => {
    const prefix = sharedTitlePrefix(['North Well', 'North Well', 'North Well']);
    assert.equal(prefix, 'North Well');
    assert.equal(withoutSharedPrefix('North Well', prefix), undefined);
  });

  it('never cuts a word: "North Wellfield" and "North Well" share "North" only', () => {
    assert.equal(sharedTitlePrefix(['North Wellfield A', 'North Well B']), 'North');
    assert.equal(sharedTitlePrefix(['Harbor Q3', 'Harbour Q4']), undefined);
  });

  it('finds nothing for one title, for a list where some title is missing, or for a short prefix', () => {
    assert.equal(sharedTitlePrefix(['Reservoir Algae Survey']), undefined);
    assert.equal(sharedTitlePrefix(['Reservoir Algae Survey', undefined]), undefined);
    assert.equal(sharedTitlePrefix(['A — one', 'A — two']), undefined);
    assert.equal(withoutSharedPrefix('Other title', 'Reservoir'), 'Other title');
    assert.equal(withoutSharedPrefix('Reservoir Algae', undefined), 'Reservoir Algae');
  });
});
