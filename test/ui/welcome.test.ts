import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { uiContext } from './uiContext';

describe('what a person sees', () => {
  it('the "Lab Data" activity-bar item opens the container, whose welcome view offers "Sign In" when signed out', async () => {
    const { page, workbenchUrl, screenshotsDir } = uiContext;
    await page.goto(workbenchUrl, { waitUntil: 'domcontentloaded' });
    const item = page.locator('.activitybar .action-item a[aria-label^="Lab Data"], .activitybar .action-item[aria-label^="Lab Data"]').first();
    await item.waitFor({ state: 'visible', timeout: 60_000 });
    await item.click();
    const pane = page.locator('.pane-header', { hasText: 'Reports' }).first();
    await pane.waitFor({ state: 'visible', timeout: 30_000 });
    const welcome = page.locator('.welcome-view-content').first();
    await welcome.waitFor({ state: 'visible', timeout: 30_000 });
    const text = await welcome.innerText();
    assert.match(text, /Connect to your lab/);
    const button = welcome.locator('a.monaco-button, .monaco-button', { hasText: 'Sign In' }).first();
    assert.ok(await button.isVisible(), 'a "Sign In" button is shown');
    const file = path.join(screenshotsDir, 'welcome-signed-out.png');
    await page.screenshot({ path: file });
    console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);
  });
});
