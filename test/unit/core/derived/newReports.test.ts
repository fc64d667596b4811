import * as assert from 'node:assert/strict';
import {
  PeriodicCheck,
  later,
  publishedAfter,
  sinceAfter,
  type Timers,
} from '../../../../core/derived/newReports';
import { startMockLab, type MockLab } from '../../helpers';

/** Timers the test drives by hand: one interval at a time. */
class ManualTimers implements Timers {
  callback?: () => void;
  intervalMs?: number;
  cleared = 0;
  setInterval(callback: () => void, ms: number): unknown {
    this.callback = callback;
    this.intervalMs = ms;
    return 1;
  }
  clearInterval(): void {
    this.cleared++;
    this.callback = undefined;
  }
}

describe('new reports: marks and the periodic check', () => {
  it('counts a report as new only when it was published after the mark', () => {
    assert.equal(publishedAfter('2026-11-20T10:00:01Z', '2026-11-20T10:00:00Z'), true);
    assert.equal(publishedAfter('2026-11-20T10:00:00Z', '2026-11-20T10:00:00Z'), false);
    assert.equal(
      publishedAfter('2026-11-20T12:00:00+02:00', '2026-11-20T10:00:00.500Z'),
      false,
      'zones are compared as instants',
    );
    assert.equal(publishedAfter(undefined, '2026-11-20T10:00:00Z'), false);
    assert.equal(publishedAfter('soon', '2026-11-20T10:00:00Z'), false);
    assert.equal(later('2026-11-20T10:00:00Z', '2026-11-21T10:00:00Z'), '2026-11-21T10:00:00Z');
    assert.equal(later(undefined, '2026-11-21T10:00:00Z'), '2026-11-21T10:00:00Z');
    assert.equal(later('2026-11-22T00:00:00Z', 'garbage'), '2026-11-22T00:00:00Z');
    assert.equal(
      sinceAfter('2026-11-20T10:00:00.750Z'),
      '2026-11-20T10:00:01Z',
      'the next whole second, so an inclusive filter never counts the last report seen',
    );
  });

  it('asks the mock lab with one request and counts exactly what was published after the mark', async () => {
    const lab: MockLab = await startMockLab({ reports: 80 });
    try {
      const api = lab.api();
      const newest = (await api.listReports({ pageSize: 1 })).items[0]!;
      lab.server.takeRequests();
      const none = await api.listReports({
        publishedSince: sinceAfter(newest.published_at!),
        pageSize: 1,
      });
      assert.equal(
        none.totalCount,
        0,
        'the newest report itself is not new (the mock filter is inclusive)',
      );
      lab.server.publishReport(new Date(Date.parse(newest.published_at!) + 60_000));
      lab.server.publishReport(new Date(Date.parse(newest.published_at!) + 120_000));
      const two = await api.listReports({
        publishedSince: sinceAfter(newest.published_at!),
        pageSize: 1,
      });
      assert.equal(two.totalCount, 2);
      const requests = lab.server.takeRequests();
      assert.equal(requests.length, 2);
      assert.deepEqual(
        requests.map((request) => request.query.page_size),
        ['1', '1'],
      );
    } finally {
      await lab.close();
    }
  });

  it('asks each ready lab once per tick and skips labs that are not ready', async () => {
    const timers = new ManualTimers();
    const asked: string[] = [];
    const ready = new Map([
      ['A', true],
      ['B', true],
      ['Signed out', false],
    ]);
    const check = new PeriodicCheck({
      intervalMs: 900_000,
      timers,
      targets: () => [...ready.keys()].map((name) => ({ name, ready: () => ready.get(name)! })),
      check: async (lab) => void asked.push(lab),
    });
    check.start();
    assert.equal(timers.intervalMs, 900_000);
    assert.deepEqual(asked, [], 'nothing is asked before the first interval ends');
    await check.tick();
    await check.tick();
    ready.set('B', false);
    await check.tick();
    assert.deepEqual(asked, ['A', 'B', 'A', 'B', 'A']);
    assert.equal(check.ticks, 3);
    check.stop();
    assert.equal(timers.cleared, 1);
  });

  it('a day of checking at the 15-minute minimum for two labs is 96 one-record requests per lab', async () => {
    const labs = [
      await startMockLab({ reports: 40 }),
      await startMockLab({ reports: 40, seed: 3 }),
    ];
    try {
      const apis = new Map(
        labs.map((lab, index) => [
          `Lab ${index + 1}`,
          { api: lab.api(), mark: lab.server.data.now.toISOString() },
        ]),
      );
      const timers = new ManualTimers();
      const check = new PeriodicCheck({
        intervalMs: 15 * 60_000,
        timers,
        targets: () => [...apis.keys()].map((name) => ({ name, ready: () => true })),
        check: async (name) => {
          const { api, mark } = apis.get(name)!;
          await api.listReports({ publishedSince: sinceAfter(mark), pageSize: 1 });
        },
      });
      check.start();
      const perDay = (24 * 60) / 15;
      for (let tick = 0; tick < perDay; tick++) {
        await check.tick();
      }
      const requests = labs.map((lab) => lab.server.takeRequests());
      const total = requests.reduce((sum, list) => sum + list.length, 0);
      console.log(
        `      a day of checks every 15 minutes: ${perDay} ticks, ${requests.map((list) => list.length).join(' + ')} = ${total} requests for two labs, each page_size=1`,
      );
      assert.equal(timers.intervalMs, 900_000);
      assert.deepEqual(
        requests.map((list) => list.length),
        [96, 96],
      );
      assert.ok(
        requests
          .flat()
          .every(
            (request) =>
              request.query.page_size === '1' && request.query.published_since !== undefined,
          ),
      );
    } finally {
      await Promise.all(labs.map((lab) => lab.close()));
    }
  });

  it('never has two checks of one lab in flight, and reports failures instead of throwing', async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const calls: string[] = [];
    const errors: string[] = [];
    const check = new PeriodicCheck({
      intervalMs: 10,
      timers: new ManualTimers(),
      targets: () => [
        { name: 'Slow', ready: () => true },
        { name: 'Failing', ready: () => true },
      ],
      check: async (lab) => {
        calls.push(lab);
        if (lab === 'Slow') {
          await slow;
        } else {
          throw new Error('HTTP 503');
        }
      },
      onError: (lab, error) => errors.push(`${lab}: ${(error as Error).message}`),
    });
    const first = check.tick();
    await new Promise(setImmediate);
    await check.tick();
    await check.tick();
    assert.deepEqual(
      calls,
      ['Slow', 'Failing', 'Failing', 'Failing'],
      'the slow lab is left out while its check runs',
    );
    release();
    await first;
    await check.tick();
    assert.deepEqual(calls.filter((lab) => lab === 'Slow').length, 2);
    assert.equal(errors.length, 4);
    assert.equal(errors[0], 'Failing: HTTP 503');
  });
});
