import * as assert from 'node:assert/strict';
import { LabApiError } from '../../../../core/errors/errors';
import { buildListQuery, pathSegment, toUtcTimestamp } from '../../../../core/api/query';

describe('list query building', () => {
  it('sends only the filters that are given, with the spec names', () => {
    assert.deepEqual(buildListQuery({}), {});
    assert.deepEqual(
      buildListQuery({
        page: 2,
        pageSize: 25,
        status: 'published',
        clientId: 'C-1',
        projectId: 'P-1',
      }),
      {
        page: '2',
        page_size: '25',
        status: 'published',
        client_id: 'C-1',
        project_id: 'P-1',
      },
    );
    assert.deepEqual(
      buildListQuery({
        publishedSince: '2024-05-01',
        updatedSince: new Date('2024-01-02T03:04:05.678Z'),
        receivedSince: '2024-05-01T10:00:00+02:00',
      }),
      {
        published_since: '2024-05-01T00:00:00Z',
        updated_since: '2024-01-02T03:04:05Z',
        received_since: '2024-05-01T08:00:00Z',
      },
    );
  });

  it('validates ISO 8601 dates before anything is sent', () => {
    for (const bad of [
      'yesterday',
      '2024-13-01',
      '2024-02-30',
      '2024-05-01T25:00:00Z',
      '05/01/2024',
      '2024-5-1',
      '',
    ]) {
      assert.throws(
        () => toUtcTimestamp(bad, 'published-since date'),
        (error: LabApiError) =>
          error.code === 'invalidInput' && /published-since date/.test(error.message),
        bad,
      );
    }
    assert.throws(() => toUtcTimestamp('2024-05-01T10:00:00'), /no time zone/);
    assert.throws(() => toUtcTimestamp(new Date('nope')), /not a valid date/);
    assert.equal(toUtcTimestamp('2024-02-29'), '2024-02-29T00:00:00Z');
    assert.equal(toUtcTimestamp('2024-05-01T10:00Z'), '2024-05-01T10:00:00Z');
    assert.equal(toUtcTimestamp('2024-05-01T10:00:00.5-0130'), '2024-05-01T11:30:00Z');
  });

  it('validates page numbers and sizes', () => {
    assert.throws(() => buildListQuery({ page: 0 }), /page number/);
    assert.throws(() => buildListQuery({ page: 1.5 }), /page number/);
    assert.throws(() => buildListQuery({ pageSize: 0 }), /page size/);
    assert.throws(() => buildListQuery({ pageSize: 5000 }), /page size/);
    assert.throws(() => buildListQuery({ status: '  ' }), /status/);
  });

  it('encodes ids as one path segment and refuses ids that change the path', () => {
    assert.equal(pathSegment('RPT-1', 'report'), 'RPT-1');
    assert.equal(pathSegment('../../x', 'report'), '..%2F..%2Fx');
    assert.equal(pathSegment('a b/c?d#e', 'report'), 'a%20b%2Fc%3Fd%23e');
    for (const bad of ['', ' ', '.', '..', 'a\u0000b', 'x'.repeat(300)]) {
      assert.throws(
        () => pathSegment(bad, 'report'),
        (error: LabApiError) => error.code === 'invalidInput',
        JSON.stringify(bad),
      );
    }
  });
});
