import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import { runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';

/** The webview frame showing the overview's drawn charts. */
async function overviewFrame(page: Page): Promise<Frame> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (
        (await frame
          .locator('section.chart canvas')
          .count()
          .catch(() => 0)) === 3
      ) {
        return frame;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('no overview with three charts in any webview frame');
}

/** Switches the colour theme through the workspace's settings (VS Code applies it live); undefined restores the user's. */
function useTheme(workspace: string, theme: string | undefined): void {
  const folder = path.join(workspace, '.vscode');
  if (theme === undefined) {
    rmSync(path.join(folder, 'settings.json'), { force: true });
    return;
  }
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'settings.json'),
    JSON.stringify({ 'workbench.colorTheme': theme }),
  );
}

describe('the lab overview, as a person sees it', () => {
  it('charts the lab in the light and the dark theme, with a table view and Save as CSV', async () => {
    const { page, screenshotsDir, workspace } = uiContext;
    const lab = new MockLabServer();
    const baseUrl = await lab.start();
    const exports = path.join(workspace, 'lab-exports');
    try {
      await signInFromPalette(page, baseUrl, 'demo-full-access');
      await page
        .locator('.monaco-list-row[aria-label^="Report RPT-"]')
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      await runFromPalette(page, 'Lab Data: Show Overview');
      let frame = await overviewFrame(page);
      await frame
        .locator('h1', { hasText: 'Overview:' })
        .waitFor({ state: 'visible', timeout: 15_000 });
      assert.match(await frame.locator('.summary').innerText(), /^380 reports/);
      await page.waitForTimeout(500);
      await page.screenshot({ path: path.join(screenshotsDir, 'overview.png') });

      // The filter charted is said (here none, so no Clear Filter); counts are whole reports; long names keep their ids.
      assert.match(await frame.locator('p.filter').innerText(), /^Not filtered: every report of /);
      assert.equal(await frame.locator('p.filter button', { hasText: 'Clear Filter' }).count(), 0);
      // Read in the webview from Chart.js itself (a string, as the test's own code has no DOM types).
      const axes = (await frame.evaluate(`(() => {
        const chartOf = (name) => Chart.getChart(document.querySelector('section.chart.' + name + ' canvas'));
        return { clientCounts: chartOf('clients').scales.x.ticks.map((tick) => tick.value), clientLabels: chartOf('clients').scales.y.ticks.map((tick) => String(tick.label)), timeCounts: chartOf('time').scales.y.ticks.map((tick) => tick.value) };
      })()`)) as { clientCounts: number[]; clientLabels: string[]; timeCounts: number[] };
      assert.deepEqual(
        [...axes.clientCounts, ...axes.timeCounts].filter((value) => !Number.isInteger(value)),
        [],
        'no 0.5 on a count axis',
      );
      axes.clientLabels.forEach((label) =>
        assert.match(label, /\(C-\d+\)$/, `${label} keeps its client id`),
      );

      // Every chart has a table view for screen readers and copying.
      const status = frame.locator('section.chart.status');
      await status.locator('button', { hasText: 'Table' }).click();
      const rows = await status.locator('.table tbody tr').allInnerTexts();
      assert.deepEqual(rows.map((row) => row.split('\t')[0]).sort(), ['amended', 'published']);

      rmSync(exports, { recursive: true, force: true });
      await frame.locator('section.chart.clients button', { hasText: 'Save as CSV' }).click();
      const deadline = Date.now() + 15_000;
      const saved = (): string[] =>
        existsSync(exports) ? readdirSync(exports).filter((file) => file.endsWith('.csv')) : [];
      while (saved().length === 0 && Date.now() < deadline) {
        await page.waitForTimeout(200);
      }
      const [csv] = saved();
      assert.deepEqual(
        readdirSync(exports),
        [csv],
        'nothing but the saved file (no temporary file left)',
      );
      assert.match(csv!, /^overview-.*-clients-\d{4}-\d{2}-\d{2}\.csv$/);
      assert.match(
        readFileSync(path.join(exports, csv!), 'utf8'),
        /^client,reports\r\nRiverside Water Authority \(C-1001\),\d+\r\n|^client,reports\r\n/,
      );

      useTheme(workspace, 'Default Dark Modern');
      await page
        .locator('.monaco-workbench.vs-dark')
        .waitFor({ state: 'attached', timeout: 15_000 });
      frame = await overviewFrame(page);
      await page.waitForTimeout(1000);
      await page.screenshot({ path: path.join(screenshotsDir, 'overview-dark.png') });
      console.log('      screenshots: test-results/screenshots/overview.png, overview-dark.png');
      // The light theme again; this is the last UI test, so the signed-in lab is simply left (its mock stops below).
      useTheme(workspace, undefined);
      await page.locator('.monaco-workbench.vs').waitFor({ state: 'attached', timeout: 15_000 });
    } finally {
      useTheme(workspace, undefined);
      rmSync(exports, { recursive: true, force: true });
      await lab.stop();
    }
  });
});
