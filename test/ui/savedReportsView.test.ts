import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { LabApi } from '../../core/api/labApi';
import { listAllReports } from '../../core/sync/folderSync';
import { syncedAsColleague } from '../support/colleagueFolder';
import { MockLabServer } from '../mock/server';
import { runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import {
  clearToasts,
  clickRowAction,
  clickToastButton,
  toast,
  waitUntil,
  expandPane,
  row,
  rowSays,
  showLabData,
  workspaceSettings,
} from './workbench';

const TOKEN = 'demo-full-access';

/**
 * The Saved Reports view as a person sees it: a colleague's folder with reports missing and one
 * changed, its counts and states, and Restore from the folder's row.
 */
describe('the Saved Reports view, as a person sees it', function () {
  this.timeout(180_000);
  let page: Page;
  let lab: MockLabServer;
  const name = `ui-saved-${process.pid}`;
  let folder: string;

  before(async () => {
    page = uiContext.page;
    lab = new MockLabServer({ reports: 30 });
    const baseUrl = await lab.start();
    folder = path.join(uiContext.workspace, name);
    const api = LabApi.forBaseUrl(baseUrl, { token: TOKEN });
    const reports = (await listAllReports(api, {}))
      .filter((report) => report.download_available && report.status !== 'amended')
      .slice(0, 6);
    await syncedAsColleague(api, folder, reports);
    await api.close();
    const files = (await fs.readdir(folder)).filter((file) => file.endsWith('.pdf')).sort();
    for (const file of files.slice(0, 3)) {
      await fs.rm(path.join(folder, file));
    }
    await fs.writeFile(path.join(folder, files[5]!), 'my annotated copy');
    if (page.url() !== uiContext.workbenchUrl) {
      await page.goto(uiContext.workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    await showLabData(page);
    await signInFromPalette(page, baseUrl, TOKEN);
    await row(page, 'Report RPT-').waitFor({ state: 'visible', timeout: 30_000 });
    await clearToasts(page);
  });

  after(async () => {
    await clearToasts(page).catch(() => undefined);
    await runFromPalette(page, 'Lab Data: Sign Out').catch(() => undefined);
    await workspaceSettings(uiContext.workspace, undefined);
    await fs.rm(folder, { recursive: true, force: true });
    await lab.stop();
  });

  it('shows the folder’s counts and states, and Restore brings the missing files back', async () => {
    await expandPane(page, 'Saved Reports');
    const folderRow = row(page, `Saved reports in ${name}`);
    await rowSays(folderRow, /6 recorded · 3 missing · 1 changed$/);
    const labRow = page
      // This folder's lab, named after the lab's address (not another folder's lab above it).
      .locator('.monaco-list-row[aria-level="2"]', { hasText: new URL(lab.baseUrl).host })
      .first();
    await labRow.click();
    await page.keyboard.press('ArrowRight');
    await row(page, 'RPT-')
      .waitFor({ state: 'visible', timeout: 15_000 })
      .catch(() => undefined);
    await page.screenshot({ path: path.join(uiContext.screenshotsDir, 'saved-reports-view.png') });
    await clickRowAction(folderRow, 'Restore');
    await rowSays(folderRow, /6 recorded · 1 changed$/);
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'saved-reports-view-restored.png'),
    });
  });

  it('on opening the workspace again with files missing, one notice says how many, and its Restore brings them back', async () => {
    const files = (await fs.readdir(folder)).filter((file) => file.endsWith('.pdf')).sort();
    for (const file of files.slice(1, 3)) {
      await fs.rm(path.join(folder, file));
    }
    await clearToasts(page);
    await page.reload({ waitUntil: 'domcontentloaded' });
    const said = await toast(
      page,
      /2 report file\(s\) recorded in .* are missing from the folder/,
      60_000,
    );
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'missing-files-notice.png'),
    });
    await clickToastButton(
      page,
      new RegExp(said.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
      'Restore',
    );
    await waitUntil(
      async () => {
        const now = await fs.readdir(folder);
        return files.slice(1, 3).every((file) => now.includes(file)) || undefined;
      },
      'the two files restored from the notice',
      60_000,
    );
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'missing-files-restored.png'),
    });
  });
});
