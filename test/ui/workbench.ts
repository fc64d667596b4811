import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { labDataLogFilesIn } from '../support/logFiles';
import { runFromPalette } from './palette';
import { uiContext } from './uiContext';

/**
 * What a person points at in the workbench, as DOM locators: a view's pane and its toolbar, rows
 * and their inline actions, context menus, quick inputs, dialogs, notifications, the status bar.
 */

/** Run when a wait times out, before its error is thrown (so before any clean-up the test does). */
let onTimeout: ((what: string) => Promise<void>) | undefined;

/** The UI runner's hook for a wait that times out: it keeps what the screen showed at that moment. */
export function whenAWaitTimesOut(hook: (what: string) => Promise<void>): void {
  onTimeout = hook;
}

export async function waitUntil<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const { value, lastError } = await poll(check, timeoutMs);
  if (value !== undefined) {
    return value;
  }
  await onTimeout?.(what).catch(() => undefined);
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}

/**
 * Waits up to `timeoutMs` for something a test goes on without (a tooltip fading): whether it
 * came. Unlike {@link waitUntil}, its timing out is no failure, so it keeps no screenshot.
 */
export async function waitBriefly(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
): Promise<boolean> {
  return (await poll(async () => (await check()) || undefined, timeoutMs)).value !== undefined;
}

async function poll<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
): Promise<{ value?: T; lastError?: unknown }> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) {
        return { value };
      }
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { lastError };
}

/** The pane of a view of the Lab Data container ("Reports", "Clients", "Samples"). */
export function pane(page: Page, title: string): Locator {
  // The header's title alone: the view's description ("newest first") follows it in the header's text.
  return page
    .locator('.pane', {
      has: page.locator('.pane-header .title', { hasText: new RegExp(`^\\s*${title}\\s*$`, 'i') }),
    })
    .first();
}

/** Opens the Lab Data container unless it is already showing (a click on its activity-bar item would close it). */
export async function showLabData(page: Page): Promise<void> {
  const header = pane(page, 'Reports').locator('.pane-header');
  if (!(await header.isVisible().catch(() => false))) {
    await page
      .locator('.activitybar .action-item a[aria-label^="Lab Data"]')
      .first()
      .click({ timeout: 60_000 });
  }
  await header.waitFor({ state: 'visible', timeout: 30_000 });
}

/** Expands a view's pane unless it is expanded (a click on an expanded header would collapse it). */
export async function expandPane(page: Page, title: string): Promise<void> {
  const header = pane(page, title).locator('.pane-header');
  if ((await header.getAttribute('aria-expanded')) !== 'true') {
    await header.click();
  }
  await pane(page, title)
    .locator('.monaco-list-row')
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
}

/** Points the mouse at the middle of a view's list, where the wheel scrolls it. */
async function pointAtList(page: Page, title: string): Promise<void> {
  const box = await pane(page, title).locator('.pane-body').boundingBox();
  if (!box) {
    throw new Error(`the ${title} view is not on screen`);
  }
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
}

/** Scrolls a view's list with the mouse wheel until `target` is on screen (from the top, then down). */
export async function scrollTo(page: Page, title: string, target: Locator): Promise<Locator> {
  if (await target.isVisible().catch(() => false)) {
    await pointAwayFromLists(page);
    return target;
  }
  await pointAtList(page, title);
  for (let i = 0; i < 30; i++) {
    await page.mouse.wheel(0, -3000);
  }
  await waitUntil(
    async () => {
      if (await target.isVisible().catch(() => false)) {
        return true;
      }
      await page.mouse.wheel(0, 300);
      await page.waitForTimeout(50);
      return false;
    },
    `a row of ${title} to scroll into view`,
    30_000,
  );
  await target.scrollIntoViewIfNeeded();
  await pointAwayFromLists(page);
  return target;
}

/**
 * Moves the mouse to the editor area and waits (briefly) for a row's tooltip to go: the wheel left
 * the pointer over a row, and its tooltip may cover the row a test clicks next (seen in CI: "Load
 * more…" under a report's tooltip).
 */
export async function pointAwayFromLists(page: Page): Promise<void> {
  const editor = await page.locator('.part.editor').boundingBox();
  await page.mouse.move(
    editor ? editor.x + editor.width / 2 : 700,
    editor ? editor.y + editor.height - 40 : 700,
  );
  const hovers = page.locator('.context-view .monaco-hover, .workbench-hover');
  await waitBriefly(async () => (await hovers.filter({ visible: true }).count()) === 0, 3_000);
}

/** Scrolls a view's list until its "Load more…" row is on screen, and gives that row. */
export function scrollToLoadMore(page: Page, title: string): Promise<Locator> {
  return scrollTo(
    page,
    title,
    pane(page, title).locator('.monaco-list-row', { hasText: 'Load more' }).first(),
  );
}

/** Scrolls a view's list back to its top. */
export async function scrollToTop(page: Page, title: string): Promise<void> {
  await pointAtList(page, title);
  for (let i = 0; i < 30; i++) {
    await page.mouse.wheel(0, -3000);
  }
  // At the top when the list's first row is on screen.
  await pane(page, title)
    .locator('.monaco-list-row[data-index="0"]')
    .first()
    .waitFor({ state: 'visible', timeout: 10_000 });
}

/** Clicks a button of a view's title bar, hovering its header first as a person's pointer does. */
export async function clickToolbar(page: Page, view: string, label: string): Promise<void> {
  const header = pane(page, view).locator('.pane-header');
  await header.hover();
  await header
    .locator(`.actions .action-label[aria-label^="${label}"]`)
    .first()
    .click({ timeout: 10_000 });
}

/** Runs an entry of a view's "More Actions..." menu. */
export async function clickMoreAction(page: Page, view: string, label: string): Promise<void> {
  const header = pane(page, view).locator('.pane-header');
  await header.hover();
  await header
    .locator('.actions .action-label[aria-label^="More Actions"]')
    .first()
    .click({ timeout: 10_000 });
  // As a person does with the workbench's menus: point at the entry, then Enter (a click can land before the menu listens).
  await menuEntry(page, label).hover({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

/** An entry of the open context or overflow menu. */
export function menuEntry(page: Page, label: string): Locator {
  // The menu lives in a context view at the page's top level.
  return page
    .locator('.monaco-menu .action-item:not(.disabled) .action-label', { hasText: label })
    .first();
}

/** A row of a tree whose accessibility label starts with `label` (reports: "Report RPT-…"). */
export function row(page: Page, label: string): Locator {
  return page.locator(`.monaco-list-row[aria-label^="${label}"]`).first();
}

/** Waits until a row's accessible label says `text` (a row is drawn again when what it says changes). */
export async function rowSays(target: Locator, text: RegExp, timeoutMs = 30_000): Promise<string> {
  return waitUntil(
    async () => {
      const label =
        (await target.getAttribute('aria-label', { timeout: 1_000 }).catch(() => null)) ?? '';
      return text.test(label) ? label : undefined;
    },
    `a row whose label says ${text}`,
    timeoutMs,
  );
}

/** Clicks an inline action of a row, hovering the row first. */
export async function clickRowAction(target: Locator, label: string): Promise<void> {
  await target.hover();
  await target
    .locator(`.actions .action-label[aria-label^="${label}"]`)
    .first()
    .click({ timeout: 10_000 });
}

export const quickInput = {
  title: (page: Page): Locator => page.locator('.quick-input-widget .quick-input-title'),
  box: (page: Page): Locator => page.locator('.quick-input-widget .quick-input-box input'),
  rows: (page: Page): Locator =>
    page.locator('.quick-input-widget .quick-input-list .monaco-list-row'),
  /** The line under the box: a prompt, or a validation message. */
  message: (page: Page): Locator => page.locator('.quick-input-widget .quick-input-message'),
  async waitForTitle(page: Page, text: string | RegExp): Promise<string> {
    const title = page.locator('.quick-input-widget .quick-input-title', { hasText: text }).first();
    await title.waitFor({ state: 'visible', timeout: 15_000 });
    return title.innerText();
  },
  async close(page: Page): Promise<void> {
    await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  },
};

/** Closes every editor tab whose label holds `text` with the tab's own close button (other editors, dirty ones included, stay). */
export async function closeTabs(page: Page, text: string | RegExp): Promise<void> {
  const tabs = page.locator('.tabs-container .tab:not(.dirty)', { hasText: text });
  for (let i = 0; i < 20 && (await tabs.count()) > 0; i++) {
    const before = await tabs.count();
    const tab = tabs.first();
    await tab.hover();
    await tab.locator('.tab-actions .action-label').first().click({ timeout: 5_000 });
    await waitUntil(async () => (await tabs.count()) < before, `a ${String(text)} tab to close`);
  }
}

/** The modal dialog box, if one is up. */
export function dialog(page: Page): Locator {
  return page.locator('.monaco-dialog-box').first();
}

/** Its buttons' labels (in the platform's order), and the default one, which Enter presses. */
export async function dialogButtons(page: Page): Promise<{ labels: string[]; primary: string }> {
  const labels = (await dialog(page).locator('.dialog-buttons .monaco-button').allInnerTexts()).map(
    (text) => text.trim(),
  );
  const primary = (
    await dialog(page).locator('.dialog-buttons .monaco-button:not(.secondary)').first().innerText()
  ).trim();
  return { labels, primary };
}

/** Notification toasts on screen, as their messages. */
export async function toasts(page: Page): Promise<string[]> {
  return (
    await page
      .locator('.notifications-toasts .notification-toast .notification-list-item-message')
      .allInnerTexts()
  ).map((text) => text.trim());
}

/** Waits for a toast matching `text` and gives its message. */
export async function toast(page: Page, text: RegExp, timeoutMs = 30_000): Promise<string> {
  try {
    return await waitUntil(
      async () => (await toasts(page)).find((message) => text.test(message)),
      `a notification matching ${text}`,
      timeoutMs,
    );
  } catch (error) {
    const center = await page
      .locator('.notifications-center .notification-list-item-message')
      .allInnerTexts()
      .catch(() => []);
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}; toasts: ${JSON.stringify(await toasts(page))}; notification center: ${JSON.stringify(center)}`,
      { cause: error },
    );
  }
}

/** Clicks a button of the toast matching `text`. */
export async function clickToastButton(page: Page, text: RegExp, button: string): Promise<void> {
  const item = page
    .locator('.notifications-toasts .notification-toast', {
      has: page.locator('.notification-list-item-message', { hasText: text }),
    })
    .first();
  await item.hover();
  await item.locator('.monaco-button', { hasText: button }).first().click({ timeout: 10_000 });
}

/** Dismisses every toast (the bell's "Clear All Notifications"), so later checks see only new ones. */
export async function clearToasts(page: Page): Promise<void> {
  for (const close of await page
    .locator('.notifications-toasts .notification-toast .codicon-notifications-clear')
    .all()) {
    await close.click({ force: true }).catch(() => undefined);
  }
  await page.keyboard.press('Escape');
}

/** Whether `target` is (or becomes, within `timeoutMs`) visible; false rather than a timeout error. */
export function shows(target: Locator, timeoutMs: number): Promise<boolean> {
  return target.waitFor({ state: 'visible', timeout: timeoutMs }).then(
    () => true,
    () => false,
  );
}

/** Presses `button` of VS Code's modal dialog when one asks within `timeoutMs`; nothing otherwise. */
export async function answerIfAsked(page: Page, button: string, timeoutMs = 5_000): Promise<void> {
  const choice = page.locator('.monaco-dialog-box .monaco-button', { hasText: button }).first();
  if (await shows(choice, timeoutMs)) {
    await choice.click();
  }
}

/** Confirms "Sign Out" when VS Code asks (some hosts ask before signing out of an account). */
export function confirmSignOut(page: Page): Promise<void> {
  return answerIfAsked(page, 'Sign Out');
}

/** The Lab Data status bar item. */
export function statusItem(page: Page): Locator {
  return page.locator('.statusbar-item[id$="labData.connection"]').first();
}

/** The lines of the "Lab Data" log written so far in this code-server's logs. */
export async function labDataLog(userDataDir: string): Promise<string[]> {
  const files = await labDataLogFilesIn(userDataDir);
  return (await Promise.all(files.map((file) => fs.readFile(file, 'utf8')))).flatMap((text) =>
    text.split('\n'),
  );
}

let settingsRead = 0;

/**
 * Writes the workspace's `.vscode/settings.json` (undefined: none of ours left in it) and waits for
 * VS Code to read it: the file also sets `window.title` to a new marker, which the workbench puts in
 * the page's title in the same step as it applies the rest of the file.
 */
export async function workspaceSettings(
  workspace: string,
  settings: Record<string, unknown> | undefined,
): Promise<void> {
  const file = path.join(workspace, '.vscode', 'settings.json');
  const marker = `Lab Data UI settings ${++settingsRead}`;
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify({ ...settings, 'window.title': marker }, null, 2));
  const shown = URL.canParse(uiContext.page.url()) ? new URL(uiContext.page.url()).host : '';
  if (shown !== new URL(uiContext.workbenchUrl).host) {
    return; // The page shows no workbench of this code-server yet: the one it loads reads the file.
  }
  await waitUntil(
    async () => (await uiContext.page.title()).includes(marker),
    'VS Code to read the workspace settings',
  );
}

/**
 * Waits until the screen stands still: every finite CSS animation and transition of the page (or a
 * webview's frame) has finished, a picker's or a notification's fade-in among them. Endless ones (a
 * progress bar, the cursor's blink) are not waited for.
 */
export async function animationsDone(target: Page | Frame): Promise<void> {
  await target.evaluate(async () => {
    const animations = (
      globalThis as unknown as {
        document: {
          getAnimations(): Array<{
            finished: Promise<unknown>;
            effect: { getComputedTiming(): { iterations?: number } } | null;
          }>;
        };
      }
    ).document.getAnimations();
    await Promise.all(
      animations
        .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
        .map((animation) => animation.finished.catch(() => undefined)),
    );
  });
}

/** Waits until the keyboard focus is in the workbench itself, not inside a webview's frame. */
export async function focusLeftFrames(page: Page): Promise<void> {
  await waitUntil(
    () =>
      page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { tagName: string } | null } })
            .document.activeElement?.tagName !== 'IFRAME',
      ),
    'the focus to leave the webviews',
  );
}

/** The class VS Code puts on a webview's body for each kind of theme. */
export type WebviewTheme = 'vscode-light' | 'vscode-dark' | 'vscode-high-contrast';

/** Waits until every open webview frame of the page wears `theme` (VS Code sets it a moment after the workbench); none open is none to wait for. */
export async function webviewsWear(page: Page, theme: WebviewTheme): Promise<void> {
  await waitUntil(async () => {
    const classes = await Promise.all(
      page
        .frames()
        .map((frame) =>
          frame
            .evaluate(
              () =>
                (globalThis as unknown as { document: { body?: { className: string } } }).document
                  .body?.className ?? '',
            )
            .catch(() => ''),
        ),
    );
    const webviews = classes.filter((name) => /\bvscode-(light|dark|high-contrast)\b/.test(name));
    return webviews.every((name) => name.split(/\s+/).includes(theme));
  }, `the webviews to wear ${theme}`);
}

/** Replaces the user's settings as a person does: Open User Settings (JSON), the new text, save. */
export async function editUserSettings(page: Page, text: string): Promise<void> {
  await runFromPalette(page, 'Preferences: Open User Settings (JSON)');
  const editor = page
    .locator('.editor-instance .monaco-editor', { has: page.locator('.view-lines') })
    .first();
  await editor.waitFor({ state: 'visible', timeout: 15_000 });
  await editor.locator('.view-lines .view-line').first().waitFor({ state: 'visible' });
  await editor.locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  await page.keyboard.press('ControlOrMeta+S');
  await waitUntil(
    async () =>
      (await fs.readFile(path.join(uiContext.userDataDir, 'User', 'settings.json'), 'utf8'))
        .replace(/\s+/g, '')
        .includes(text.replace(/\s+/g, '')),
    'the user settings to be saved',
  );
  // VS Code 1.139 opens it in a modal editor over the workbench: Escape closes that; 1.100 has a tab.
  const modal = page.locator('.monaco-modal-editor-block');
  if (await modal.isVisible().catch(() => false)) {
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
  }
  await closeTabs(page, /settings\.json|Settings/);
}
