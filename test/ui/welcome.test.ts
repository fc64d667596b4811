import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { MockLabServer } from '../mock/server';
import type { Page } from 'playwright-core';
import { signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import { confirmSignOut, quickInput } from './workbench';

/** Opens VS Code's Accounts menu and gives the Lab Data accounts it lists ("<lab name> (Lab Data)"). */
async function labDataAccounts(page: Page): Promise<string[]> {
  await page
    .locator(
      '.activitybar .action-item a[aria-label^="Accounts"], .activitybar .action-item[aria-label^="Accounts"]',
    )
    .first()
    .click();
  await page
    .locator('.monaco-menu .action-label', { hasText: '(Lab Data)' })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  return (await page.locator('.monaco-menu .action-label').allInnerTexts())
    .map((label) => label.trim())
    .filter((label) => label.endsWith('(Lab Data)'));
}

/** In the open Accounts menu, Sign Out of `account` (confirmed when VS Code asks): the Reports view falls back to its welcome. */
async function signOutInAccountsMenu(page: Page, account: string): Promise<void> {
  await page.locator('.monaco-menu .action-label', { hasText: account }).first().hover();
  await page
    .locator('.monaco-menu .action-label', { hasText: 'Sign Out' })
    .first()
    .hover({ timeout: 15_000 });
  await page.keyboard.press('Enter');
  await confirmSignOut(page);
  await page
    .locator('.welcome-view-content', { hasText: 'You are signed out of your lab' })
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
  // Off the activity bar, so no hover of the Accounts item is left over the views.
  await page.mouse.move(700, 600);
}

describe('what a person sees', () => {
  it('the "Lab Data" activity-bar item opens the container, whose welcome view offers "Sign In" when signed out', async () => {
    const { page, workbenchUrl, screenshotsDir } = uiContext;
    await page.goto(workbenchUrl, { waitUntil: 'domcontentloaded' });
    const item = page
      .locator(
        '.activitybar .action-item a[aria-label^="Lab Data"], .activitybar .action-item[aria-label^="Lab Data"]',
      )
      .first();
    await item.waitFor({ state: 'visible', timeout: 60_000 });
    await item.click();
    await page
      .locator('.pane-header', { hasText: 'Reports' })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    const welcome = page.locator('.welcome-view-content').first();
    await welcome.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await welcome.innerText(), /browse its published reports/);
    const button = welcome
      .locator('a.monaco-button, .monaco-button', { hasText: 'Sign In' })
      .first();
    assert.ok(await button.isVisible(), 'a "Sign In" button is shown');
    const file = path.join(screenshotsDir, 'welcome-signed-out.png');
    await page.screenshot({ path: file });
    console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);
    // It also offers Add Lab…, whose first step asks the lab's name; Escape leaves everything as it was.
    // "…add it first" with no lab defined, "Add Lab…" beside Sign In once one is (the view may switch while the labs load).
    const addLab = page
      .locator('.welcome-view-content a', { hasText: /^(add it|Add Lab…)$/ })
      .first();
    await addLab.waitFor({ state: 'visible', timeout: 15_000 });
    await addLab.click();
    await page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Add Lab (1/4)' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  });

  it('after signing in from the command palette, the Reports view lists report rows; the Accounts menu signs out', async () => {
    const { page, screenshotsDir } = uiContext;
    const lab = new MockLabServer();
    const baseUrl = await lab.start();
    try {
      await signInFromPalette(page, baseUrl, 'demo-full-access');
      const firstReport = lab.reportsFor('demo-full-access')[0]!.report_id;
      const rows = page.locator('.monaco-list-row[aria-label^="Report RPT-"]');
      await page
        .locator(`.monaco-list-row[aria-label^="Report ${firstReport}"]`)
        .waitFor({ state: 'visible', timeout: 30_000 });
      assert.ok((await rows.count()) >= 5, 'several report rows are on screen');
      await page
        .locator('.monaco-list-row', { hasText: 'Riverside Water Authority' })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      const file = path.join(screenshotsDir, 'reports-signed-in.png');
      await page.screenshot({ path: file });
      console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);

      // The Accounts menu lists the lab by the name it gives itself (signed in by its address),
      // never under its address, and signs out there.
      const ownName = lab.reportsFor('demo-full-access')[0]!.lab_name;
      assert.deepEqual(
        await labDataAccounts(page),
        [`${ownName} (Lab Data)`],
        'one account, under the lab’s own name',
      );
      await page.screenshot({ path: path.join(screenshotsDir, 'accounts-menu.png') });
      await signOutInAccountsMenu(page, `${ownName} (Lab Data)`);
      await page.screenshot({ path: path.join(screenshotsDir, 'accounts-signed-out.png') });
    } finally {
      await lab.stop();
    }
  });

  it('a lab that does not say its name is named once as a person signs in, its address offered; its account has that name, and Sign Out there works', async () => {
    const { page, screenshotsDir } = uiContext;
    const lab = new MockLabServer();
    const baseUrl = await lab.start();
    const host = new URL(baseUrl).host;
    try {
      // This token may not read reports (403): the lab sends no record, so no name.
      await signInFromPalette(page, baseUrl, 'demo-no-reports');
      await quickInput.waitForTitle(page, 'Name the Lab');
      assert.equal(await quickInput.box(page).inputValue(), host, 'its address offered');
      await page.screenshot({ path: path.join(screenshotsDir, 'sign-in-name-the-lab.png') });
      await quickInput.box(page).fill('Coastal water lab');
      await page.keyboard.press('Enter');
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
      await page
        .locator('.monaco-list-row', { hasText: 'Outside your access scope (403)' })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      assert.deepEqual(await labDataAccounts(page), ['Coastal water lab (Lab Data)']);
      await signOutInAccountsMenu(page, 'Coastal water lab (Lab Data)');
    } finally {
      await lab.stop();
    }
  });
});
