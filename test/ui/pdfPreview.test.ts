import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import { runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';

/** The webview frame holding the preview's canvas (nested inside the webview host frame). */
async function canvasFrame(frames: () => Frame[]): Promise<Frame> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const frame of frames()) {
      if (await frame.locator('.page.drawn canvas').count().catch(() => 0)) {
        return frame;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('no drawn PDF page in any webview frame');
}

describe('reading a report in the editor', () => {
  it('"Lab Data: Preview Report…" shows the PDF in a tab: a canvas with drawn pixels and a page count', async () => {
    const { page, screenshotsDir } = uiContext;
    const lab = new MockLabServer();
    const baseUrl = await lab.start();
    try {
      await signInFromPalette(page, baseUrl, 'demo-full-access');
      const report = lab.reportsFor('demo-full-access').find((candidate) => candidate.download_available)!;
      await page.locator(`.monaco-list-row[aria-label^="Report ${report.report_id}"]`).waitFor({ state: 'visible', timeout: 30_000 });
      await runFromPalette(page, 'Lab Data: Preview Report…');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible', timeout: 15_000 });
      await input.fill(report.report_id);
      await page.keyboard.press('Enter');
      await page.locator('.tab', { hasText: `${report.report_id} (preview)` }).first().waitFor({ state: 'visible', timeout: 30_000 });
      const frame = await canvasFrame(() => page.frames());
      // Runs in the webview; the test compiles without the DOM library, hence the small shape.
      type Canvas = { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
      const pixels = await frame.locator('.page.drawn canvas').first().evaluate((element) => {
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
      assert.ok(pixels.width > 300 && pixels.height > 300, `a page-sized canvas (${pixels.width}×${pixels.height})`);
      assert.ok(pixels.dark > 500, `the page has text drawn on it (${pixels.dark} dark pixels)`);
      assert.equal(await frame.locator('#pageCount').innerText(), '1');
      assert.ok(await frame.locator('#save').isVisible(), 'a report preview offers "Save to Workspace"');
      const file = path.join(screenshotsDir, 'pdf-preview.png');
      await page.screenshot({ path: file });
      console.log(`      screenshot: ${path.relative(process.cwd(), file)} (${pixels.dark} dark pixels on page 1)`);
      // A reader clicks into the page; the palette must still be reachable from there.
      await frame.locator('.page.drawn').first().click();
      await runFromPalette(page, 'Lab Data: Sign Out');
    } finally {
      await lab.stop();
    }
  });
});
