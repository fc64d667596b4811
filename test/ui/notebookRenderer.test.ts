import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import { notebookWithCard } from '../support/reportCardNotebook';
import { openFileFromPalette, runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import { closeTabs, confirmSignOut, showLabData, waitUntil } from './workbench';

const NOTEBOOK = 'report-card-ui.ipynb';

/** The frame of the notebook's outputs that shows the report card (nested inside the notebook's webview). */
async function cardFrame(page: Page): Promise<Frame> {
  let found: Frame | undefined;
  await waitUntil(async () => {
    for (const frame of page.frames()) {
      if (
        await frame
          .locator('.labdata-card')
          .count()
          .catch(() => 0)
      ) {
        found = frame;
        return true;
      }
    }
    return false;
  }, 'the report card in a notebook output');
  return found!;
}

describe('a report card in a notebook output', () => {
  before(async () => {
    // On its own (LABDATA_UI_GREP), this suite is the first to show the workbench.
    const { page, workbenchUrl } = uiContext;
    if (page.url() !== workbenchUrl) {
      await page.goto(workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    // The Lab Data views showing: the extension is there before its commands are run.
    await showLabData(page);
  });

  it('a stored output with the report MIME shows as a card (id, title, fields as text); its Preview opens the report in a preview tab', async () => {
    const { page, screenshotsDir, workspace } = uiContext;
    const lab = new MockLabServer();
    const file = path.join(workspace, NOTEBOOK);
    try {
      const report = lab
        .reportsFor('demo-full-access')
        .find(
          (candidate) =>
            candidate.download_available && candidate.report_id !== lab.multiPageReportId,
        )!;
      await signInFromPalette(page, await lab.start(), 'demo-full-access');
      await page
        .locator(`.monaco-list-row[aria-label^="Report ${report.report_id}"]`)
        .waitFor({ state: 'visible', timeout: 30_000 });
      const card = {
        id: report.report_id,
        // Data, never markup: the tags must show as written.
        title: 'Water chemistry <img src=x onerror=alert(1)>',
        lab: report.lab_name,
        origin: new URL(lab.baseUrl).origin,
        status: 'amended',
        revision: '2',
        amended: true,
        verified: true,
      };
      await fs.writeFile(file, notebookWithCard(card));
      await openFileFromPalette(page, NOTEBOOK);
      const frame = await cardFrame(page);
      const shown = frame.locator('.labdata-card');
      await shown.locator('h3').waitFor({ state: 'visible', timeout: 30_000 });
      assert.equal(
        await shown.locator('h3').innerText(),
        `${card.id} ${card.title}`,
        'the heading says the id and the title, the title as text',
      );
      assert.equal(await shown.locator('img').count(), 0, 'no markup from the output');
      const fields = (await shown.locator('li').allInnerTexts()).map((text) => text.trim());
      assert.deepEqual(fields, [
        `Lab: ${card.lab}`,
        'Status: amended',
        'Revision: 2',
        'Amended: yes',
        'Verified: yes',
      ]);
      const preview = shown.getByRole('button', { name: `Preview ${card.id}` });
      await preview.waitFor({ state: 'visible', timeout: 15_000 });
      const shot = path.join(screenshotsDir, 'notebook-report-card.png');
      await page.screenshot({ path: shot });
      console.log(`      screenshot: ${path.relative(process.cwd(), shot)}`);
      await preview.click();
      await page
        .locator('.tab', { hasText: `${card.id} (preview)` })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      await runFromPalette(page, 'Lab Data: Sign Out');
      await confirmSignOut(page);
    } finally {
      await closeTabs(page, /\(preview\)|report-card-ui/).catch(() => undefined);
      await fs.rm(file, { force: true });
      await lab.stop();
    }
  });
});
