import * as Mocha from 'mocha';

/** How many of the slowest files a run names at its end. */
const SHOWN = 12;

/**
 * Times each file's top-level suite of a host's run (its hooks included, which mocha's per-test
 * times leave out) and prints the slowest at the end: where the suite's minutes go.
 */
export function printSuiteTimes(runner: Mocha.Runner, phase: string): void {
  const started = new Map<Mocha.Suite, number>();
  const took: Array<{ title: string; ms: number }> = [];
  runner.on(Mocha.Runner.constants.EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
    if (suite.parent?.root) {
      started.set(suite, Date.now());
    }
  });
  runner.on(Mocha.Runner.constants.EVENT_SUITE_END, (suite: Mocha.Suite) => {
    const at = started.get(suite);
    if (at !== undefined) {
      took.push({ title: suite.title, ms: Date.now() - at });
    }
  });
  runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
    const total = took.reduce((sum, file) => sum + file.ms, 0);
    const slowest = [...took].sort((a, b) => b.ms - a.ms).slice(0, SHOWN);
    console.log(
      `  ${phase}: ${(total / 1000).toFixed(0)} s in ${took.length} files; the slowest:\n${slowest
        .map(
          (file) => `    ${(file.ms / 1000).toFixed(1).padStart(6)} s  ${file.title.slice(0, 110)}`,
        )
        .join('\n')}`,
    );
  });
}
