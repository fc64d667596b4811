import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** What the page's script sees; the test compiles without the DOM library, hence the small shape. */
type Focus = {
  document: {
    activeElement: { tagName: string; className?: unknown; blur(): void } | null;
    hasFocus(): boolean;
  };
};

/** Where the focus is, frame by frame: what a failed key press is explained by. */
export async function focusedElements(page: Page): Promise<string> {
  const seen: string[] = [];
  for (const frame of page.frames()) {
    const focus = await frame
      .evaluate(() => {
        const { document } = globalThis as unknown as Focus;
        const active = document.activeElement;
        return `${document.hasFocus() ? 'focused' : 'unfocused'} ${active ? `${active.tagName}.${String(active.className)}` : 'none'}`;
      })
      .catch(() => 'gone');
    seen.push(`${frame.url().slice(0, 60)}: ${focus}`);
  }
  return seen.join('; ');
}

/**
 * Gives keyboard focus back to the workbench. While a webview (a report preview, the overview) holds
 * focus, keys go to its frames and F1 never reaches VS Code; a person would click elsewhere first.
 */
export async function focusWorkbench(page: Page): Promise<void> {
  // The page itself first: another page of the browser (a second workbench) may have had it.
  await page.bringToFront();
  for (const frame of page.frames()) {
    await frame
      .evaluate(() => {
        const active = (globalThis as unknown as Focus).document.activeElement;
        if (active && active.tagName !== 'BODY') {
          active.blur();
        }
      })
      .catch(() => undefined); // a frame going away while we look
  }
}

/** Opens the command palette (F1), giving focus back to the workbench first when a webview holds it. */
async function openPalette(page: Page): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // A quick input still closing would take the keys meant for the palette.
  for (let i = 0; i < 3 && (await input.isVisible().catch(() => false)); i++) {
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden', timeout: 1_000 }).catch(() => undefined);
  }
  for (let attempt = 1; ; attempt++) {
    await focusWorkbench(page);
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ state: 'visible', timeout: 5_000 });
      return;
    } catch (error) {
      if (attempt === 3) {
        throw error;
      }
      console.log(`      (F1 did not open the command palette; attempt ${attempt + 1})`);
    }
  }
}

/** Runs a command by its title from the command palette (F1). */
export async function runFromPalette(page: Page, title: string): Promise<void> {
  await openPalette(page);
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.fill(`>${title}`);
  await page
    .locator('.quick-input-widget .monaco-list-row', { hasText: title })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  await page.keyboard.press('Enter');
}

/** Opens a workspace file by its name with Quick Open (the palette without its ">"). */
export async function openFileFromPalette(page: Page, name: string): Promise<void> {
  await openPalette(page);
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.fill(name);
  await page
    .locator('.quick-input-widget .monaco-list-row', { hasText: name })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  await page.keyboard.press('Enter');
}

/** Signs in as a person does: "Lab Data: Sign In", the address, then the token in a password box. */
export async function signInFromPalette(page: Page, baseUrl: string, token: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await runFromPalette(page, 'Lab Data: Sign In');
  await page
    .locator('.quick-input-widget .quick-input-title', { hasText: 'Sign In (1/2)' })
    .waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(baseUrl);
  await page.keyboard.press('Enter');
  await page
    .locator('.quick-input-widget .quick-input-title', { hasText: 'Sign In (2/2)' })
    .waitFor({ state: 'visible', timeout: 15_000 });
  assert.equal(
    await input.getAttribute('type'),
    'password',
    'the token is typed into a password box',
  );
  await input.fill(token);
  await page.keyboard.press('Enter');
}
