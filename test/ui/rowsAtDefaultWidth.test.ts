import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import { runFromPalette } from './palette';
import { uiContext } from './uiContext';
import {
  clickToolbar,
  closeTabs,
  confirmSignOut,
  shows,
  editUserSettings,
  pane,
  quickInput,
  scrollTo,
  scrollToTop,
  showLabData,
  statusItem,
  waitUntil,
  animationsDone,
} from './workbench';
import { DOUBLE_CLICK_MS } from '../../src/commands/rowOpens';

const TOKEN = 'demo-full-access';
const LONG_NAME = 'Meridian Analytical Laboratories of Northern Europe';

/** How wide the "…" is that VS Code draws over the end of a cut row. */
const ELLIPSIS_PX = 10;

/** Where `needle` is drawn in a row's description, and where the row's label stops showing text. */
interface Drawn {
  readonly text: string;
  readonly found: boolean;
  /** The left edge of the needle's first character, in page pixels. */
  readonly left: number;
  /** The right edge of the needle's last character, in page pixels. */
  readonly right: number;
  /** The right edge of the area that shows the row's text (beyond it, text is cut off). */
  readonly visibleRight: number;
}

/**
 * Reads, in the page, where `needle` is drawn in the row's description (a Range over its
 * characters) and where the row's label container clips its text.
 */
async function drawn(target: Locator, needle: string): Promise<Drawn> {
  // Built from text (the tests compile without the DOM library); Playwright calls it with the row.
  const measure = new Function(
    'rowElement',
    'needle',
    `const description = rowElement.querySelector('.label-description');
    const container = rowElement.querySelector('.monaco-icon-label-container') || rowElement;
    const text = description ? description.textContent : '';
    const node = description && description.firstChild;
    const at = text.indexOf(needle);
    if (!node || at < 0) {
      return { text, found: false, left: 0, right: 0, visibleRight: 0 };
    }
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + needle.length);
    const rects = [...range.getClientRects()];
    const clip = container.getBoundingClientRect();
    const rowBox = rowElement.getBoundingClientRect();
    return {
      text,
      found: true,
      left: Math.min(...rects.map((rect) => rect.left)),
      right: Math.max(...rects.map((rect) => rect.right)),
      visibleRight: Math.min(clip.right, rowBox.right),
    };`,
  ) as (rowElement: unknown, needle: string) => Drawn;
  return target.evaluate(measure, needle);
}

/** Asserts that `needle` is drawn whole within what the row shows. */
async function assertShown(target: Locator, needle: string, what: string): Promise<void> {
  const seen = await drawn(target, needle);
  assert.ok(seen.found, `${what}: "${needle}" in the description "${seen.text}"`);
  // The ellipsis VS Code draws where it cuts covers the last few pixels.
  assert.ok(
    seen.right <= seen.visibleRight - ELLIPSIS_PX,
    `${what}: "${needle}" is drawn whole at the default width (it ends at ${seen.right.toFixed(0)} px, the row shows text up to ${seen.visibleRight.toFixed(0)} px): "${seen.text}"`,
  );
}

/** The webview frame that holds `selector`. */
async function frameWith(page: Page, selector: string): Promise<Frame> {
  return waitUntil(async () => {
    for (const frame of page.frames()) {
      if (
        (await frame
          .locator(selector)
          .count()
          .catch(() => 0)) > 0
      ) {
        return frame;
      }
    }
    return undefined;
  }, `a webview frame with ${selector}`);
}

/** Makes the editor area `width` pixels wide by resizing the window. */
async function editorWidth(page: Page, width: number): Promise<void> {
  const size = page.viewportSize()!;
  const editor = (await page.locator('.part.editor').boundingBox())!;
  await page.setViewportSize({
    width: Math.round(size.width + width - editor.width),
    height: size.height,
  });
  await waitUntil(
    async () => Math.abs((await page.locator('.part.editor').boundingBox())!.width - width) <= 2,
    `the editor ${width} px wide`,
  );
}

/** How the preview's toolbar lays out: whether it scrolls, how tall it is, and whether Save to Workspace is whole. */
async function toolbarLayout(frame: Frame): Promise<{
  scrolls: boolean;
  height: number;
  saveWhole: boolean;
  saveRight: number;
  width: number;
}> {
  return (await frame.evaluate(`(() => {
    const toolbar = document.getElementById('toolbar');
    const save = document.getElementById('save');
    const box = save.getBoundingClientRect();
    const bar = toolbar.getBoundingClientRect();
    return {
      scrolls: toolbar.scrollWidth > toolbar.clientWidth + 1,
      height: bar.height,
      saveWhole: box.width > 0 && box.left >= bar.left && box.right <= Math.min(bar.right, document.documentElement.clientWidth) + 0.5 && save.scrollWidth <= save.clientWidth + 1,
      saveRight: box.right,
      width: document.documentElement.clientWidth,
    };
  })()`)) as {
    scrolls: boolean;
    height: number;
    saveWhole: boolean;
    saveRight: number;
    width: number;
  };
}

/**
 * What a person reads at the default sidebar width, read from the DOM as drawn (not only a
 * screenshot): report rows, a long-named lab that cannot be reached, the status bar, and the
 * preview a double-click keeps, whose toolbar wraps in a 746 px editor.
 */
describe('at the default width: rows, the status bar and the preview toolbar', function () {
  this.timeout(240_000);
  let page: Page;
  let far: MockLabServer;
  let harbor: MockLabServer;
  let original: string | undefined;
  let viewport: { width: number; height: number } | null;
  /** A row of the Reports view (another view may show a row of the same name). */
  const reportsRow = (label: string): Locator =>
    pane(page, 'Reports').locator(`.monaco-list-row[aria-label^="${label}"]`).first();
  /** Folds a lab's row, so the next lab's row stays in the view's sight. */
  const collapse = async (labRow: Locator): Promise<void> => {
    if ((await labRow.getAttribute('aria-expanded')) === 'true') {
      await labRow.click();
    }
  };
  /** Unfolds a lab's row. */
  const expand = async (labRow: Locator): Promise<void> => {
    if ((await labRow.getAttribute('aria-expanded')) !== 'true') {
      await labRow.click();
    }
  };

  before(async () => {
    page = uiContext.page;
    viewport = page.viewportSize();
    if (page.url() !== uiContext.workbenchUrl) {
      await page.goto(uiContext.workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    far = new MockLabServer({ reports: 60 });
    harbor = new MockLabServer({ reports: 40, seed: 9 });
    const [farUrl, harborUrl] = [await far.start(), await harbor.start()];
    const settingsFile = path.join(uiContext.userDataDir, 'User', 'settings.json');
    original = await fs.readFile(settingsFile, 'utf8').catch(() => undefined);
    const settings = original ? (JSON.parse(original) as Record<string, unknown>) : {};
    await editUserSettings(
      page,
      JSON.stringify({
        ...settings,
        'labData.baseUrl': undefined,
        'labData.labs': [
          { name: LONG_NAME, baseUrl: farUrl },
          { name: 'Harbor', baseUrl: harborUrl },
        ],
      }),
    );
    await showLabData(page);
    for (const name of [LONG_NAME, 'Harbor']) {
      const labRow = await scrollTo(page, 'Reports', reportsRow(`Lab ${name}, `));
      await labRow.click();
      await reportsRow(`Sign in to ${name}`).click();
      await quickInput.waitForTitle(page, /Sign In \(2\/2\)/);
      await quickInput.box(page).fill(TOKEN);
      await page.keyboard.press('Enter');
      await waitUntil(
        async () => /reports/.test(await labRow.locator('.label-description').innerText()),
        `${name} signed in, with its count`,
        30_000,
      );
      await collapse(labRow);
    }
  });

  after(async () => {
    if (viewport) {
      await page.setViewportSize(viewport);
    }
    await closeTabs(page, /RPT-|preview/).catch(() => undefined);
    // Signed out of both (which lab: the picker), so no token outlives the labs.
    for (const name of [LONG_NAME, 'Harbor']) {
      await runFromPalette(page, 'Lab Data: Sign Out').catch(() => undefined);
      const choice = quickInput.rows(page).filter({ hasText: name }).first();
      if (await shows(choice, 5_000)) {
        await choice.click().catch(() => undefined);
      } else {
        await page.keyboard.press('Escape');
      }
      await confirmSignOut(page).catch(() => undefined);
    }
    await editUserSettings(page, original ?? '{}').catch(() => undefined);
    await Promise.all([far.stop(), harbor.stop()]);
  });

  it('unfiltered report rows show their day and type before the title', async () => {
    await scrollToTop(page, 'Reports');
    const harborRow = reportsRow('Lab Harbor, ');
    await collapse(reportsRow(`Lab ${LONG_NAME}, `));
    // Harbor's reports, unfiltered, as the Reports view lists them.
    await expand(harborRow);
    const reports = harbor.reportsFor(TOKEN);
    for (const report of reports.slice(0, 3)) {
      const target = reportsRow(`Report ${report.report_id}`);
      await target.waitFor({ state: 'visible', timeout: 30_000 });
      const description = (await target.locator('.label-description').innerText()).trim();
      const [day, type] = description.split(' · ');
      assert.ok(day!.includes(report.published_at.slice(0, 4)), `the day first: ${description}`);
      assert.equal(type, report.report_type, `then the type: ${description}`);
      // The day whole, the type right after it (before the title). A 295 px sidebar leaves about
      // 110 px after a 15-character id under a lab's row: the type itself is cut there.
      await assertShown(target, day!, `report ${report.report_id}`);
      assert.ok(
        description.startsWith(`${day} · ${report.report_type}`),
        `the type follows the day: ${description}`,
      );
    }
    await page.mouse.move(900, 700, { steps: 5 });
    await animationsDone(page);
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'report-rows-default-width.png'),
    });
    await collapse(harborRow);
  });

  // Before the long-named lab goes down: its retries end in a refresh of the whole tree, and a
  // refresh between the two halves of a click swallows it (seen on a busy machine: the double-
  // click ran no command at all).
  it('a double-click on a report row keeps its tab, as in the Explorer', async () => {
    await scrollToTop(page, 'Reports');
    const harborRow = reportsRow('Lab Harbor, ');
    await expand(harborRow);
    const report = harbor.reportsFor(TOKEN).find((candidate) => candidate.download_available)!;
    const target = reportsRow(`Report ${report.report_id}`);
    await target.waitFor({ state: 'visible', timeout: 30_000 });
    const tabLabel = page
      .locator('.tab', { hasText: report.report_id })
      .first()
      .locator('.monaco-icon-label')
      .first();
    await target.click();
    await tabLabel.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(
      (await tabLabel.getAttribute('class')) ?? '',
      /\bitalic\b/,
      'a click: a preview tab',
    );
    // Its page drawn before the tab is closed: a preview closed while it loads keeps its command waiting.
    await (await frameWith(page, '.page.drawn')).locator('.page.drawn').first().waitFor();
    await closeTabs(page, report.report_id);
    // The first click's open is over: a double-click now is a new one, not the second half of that.
    await new Promise((resolve) => setTimeout(resolve, DOUBLE_CLICK_MS + 100));
    await target.dblclick();
    await tabLabel.waitFor({ state: 'visible', timeout: 30_000 });
    await waitUntil(
      async () => !/\bitalic\b/.test((await tabLabel.getAttribute('class')) ?? ''),
      'the double-clicked report’s tab to be kept (not in italics)',
      // Kept once its page is drawn: the first click's open is what the second one keeps.
      30_000,
    );
    await closeTabs(page, report.report_id);
    await collapse(harborRow);
  });

  it('a long-named lab that cannot be reached shows "unreachable" before its name is cut; the status bar says what of the labs', async () => {
    await scrollToTop(page, 'Reports');
    // The long-named lab goes down.
    await far.stop();
    await clickToolbar(page, 'Reports', 'Refresh');
    const farRow = reportsRow(`Lab ${LONG_NAME}, `);
    await waitUntil(
      async () =>
        (await farRow.locator('.label-description').innerText()).startsWith('unreachable'),
      'the long-named lab: unreachable',
      60_000,
    );
    await assertShown(farRow, 'unreachable', 'the long-named lab');
    await waitUntil(
      async () => (await statusItem(page).innerText()).includes('1 of 2 labs unreachable'),
      `the status bar to say what of the labs ("${await statusItem(page).innerText()}")`,
      30_000,
    );
    await page.mouse.move(900, 700, { steps: 5 });
    await animationsDone(page);
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'lab-rows-unreachable-default-width.png'),
    });
  });

  it('the preview’s toolbar wraps in a 746 px editor, with "Save to Workspace" whole', async () => {
    await scrollToTop(page, 'Reports');
    await expand(reportsRow('Lab Harbor, '));
    const report = harbor.reportsFor(TOKEN).find((candidate) => candidate.download_available)!;
    await reportsRow(`Report ${report.report_id}`).click();
    const frame = await frameWith(page, '#toolbar #save');
    await frame.locator('.page.drawn').first().waitFor({ state: 'visible', timeout: 30_000 });
    for (const width of [746, 520]) {
      await editorWidth(page, width);
      const layout = await waitUntil(async () => {
        const seen = await toolbarLayout(frame);
        return seen.width <= width ? seen : undefined;
      }, `the preview laid out ${width} px wide`);
      assert.ok(
        !layout.scrolls,
        `at ${width} px the toolbar does not scroll: ${JSON.stringify(layout)}`,
      );
      assert.ok(
        layout.saveWhole,
        `at ${width} px "Save to Workspace" is whole: ${JSON.stringify(layout)}`,
      );
      if (width === 520) {
        assert.ok(
          layout.height > 40,
          `at ${width} px the toolbar wraps: ${JSON.stringify(layout)}`,
        );
      }
      await page.screenshot({
        path: path.join(uiContext.screenshotsDir, `preview-toolbar-${width}px.png`),
      });
    }
    if (viewport) {
      await page.setViewportSize(viewport);
    }
    await closeTabs(page, report.report_id);
  });
});
