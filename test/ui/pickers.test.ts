import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import type { MockReport } from '../mock/data';
import { runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import {
  clearToasts,
  clickRowAction,
  clickToolbar,
  confirmSignOut,
  pane,
  quickInput,
  row,
  scrollToTop,
  showLabData,
  toast,
  waitUntil,
} from './workbench';

const TOKEN = 'demo-full-access';

/** The highlighted row of the open picker. */
const activeRow = (page: Page) =>
  page.locator('.quick-input-widget .quick-input-list .monaco-list-row.focused').first();

/** The focused row of a view's list, and whether the keyboard is in that list. */
async function focusedRowOf(page: Page, view: string): Promise<string | undefined> {
  const list = pane(page, view).locator('.monaco-list').first();
  const inList = await list.evaluate((element) => {
    const doc = (element as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument;
    return (element as unknown as { contains(other: unknown): boolean }).contains(
      doc.activeElement,
    );
  });
  const focused = pane(page, view).locator('.monaco-list-row.focused').first();
  return inList && (await focused.count()) > 0
    ? ((await focused.getAttribute('aria-label')) ?? undefined)
    : undefined;
}

/**
 * Issue 50's pickers as a person meets them: the criteria picker by keyboard (the first criterion
 * highlighted, Space, Enter with nothing checked), the list focused after a filter, Add Lab's name
 * box and closing words, each per-lab picker titled with its lab, and Find Report's suggestions
 * from two labs that have the same id.
 */
describe('pickers that say which lab they act on, by keyboard', function () {
  this.timeout(180_000);
  let page: Page;
  let meridian: MockLabServer;
  let harbor: MockLabServer;
  /** The first lab's name: the one it gives itself, as it was signed in to by its address. */
  let own: string;
  const settingsFile = (): string => path.join(uiContext.userDataDir, 'User', 'settings.json');
  let settingsBefore: string | undefined;

  before(async () => {
    page = uiContext.page;
    settingsBefore = await fs.readFile(settingsFile(), 'utf8').catch(() => undefined);
    // Two seeds: the same report ids in both labs, each with its own types and dates.
    meridian = new MockLabServer({ reports: 60, seed: 5 });
    harbor = new MockLabServer({ reports: 60, seed: 9 });
    const baseUrl = await meridian.start();
    await harbor.start();
    own = meridian.reportsFor(TOKEN)[0]!.lab_name;
    if (page.url() !== uiContext.workbenchUrl) {
      await page.goto(uiContext.workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    await showLabData(page);
    await signInFromPalette(page, baseUrl, TOKEN);
    await row(page, 'Report RPT-').waitFor({ state: 'visible', timeout: 30_000 });
    await clearToasts(page);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      await page.keyboard.press('Escape').catch(() => undefined);
    }
  });

  after(async () => {
    await clearToasts(page).catch(() => undefined);
    for (let i = 0; i < 2; i++) {
      await runFromPalette(page, 'Lab Data: Sign Out').catch(() => undefined);
      // With two labs it asks which: Enter takes the first.
      if (
        await quickInput
          .title(page)
          .isVisible()
          .catch(() => false)
      ) {
        await page.keyboard.press('Enter');
      }
      await confirmSignOut(page).catch(() => undefined);
    }
    // The labs Add Lab wrote go with the settings as they were.
    if (settingsBefore === undefined) {
      await fs.rm(settingsFile(), { force: true });
    } else {
      await fs.writeFile(settingsFile(), settingsBefore);
    }
    await page
      .locator('.welcome-view-content', { hasText: 'signed out' })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 })
      .catch(() => undefined);
    await Promise.all([meridian.stop(), harbor.stop()]);
  });

  it('the criteria picker opens on its first criterion and says what Space and Enter do; Enter with nothing checked says so; after the filter the list has the keyboard on its first row, and → works at once', async () => {
    await clickToolbar(page, 'Reports', 'Filter Reports');
    // One lab: still named, so the title reads the same once a second lab is added.
    await quickInput.waitForTitle(page, `Lab Data: Filter Reports — ${own}`);
    await waitUntil(async () => (await quickInput.rows(page).count()) === 5, 'five criteria');
    await waitUntil(
      async () =>
        (
          await activeRow(page)
            .innerText()
            .catch(() => '')
        ).startsWith('Published since'),
      'the first criterion highlighted',
    );
    const placeholder = async (): Promise<string> =>
      (await quickInput.box(page).getAttribute('placeholder')) ?? '';
    assert.match(await placeholder(), /^Space checks or unchecks .*; Enter goes on/);
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'criteria-picker-open.png'),
    });
    // Enter with nothing checked: said, and the picker stays.
    await page.keyboard.press('Enter');
    await waitUntil(async () => /^Nothing is checked/.test(await placeholder()), 'said');
    assert.ok(await quickInput.box(page).isVisible(), 'the picker stays open');
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'criteria-picker-nothing-checked.png'),
    });
    // Space checks the highlighted criterion, without typing a space.
    await page.keyboard.press('Space');
    const first = quickInput.rows(page).first();
    await waitUntil(
      async () => (await first.getAttribute('aria-checked')) === 'true',
      'Published since checked with Space',
    );
    assert.equal(await quickInput.box(page).inputValue(), '');
    await page.keyboard.press('Enter');
    await quickInput.waitForTitle(page, 'Published since (1/1)');
    await quickInput.box(page).fill('30');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
    // The keyboard is on the list's first row: the filter's.
    const onFilter = await waitUntil(async () => {
      const label = await focusedRowOf(page, 'Reports');
      return label?.startsWith('Filtered by') ? label : undefined;
    }, 'the filter row focused');
    await page.keyboard.press('ArrowRight');
    await waitUntil(async () => {
      const label = await focusedRowOf(page, 'Reports');
      return label !== undefined && label !== onFilter ? label : undefined;
    }, '→ moves into the filter row');
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'filtered-first-row-focused.png'),
    });
    await scrollToTop(page, 'Reports');
    await clickRowAction(
      pane(page, 'Reports').locator('.monaco-list-row', { hasText: 'Filtered by' }).first(),
      'Clear Reports Filter',
    );
  });

  it('Add Lab explains the name box, proposes a free name when the lab’s own is taken, refuses a used one with a suggestion, and says it was added with what comes next', async () => {
    await runFromPalette(page, 'Lab Data: Add Lab');
    await quickInput.waitForTitle(page, 'Add Lab (1/4)');
    await quickInput.box(page).fill(harbor.baseUrl);
    await page.keyboard.press('Enter');
    await quickInput.waitForTitle(page, 'Add Lab (2/4)');
    await page.keyboard.press('Enter');
    await quickInput.waitForTitle(page, 'Add Lab (3/4)');
    await quickInput.box(page).fill(TOKEN);
    await page.keyboard.press('Enter');
    await quickInput.waitForTitle(page, 'Add Lab (4/4)');
    // The lab calls itself as the first lab is named: a free name is proposed, and the box says why.
    const proposed = `${own} (2)`;
    await waitUntil(
      async () => (await quickInput.box(page).inputValue()) === proposed,
      'the free name proposed',
    );
    const prompt = await quickInput.message(page).innerText();
    assert.match(prompt, /name Lab Data shows for this lab/);
    assert.ok(prompt.includes(`“${own}”`) && prompt.includes(`“${proposed}”`), prompt);
    await page.screenshot({ path: path.join(uiContext.screenshotsDir, 'add-lab-name-box.png') });
    await quickInput.box(page).fill(own);
    await waitUntil(
      async () =>
        (await quickInput.message(page).innerText()).includes(
          `There is already a lab named ${own}. Try “${proposed}”.`,
        ),
      'a used name refused while typing, with a free one',
    );
    await quickInput.box(page).fill(proposed);
    await page.keyboard.press('Enter');
    const said = await toast(page, /added and signed in/);
    assert.equal(
      said,
      `${proposed} added and signed in: its reports are loading in the Reports view.`,
    );
    await page.screenshot({ path: path.join(uiContext.screenshotsDir, 'add-lab-added.png') });
    await clearToasts(page);
  });

  it('from a lab’s row, Filter and Search name that lab; a report row’s accessible label names its lab; Find Report offers an id two labs have once per lab, each with its own type and date', async () => {
    const second = `${own} (2)`;
    const reports = pane(page, 'Reports');
    const labRow = (name: string) =>
      reports.locator(`.monaco-list-row[aria-label^="Lab ${name}, "]`).first();
    const expanded = async (name: string): Promise<boolean> =>
      (await labRow(name).getAttribute('aria-expanded')) === 'true';
    // The first lab folded, so the second lab's row is on screen below it.
    await scrollToTop(page, 'Reports');
    await labRow(own).waitFor({ state: 'visible', timeout: 30_000 });
    if (await expanded(own)) {
      await labRow(own).click();
    }
    const secondRow = labRow(second);
    await secondRow.waitFor({ state: 'visible', timeout: 30_000 });
    await clickRowAction(secondRow, 'Filter Reports');
    assert.equal(
      await quickInput.waitForTitle(page, 'Filter Reports'),
      `Lab Data: Filter Reports — ${second}`,
    );
    await quickInput.close(page);
    // The view's toolbar searches every signed-in lab, and its title names them all.
    await clickToolbar(page, 'Reports', 'Search Reports');
    const searched = await quickInput.waitForTitle(page, 'Search Reports');
    assert.match(searched, /^Lab Data: Search Reports in /);
    assert.ok(searched.includes(own) && searched.includes(second), searched);
    await quickInput.close(page);
    // Each lab's reports shown (and so loaded), each row saying its lab to a screen reader.
    const firstIds = meridian.reportsFor(TOKEN).slice(0, 20);
    const secondIds = harbor.reportsFor(TOKEN).slice(0, 20);
    for (const [name, shown] of [
      [own, firstIds],
      [second, secondIds],
    ] as const) {
      await scrollToTop(page, 'Reports');
      await labRow(name).click();
      await reports
        .locator(`.monaco-list-row[aria-label^="Report ${shown[0]!.report_id} in ${name}, "]`)
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      await scrollToTop(page, 'Reports');
      await labRow(name).click();
      await waitUntil(async () => !(await expanded(name)), `${name} folded again`);
    }
    const shared = firstIds.find((report) =>
      secondIds.some(
        (other) => other.report_id === report.report_id && other.report_type !== report.report_type,
      ),
    );
    assert.ok(shared, 'an id both labs have, with another type');
    const other = secondIds.find((report) => report.report_id === shared.report_id) as MockReport;
    await runFromPalette(page, 'Lab Data: Find Report');
    await quickInput.waitForTitle(page, 'Find Report');
    await quickInput.box(page).fill(shared.report_id);
    const matching = quickInput.rows(page).filter({ hasText: shared.report_id });
    await waitUntil(async () => (await matching.count()) === 2, 'one suggestion per lab');
    const texts = await matching.allInnerTexts();
    assert.ok(
      texts.some((text) => text.includes(`${own} · `) && text.includes(shared.report_type)),
      texts.join(' | '),
    );
    assert.ok(
      texts.some((text) => text.includes(`${second} · `) && text.includes(other.report_type)),
      texts.join(' | '),
    );
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'find-report-two-labs.png'),
    });
    await quickInput.close(page);
  });
});
