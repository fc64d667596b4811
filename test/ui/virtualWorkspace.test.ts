import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import { runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import { clearToasts, confirmSignOut, pane, showLabData, toast, waitUntil } from './workbench';

/** The webview frame whose preview drew its first page. */
async function drawnPreview(frames: () => Frame[]): Promise<Frame> {
  return waitUntil(
    async () => {
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
      return undefined;
    },
    'a drawn PDF page in a webview frame',
    30_000,
  );
}

/**
 * A virtual workspace: the window's folder is `memfs:/demo`, on no disk, served by the test fixture
 * test/fixtures/memfs-extension (installed beside Lab Data by the runner). Lab Data declares
 * `virtualWorkspaces: limited`: a person browses the labs and previews a report there, and Save
 * says in one warning why it cannot save, rather than an error.
 */
describe('a virtual workspace (memfs:/demo): browse and preview, Save says why it cannot', () => {
  const lab = new MockLabServer();

  after(async () => {
    const { page, workbenchUrl } = uiContext;
    await runFromPalette(page, 'Lab Data: Sign Out').catch(() => undefined);
    await confirmSignOut(page).catch(() => undefined);
    await lab.stop();
    // The suites after this one open their own workspace, the folder on disk.
    await page.goto(workbenchUrl, { waitUntil: 'domcontentloaded' });
  });

  it('shows the virtual folder, lists the lab’s reports, says Saved Reports needs a folder on disk, previews one, and Save refuses in one warning', async () => {
    const { page, screenshotsDir, virtualWorkbenchUrl } = uiContext;
    assert.ok(virtualWorkbenchUrl, 'the runner gives the virtual workspace’s address');
    await page.goto(virtualWorkbenchUrl, { waitUntil: 'domcontentloaded' });
    // The fixture's file, read through the memfs provider: the workspace is the virtual one.
    await runFromPalette(page, 'View: Show Explorer');
    await page
      .locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' })
      .waitFor({ state: 'visible', timeout: 60_000 });

    const report = lab.reportsFor('demo-full-access').find((item) => item.download_available)!;
    await signInFromPalette(page, await lab.start(), 'demo-full-access');
    await showLabData(page);
    // Its welcome, expanded as the view opens (expandPane would wait for a row, and there is none).
    await pane(page, 'Saved Reports')
      .getByText('This workspace is virtual: its folders are on no disk', { exact: false })
      .waitFor({ state: 'visible', timeout: 30_000 });
    await page
      .locator(`.monaco-list-row[aria-label^="Report ${report.report_id}"]`)
      .waitFor({ state: 'visible', timeout: 30_000 });

    await runFromPalette(page, 'Lab Data: Preview Report…');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill(report.report_id);
    await page.keyboard.press('Enter');
    await page
      .locator('.tab', { hasText: `${report.report_id} (preview)` })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    const frame = await drawnPreview(() => page.frames());
    await page.screenshot({ path: path.join(screenshotsDir, 'virtual-workspace-preview.png') });

    await clearToasts(page);
    // The preview's own "Save to Workspace", as a person would press it.
    await frame.locator('#save').click();
    const sentence = await toast(
      page,
      /^Saving reports needs a folder on this machine’s disk, and memfs:\/demo is virtual/,
    );
    assert.equal(
      sentence,
      'Saving reports needs a folder on this machine’s disk, and memfs:/demo is virtual: browse and preview here, or open a folder on disk to save.',
    );
    const shown = page.locator('.notifications-toasts .notification-toast');
    assert.equal(await shown.count(), 1, 'one notification, the warning');
    assert.equal(await shown.locator('.codicon-warning').count(), 1, 'shown as a warning');
    assert.equal(await shown.locator('.codicon-error').count(), 0, 'no error');
    const file = path.join(screenshotsDir, 'virtual-workspace-save-refused.png');
    await page.screenshot({ path: file });
    console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);
  });
});
