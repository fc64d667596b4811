import Mocha from 'mocha';
import * as path from 'node:path';
import { failureLine } from '../support/failureLine';
import SummaryReporter from '../support/summaryReporter';
import { printSuiteTimes } from '../support/suiteTimes';
import { uiContext, type UiContext } from './uiContext';
import { pointAwayFromLists, whenAWaitTimesOut } from './workbench';

/** Runs the UI checks in the runner's own process, against the browser page showing the workbench. */
export function runUiSuite(
  context: UiContext,
): Promise<{ passed: number; failed: number; skipped: number }> {
  Object.assign(uiContext, context);
  /** The screenshot of the test that just failed, while it is being taken. */
  let shooting: Promise<void> | undefined;
  // LABDATA_UI_GREP narrows the UI checks while developing (never set by npm test).
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 90_000,
    slow: 5000,
    color: false,
    reporter: SummaryReporter,
    ...(process.env.LABDATA_UI_GREP ? { grep: process.env.LABDATA_UI_GREP } : {}),
    rootHooks: {
      // Each test starts with the pointer off the lists and no row's tooltip on screen: a tooltip
      // left by the test before covered the next test's first click (CI: a report's tooltip over
      // the Clients view).
      async beforeEach() {
        await pointAwayFromLists(context.page).catch(() => undefined);
      },
      // The failure's screenshot, begun the moment it failed (before the suite's own hooks tidy up), is finished before the next test.
      async afterEach() {
        await shooting;
        shooting = undefined;
      },
    },
  });
  // A wait that times out keeps the screen and the open picker as they were then, before the test's own clean-up.
  whenAWaitTimesOut(async (what) => {
    const file = path.join(
      context.screenshotsDir,
      `timed-out-${what.slice(0, 32).replace(/[^a-z0-9]+/gi, '-')}.png`,
    );
    await context.page.screenshot({ path: file, timeout: 10_000 });
    const picker = context.page.locator('.quick-input-widget');
    const box = picker.locator('.quick-input-box input').first();
    const shown = (await picker.isVisible())
      ? `picker: "${await box.inputValue({ timeout: 2000 })}" (${await box.getAttribute('placeholder', { timeout: 2000 })}) ${(await picker.innerText({ timeout: 2000 })).replace(/\s+/g, ' ').slice(0, 400)}`
      : 'no picker open';
    console.log(
      `      timed out waiting for ${what}: ${path.relative(process.cwd(), file)}; ${shown}`,
    );
  });
  mocha.addFile(path.join(__dirname, 'welcome.test.js'));
  mocha.addFile(path.join(__dirname, 'pdfPreview.test.js'));
  mocha.addFile(path.join(__dirname, 'pdfPreview.keyboard.test.js'));
  mocha.addFile(path.join(__dirname, 'reportsView.test.js'));
  mocha.addFile(path.join(__dirname, 'checkConnection.test.js'));
  mocha.addFile(path.join(__dirname, 'accessibility.test.js'));
  mocha.addFile(path.join(__dirname, 'savedReportsView.test.js'));
  mocha.addFile(path.join(__dirname, 'amendedUses.test.js'));
  mocha.addFile(path.join(__dirname, 'notebookRenderer.test.js'));
  // A window reload: what survives it (a preview tab, the Reports filter).
  mocha.addFile(path.join(__dirname, 'reload.test.js'));
  mocha.addFile(path.join(__dirname, 'pickers.test.js'));
  mocha.addFile(path.join(__dirname, 'rowsAtDefaultWidth.test.js'));
  // NOT in the whole run yet (issue 59 stays open for them): walkthrough.test.js and tasks.test.js
  // pass on their own (LABDATA_UI_ALSO below) but fail after the other suites: Run Task's picker
  // does not open from the palette, and the walkthrough's picker rows were found among the
  // Reports view's pickers (npm run test:busy, both hosts). Their integration suites do run.
  for (const held of (process.env.LABDATA_UI_ALSO ?? '').split(',').filter(Boolean)) {
    mocha.addFile(path.join(__dirname, `${held}.test.js`));
  }
  // Opens the virtual workspace memfs:/demo, then the folder on disk again.
  mocha.addFile(path.join(__dirname, 'virtualWorkspace.test.js'));
  // Its own code-server, in the pseudo-locale.
  mocha.addFile(path.join(__dirname, 'pseudoLocale.test.js'));
  // Last: it leaves its lab signed in.
  mocha.addFile(path.join(__dirname, 'overview.test.js'));
  return new Promise((resolve) => {
    const runner = mocha.run(() => {
      const stats = runner.stats!;
      resolve({ passed: stats.passes, failed: stats.failures, skipped: stats.pending });
    });
    printSuiteTimes(runner, 'UI checks, time per file, hooks included');
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test, error) => {
      context.onFailure?.(failureLine(test.fullTitle(), error));
      const file = path.join(
        context.screenshotsDir,
        `failed-${test.title.slice(0, 24).replace(/[^a-z0-9]+/gi, '-')}.png`,
      );
      shooting = context.page.screenshot({ path: file }).then(
        () => console.log(`      screenshot of the failure: ${path.relative(process.cwd(), file)}`),
        () => undefined,
      );
    });
  });
}
