import * as assert from 'node:assert/strict';
import { LabApiError } from '../../../../core/errors/errors';
import {
  filtersNeeded,
  isRelativeSince,
  parseSavedSearches,
  resolveSince,
  searchFilters,
  searchesForLab,
} from '../../../../core/derived/savedSearches';
import { toUtcTimestamp } from '../../../../core/api/query';

/** A fixed clock: 22 November 2026, 15:30:45 UTC. */
const NOW = new Date('2026-11-22T15:30:45Z');

describe('saved searches and relative dates', () => {
  it('resolves hours, days and weeks by exact arithmetic from the clock', () => {
    assert.equal(resolveSince('-24h', NOW), '2026-11-21T15:30:45Z');
    assert.equal(resolveSince('-7d', NOW), '2026-11-15T15:30:45Z');
    assert.equal(resolveSince('- 2w', NOW), '2026-11-08T15:30:45Z');
    assert.equal(resolveSince('-1D', NOW), '2026-11-21T15:30:45Z', 'units are case-insensitive');
  });

  it('resolves "today" to local midnight and months and years by the calendar, clamping the day', () => {
    assert.equal(
      resolveSince('today', NOW),
      toUtcTimestamp(new Date(NOW.getFullYear(), NOW.getMonth(), NOW.getDate())),
    );
    assert.equal(resolveSince(' Today ', NOW), resolveSince('today', NOW));
    const endOfMarch = new Date(2026, 2, 31, 10, 0, 0);
    assert.equal(
      resolveSince('-1m', endOfMarch),
      toUtcTimestamp(new Date(2026, 1, 28, 10, 0, 0)),
      '31 March minus a month is 28 February',
    );
    assert.equal(
      resolveSince('-1m', new Date(2028, 2, 31, 10, 0, 0)),
      toUtcTimestamp(new Date(2028, 1, 29, 10, 0, 0)),
      'in a leap year, 29 February',
    );
    assert.equal(
      resolveSince('-1y', new Date(2028, 1, 29, 9, 0, 0)),
      toUtcTimestamp(new Date(2027, 1, 28, 9, 0, 0)),
    );
    assert.equal(
      resolveSince('-13m', new Date(2026, 0, 15, 8, 0, 0)),
      toUtcTimestamp(new Date(2024, 11, 15, 8, 0, 0)),
      'months cross years',
    );
  });

  it('passes ISO 8601 dates through in UTC and refuses anything else with a sentence', () => {
    assert.equal(resolveSince('2026-01-01', NOW), '2026-01-01T00:00:00Z');
    assert.equal(resolveSince('2026-01-01T10:00:00+02:00', NOW), '2026-01-01T08:00:00Z');
    for (const bad of ['-7', '-7x', '7d', 'yesterday', '-d', '2026-13-01']) {
      assert.throws(
        () => resolveSince(bad, NOW),
        (error: unknown) =>
          error instanceof LabApiError &&
          error.code === 'invalidInput' &&
          error.message.includes(bad),
        bad,
      );
    }
    assert.equal(isRelativeSince('-7d'), true);
    assert.equal(isRelativeSince('today'), true);
    assert.equal(isRelativeSince('2026-01-01'), false);
  });

  it('resolves a relative search again at every refresh', () => {
    const search = { name: 'This week', publishedSince: '-7d', clientId: 'C-1003' };
    assert.deepEqual(searchFilters(search, NOW), {
      publishedSince: '2026-11-15T15:30:45Z',
      clientId: 'C-1003',
    });
    assert.deepEqual(searchFilters(search, new Date('2026-11-23T00:00:00Z')), {
      publishedSince: '2026-11-16T00:00:00Z',
      clientId: 'C-1003',
    });
    assert.deepEqual(
      searchFilters({ name: 'Fixed', publishedSince: '2026-01-01', status: 'amended' }, NOW),
      { publishedSince: '2026-01-01T00:00:00Z', status: 'amended' },
    );
    assert.deepEqual(filtersNeeded({ name: 'x', publishedSince: '-1d', projectId: 'P-1' }), [
      'published_since',
      'project_id',
    ]);
  });

  it('reads the setting, keeping good entries and explaining each bad one', () => {
    const { searches, invalid } = parseSavedSearches(
      [
        { name: 'Client X this week', publishedSince: '-7d', clientId: 'C-1003', extra: true },
        { name: 'Amended at Beta', lab: 'Beta', status: 'amended' },
        { name: 'client x THIS week' },
        { name: '' },
        'not an object',
        { name: 'Bad date', publishedSince: '-7 days' },
        { name: 'Bad type', status: 3 },
        { name: 'Amended at Beta', lab: 'Meridian', status: 'amended' },
      ],
      NOW,
    );
    assert.deepEqual(searches, [
      { name: 'Client X this week', publishedSince: '-7d', clientId: 'C-1003' },
      { name: 'Amended at Beta', lab: 'Beta', status: 'amended' },
      { name: 'Amended at Beta', lab: 'Meridian', status: 'amended' },
    ]);
    assert.deepEqual(
      invalid.map((entry) => [entry.index, entry.name]),
      [
        [2, 'client x THIS week'],
        [3, undefined],
        [4, undefined],
        [5, 'Bad date'],
        [6, 'Bad type'],
      ],
    );
    assert.match(invalid[0]!.error.message, /same name/);
    assert.match(invalid[3]!.error.message, /Bad date.*-7 days/);
    assert.deepEqual(parseSavedSearches(undefined), { searches: [], invalid: [] });
  });

  it('shows a search under its own lab, or under every lab when it names none', () => {
    const searches = [{ name: 'All labs' }, { name: 'Only Beta', lab: 'Beta' }];
    assert.deepEqual(
      searchesForLab(searches, 'Meridian').map((search) => search.name),
      ['All labs'],
    );
    assert.deepEqual(
      searchesForLab(searches, 'Beta').map((search) => search.name),
      ['All labs', 'Only Beta'],
    );
  });
});
