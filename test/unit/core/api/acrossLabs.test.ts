import * as assert from 'node:assert/strict';
import { acrossLabs, type LabAnswer, type LabQuestion } from '../../../../core/api/acrossLabs';

/** A lab that sends `pages` one after another, `everyMs` apart. */
function answering(lab: string, pages: number[][], everyMs = 5): LabQuestion<number> {
  return {
    lab,
    ask: async function* () {
      for (const page of pages) {
        await new Promise((resolve) => setTimeout(resolve, everyMs));
        yield page;
      }
    },
  };
}

/** A lab that never answers until it is let go; `released` says when it was. */
function silent(lab: string, released: { at?: number }): LabQuestion<number> {
  return {
    lab,
    // eslint-disable-next-line require-yield
    ask: async function* (signal) {
      await new Promise<void>((_resolve, reject) =>
        signal.addEventListener('abort', () => {
          released.at = Date.now();
          reject(new Error('aborted'));
        }),
      );
    },
  };
}

async function collect<T>(
  answers: AsyncIterable<LabAnswer<T>>,
): Promise<Array<LabAnswer<T> & { at: number }>> {
  const started = Date.now();
  const seen: Array<LabAnswer<T> & { at: number }> = [];
  for await (const answer of answers) {
    seen.push({ ...answer, at: Date.now() - started });
  }
  return seen;
}

describe('acrossLabs: several labs asked at once, each answer as it comes', () => {
  it('hands over each lab’s pages as they come, and ends when every lab has answered or failed', async () => {
    const failing: LabQuestion<number> = {
      lab: 'Failing',
      // eslint-disable-next-line require-yield
      ask: async function* () {
        throw new Error('503');
      },
    };
    const seen = await collect(
      acrossLabs([answering('Slow', [[1], [2]], 40), answering('Quick', [[10]], 1), failing], {
        deadlineMs: 5_000,
      }),
    );
    const order = seen.map((answer) => `${answer.kind}:${answer.lab}`);
    assert.deepEqual(
      order.filter((word) => word.endsWith(':Slow')),
      ['items:Slow', 'items:Slow', 'done:Slow'],
    );
    assert.ok(order.indexOf('done:Quick') < order.indexOf('items:Slow'), order.join(' '));
    assert.ok(order.indexOf('failed:Failing') < order.indexOf('items:Slow'), order.join(' '));
  });

  it('names a lab that has sent nothing by the deadline without holding up the others, and keeps asking it', async () => {
    const released: { at?: number } = {};
    // A deadline long beside anything a busy machine adds, so "not held up" is unmistakable.
    const answers = acrossLabs([answering('Healthy', [[1, 2]], 1), silent('Silent', released)], {
      deadlineMs: 1_000,
    });
    const seen: Array<LabAnswer<number> & { at: number }> = [];
    const started = Date.now();
    for await (const answer of answers) {
      seen.push({ ...answer, at: Date.now() - started });
      if (answer.kind === 'late') {
        break;
      }
    }
    assert.deepEqual(
      seen.map((answer) => `${answer.kind}:${answer.lab}`),
      ['items:Healthy', 'done:Healthy', 'late:Silent'],
    );
    assert.ok(seen[0]!.at < 500, `the healthy lab's results came after ${seen[0]!.at} ms`);
    const late = seen[2]!;
    // Named at the deadline, never before it; a timer fires late on a busy machine, never early.
    assert.ok(late.kind === 'late' && late.afterMs >= 1_000 && late.afterMs < 4_000);
    assert.ok(
      released.at !== undefined,
      'leaving the loop let the silent lab go (its request aborted)',
    );
  });

  it('stop() and the caller’s signal let every lab still asked go at once', async () => {
    const released: { at?: number } = {};
    const cancel = new AbortController();
    const answers = acrossLabs([silent('Silent', released)], {
      deadlineMs: 60_000,
      signal: cancel.signal,
    });
    const collecting = collect(answers);
    setTimeout(() => cancel.abort(), 20);
    assert.deepEqual(await collecting, []);
    assert.ok(released.at !== undefined);
    const stopped: { at?: number } = {};
    const second = acrossLabs([silent('Silent', stopped)], { deadlineMs: 60_000 });
    const ending = collect(second);
    second.stop();
    assert.deepEqual(await ending, []);
    assert.ok(stopped.at !== undefined);
  });

  it('asks nothing of no labs, and ends at once', async () => {
    assert.deepEqual(await collect(acrossLabs([], { deadlineMs: 10 })), []);
  });
});
