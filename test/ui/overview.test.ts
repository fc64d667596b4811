import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import { focusedElements, focusWorkbench, runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import {
  animationsDone,
  answerIfAsked,
  clickRowAction,
  closeTabs,
  focusLeftFrames,
  pane,
  scrollToTop,
  showLabData,
  shows,
  webviewsWear,
} from './workbench';

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

/** What Chart.js drew in the overview's frame: each chart's bars (label and count) and each report type's colour. */
interface ChartsDrawn {
  readonly bars: Record<'time' | 'clients' | 'status', Array<[string, number]>>;
  readonly typeColours: Record<string, string>;
}

async function chartsDrawn(frame: Frame): Promise<ChartsDrawn> {
  // Chart.js draws in the frame after the page is built: wait for the three charts.
  await frame.waitForFunction(
    `['time', 'clients', 'status'].every((name) => Chart.getChart(document.querySelector('section.chart.' + name + ' canvas')))`,
    undefined,
    { timeout: 15_000 },
  );
  // A string, as the test's own code has no DOM types; read from Chart.js itself.
  return (await frame.evaluate(`(() => {
    const chartOf = (name) => Chart.getChart(document.querySelector('section.chart.' + name + ' canvas'));
    const bars = (name) => {
      const chart = chartOf(name);
      return chart.data.labels.map((label, index) => [String(label), chart.data.datasets.reduce((sum, dataset) => sum + Number(dataset.data[index] ?? 0), 0)]);
    };
    return {
      bars: { time: bars('time'), clients: bars('clients'), status: bars('status') },
      typeColours: Object.fromEntries(chartOf('time').data.datasets.map((dataset) => [dataset.label, String(dataset.borderColor)])),
    };
  })()`)) as ChartsDrawn;
}

/** A chart's table as text: each body row's cells. */
async function tableRows(frame: Frame, chart: string): Promise<string[][]> {
  return (await frame.evaluate(
    `[...document.querySelectorAll('section.chart.${chart} .table tbody tr')].map((row) => [...row.cells].map((cell) => cell.textContent))`,
  )) as string[][];
}

/**
 * Runs Show Overview and gives the overview's frame once it has drawn again: an overview already
 * open still shows its previous drawing until the new listing arrives, so that one is marked first.
 */
async function showOverview(page: Page): Promise<Frame> {
  for (const frame of page.frames()) {
    await frame
      .evaluate(`document.querySelector('p.filter')?.setAttribute('data-previous', '')`)
      .catch(() => undefined);
  }
  await runFromPalette(page, 'Lab Data: Show Overview');
  const frame = await overviewFrame(page);
  await frame.locator('p.filter:not([data-previous])').waitFor({ timeout: 30_000 });
  return frame;
}

/** What has the keyboard focus in a frame: its id, its element's tag and its text. */
async function focusIn(
  frame: Frame,
): Promise<{ id: string; tag: string; action: string; text: string }> {
  return (await frame.evaluate(
    `(() => { const active = document.activeElement; return { id: active?.id ?? '', tag: active?.tagName ?? '', action: active?.dataset?.action ?? '', text: active?.innerText ?? '' }; })()`,
  )) as { id: string; tag: string; action: string; text: string };
}

describe('the lab overview, as a person sees it', () => {
  let lab: MockLabServer;

  before(async () => {
    const { page } = uiContext;
    lab = new MockLabServer();
    const baseUrl = await lab.start();
    // Run alone (LABDATA_UI_GREP), the page may not show the workbench yet.
    if (page.url() !== uiContext.workbenchUrl) {
      await page.goto(uiContext.workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    await showLabData(page);
    await signInFromPalette(page, baseUrl, 'demo-full-access');
    await page
      .locator('.monaco-list-row[aria-label^="Report RPT-"]')
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
  });

  // This is the last UI suite, so the signed-in lab is simply left (its mock stops here).
  after(async () => {
    useTheme(uiContext.workspace, undefined);
    await lab.stop();
  });

  it('charts the lab in the light and the dark theme, with a table view and Save as CSV', async () => {
    const { page, screenshotsDir, workspace } = uiContext;
    const exports = path.join(workspace, 'lab-exports');
    try {
      await runFromPalette(page, 'Lab Data: Show Overview');
      let frame = await overviewFrame(page);
      await frame
        .locator('h1', { hasText: 'Overview:' })
        .waitFor({ state: 'visible', timeout: 15_000 });
      assert.match(await frame.locator('.summary').innerText(), /^380 reports/);
      await animationsDone(page);
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
      await webviewsWear(page, 'vscode-dark');
      await page.screenshot({ path: path.join(screenshotsDir, 'overview-dark.png') });
      console.log('      screenshots: test-results/screenshots/overview.png, overview-dark.png');
      useTheme(workspace, undefined);
      await page.locator('.monaco-workbench.vs').waitFor({ state: 'attached', timeout: 15_000 });
    } finally {
      useTheme(workspace, undefined);
      rmSync(exports, { recursive: true, force: true });
    }
  });

  it('a click on a bar charts that slice in the overview and filters the Reports view, each type keeping its colour', async () => {
    const { page, screenshotsDir } = uiContext;
    const frame = await showOverview(page);
    await frame.locator('p.filter', { hasText: 'Not filtered' }).waitFor({ timeout: 15_000 });
    const before = await chartsDrawn(frame);
    const [topClient, topCount] = before.bars.clients[0]!;
    const id = /\((C-\d+)\)$/.exec(topClient)![1]!;
    // The middle of the first bar of the client chart, in the canvas' own pixels.
    const bar = (await frame.evaluate(`(() => {
      const chart = Chart.getChart(document.querySelector('section.chart.clients canvas'));
      const point = chart.getDatasetMeta(0).data[0].getCenterPoint();
      return { x: point.x, y: point.y };
    })()`)) as { x: number; y: number };
    await frame.locator('section.chart.clients canvas').click({ position: bar });

    // The overview charts that client (its chart becomes the client's projects) and says so by name and id.
    const line = frame.locator('p.filter', { hasText: 'Filtered by: client' });
    await line.waitFor({ timeout: 30_000 });
    assert.match(await line.innerText(), new RegExp(`^Filtered by: client .+ \\(${id}\\)`));
    assert.equal(await frame.locator('.summary').innerText(), `${topCount} reports`);
    await frame.locator('section.chart.clients h2', { hasText: 'Reports by project' }).waitFor();
    const after = await chartsDrawn(frame);
    assert.equal(
      after.bars.status.reduce((sum, [, count]) => sum + count, 0),
      topCount,
      "the status chart counts the client's reports only",
    );
    // The Reports view shows the same filter.
    await page
      .locator('.monaco-list-row', { hasText: `Filtered by: client` })
      .filter({ hasText: `(${id})` })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    // Each report type has the colour it had before the filter.
    const kept = Object.keys(after.typeColours).filter(
      (type) => type !== 'Other' && before.typeColours[type] !== undefined,
    );
    assert.ok(kept.length > 0, 'types on both charts');
    kept.forEach((type) =>
      assert.equal(after.typeColours[type], before.typeColours[type], `${type} keeps its colour`),
    );
    await page.screenshot({ path: path.join(screenshotsDir, 'overview-filtered.png') });

    await frame.locator('p.filter button', { hasText: 'Clear Filter' }).click();
    await frame.locator('p.filter', { hasText: 'Not filtered' }).waitFor({ timeout: 30_000 });
  });

  it('is still drawn when its tab is shown again after another editor hid it', async () => {
    const { page, screenshotsDir } = uiContext;
    const frame = await showOverview(page);
    await frame.locator('p.filter', { hasText: 'Not filtered' }).waitFor({ timeout: 15_000 });
    const before = await chartsDrawn(frame);
    const overviewTab = page.locator('.tabs-container .tab', { hasText: 'Overview:' }).first();
    // Another editor takes the overview's place in its group: its tab is hidden.
    await runFromPalette(page, 'File: New Untitled Text File');
    await page
      .locator('.tabs-container .tab.active', { hasText: 'Untitled' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(
      await overviewTab.getAttribute('aria-selected'),
      'false',
      'the overview is hidden',
    );
    await overviewTab.click();
    // Shown again: the charts, their tables and the filter line are there, as they were.
    const again = await overviewFrame(page);
    await again.locator('p.filter', { hasText: 'Not filtered' }).waitFor({ timeout: 15_000 });
    const after = await chartsDrawn(again);
    assert.deepEqual(after.bars, before.bars, 'the same charts, drawn again');
    assert.equal(
      (await tableRows(again, 'status')).length,
      before.bars.status.length,
      "the status chart's table has its rows",
    );
    assert.ok(
      await again.locator('section.chart.time canvas').isVisible(),
      'the time chart is on screen',
    );
    await animationsDone(page);
    await page.screenshot({ path: path.join(screenshotsDir, 'overview-shown-again.png') });
    await closeTabs(page, 'Untitled');
  });

  it("follows the Reports view's filter when it changes there", async () => {
    const { page, screenshotsDir } = uiContext;
    let frame = await showOverview(page);
    await frame.locator('p.filter', { hasText: 'Not filtered' }).waitFor({ timeout: 15_000 });
    // Filtered to a client from the overview (a bar clicked), then that filter cleared in the Reports view.
    const { bars } = await chartsDrawn(frame);
    const id = /\((C-\d+)\)$/.exec(bars.clients[0]![0])![1]!;
    const bar = (await frame.evaluate(`(() => {
      const chart = Chart.getChart(document.querySelector('section.chart.clients canvas'));
      const point = chart.getDatasetMeta(0).data[0].getCenterPoint();
      return { x: point.x, y: point.y };
    })()`)) as { x: number; y: number };
    await frame.locator('section.chart.clients canvas').click({ position: bar });
    await frame
      .locator('p.filter', { hasText: `(${id})` })
      .waitFor({ state: 'visible', timeout: 30_000 });
    await scrollToTop(page, 'Reports');
    const filterRow = pane(page, 'Reports')
      .locator('.monaco-list-row', { hasText: 'Filtered by' })
      .first();
    await filterRow.waitFor({ state: 'visible', timeout: 15_000 });
    await clickRowAction(filterRow, 'Clear Reports Filter');
    await filterRow.waitFor({ state: 'hidden', timeout: 15_000 });
    // The overview, beside the view, charts what the view now shows: every report.
    frame = await overviewFrame(page);
    await frame
      .locator('p.filter', { hasText: 'Not filtered' })
      .waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await frame.locator('.summary').innerText(), /^380 reports/);
    await animationsDone(page);
    await page.screenshot({ path: path.join(screenshotsDir, 'overview-follows-filter.png') });
  });

  it('gives every chart a table of its data and a one-sentence summary that match what is drawn', async () => {
    const { page } = uiContext;
    const frame = await showOverview(page);
    await frame.locator('p.filter', { hasText: 'Not filtered' }).waitFor({ timeout: 15_000 });
    const drawn = await chartsDrawn(frame);
    const total = drawn.bars.status.reduce((sum, [, count]) => sum + count, 0);
    for (const chart of ['time', 'clients', 'status'] as const) {
      const rows = await tableRows(frame, chart);
      const bars = drawn.bars[chart];
      // The client chart draws the 25 largest; its table has them first, then the rest.
      assert.deepEqual(
        rows.slice(0, bars.length).map((row) => Number(row.at(-1))),
        bars.map(([, count]) => count),
        `${chart}: the table's counts are the bars'`,
      );
      if (chart !== 'time') {
        assert.deepEqual(
          rows.slice(0, bars.length).map((row) => row[0]),
          bars.map(([label]) => label),
        );
      }
      assert.equal(
        await frame.locator(`section.chart.${chart} table caption`).innerText(),
        await frame.locator(`section.chart.${chart} h2`).innerText(),
      );
      const canvas = frame.locator(`section.chart.${chart} canvas`);
      assert.equal(await canvas.getAttribute('role'), 'img');
      assert.equal(await canvas.getAttribute('aria-describedby'), `summary-${chart}`);
    }
    assert.equal(
      await frame.locator('#summary-status').innerText(),
      `${total} reports by status: ${drawn.bars.status.map(([label, count]) => `${label} ${count}`).join(', ')}.`,
    );
    const [topClient, topCount] = drawn.bars.clients[0]!;
    assert.match(
      await frame.locator('#summary-clients').innerText(),
      new RegExp(
        `^${total} reports across \\d+ clients, the most for ${topClient.replace(/[()]/g, '\\$&')} \\(${topCount}\\)\\.$`,
      ),
    );
    const dated = drawn.bars.time.reduce((sum, [, count]) => sum + count, 0);
    assert.match(
      await frame.locator('#summary-time').innerText(),
      new RegExp(
        `^${dated} reports published from .+ to .+, the most in .+; the most common type is .+\\.$`,
      ),
    );
  });

  it('opens the overview and its table from the keyboard alone, and reads right in high contrast', async () => {
    const { page, screenshotsDir, workspace } = uiContext;
    // Set up: no editor open, the focus in the workbench (not in a webview, which keeps the keys).
    await runFromPalette(page, 'View: Close All Editors');
    // Untitled documents earlier suites typed ids into ask to be saved first: a modal dialog, which
    // keeps every key from the workbench (the palette's F1 included) until it is answered.
    await answerIfAsked(page, "Don't Save", 3_000);
    // A webview frame that had the focus (the overview just closed) can keep it: given back to the
    // workbench, as it is for a person whose last click was in VS Code.
    await focusWorkbench(page);
    await focusLeftFrames(page);
    // The keyboard only from here: the command palette, then Tab through the panel.
    // F1 right after closing the editors can land before the workbench has taken the focus back
    // (seen once in a full run): pressed again, still from the keyboard, until the palette shows.
    const palette = page.locator('.quick-input-widget .quick-input-box input').first();
    for (let tries = 1; ; tries++) {
      if (tries > 1) {
        // The focus went back into a frame (a webview going away can take it): given back again.
        await focusWorkbench(page);
        await focusLeftFrames(page);
      }
      // F1 first; then the palette's other key, Ctrl+Shift+P (a person tries it too).
      await page.keyboard.press(tries === 1 ? 'F1' : 'Control+Shift+P');
      const shown = await shows(palette, 5_000);
      if (shown) {
        break;
      }
      assert.ok(
        tries < 4,
        `F1 opens the command palette (the focus: ${await focusedElements(page)}; quick inputs: ${JSON.stringify(
          await page
            .locator('.quick-input-widget')
            .evaluateAll((widgets) =>
              widgets.map(
                (widget) => (widget as unknown as { style: { display: string } }).style.display,
              ),
            ),
        )})`,
      );
    }
    await page.keyboard.type('Lab Data: Show Overview');
    await page
      .locator('.quick-input-widget .monaco-list-row', { hasText: 'Lab Data: Show Overview' })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    await page.keyboard.press('Enter');
    const frame = await overviewFrame(page);
    await frame.locator('#summary-status').waitFor({ timeout: 15_000 });
    const tabTo = async (wanted: (focus: Awaited<ReturnType<typeof focusIn>>) => boolean) => {
      for (let presses = 0; presses < 60; presses++) {
        await page.keyboard.press('Tab');
        const focus = await focusIn(frame);
        if (wanted(focus)) {
          return focus;
        }
      }
      throw new Error('Tab never reached it');
    };
    await tabTo((focus) => focus.action === 'table-status');
    await page.keyboard.press('Enter');
    const focused = await tabTo((focus) => focus.id === 'table-status');
    assert.match(focused.text, /^Reports by status/);
    assert.match(focused.text, /amended\s+\d+/);
    assert.match(focused.text, /published\s+\d+/);
    // The row's button does what a click on its bar does, from the keyboard too.
    const [first] = await tableRows(frame, 'status');
    assert.equal((await tabTo((focus) => focus.tag === 'BUTTON')).text, first![0]);

    useTheme(workspace, 'Default High Contrast');
    try {
      await page
        .locator('.monaco-workbench.hc-black')
        .waitFor({ state: 'attached', timeout: 15_000 });
      await webviewsWear(page, 'vscode-high-contrast');
      // The charts take the theme's colours without the page being built again: the table stays open, the focus in it.
      assert.equal((await focusIn(frame)).text, first![0]);
      await page.screenshot({ path: path.join(screenshotsDir, 'overview-high-contrast.png') });
      console.log('      screenshot: test-results/screenshots/overview-high-contrast.png');
    } finally {
      useTheme(workspace, undefined);
    }
    await page.locator('.monaco-workbench.vs').waitFor({ state: 'attached', timeout: 15_000 });
  });
});
