import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import { frameWith } from './axe';
import { uiContext } from './uiContext';
import {
  closeTabs,
  confirmSignOut,
  pane,
  quickInput,
  showLabData,
  shows,
  waitUntil,
  workspaceSettings,
} from './workbench';

/** What the page's scripts see of focus; the test compiles without the DOM library, hence the shape. */
type Focused = {
  document: {
    activeElement: {
      id: string;
      tagName: string;
      closest(selector: string): unknown;
      getAttribute(name: string): string | null;
    } | null;
    hasFocus(): boolean;
  };
};

/**
 * Whether the element with keyboard focus in the workbench (top frame) matches `selector`. Only
 * reads the page: every step below is taken with the keyboard.
 */
function workbenchFocusIn(page: Page, selector: string): Promise<boolean> {
  return page.evaluate(
    (within) =>
      Boolean((globalThis as unknown as Focused).document.activeElement?.closest(within as string)),
    selector,
  );
}

/** The workbench's focused element, as a tag and its classes (for a failure's message). */
function workbenchFocusDescribed(page: Page): Promise<string> {
  return page.evaluate(() => {
    const active = (globalThis as unknown as Focused).document.activeElement;
    return active ? `${active.tagName}.${active.getAttribute('class') ?? ''}` : 'none';
  });
}

/** The id of the element with focus inside a webview frame, if that frame has focus. */
function webviewFocus(frame: Frame): Promise<string | undefined> {
  return frame.evaluate(() => {
    const { document } = globalThis as unknown as Focused;
    return document.hasFocus() ? (document.activeElement?.id ?? '') : undefined;
  });
}

/** Runs a command by its title from the command palette, with the keyboard alone. */
async function paletteCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  await quickInput.box(page).waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type(title);
  await page
    .locator('.quick-input-widget .monaco-list-row.focused', { hasText: title })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  await page.keyboard.press('Enter');
}

/** Waits for a quick input step whose title matches `title`, then types `text` and presses Enter. */
async function answer(page: Page, title: string | RegExp, text: string): Promise<void> {
  await quickInput.waitForTitle(page, title);
  await page.keyboard.type(text);
  // Enter once the box holds every key typed (the picker filters as it receives them).
  const box = page.locator('.quick-input-widget .quick-input-box input').first();
  await waitUntil(async () => (await box.inputValue()).includes(text), `the box to hold "${text}"`);
  await page.keyboard.press('Enter');
}

describe('the everyday tasks with the keyboard alone', () => {
  const folder = 'keyboard-reports';

  before(async () => {
    const { page, workbenchUrl } = uiContext;
    if (page.url() !== workbenchUrl) {
      await page.goto(workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    await showLabData(page);
  });

  it('open the Reports view, filter it, preview a report, find a phrase in it and save it, without a mouse', async function () {
    // Many steps in a shared, busy workbench (about 75 s on an idle machine).
    this.timeout(300_000);
    const { page, workspace } = uiContext;
    const lab = new MockLabServer();
    const saved = path.join(workspace, folder);
    rmSync(saved, { recursive: true, force: true });
    await workspaceSettings(workspace, { 'labData.downloadFolder': folder });
    // From the sign-in on, no click and no pointer: every step is a key press, each checked where its focus went.
    try {
      const baseUrl = await lab.start();
      await closeTabs(page, /\(preview\)|RPT-/);
      const client = lab.data.clients[0]!;
      const report = lab
        .reportsFor('demo-full-access')
        .find(
          (candidate) =>
            candidate.download_available &&
            candidate.client_id === client.client_id &&
            candidate.report_id !== lab.multiPageReportId,
        )!;

      // Sign in: the palette, the address, the token.
      await page.keyboard.press('Escape');
      await paletteCommand(page, 'Lab Data: Sign In');
      await answer(page, 'Sign In (1/2)', baseUrl);
      await answer(page, 'Sign In (2/2)', 'demo-full-access');
      await pane(page, 'Reports')
        .locator('.monaco-list-row[aria-label^="Report RPT-"]')
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });

      // 1. Open the view: its "Focus on Reports View" command puts the keyboard in its list.
      await paletteCommand(page, 'Lab Data: Focus on Reports View');
      await waitUntil(
        () => workbenchFocusIn(page, '.pane-body .monaco-list'),
        'the keyboard in the Reports list',
      );

      // 2. Filter it: Filter Reports, tick "Client" with Space, then the client by name.
      await paletteCommand(page, 'Lab Data: Filter Reports');
      await quickInput.waitForTitle(page, /^Lab Data: Filter Reports — \S/);
      await waitUntil(
        async () => (await quickInput.rows(page).count()) >= 2,
        'the criteria to choose from',
      );
      const criteria = await quickInput.rows(page).allInnerTexts();
      const clientIndex = criteria.findIndex((text) => /^Client/.test(text.trim()));
      assert.ok(clientIndex >= 0, `"Client" is a criterion (${criteria.join(' | ')})`);
      // The picker opens on its first criterion; the arrows move down to "Client".
      const activeCriterion = (): Promise<string> =>
        page
          .locator('.quick-input-widget .quick-input-list .monaco-list-row.focused')
          .first()
          .innerText()
          .catch(() => '');
      await waitUntil(
        async () => /^Published since/.test(await activeCriterion()),
        'the first criterion highlighted',
      );
      for (let i = 0; i < clientIndex; i++) {
        await page.keyboard.press('ArrowDown');
      }
      await waitUntil(async () => /^Client/.test(await activeCriterion()), '"Client" highlighted');
      await page.keyboard.press('Space');
      const clientRow = quickInput.rows(page).nth(clientIndex);
      await waitUntil(
        async () => (await clientRow.getAttribute('aria-checked')) === 'true',
        '"Client" ticked with Space',
      );
      await page.keyboard.press('Enter');
      await answer(page, /Client/, client.name);
      await quickInput.box(page).waitFor({ state: 'hidden', timeout: 15_000 });
      const target = pane(page, 'Reports').locator(
        `.monaco-list-row[aria-label^="Report ${report.report_id}"]`,
      );
      await target.waitFor({ state: 'visible', timeout: 30_000 });
      await waitUntil(
        async () =>
          (
            await pane(page, 'Reports')
              .locator('.monaco-list-row[aria-label^="Report RPT-"]')
              .allInnerTexts()
          ).length > 0 && (await pane(page, 'Reports').innerText()).includes(client.name),
        'the Reports view filtered by the client',
      );

      // The list has the keyboard, on its first row (the filter's), once the filter is set.
      await waitUntil(
        async () =>
          (await workbenchFocusIn(page, '.pane-body .monaco-list')) &&
          (
            (await pane(page, 'Reports')
              .locator('.monaco-list-row.focused')
              .first()
              .getAttribute('aria-label')
              .catch(() => null)) ?? ''
          ).startsWith('Filtered by'),
        'the filter row focused',
      );

      // 3. Open a preview: back in the list, arrows to the report's row, Enter.
      await paletteCommand(page, 'Lab Data: Focus on Reports View');
      await page.keyboard.press('Home');
      let reached = false;
      for (let i = 0; i < 40 && !reached; i++) {
        reached = await target
          .evaluate((element) =>
            (
              element as unknown as { classList: { contains(name: string): boolean } }
            ).classList.contains('focused'),
          )
          .catch(() => false);
        if (!reached) {
          // The next row once the focus has moved to it (the list's last row moves it no further).
          const focused = pane(page, 'Reports').locator('.monaco-list-row.focused').first();
          const before = await focused.getAttribute('data-index').catch(() => null);
          await page.keyboard.press('ArrowDown');
          await waitUntil(
            async () => (await focused.getAttribute('data-index').catch(() => null)) !== before,
            'the focus to move down a row',
            5_000,
          ).catch(() => undefined);
        }
      }
      assert.ok(reached, `the arrows reach ${report.report_id}'s row`);
      await page.keyboard.press('Enter');
      const frame = await frameWith(page, '#viewer .page.drawn .textLayer');
      await page
        .locator('.tab', { hasText: `${report.report_id} (preview)` })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });

      // 4. Find a phrase: the editor (Ctrl+1), then Ctrl+F in the preview, type, Enter.
      await page.keyboard.press('Control+1');
      await waitUntil(async () => (await webviewFocus(frame)) !== undefined, 'the preview focused');
      await page.keyboard.press('Control+f');
      // Where the focus went, in order, for the failure's message.
      const focusWent: string[] = [];
      await waitUntil(async () => {
        const inPreview = await webviewFocus(frame);
        const where = inPreview ?? `workbench ${await workbenchFocusDescribed(page)}`;
        if (focusWent.at(-1) !== where) {
          focusWent.push(where);
        }
        return inPreview === 'find';
      }, 'Ctrl+F in the find box').catch((error: Error) => {
        throw new Error(`${error.message} (the focus went: ${focusWent.join(' → ')})`);
      });
      await page.keyboard.type('shall not be reproduced');
      // The preview searches as the keys arrive: "shall not be reprod" is already found once, so
      // the count alone does not say the whole phrase was searched; its highlights do.
      const highlighted = (): Promise<string[]> =>
        frame.locator('.textLayer .highlight').allInnerTexts();
      await waitUntil(
        async () =>
          (await frame.locator('#findCount').innerText()) === '1 of 1' &&
          (await highlighted()).join(' ') === 'shall not be reproduced',
        'the phrase found',
      ).catch(() => undefined);
      assert.equal(
        await frame.locator('#findCount').innerText(),
        '1 of 1',
        'the phrase found once',
      );
      assert.deepEqual(
        await highlighted(),
        ['shall not be', 'reproduced'],
        'the phrase is highlighted',
      );

      // 5. Save: Tab to "Save to Workspace", Enter.
      const order: string[] = [];
      for (let i = 0; i < 8 && (await webviewFocus(frame)) !== 'save'; i++) {
        await page.keyboard.press('Tab');
        order.push((await webviewFocus(frame)) ?? '(left the preview)');
      }
      assert.equal(await webviewFocus(frame), 'save', `Tab reaches Save (${order.join(' → ')})`);
      await page.keyboard.press('Enter');
      const file = path.join(saved, `${report.report_id}.pdf`);
      await waitUntil(() => existsSync(file), `${file} saved`, 30_000);
      assert.deepEqual(
        readdirSync(saved).filter((name) => name.endsWith('.pdf')),
        [`${report.report_id}.pdf`],
        'that report, and nothing else, saved',
      );
    } finally {
      // The filter is kept by the lab's name, which the next suites' labs share: cleared here.
      await paletteCommand(page, 'Lab Data: Clear Reports Filter').catch(() =>
        page.keyboard.press('Escape'),
      );
      // Signed out for the next suites, whose labs have this lab's name (a lab left signed in made
      // the next sign-in ask for another name, and its rows never showed): checked, and tried again.
      const signedOut = page
        .locator('.welcome-view-content', { hasText: 'You are signed out of your lab' })
        .first();
      for (let attempt = 0; attempt < 2; attempt++) {
        await page.keyboard.press('Escape');
        await paletteCommand(page, 'Lab Data: Sign Out').catch(() => undefined);
        await confirmSignOut(page);
        if (await shows(signedOut, 15_000)) {
          break;
        }
      }
      await workspaceSettings(workspace, undefined);
      await closeTabs(page, /\(preview\)|RPT-/).catch(() => undefined);
      rmSync(saved, { recursive: true, force: true });
      await lab.stop();
    }
  });
});
