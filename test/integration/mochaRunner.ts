import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import { failureLine } from '../support/failureLine';
import SummaryReporter from '../support/summaryReporter';
import { printSuiteTimes } from '../support/suiteTimes';

/**
 * Runs every `*.test.js` directly in `folder` with mocha inside the extension host, the same
 * contract for @vscode/test-electron and the code-server runner: resolves when all pass.
 */
export function runMochaSuite(folder: string): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 60_000,
    slow: 2000,
    color: false,
    reporter: SummaryReporter,
    ...(process.env.LABDATA_TEST_GREP ? { grep: process.env.LABDATA_TEST_GREP } : {}),
  });
  for (const file of readdirSync(folder)
    .filter((name) => name.endsWith('.test.js'))
    .sort()) {
    mocha.addFile(path.join(folder, file));
  }
  // The messages tests leave stay in the workbench (a headless window has no focus, so no toast
  // hides itself), and every new toast lays out all the ones before it: by the end of the suite the
  // workbench spent most of its CPU there (a renderer profile of the floor host: 39 s of 245 s in
  // the toasts' layout). Clearing them after each test keeps that cost flat.
  // A failure here must not stop the suite (a root hook's failure skips every test after it).
  mocha.suite.afterEach('clear the notifications this test left', () =>
    vscode.commands.executeCommand('notifications.clearAll').then(
      () => undefined,
      () => undefined,
    ),
  );
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      // Give the host a moment to forward the summary line before the runner hears "exit".
      setTimeout(
        () =>
          failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve(),
        500,
      );
    });
    // One line per failed test, for the runner to name it with its host (scripts/run-integration.mjs).
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test, error) =>
      console.log(`LABDATA_FAILED ${failureLine(test.fullTitle(), error)}`),
    );
    printSuiteTimes(runner, 'time per file, hooks included');
  });
}
