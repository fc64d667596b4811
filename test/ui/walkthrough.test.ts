import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { runFromPalette } from './palette';
import { uiContext } from './uiContext';
import { quickInput, waitUntil } from './workbench';

const STEPS = [
  'Sign in',
  'Browse the lab',
  'Save a report into your workspace',
  'Use the reports in Python or R',
  'Verify them in CI',
  'Share them through a team cache',
];

function step(page: Page, title: string): Locator {
  return page.locator('button.getting-started-step', { hasText: title }).first();
}

/**
 * Help → Welcome's walkthrough as a person meets it: "Welcome: Open Walkthrough…" lists "Get
 * started with Lab Data", whose page shows the steps; a step's button runs its command.
 */
describe('the walkthrough, as a person sees it', function () {
  this.timeout(180_000);

  // Whatever happened, no picker, walkthrough page or starter is left for the next suite.
  after(async () => {
    const { page } = uiContext;
    await page.keyboard.press('Escape').catch(() => undefined);
    await runFromPalette(page, 'View: Revert and Close Editor').catch(() => undefined);
    await runFromPalette(page, 'View: Close All Editors').catch(() => undefined);
  });

  it('"Welcome: Open Walkthrough…" opens Lab Data\'s steps; "New CI Workflow" opens the starter workflow and checks its step', async () => {
    const { page, screenshotsDir } = uiContext;
    if (page.url() !== uiContext.workbenchUrl) {
      await page.goto(uiContext.workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    // Lab Data's own item on the activity bar: the extension is there.
    await page
      .locator('.activitybar .action-item a[aria-label^="Lab Data"]')
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await runFromPalette(page, 'Welcome: Open Walkthrough');
    await quickInput.box(page).fill('Lab Data');
    const choice = page
      .locator('.quick-input-widget .monaco-list-row', { hasText: 'Get started with Lab Data' })
      .first();
    await choice.waitFor({ state: 'visible', timeout: 30_000 });
    await choice.click();

    const titles = page.locator('button.getting-started-step .step-title');
    await step(page, STEPS.at(-1)!).waitFor({ state: 'visible', timeout: 30_000 });
    const shown = (await titles.allInnerTexts()).map((title) => title.trim());
    assert.deepEqual(
      shown.filter((title) => STEPS.includes(title)),
      STEPS,
      shown.join(' | '),
    );
    const ci = step(page, 'Verify them in CI');
    await ci.click();
    await waitUntil(
      async () => (await ci.getAttribute('aria-expanded')) === 'true',
      'the CI step to expand',
    );
    assert.equal(await ci.getAttribute('aria-checked'), 'false', 'not done yet');
    const button = ci.locator('.monaco-button, a', { hasText: 'New CI Workflow' }).first();
    await button.waitFor({ state: 'visible', timeout: 15_000 });
    let file = path.join(screenshotsDir, 'walkthrough-steps.png');
    await page.screenshot({ path: file });
    console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);

    await button.click();
    // An unsaved editor named as its Save will suggest, holding the workflow.
    await page
      .locator('.tabs-container .tab', { hasText: 'lab-data.yml' })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'lab-data pull && lab-data verify' })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    file = path.join(screenshotsDir, 'walkthrough-ci-workflow.png');
    await page.screenshot({ path: file });
    console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);

    // Back on the walkthrough, the step is done.
    await page
      .locator('.tabs-container .tab', { hasText: /Walkthrough|Welcome/ })
      .first()
      .click();
    await waitUntil(
      async () => (await step(page, 'Verify them in CI').getAttribute('aria-checked')) === 'true',
      'the CI step to be checked',
    );

    // The starter is left unsaved: reverted and closed, then the walkthrough closed too.
    await page.locator('.tabs-container .tab', { hasText: 'lab-data.yml' }).first().click();
    await runFromPalette(page, 'View: Revert and Close Editor');
    await page
      .locator('.tabs-container .tab', { hasText: 'lab-data.yml' })
      .first()
      .waitFor({ state: 'hidden', timeout: 15_000 });
    await runFromPalette(page, 'View: Close All Editors');
  });
});
