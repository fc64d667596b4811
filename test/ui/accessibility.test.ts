import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import { describeFindings, frameWith, seriousFindings, type AxeFinding } from './axe';
import { runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import { closeTabs, showLabData, waitUntil, webviewsWear, workspaceSettings } from './workbench';

/** The themes the webviews are checked in, and the class VS Code puts on the workbench for each. */
const THEMES = [
  { name: 'Default Dark Modern', file: 'dark', workbenchClass: 'vs-dark', webview: 'vscode-dark' },
  { name: 'Default Light Modern', file: 'light', workbenchClass: 'vs', webview: 'vscode-light' },
  {
    name: 'Default High Contrast',
    file: 'high-contrast',
    workbenchClass: 'hc-black',
    webview: 'vscode-high-contrast',
  },
] as const;

/** Switches the colour theme and waits until the workbench wears it. */
async function useTheme(page: Page, theme: (typeof THEMES)[number]): Promise<void> {
  await workspaceSettings(uiContext.workspace, { 'workbench.colorTheme': theme.name });
  await page
    .locator(`.monaco-workbench.${theme.workbenchClass}`)
    .waitFor({ state: 'attached', timeout: 15_000 });
  // The webviews take the theme's variables a moment after the workbench.
  await webviewsWear(page, theme.webview);
}

/** Previews `reportId` from the palette and gives its frame once page 1 is drawn. */
async function preview(page: Page, reportId: string): Promise<Frame> {
  await runFromPalette(page, 'Lab Data: Preview Report…');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(reportId);
  await page.keyboard.press('Enter');
  return frameWith(page, '#viewer .page.drawn .textLayer');
}

/** Opens the overview from the palette and gives its frame once its charts are drawn. */
async function overview(page: Page): Promise<Frame> {
  await runFromPalette(page, 'Lab Data: Show Overview');
  const frame = await frameWith(page, 'main#overview section.chart canvas');
  // Every chart drawn (without animation: drawn when its canvas is there).
  await waitUntil(
    async () => (await frame.locator('section.chart canvas').count()) === 3,
    'the overview to draw its three charts',
  );
  return frame;
}

describe('accessibility of the webviews (axe-core, in three themes)', () => {
  before(async () => {
    const { page, workbenchUrl } = uiContext;
    if (page.url() !== workbenchUrl) {
      await page.goto(workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    await showLabData(page);
  });

  it('the PDF preview and the overview have no serious or critical axe-core findings in the dark, light and high-contrast themes', async function () {
    // Many steps in a shared, busy workbench (about 75 s on an idle machine).
    this.timeout(300_000);
    const { page, screenshotsDir } = uiContext;
    const lab = new MockLabServer();
    const found: string[] = [];
    try {
      await signInFromPalette(page, await lab.start(), 'demo-full-access');
      await page
        .locator('.monaco-list-row[aria-label^="Report RPT-"]')
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      const report = lab
        .reportsFor('demo-full-access')
        .find((candidate) => candidate.download_available)!;
      for (const theme of THEMES) {
        await closeTabs(page, /\(preview\)|Overview/);
        // Away from the closed tab, whose tooltip would cover the preview's toolbar in the screenshot.
        await page.mouse.move(1, 400);
        await useTheme(page, theme);
        const previewFrame = await preview(page, report.report_id);
        const inPreview: AxeFinding[] = await seriousFindings(previewFrame);
        // What a keyboard user sees: the find box focused (its ring) and the words found highlighted.
        await previewFrame.locator('#find').pressSequentially('received', { delay: 20 });
        await previewFrame
          .locator('#findCount', { hasText: /of/ })
          .waitFor({ state: 'visible', timeout: 15_000 });
        const file = path.join(screenshotsDir, `pdf-preview-${theme.file}.png`);
        await page.screenshot({ path: file });
        console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);
        // Found words highlighted, and the focus ring drawn: checked again with both on screen.
        const highlighted = await seriousFindings(previewFrame);
        inPreview.push(
          ...highlighted.filter((finding) => !inPreview.some((seen) => seen.id === finding.id)),
        );
        await closeTabs(page, /\(preview\)/);
        const overviewFrame = await overview(page);
        const inOverview = await seriousFindings(overviewFrame);
        for (const [where, findings] of [
          ['PDF preview', inPreview],
          ['overview', inOverview],
        ] as const) {
          const text = describeFindings(findings);
          console.log(
            `      axe-core, ${where}, ${theme.name}: ${findings.length} serious or critical${text ? `\n${text.replace(/^/gm, '        ')}` : ''}`,
          );
          if (findings.length > 0) {
            found.push(`${where}, ${theme.name}:\n${text}`);
          }
        }
      }
      assert.deepEqual(found, [], `axe-core findings:\n${found.join('\n')}`);
    } finally {
      await workspaceSettings(uiContext.workspace, undefined);
      await closeTabs(page, /\(preview\)|Overview/).catch(() => undefined);
      await runFromPalette(page, 'Lab Data: Sign Out').catch(() => undefined);
      await lab.stop();
    }
  });
});
