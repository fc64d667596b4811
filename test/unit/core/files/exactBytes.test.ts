import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { holdsExactly } from '../../../../core/files/exactBytes';

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** A stream of `chunks`, counting what was taken from it and whether it was closed early. */
function stream(chunks: readonly Buffer[], failAfter?: number) {
  const seen = { taken: 0, closed: false };
  const iterable: AsyncIterable<Buffer> = {
    [Symbol.asyncIterator]() {
      let next = 0;
      return {
        async next() {
          if (failAfter !== undefined && next === failAfter) {
            throw new Error('the connection broke');
          }
          if (next >= chunks.length) {
            return { done: true, value: undefined };
          }
          seen.taken += 1;
          return { done: false, value: chunks[next++]! };
        },
        async return() {
          seen.closed = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { iterable, seen };
}

describe('holdsExactly (a cached copy: exactly the recorded size and SHA-256)', () => {
  const body = Buffer.from('%PDF-1.7 a report\n');

  it('holds: the recorded bytes in any chunking', async () => {
    const { iterable } = stream([body.subarray(0, 5), body.subarray(5)]);
    assert.equal(await holdsExactly(iterable, body.length, sha(body)), true);
  });

  it('does not hold: the same size with other bytes, a shorter copy, an empty one', async () => {
    const other = Buffer.from(body).fill(0x41, 0, 4);
    assert.equal(await holdsExactly(stream([other]).iterable, body.length, sha(body)), false);
    assert.equal(
      await holdsExactly(stream([body.subarray(0, 4)]).iterable, body.length, sha(body)),
      false,
    );
    assert.equal(await holdsExactly(stream([]).iterable, body.length, sha(body)), false);
  });

  it('stops one chunk past the recorded size and closes the stream (a huge copy costs no more)', async () => {
    const chunks = Array.from({ length: 1000 }, () => body);
    const { iterable, seen } = stream(chunks);
    assert.equal(await holdsExactly(iterable, body.length, sha(body)), false);
    assert.equal(seen.taken, 2);
    assert.equal(seen.closed, true);
  });

  it('a stream that fails is thrown to the caller, never taken for a corrupt copy', async () => {
    const { iterable } = stream([body, body], 1);
    await assert.rejects(holdsExactly(iterable, body.length * 2, sha(body)), /connection broke/);
  });
});
