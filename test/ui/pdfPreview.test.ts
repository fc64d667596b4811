import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import { runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import { closeTabs, waitUntil } from './workbench';

/** The webview frame holding the preview's canvas (nested inside the webview host frame). */
async function canvasFrame(frames: () => Frame[]): Promise<Frame> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const frame of frames()) {
      if (
        await frame
          .locator('.page.drawn canvas')
          .count()
          .catch(() => 0)
      ) {
        return frame;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('no drawn PDF page in any webview frame');
}

/** Signs in to `lab`, previews `reportId` with "Lab Data: Preview Report…", and gives the frame showing it. */
async function previewFromPalette(
  page: Page,
  lab: MockLabServer,
  reportId: string,
): Promise<Frame> {
  await signInFromPalette(page, await lab.start(), 'demo-full-access');
  await page
    .locator(`.monaco-list-row[aria-label^="Report ${reportId}"]`)
    .waitFor({ state: 'visible', timeout: 30_000 });
  await runFromPalette(page, 'Lab Data: Preview Report…');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(reportId);
  await page.keyboard.press('Enter');
  await page
    .locator('.tab', { hasText: `${reportId} (preview)` })
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
  return canvasFrame(() => page.frames());
}

/** Waits until the find count reads `text`. */
async function countShows(count: Locator, text: string, when: string): Promise<void> {
  try {
    await waitUntil(async () => (await count.innerText()) === text, `"${text}" ${when}`);
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}; the count reads "${await count.innerText()}"`,
      { cause: error },
    );
  }
}

/** The texts and tops of the find highlights on the page, in order; the selected one's index. */
async function highlights(
  frame: Frame,
): Promise<{ texts: string[]; tops: number[]; selected: number }> {
  type Box = {
    textContent: string | null;
    classList: { contains(name: string): boolean };
    getBoundingClientRect(): { top: number };
  };
  return frame.locator('.textLayer .highlight').evaluateAll((elements) => {
    const boxes = elements as unknown as Box[];
    return {
      texts: boxes.map((box) => box.textContent ?? ''),
      tops: boxes.map((box) => Math.round(box.getBoundingClientRect().top)),
      selected: boxes.findIndex((box) => box.classList.contains('selected')),
    };
  });
}

describe('reading a report in the editor', () => {
  before(async () => {
    // On its own (LABDATA_UI_GREP), this suite is the first to show the workbench.
    const { page, workbenchUrl } = uiContext;
    if (page.url() !== workbenchUrl) {
      await page.goto(workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
  });

  it('"Lab Data: Preview Report…" shows the PDF in a tab: a canvas with drawn pixels and a page count', async () => {
    const { page, screenshotsDir } = uiContext;
    const lab = new MockLabServer();
    try {
      const report = lab
        .reportsFor('demo-full-access')
        .find((candidate) => candidate.download_available)!;
      const frame = await previewFromPalette(page, lab, report.report_id);
      // Runs in the webview; the test compiles without the DOM library, hence the small shape.
      type Canvas = {
        width: number;
        height: number;
        getContext(kind: '2d'): {
          getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
        };
      };
      const pixels = await frame
        .locator('.page.drawn canvas')
        .first()
        .evaluate((element) => {
          const canvas = element as unknown as Canvas;
          const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
          let dark = 0;
          for (let i = 0; i < data.length; i += 4) {
            if (data[i]! < 128 && data[i + 1]! < 128 && data[i + 2]! < 128) {
              dark++;
            }
          }
          return { dark, width: canvas.width, height: canvas.height };
        });
      assert.ok(
        pixels.width > 300 && pixels.height > 300,
        `a page-sized canvas (${pixels.width}×${pixels.height})`,
      );
      assert.ok(pixels.dark > 500, `the page has text drawn on it (${pixels.dark} dark pixels)`);
      assert.equal(await frame.locator('#pageCount').innerText(), '1');
      assert.ok(
        await frame.locator('#save').isVisible(),
        'a report preview offers "Save to Workspace"',
      );
      const file = path.join(screenshotsDir, 'pdf-preview.png');
      await page.screenshot({ path: file });
      console.log(
        `      screenshot: ${path.relative(process.cwd(), file)} (${pixels.dark} dark pixels on page 1)`,
      );
      // A reader clicks into the page; the palette must still be reachable from there.
      await frame.locator('.page.drawn').first().click();
      await runFromPalette(page, 'Lab Data: Sign Out');
    } finally {
      await lab.stop();
    }
  });

  it('Find in the preview searches as you type, highlights the words found (a phrase over two lines too), and steps with Enter and Shift+Enter', async () => {
    const { page, screenshotsDir } = uiContext;
    const lab = new MockLabServer();
    try {
      // A report listing several samples: each sample's line says "received".
      const report = lab
        .reportsFor('demo-full-access')
        .find(
          (candidate) =>
            candidate.download_available &&
            candidate.report_id !== lab.multiPageReportId &&
            candidate.sample_ids.length >= 2,
        )!;
      const expected = (
        lab
          .pdfFor(report.report_id)
          .toString('latin1')
          .match(/received/gi) ?? []
      ).length;
      assert.ok(expected >= 2, `the report says "received" more than once (${expected})`);
      // Only this preview's frame on the page.
      await closeTabs(page, '(preview)');
      await page.mouse.move(1, 400);
      const frame = await previewFromPalette(page, lab, report.report_id);
      const find = frame.locator('#find');
      const count = frame.locator('#findCount');

      // Focused, not clicked: the tooltip of the tab's close button (from closing tabs above) may still cover it.
      await find.focus();
      await find.pressSequentially('received', { delay: 40 });
      await countShows(count, `1 of ${expected}`, 'while typing');
      // The preview searches as the keys arrive, and "recei" is found as often as "received": the
      // count alone does not say the whole word was searched, its highlights do (on a busy machine
      // the count came from "recei").
      const first = await waitUntil(async () => {
        const seen = await highlights(frame);
        const partial = (text: string): boolean =>
          text.length < 'received'.length && 'received'.startsWith(text);
        return seen.texts.length > 0 && !seen.texts.some(partial) ? seen : undefined;
      }, 'the whole word searched');
      assert.deepEqual(
        first.texts,
        Array(expected).fill('received'),
        'each highlight is the word found, not its whole line',
      );
      assert.equal(first.selected, 0, 'the first match is the current one');
      const file = path.join(screenshotsDir, 'pdf-preview-find.png');
      await page.screenshot({ path: file });
      console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);

      await find.press('Enter');
      await countShows(count, `2 of ${expected}`, 'after Enter');
      const second = await highlights(frame);
      assert.equal(second.selected, 1, 'Enter makes the next match current');
      assert.ok(second.tops[1]! > second.tops[0]!, 'the next match is on a later line');
      await find.press('Shift+Enter');
      await countShows(count, `1 of ${expected}`, 'after Shift+Enter');
      assert.equal((await highlights(frame)).selected, 0, 'Shift+Enter goes back');

      // The generated report breaks "This report shall not be / reproduced except in full" over two lines.
      await find.fill('shall not be reproduced');
      await countShows(count, '1 of 1', 'for the phrase over two lines');
      const phrase = await highlights(frame);
      assert.deepEqual(
        phrase.texts,
        ['shall not be', 'reproduced'],
        'the phrase is highlighted word for word on both lines',
      );
      assert.ok(phrase.tops[1]! > phrase.tops[0]!, 'its second part is on the next line');

      await find.fill('no such words anywhere');
      await countShows(count, 'No results', 'for words the report does not hold');
      assert.equal((await highlights(frame)).texts.length, 0, 'nothing stays highlighted');
      await runFromPalette(page, 'Lab Data: Sign Out');
    } finally {
      await lab.stop();
    }
  });

  it("a saved report PDF clicked in the Explorer opens in Lab Data's preview: drawn pages in a webview, not text", async () => {
    const { page, screenshotsDir, workspace } = uiContext;
    const lab = new MockLabServer();
    const report = lab
      .reportsFor('demo-full-access')
      .find((candidate) => candidate.download_available)!;
    const folderName = `saved-ui-${process.pid}`;
    const folder = path.join(workspace, folderName);
    const fileName = `${report.report_id}.pdf`;
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, fileName), lab.pdfFor(report.report_id));
    try {
      // Only this editor's webview on the page.
      await closeTabs(page, /\(preview\)|\.pdf/);
      await page.keyboard.press('Control+Shift+E');
      const explorerRow = (text: string) =>
        page.locator('.explorer-folders-view .monaco-list-row', { hasText: text }).first();
      await explorerRow(folderName).click({ timeout: 30_000 });
      await explorerRow(fileName).click({ timeout: 30_000 });
      const tab = page.locator('.tabs-container .tab', { hasText: fileName }).first();
      await tab.waitFor({ state: 'visible', timeout: 30_000 });
      const frame = await canvasFrame(() => page.frames());
      assert.equal(await frame.locator('#pageCount').innerText(), '1');
      const size = await frame
        .locator('.page.drawn canvas')
        .first()
        .evaluate((element) => {
          const canvas = element as unknown as { width: number; height: number };
          return { width: canvas.width, height: canvas.height };
        });
      assert.ok(
        size.width > 300 && size.height > 300,
        `a drawn page (${size.width}×${size.height})`,
      );
      // A webview (VS Code lays it over the editor), and no text editor showing the PDF's bytes.
      assert.match(frame.url(), /webview/, `the page is drawn in a webview (${frame.url()})`);
      const editor = page.locator('.editor-group-container.active .editor-container');
      assert.equal(
        await editor.locator('.monaco-editor').count(),
        0,
        'no text editor in the active group',
      );
      const file = path.join(screenshotsDir, 'pdf-preview-from-explorer.png');
      await page.screenshot({ path: file });
      console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);
      await closeTabs(page, fileName);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });
});
