// When run-integration.mjs gives up on a test host's phase. A phase is hung when its suite prints
// nothing (no test ended, no line logged) for PHASE_SILENCE_MS: every test's own timeout is far
// shorter, so a silent host is a stuck one. Silence, not the phase's length, is the rule: a busy
// machine (npm run test:busy) makes a healthy phase slower, never silent for minutes. The ceiling
// is only a backstop for a host that talks but never ends.

export const PHASE_SILENCE_MS = 5 * 60_000;
export const PHASE_CEILING_MS = 45 * 60_000;

/**
 * Why a phase started at `started` and last heard from at `heard` is given up on at `now`, or
 * undefined while it is alive.
 */
export function phaseVerdict(
  { now, heard, started },
  { silenceMs = PHASE_SILENCE_MS, ceilingMs = PHASE_CEILING_MS } = {},
) {
  if (now - heard >= silenceMs) {
    return `printed nothing for ${silenceMs / 60_000} minutes (stuck)`;
  }
  if (now - started >= ceilingMs) {
    return `did not finish within ${ceilingMs / 60_000} minutes`;
  }
  return undefined;
}

/**
 * Waits for `exited`; resolves undefined then, or with phaseVerdict's reason once it has one
 * (`state.heard` is when the suite last printed; its log handler moves it on).
 */
export function untilExitOrStuck(state, exited, started) {
  state.heard = Date.now();
  return new Promise((resolveStuck) => {
    const timer = setInterval(() => {
      const verdict = phaseVerdict({ now: Date.now(), heard: state.heard, started });
      if (verdict) {
        clearInterval(timer);
        resolveStuck(verdict);
      }
    }, 1_000);
    void exited.then(() => {
      clearInterval(timer);
      resolveStuck(undefined);
    });
  });
}
