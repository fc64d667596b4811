import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import { runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import {
  clickRowAction,
  clickToolbar,
  closeTabs,
  pane,
  pointAwayFromLists,
  quickInput,
  scrollToTop,
  showLabData,
  waitUntil,
} from './workbench';

const TOKEN = 'demo-full-access';

/** The webview frame with a drawn PDF page (nested inside the webview host frame). */
async function drawnPdf(page: Page): Promise<Frame> {
  return waitUntil(
    async () => {
      for (const frame of page.frames()) {
        if (
          (await frame
            .locator('.page.drawn canvas')
            .count()
            .catch(() => 0)) > 0
        ) {
          return frame;
        }
      }
      return undefined;
    },
    'a drawn PDF page in a webview frame',
    60_000,
  );
}

describe('a window reload, as a person sees it', () => {
  it("keeps the report's preview tab, its PDF drawn again, and the Reports view's filter", async () => {
    const { page, screenshotsDir, workbenchUrl } = uiContext;
    if (page.url() !== workbenchUrl) {
      await page.goto(workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    await showLabData(page);
    const lab = new MockLabServer();
    let finished = false;
    try {
      await signInFromPalette(page, await lab.start(), TOKEN);
      const report = lab
        .reportsFor(TOKEN)
        .find(
          (candidate) =>
            candidate.download_available &&
            candidate.report_id !== lab.multiPageReportId &&
            lab.data.clients.some((one) => one.client_id === candidate.client_id),
        )!;
      const client = lab.data.clients.find((one) => one.client_id === report.client_id)!;
      await page
        .locator('.monaco-list-row[aria-label^="Report RPT-"]')
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      // The Reports view filtered to the report's client, from its Filter button.
      await clickToolbar(page, 'Reports', 'Filter Reports');
      await quickInput.waitForTitle(page, /Filter Reports/);
      await quickInput
        .rows(page)
        .filter({ hasText: /^Client/ })
        .first()
        .click();
      await page.keyboard.press('Enter');
      await quickInput.waitForTitle(page, /Client/);
      await quickInput.rows(page).filter({ hasText: client.name }).first().click();
      const filterRow = pane(page, 'Reports')
        .locator('.monaco-list-row', { hasText: 'Filtered by' })
        .first();
      await filterRow.waitFor({ state: 'visible', timeout: 30_000 });
      // The report previewed in a tab.
      await runFromPalette(page, 'Lab Data: Preview Report…');
      await quickInput.box(page).fill(report.report_id);
      await page.keyboard.press('Enter');
      const tab = page.locator('.tab', { hasText: `${report.report_id} (preview)` }).first();
      await tab.waitFor({ state: 'visible', timeout: 30_000 });
      await drawnPdf(page);

      // Reloaded as a person does (VS Code keeps its open editors as it closes the window).
      const reloaded = page.waitForEvent('framenavigated', {
        predicate: (frame) => frame === page.mainFrame(),
        timeout: 60_000,
      });
      await runFromPalette(page, 'Developer: Reload Window');
      await reloaded;
      await page.waitForLoadState('domcontentloaded');
      await showLabData(page);
      // The tab is back, its report fetched again and drawn: no error page in its place.
      await tab.waitFor({ state: 'visible', timeout: 60_000 });
      const frame = await drawnPdf(page);
      assert.equal(await frame.locator('#offer').isVisible(), false, 'no offer: it is drawn');
      assert.equal(
        await page.getByText(/unexpected error|no longer available/).count(),
        0,
        'no error page',
      );
      // The filter too, on the view's first row.
      await scrollToTop(page, 'Reports');
      await filterRow.waitFor({ state: 'visible', timeout: 30_000 });
      assert.match(await filterRow.innerText(), new RegExp(`Filtered by: client ${client.name}`));
      // The pointer off the list, so no row's tooltip covers the page in the screenshot.
      await pointAwayFromLists(page);
      await page.screenshot({ path: path.join(screenshotsDir, 'reload-restored.png') });
      console.log('      screenshot: test-results/screenshots/reload-restored.png');

      await clickRowAction(filterRow, 'Clear Reports Filter');
      await filterRow.waitFor({ state: 'hidden', timeout: 15_000 });
      await closeTabs(page, 'preview');
      await runFromPalette(page, 'Lab Data: Sign Out');
      finished = true;
    } finally {
      // Failed: the next suite still finds no filter, no preview and no lab signed in.
      for (const command of finished
        ? []
        : ['Lab Data: Clear Reports Filter', 'View: Close All Editors', 'Lab Data: Sign Out']) {
        await runFromPalette(page, command).catch(() => page.keyboard.press('Escape'));
      }
      await lab.stop();
    }
  });
});
