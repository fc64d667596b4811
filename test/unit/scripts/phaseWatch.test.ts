import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository's root, from this compiled file (out/test/unit/scripts). */
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

interface PhaseWatch {
  PHASE_SILENCE_MS: number;
  PHASE_CEILING_MS: number;
  phaseVerdict(
    times: { now: number; heard: number; started: number },
    limits?: { silenceMs?: number; ceilingMs?: number },
  ): string | undefined;
}

const load = async (): Promise<PhaseWatch> =>
  (await import(pathToFileURL(path.join(ROOT, 'scripts', 'phaseWatch.mjs')).href)) as PhaseWatch;

describe('when the test hosts give up on a phase (scripts/phaseWatch.mjs)', () => {
  it('a phase that keeps printing is alive however long it runs on a busy machine, up to the backstop', async () => {
    const { phaseVerdict, PHASE_SILENCE_MS, PHASE_CEILING_MS } = await load();
    const started = 0;
    // 20 minutes in, a test ended a minute ago: slower than the quiet 15 minutes, not stuck.
    assert.equal(phaseVerdict({ started, heard: 19 * 60_000, now: 20 * 60_000 }), undefined);
    assert.equal(
      phaseVerdict({ started, now: PHASE_CEILING_MS - 1, heard: PHASE_CEILING_MS - 1 }),
      undefined,
    );
    assert.match(
      phaseVerdict({ started, now: PHASE_CEILING_MS, heard: PHASE_CEILING_MS - 1 }) ?? '',
      /did not finish within 45 minutes/,
    );
    assert.ok(PHASE_SILENCE_MS < PHASE_CEILING_MS);
  });

  it('a phase silent for the silence limit is stuck, even early on', async () => {
    const { phaseVerdict, PHASE_SILENCE_MS } = await load();
    assert.equal(
      phaseVerdict({ started: 0, heard: 60_000, now: 60_000 + PHASE_SILENCE_MS - 1 }),
      undefined,
    );
    assert.match(
      phaseVerdict({ started: 0, heard: 60_000, now: 60_000 + PHASE_SILENCE_MS }) ?? '',
      /printed nothing for 5 minutes \(stuck\)/,
    );
    assert.match(
      phaseVerdict({ started: 0, heard: 0, now: 10 }, { silenceMs: 10, ceilingMs: 1_000 }) ?? '',
      /stuck/,
    );
  });
});
