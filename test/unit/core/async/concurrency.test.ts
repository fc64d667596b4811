import * as assert from 'node:assert/strict';
import {
  Semaphore,
  Throttle,
  mapConcurrently,
  oncePerKey,
  sleep,
} from '../../../../core/async/concurrency';
import { isCancellation } from '../../../../core/errors/errors';
import { rejection } from '../../helpers';

describe('async helpers', () => {
  it('sleep stops promptly when cancelled', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 20);
    const error = await rejection(sleep(10_000, controller.signal));
    assert.ok(isCancellation(error));
    // Promptly: far inside the 10 s asked for, whatever a busy machine adds.
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
  });

  it('a semaphore bounds concurrency and lets cancelled waiters go', async () => {
    const semaphore = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const task = async (): Promise<void> => {
      active++;
      peak = Math.max(peak, active);
      await sleep(15);
      active--;
    };
    const controller = new AbortController();
    const cancelled = semaphore.run(task, controller.signal);
    const others = [semaphore.run(task), semaphore.run(task), semaphore.run(task)];
    const late = semaphore.run(task, controller.signal);
    controller.abort();
    assert.ok(isCancellation(await rejection(late)));
    await Promise.all([cancelled.catch(() => undefined), ...others]);
    assert.equal(peak, 2);
    assert.throws(() => new Semaphore(0), RangeError);
  });

  it("mapConcurrently keeps the items' order, runs at most N at once, and stops taking items once aborted", async () => {
    let active = 0;
    let peak = 0;
    const results = await mapConcurrently([30, 5, 20, 1, 10], 2, async (ms, index) => {
      active++;
      peak = Math.max(peak, active);
      await sleep(ms);
      active--;
      return `${index}:${ms}`;
    });
    assert.deepEqual(results, ['0:30', '1:5', '2:20', '3:1', '4:10']);
    assert.equal(peak, 2);

    const controller = new AbortController();
    const started: number[] = [];
    const run = mapConcurrently(
      [0, 1, 2, 3],
      1,
      async (item) => {
        started.push(item);
        if (item === 1) {
          controller.abort();
        }
        return item;
      },
      controller.signal,
    );
    await assert.rejects(run);
    assert.deepEqual(started, [0, 1]);
  });

  it('oncePerKey makes one result per key and shares it', () => {
    const made: string[] = [];
    const get = oncePerKey((key) => {
      made.push(key);
      return { key };
    });
    assert.equal(get('a'), get('a'));
    assert.notEqual(get('a'), get('b'));
    assert.deepEqual(made, ['a', 'b']);
  });

  it('a throttle passes the first call at once, holds the rest within the interval, and flush passes the last', () => {
    let now = 0;
    let told = 0;
    const throttle = new Throttle(
      100,
      () => told++,
      () => now,
    );
    throttle.poke();
    throttle.poke();
    throttle.poke();
    assert.equal(told, 1);
    throttle.flush();
    assert.equal(told, 2);
    throttle.flush();
    assert.equal(told, 2, 'nothing held back: flush tells nothing');
    now = 250;
    throttle.poke();
    assert.equal(told, 3);
  });
});
