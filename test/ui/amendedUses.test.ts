import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { LabApi } from '../../core/api/labApi';
import { listAllReports } from '../../core/sync/folderSync';
import { readManifest } from '../../core/sync/manifest';
import { syncedAsColleague } from '../support/colleagueFolder';
import { MockLabServer } from '../mock/server';
import { runFromPalette } from './palette';
import { uiContext } from './uiContext';
import { clearToasts, closeTabs, showLabData, toast, waitUntil } from './workbench';

const TOKEN = 'demo-full-access';

/**
 * A script that used a report the lab then amended, as a person sees it: the notification when
 * the sync records the new revision, the CodeLens above the line, the Problems entry and the
 * Explorer's badge, each kept as a screenshot.
 */
describe('a script that used an amended report, as a person sees it', function () {
  this.timeout(180_000);
  let page: Page;
  let lab: MockLabServer;
  let api: LabApi;
  const name = `ui-amended-${process.pid}`;
  let repo: string;
  let folder: string;
  let id: string;

  const shoot = async (file: string): Promise<void> => {
    const at = path.join(uiContext.screenshotsDir, file);
    await page.screenshot({ path: at });
    console.log(`      screenshot: ${path.relative(process.cwd(), at)}`);
  };

  before(async () => {
    page = uiContext.page;
    lab = new MockLabServer({ reports: 20 });
    const baseUrl = await lab.start();
    repo = path.join(uiContext.workspace, name);
    await fs.mkdir(repo, { recursive: true });
    execFileSync('git', ['init', '--quiet'], { cwd: repo });
    folder = path.join(repo, 'lab-reports');
    api = LabApi.forBaseUrl(baseUrl, { token: TOKEN });
    const reports = (await listAllReports(api, {}))
      .filter((report) => report.download_available && report.status !== 'amended')
      .slice(0, 2);
    await syncedAsColleague(api, folder, reports);
    id = reports[0]!.report_id;
    await fs.writeFile(
      path.join(repo, 'trend.py'),
      `import labdata\n\n# Nitrate trend from the lab's report\nreport = labdata.path("${id}")\nprint(report)\n`,
    );
    if (page.url() !== uiContext.workbenchUrl) {
      await page.goto(uiContext.workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    // The workbench has Lab Data's contributions (its commands in the palette) once its container shows.
    await showLabData(page);
    await clearToasts(page);
  });

  after(async () => {
    await clearToasts(page).catch(() => undefined);
    await closeTabs(page, 'trend.py').catch(() => undefined);
    await runFromPalette(page, 'View: Close Panel').catch(() => undefined);
    await fs.rm(repo, { recursive: true, force: true });
    await api?.close();
    await lab.stop();
  });

  it('shows the notification, the CodeLens, the Problems entry and the Explorer badge', async () => {
    // The person records the uses (the script names the report), as the Saved Reports view offers.
    await runFromPalette(page, 'Lab Data: Record Report Uses');
    await toast(page, /^Recorded \d+ use\(s\) of reports/);
    assert.match(await fs.readFile(path.join(folder, 'lab-data-uses.json'), 'utf8'), /trend\.py/);
    // The command's message comes once the workspace has read the uses it recorded.
    await clearToasts(page);

    lab.amendReport(id, { publishNow: true });
    const amended = (await listAllReports(api, {})).find((report) => report.report_id === id)!;
    await syncedAsColleague(api, folder, [amended]);
    assert.equal(Object.values((await readManifest(folder)).labs)[0]!.files[id]!.revision, '2');

    await toast(page, new RegExp(`^${id} was amended \\(revision 2\\): 1 script`));
    await shoot('amended-notification.png');
    await clearToasts(page);

    // The Explorer: the script's row wears Lab Data's badge.
    await page.keyboard.press('Control+Shift+E');
    const explorerRow = (text: string) =>
      page.locator('.explorer-folders-view .monaco-list-row', { hasText: text }).first();
    await explorerRow(name).click({ timeout: 30_000 });
    const script = explorerRow('trend.py');
    await script.waitFor({ state: 'visible', timeout: 30_000 });
    await waitUntil(
      async () =>
        (
          await script
            .locator('.monaco-icon-label')
            .first()
            .evaluate(
              (label) =>
                // A string run in the page: the test's own code has no DOM types.
                new Function('label', "return getComputedStyle(label, '::after').content")(
                  label,
                ) as string,
            )
        ).includes('↻') || undefined,
      'the Explorer badge on trend.py',
    );
    await script.click();
    await shoot('amended-explorer.png');

    // The CodeLens above the line that reads the report.
    const lens = page.locator('.monaco-editor .codelens-decoration', {
      hasText: `${id} was amended: revision 1 → 2`,
    });
    await lens.first().waitFor({ state: 'visible', timeout: 30_000 });
    await shoot('amended-codelens.png');

    // The Problems entry.
    await page.keyboard.press('Control+Shift+M');
    const problem = page.locator('.markers-panel .monaco-list-row', {
      hasText: `${id} was amended: revision 1 → 2`,
    });
    await problem.first().waitFor({ state: 'visible', timeout: 30_000 });
    await shoot('amended-problems.png');
  });
});
