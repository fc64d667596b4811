import { writeFileSync } from 'node:fs';
import * as Mocha from 'mocha';
import { failureLine } from './failureLine';

/**
 * Mocha's spec reporter, plus the one closing line CI reads (`N passed, N failed`) and, when
 * `LABDATA_RESULTS_FILE` is set, the counts as JSON so `npm test` can add up unit and
 * integration results.
 */
class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const failures: string[] = [];
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test, error) =>
      failures.push(failureLine(test.fullTitle(), error)),
    );
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const stats = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
      const counts = { passed: stats.passes, failed: stats.failures, skipped: stats.pending };
      const file = process.env.LABDATA_RESULTS_FILE;
      if (file) {
        writeFileSync(file, JSON.stringify({ ...counts, failures }));
      }
      // Printed after the spec reporter's epilogue.
      process.nextTick(() => console.log(`LABDATA_RESULT ${JSON.stringify(counts)}`));
    });
  }
}

export = SummaryReporter;
