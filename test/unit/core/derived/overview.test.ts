import * as assert from 'node:assert/strict';
import {
  AXIS_LABEL_LENGTH,
  MAX_TYPES,
  OTHER,
  UNKNOWN,
  aggregateReports,
  axisLabel,
  bucketingFor,
  overviewCsv,
} from '../../../../core/derived/overview';
import { parseReport, type Report } from '../../../../core/api/records';

const NOW = new Date('2026-11-22T12:00:00Z');
const report = (id: string, fields: Record<string, unknown>): Report =>
  parseReport({ report_id: id, ...fields })!;

describe('the lab overview', () => {
  it('groups by ISO week (Monday, UTC), keeping empty weeks up to today', () => {
    const overview = aggregateReports(
      [
        report('R1', {
          published_at: '2026-10-05T10:00:00Z',
          report_type: 'CoA',
          status: 'published',
        }), // Monday, W41
        report('R2', {
          published_at: '2026-10-11T23:59:59Z',
          report_type: 'CoA',
          status: 'published',
        }), // Sunday, still W41
        report('R3', {
          published_at: '2026-10-12T00:00:00Z',
          report_type: 'Field',
          status: 'amended',
        }), // Monday, W42
        report('R4', {
          published_at: '2026-11-20T08:00:00+02:00',
          report_type: 'CoA',
          status: 'published',
        }), // W47
      ],
      { now: NOW },
    );
    assert.equal(overview.bucketing, 'week');
    assert.deepEqual(
      overview.buckets.map((bucket) => [bucket.key, bucket.total]),
      [
        ['2026-W41', 2],
        ['2026-W42', 1],
        ['2026-W43', 0],
        ['2026-W44', 0],
        ['2026-W45', 0],
        ['2026-W46', 0],
        ['2026-W47', 1],
      ],
    );
    assert.equal(overview.buckets[0]!.start, '2026-10-05T00:00:00Z');
    assert.deepEqual(overview.buckets[0]!.byType, { CoA: 2 });
    assert.deepEqual(overview.types, ['CoA', 'Field']);
    assert.equal(
      overview.buckets.reduce((sum, bucket) => sum + bucket.total, 0),
      4,
    );
  });

  it('numbers the weeks around the new year as ISO 8601 does', () => {
    const overview = aggregateReports(
      [
        report('Start', { published_at: '2020-11-02T12:00:00Z' }),
        report('A', { published_at: '2020-12-31T12:00:00Z' }),
        report('B', { published_at: '2021-01-04T12:00:00Z' }),
      ],
      { now: new Date('2021-01-05T00:00:00Z') },
    );
    assert.equal(overview.bucketing, 'week');
    assert.deepEqual(
      overview.buckets.slice(-2).map((bucket) => [bucket.key, bucket.total]),
      [
        ['2020-W53', 1],
        ['2021-W01', 1],
      ],
    );
    assert.equal(overview.buckets[0]!.key, '2020-W45');
  });

  it('chooses days for a month or less, weeks to half a year, months beyond', () => {
    const day = 86_400_000;
    assert.equal(bucketingFor(0, 31 * day), 'day');
    assert.equal(bucketingFor(0, 32 * day), 'week');
    assert.equal(bucketingFor(0, 183 * day), 'week');
    assert.equal(bucketingFor(0, 184 * day), 'month');
    const months = aggregateReports([report('Old', { published_at: '2025-01-31T00:00:00Z' })], {
      now: NOW,
    });
    assert.equal(months.bucketing, 'month');
    assert.equal(months.buckets.length, 23, 'January 2025 to November 2026');
    assert.equal(months.buckets[1]!.key, '2025-02');
    const days = aggregateReports([report('Recent', { published_at: '2026-11-20T00:00:00Z' })], {
      now: NOW,
    });
    assert.deepEqual(
      days.buckets.map((bucket) => bucket.key),
      ['2026-11-20', '2026-11-21', '2026-11-22'],
    );
  });

  it('keeps statuses the lab invents, counts missing ones and undated reports, and names clients', () => {
    const overview = aggregateReports(
      [
        report('A', {
          published_at: '2026-11-21T00:00:00Z',
          status: 'published',
          client_id: 'C-1',
        }),
        report('B', {
          published_at: '2026-11-21T00:00:00Z',
          status: 'in_review',
          client_id: 'C-1',
        }),
        report('C', { published_at: 'not a date', status: 'published', client_id: 'C-2' }),
        report('D', { client_id: 'C-1' }),
      ],
      { now: NOW, clientNames: new Map([['C-1', 'Riverside']]), mark: '2026-11-20T00:00:00Z' },
    );
    assert.equal(overview.total, 4);
    assert.equal(overview.undated, 2);
    assert.equal(
      overview.buckets.reduce((sum, bucket) => sum + bucket.total, 0),
      2,
      'undated reports are not on the time axis',
    );
    assert.deepEqual(
      overview.byStatus.map((row) => [row.key, row.count]),
      [
        ['published', 2],
        [UNKNOWN, 1],
        ['in_review', 1],
      ],
    );
    assert.deepEqual(
      overview.byClient.map((row) => [row.label, row.count]),
      [
        ['Riverside (C-1)', 3],
        ['C-2', 1],
      ],
    );
    assert.deepEqual(overview.newSince, { mark: '2026-11-20T00:00:00Z', count: 2 });
    assert.deepEqual(
      overview.latest
        .map((row) => row.id)
        .slice(0, 2)
        .sort(),
      ['A', 'B'],
    );
    assert.deepEqual(aggregateReports([], { now: NOW }).buckets, [], 'no reports, no axis');
  });

  it('shortens a long name on the axis, never its id', () => {
    assert.equal(axisLabel('Riverside', 'C-1'), 'Riverside (C-1)');
    const long = axisLabel(
      'Riverside Water Authority, Northern District Laboratory Services',
      'C-1001',
    );
    assert.ok(long.length <= AXIS_LABEL_LENGTH, long);
    assert.match(long, /^Riverside Water.*… \(C-1001\)$/);
    assert.equal(axisLabel(undefined, 'C-1001'), 'C-1001');
    assert.equal(
      axisLabel('A name', 'AN-ID-SO-LONG-THAT-NO-NAME-FITS-BESIDE-IT'),
      'AN-ID-SO-LONG-THAT-NO-NAME-FITS-BESIDE-IT',
      'an id is never cut',
    );
    const overview = aggregateReports(
      [report('A', { client_id: 'C-1001' }), report('B', { client_id: 'C-2' })],
      {
        now: NOW,
        clientNames: new Map([
          ['C-1001', 'Riverside Water Authority, Northern District Laboratory Services'],
          ['C-2', 'Short'],
        ]),
      },
    );
    const [first, second] = overview.byClient;
    assert.equal(
      first!.label,
      'Riverside Water Authority, Northern District Laboratory Services (C-1001)',
      'the whole label stays for the table and the tooltip',
    );
    assert.equal(first!.short, long);
    assert.equal(second!.short, undefined, 'a short label is not shortened');
  });

  it('stacks the rarest types together as "Other" and gives each chart as CSV', () => {
    const reports = Array.from({ length: 12 }, (_, index) =>
      Array.from({ length: 12 - index }, (__, n) =>
        report(`T${index}-${n}`, {
          published_at: '2026-11-21T00:00:00Z',
          report_type: `Type ${index}`,
        }),
      ),
    ).flat();
    const overview = aggregateReports(reports, { now: NOW });
    assert.equal(overview.types.length, MAX_TYPES);
    assert.equal(overview.types.at(-1), OTHER);
    const day = overview.buckets.find((bucket) => bucket.key === '2026-11-21')!;
    assert.equal(day.byType['Type 0'], 12);
    assert.equal(day.byType[OTHER], 5 + 4 + 3 + 2 + 1);
    const csv = overviewCsv(overview, 'time');
    assert.deepEqual(csv[0], ['day', ...overview.types, 'total']);
    assert.equal(csv.length, 1 + overview.buckets.length);
    assert.deepEqual(overviewCsv(overview, 'status'), [
      ['status', 'reports'],
      [UNKNOWN, String(reports.length)],
    ]);
  });
});
