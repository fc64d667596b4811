import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** Runs a command by its title from the command palette (F1). */
export async function runFromPalette(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first().waitFor({ state: 'visible', timeout: 15_000 });
  await page.keyboard.press('Enter');
}

/** Signs in as a person does: "Lab Data: Sign In", the address, then the token in a password box. */
export async function signInFromPalette(page: Page, baseUrl: string, token: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await runFromPalette(page, 'Lab Data: Sign In');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Sign In (1/2)' }).waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(baseUrl);
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Sign In (2/2)' }).waitFor({ state: 'visible', timeout: 15_000 });
  assert.equal(await input.getAttribute('type'), 'password', 'the token is typed into a password box');
  await input.fill(token);
  await page.keyboard.press('Enter');
}
