import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { MockReport } from '../mock/data';
import { MockLabServer } from '../mock/server';
import { runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import {
  animationsDone,
  clearToasts,
  clickMoreAction,
  clickRowAction,
  clickToastButton,
  clickToolbar,
  closeTabs,
  confirmSignOut,
  expandPane,
  scrollTo,
  scrollToLoadMore,
  scrollToTop,
  dialog,
  dialogButtons,
  labDataLog,
  pane,
  quickInput,
  row,
  rowSays,
  showLabData,
  statusItem,
  toast,
  toasts,
  waitBriefly,
  waitUntil,
  workspaceSettings,
  editUserSettings,
} from './workbench';

const TOKEN = 'demo-full-access';

/** A token the lab knows but that has expired (its name must not hold the reason, or redaction would hide it). */
const OLD_TOKEN = 'lab-ui-old-token-4242';

/**
 * The Reports view and the commands around it (toolbar, sign-in, save, filter, find, sync, the log,
 * the status bar) as a person uses them in the real VS Code: the mouse, the keyboard and the palette only.
 */
describe('the Reports view and its commands, by mouse, keyboard and palette', function () {
  this.timeout(180_000);
  let page: Page;
  let lab: MockLabServer;
  let baseUrl: string;
  /** The lab's name: the one it gives itself, as it was signed in to by its address. */
  let labName: string;
  let reports: MockReport[];
  const folder = `ui-reports-${process.pid}`;

  const sha = async (file: string): Promise<string> =>
    createHash('sha256')
      .update(await fs.readFile(file))
      .digest('hex');
  const downloadable = (): MockReport[] => reports.filter((report) => report.download_available);
  /** Requests the lab saw since the last call, as "path?page=N". */
  const requestsSince = (): string[] =>
    lab
      .takeRequests()
      .map(
        (request) => `${request.path}${request.query.page ? `?page=${request.query.page}` : ''}`,
      );
  /** Closes the editors this suite opened (reports, their metadata, the overview); earlier editors stay. */
  const closeEditors = (): Promise<void> => closeTabs(page, /RPT-|Overview:/);

  before(async () => {
    page = uiContext.page;
    lab = new MockLabServer({
      reports: 120,
      tokens: { [OLD_TOKEN]: { label: 'expired', state: 'expired' } },
    });
    baseUrl = await lab.start();
    labName = lab.reportsFor(TOKEN)[0]!.lab_name;
    reports = lab.reportsFor(TOKEN);
    await workspaceSettings(uiContext.workspace, { 'labData.downloadFolder': folder });
    if (page.url() !== uiContext.workbenchUrl) {
      await page.goto(uiContext.workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    await showLabData(page);
    await signInFromPalette(page, baseUrl, TOKEN);
    await row(page, `Report ${reports[0]!.report_id}`).waitFor({
      state: 'visible',
      timeout: 30_000,
    });
    await clearToasts(page);
  });

  afterEach(async function () {
    // After a failure (runUi takes its screenshot): whatever it left open closed.
    if (this.currentTest?.state === 'failed') {
      await page.keyboard.press('Escape').catch(() => undefined);
    }
  });

  after(async () => {
    await clearToasts(page).catch(() => undefined);
    await runFromPalette(page, 'Lab Data: Sign Out').catch(() => undefined);
    await page
      .locator('.welcome-view-content', { hasText: 'signed out' })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 })
      .catch(() => undefined);
    await workspaceSettings(uiContext.workspace, undefined);
    await lab.stop();
  });

  it('every toolbar button of the Reports view asks, with no row selected and with a report selected; loaded pages stay', async () => {
    // Two pages loaded, so a fall-back to the first page would show.
    await (await scrollToLoadMore(page, 'Reports')).click();
    await waitUntil(
      () => requestsSince().some((request) => request.endsWith('?page=2')),
      'page 2 to load',
    );
    const noFile = reports.slice(0, 50).find((report) => !report.download_available)!;
    for (const selected of [false, true]) {
      const when = selected ? 'with a report selected' : 'with no row selected';
      if (selected) {
        // A click on a report without a file opens its metadata and leaves the row selected.
        await scrollTo(page, 'Reports', row(page, `Report ${noFile.report_id}`));
        await row(page, `Report ${noFile.report_id}`).click();
        await page
          .locator('.tab', { hasText: noFile.report_id })
          .first()
          .waitFor({ state: 'visible', timeout: 15_000 });
        assert.equal(
          await row(page, `Report ${noFile.report_id}`).getAttribute('aria-selected'),
          'true',
        );
      }
      requestsSince();
      await clickToolbar(page, 'Reports', 'Search Reports');
      assert.match(
        await quickInput.waitForTitle(page, 'Search Reports'),
        /^Lab Data: Search Reports in \S.*$/,
        `Search asks its first question (what to filter by) ${when}`,
      );
      await quickInput.close(page);
      await clickToolbar(page, 'Reports', 'Filter Reports');
      assert.match(
        await quickInput.waitForTitle(page, 'Filter Reports'),
        /^Lab Data: Filter Reports — \S.*$/,
        `Filter asks its first question (what to filter by) ${when}`,
      );
      await quickInput.close(page);
      assert.deepEqual(
        requestsSince(),
        [],
        `opening and closing Search and Filter ${when} asks the lab nothing (the list keeps its pages)`,
      );
      await clickToolbar(page, 'Reports', 'Refresh');
      const refreshed = await waitUntil(() => {
        const seen = lab.requests.slice(-2).map((request) => request.query.page);
        return seen.includes('2') ? seen : undefined;
      }, `Refresh ${when} to reload both pages`);
      assert.ok(
        refreshed.includes('1') && refreshed.includes('2'),
        `Refresh ${when} reloads the two pages shown`,
      );
      await clickToolbar(page, 'Reports', 'Show Overview');
      await page
        .locator('.tab', { hasText: 'Overview' })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      await closeEditors();
      // The view's Export exports the view's list: straight to the save dialog, on a dated name, without asking which list.
      await clickMoreAction(page, 'Reports', 'Export Reports');
      await quickInput.waitForTitle(page, /Export reports of /);
      const dated = new RegExp(`reports-\\d{4}-\\d{2}-\\d{2}( \\(\\d+\\))?\\.csv$`);
      await waitUntil(
        async () => dated.test(await quickInput.box(page).inputValue()),
        `Export offers a dated file name ${when}`,
      );
      await quickInput.close(page);
      await clickMoreAction(page, 'Reports', 'Verify Saved Reports');
      await toast(page, /Verif|saved report|manifest|nothing/i);
      await clearToasts(page);
    }
    // The Samples toolbar, with a row of its own selected too.
    await expandPane(page, 'Samples');
    await clickToolbar(page, 'Samples', 'Filter Samples');
    await quickInput.waitForTitle(page, 'Filter Samples');
    await quickInput.close(page);
    await pane(page, 'Samples').locator('.monaco-list-row').first().click();
    await clickToolbar(page, 'Samples', 'Filter Samples');
    await quickInput.waitForTitle(page, 'Filter Samples');
    await quickInput.close(page);
    await closeEditors();
  });

  it('saving a report that is already saved and unchanged makes no dialog; a changed one gets a short dialog whose default keeps the file', async () => {
    const report = downloadable()[0]!;
    const file = path.join(uiContext.workspace, folder, `${report.report_id}.pdf`);
    const target = await scrollTo(page, 'Reports', row(page, `Report ${report.report_id}`));
    await clickRowAction(target, 'Save Report PDF');
    await toast(page, new RegExp(`Saved ${report.report_id}\\.pdf`));
    const first = await sha(file);
    const { mtimeMs } = await fs.stat(file);
    await clearToasts(page);
    // The row is drawn again once it knows the file is saved: clicked before, a click can land on the
    // row as it is replaced (a preview) instead of on its action.
    await rowSays(target, /, saved/);

    await clickRowAction(target, 'Save Report PDF');
    const again = await toast(page, /is up to date in/);
    assert.match(again, new RegExp(`${report.report_id} is up to date in ${folder}/\\.`));
    assert.equal(await dialog(page).isVisible(), false, 'no dialog for a byte-identical file');
    assert.equal((await fs.stat(file)).mtimeMs, mtimeMs, 'the file was not written again');
    await clearToasts(page);

    await fs.appendFile(file, '\n% an analyst annotated this copy\n');
    const changed = await sha(file);
    await rowSays(target, /changed since it was saved/);
    await clickRowAction(target, 'Save Report PDF');
    await dialog(page).waitFor({ state: 'visible', timeout: 15_000 });
    const buttons = await dialogButtons(page);
    assert.deepEqual(
      [...buttons.labels].sort(),
      ['Cancel', 'Keep Both', 'Overwrite', 'Skip'],
      `a short dialog: three choices and Cancel (${buttons.labels.join(', ')})`,
    );
    assert.equal(buttons.primary, 'Skip', 'the safe choice is the default');
    await page.screenshot({ path: path.join(uiContext.screenshotsDir, 'overwrite-dialog.png') });
    await page.keyboard.press('Enter');
    await dialog(page).waitFor({ state: 'hidden', timeout: 10_000 });
    await toast(page, /skipped/);
    assert.equal(await sha(file), changed, 'Enter kept the analyst’s file');
    assert.notEqual(changed, first);
    // No progress notification outlives its operation.
    await waitUntil(
      async () => !(await toasts(page)).some((message) => /^Saving/.test(message)),
      'no "Saving …" notification left',
    );
    await clearToasts(page);
  });

  it('Save All with a report selected saves the whole list, and asks about a changed file once with "Apply to All…"', async () => {
    const selected = downloadable()[1]!;
    await scrollTo(page, 'Reports', row(page, `Report ${selected.report_id}`));
    await row(page, `Report ${selected.report_id}`).click({ button: 'right' });
    await page.keyboard.press('Escape');
    await clickMoreAction(page, 'Reports', 'Save All Reports');
    // One file (saved and then changed in the test before) differs: the bulk dialog offers Apply to All.
    await dialog(page).waitFor({ state: 'visible', timeout: 60_000 });
    const buttons = await dialogButtons(page);
    assert.deepEqual(
      [...buttons.labels].sort(),
      ['Apply to All…', 'Cancel', 'Keep Both', 'Overwrite', 'Skip'],
      `three choices, "Apply to All…" and Cancel (${buttons.labels.join(', ')})`,
    );
    assert.equal(buttons.primary, 'Skip', 'the safe choice is the default');
    await page.keyboard.press('Enter');
    const summary = await toast(page, /^Save All, all reports of .*: \d+ saved/, 60_000);
    const files = (await fs.readdir(path.join(uiContext.workspace, folder))).filter((name) =>
      name.endsWith('.pdf'),
    );
    assert.equal(
      files.length,
      downloadable().length,
      `every report with a file was saved, not only the selected one (${summary})`,
    );
    assert.match(
      summary,
      /skipped \(.*1 already there, kept/,
      'the changed file was skipped (Enter)',
    );
    await waitUntil(
      async () => !(await toasts(page)).some((message) => /^Saving|^Listing/.test(message)),
      'no progress notification left',
    );
    await clearToasts(page);
  });

  it('a token the lab rejects keeps the token box open with the lab’s reason under it, and keeps the session; another token can be pasted at once', async () => {
    await signInFromPalette(page, baseUrl, OLD_TOKEN);
    const reason = await waitUntil(async () => {
      const text = (
        await quickInput
          .message(page)
          .innerText()
          .catch(() => '')
      ).trim();
      return /rejected/.test(text) ? text : undefined;
    }, 'the reason under the token box');
    assert.match(
      reason,
      new RegExp(
        `The lab rejected this token \\(token expired\\)\\. You are still signed in to ${labName} with your previous token\\.`,
      ),
    );
    // Still the token step of this address: nothing to retype but the token.
    await quickInput.waitForTitle(page, 'Sign In (2/2)');
    assert.equal(await quickInput.box(page).getAttribute('type'), 'password');
    assert.ok(
      !(await toasts(page)).some((text) => /rejected|^Signed in/.test(text)),
      'no toast: the reason is in the box',
    );
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'sign-in-token-rejected.png'),
    });
    await quickInput.box(page).fill(TOKEN);
    await waitUntil(
      async () =>
        !(
          await quickInput
            .message(page)
            .innerText()
            .catch(() => '')
        ).includes('rejected'),
      'typing clears the reason',
    );
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
    await scrollTo(page, 'Reports', row(page, `Report ${reports[0]!.report_id}`));
    assert.ok(
      await row(page, `Report ${reports[0]!.report_id}`).isVisible(),
      'the session still lists reports',
    );
    await clearToasts(page);
  });

  it('rows say what a person looks for first; the tooltip has labelled fields, local dates and words; samples say a value once', async () => {
    await scrollToTop(page, 'Reports');
    const first = reports[0]!;
    const target = row(page, `Report ${first.report_id}`);
    await target.waitFor({ state: 'visible' });
    const label = (await target.locator('.label-name').innerText()).trim();
    const description = (await target.locator('.label-description').innerText()).trim();
    assert.equal(label, first.report_id, 'the id is the label');
    const title = first.title.replace(`${first.report_type}: `, '');
    const day = new Date(first.published_at).getUTCFullYear().toString();
    assert.ok(description.split(' · ')[0]!.includes(day), `the day comes first: ${description}`);
    assert.equal(
      description.split(' · ').at(-1),
      title,
      `the title comes last in the description, without its type: ${description}`,
    );
    assert.equal(
      description.split(first.report_type).length,
      2,
      `the type is said once: ${description}`,
    );
    // "newest first" is said once, beside the view's name, not on a row.
    const reportsText = await pane(page, 'Reports').innerText();
    assert.equal(
      reportsText.split(/newest first/i).length,
      2,
      `"newest first" once in the Reports view:\n${reportsText.slice(0, 400)}`,
    );
    // The day starts where the row still has room at the default width: it is read without hovering.
    const [titleBox, rowBox] = await Promise.all([
      target.locator('.label-description').boundingBox(),
      target.boundingBox(),
    ]);
    assert.ok(
      titleBox && rowBox && titleBox.x + 80 < rowBox.x + rowBox.width,
      'the day is on screen',
    );
    // Every visible report row shows its whole label at the default width.
    for (const visible of await pane(page, 'Reports')
      .locator('.monaco-list-row[aria-label^="Report "]')
      .all()) {
      const [name, box] = await Promise.all([
        visible.locator('.label-name').boundingBox(),
        visible.boundingBox(),
      ]);
      assert.ok(
        name && box && name.x + name.width <= box.x + box.width,
        `the label of "${await visible.getAttribute('aria-label')}" is not cut off`,
      );
    }
    // The view alone, as it rests: no pointer over a row, so no tooltip covers it.
    await page.mouse.move(900, 700, { steps: 20 });
    await page.keyboard.press('Escape');
    await waitBriefly(
      async () =>
        (await page.locator('.monaco-hover:visible, .workbench-hover:visible').count()) === 0,
      10_000,
    );
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'reports-view-default-width.png'),
    });

    await target.hover();
    const hover = page
      .locator('.monaco-hover, .workbench-hover')
      .filter({ hasText: `Report ${first.report_id}` })
      .first();
    await hover.waitFor({ state: 'visible', timeout: 15_000 });
    const tooltip = await hover.innerText();
    await page.screenshot({ path: path.join(uiContext.screenshotsDir, 'report-tooltip.png') });
    for (const field of ['Type', 'Published', 'Status', 'Client', 'Samples', 'PDF']) {
      assert.match(
        tooltip,
        new RegExp(`(^|\\n)${field}\\b`),
        `a labelled "${field}" field in:\n${tooltip}`,
      );
    }
    for (const raw of [
      'published_at',
      'download_available',
      'sample_ids',
      first.published_at,
      '["',
    ]) {
      assert.ok(!tooltip.includes(raw), `no raw "${raw}" in the tooltip:\n${tooltip}`);
    }
    assert.match(
      tooltip,
      new RegExp(`Status\\s+${first.status[0]!.toUpperCase()}${first.status.slice(1)}`),
    );
    await page.mouse.move(0, 0);

    await expandPane(page, 'Samples');
    const sampleRows = pane(page, 'Samples').locator('.monaco-list-row');
    for (const sample of (await sampleRows.locator('.label-description').allInnerTexts()).slice(
      0,
      15,
    )) {
      const parts = sample.split(' · ');
      parts.forEach((part, index) => {
        assert.ok(
          !parts
            .slice(0, index)
            .some((earlier) =>
              new RegExp(`(^|\\W)${part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|\\W)`, 'i').test(
                earlier,
              ),
            ),
          `"${part}" is said once in "${sample}"`,
        );
      });
      assert.ok(!sample.includes('_'), `statuses are words in "${sample}"`);
    }
  });

  it('two criteria take three steps (which criteria, the client by name, the report type); reopening shows the values and Enter keeps them; its row shows the whole filter and clears only by its action', async () => {
    const client = lab.data.clients[0]!;
    const type = 'Certificate of Analysis';
    await clickToolbar(page, 'Reports', 'Filter Reports');
    // Step 1: one list of what the lab can filter by, each with its value ("any" now).
    await quickInput.waitForTitle(page, /^Lab Data: Filter Reports — \S/);
    const criteria = quickInput.rows(page);
    await waitUntil(async () => (await criteria.count()) === 5, 'five criteria');
    const projectRow = criteria.filter({ hasText: 'Project, location or work order' });
    assert.equal(
      await projectRow.count(),
      1,
      'projects are named with their locations and work orders',
    );
    for (const label of ['Client', 'Report type']) {
      const criterion = criteria.filter({ hasText: new RegExp(`^${label}`) }).first();
      assert.match(await criterion.innerText(), /any/);
      await criterion.click();
      await waitUntil(
        async () => (await criterion.getAttribute('aria-checked')) === 'true',
        `${label} checked`,
      );
    }
    await page.keyboard.press('Enter');
    // Step 2: clients by name.
    await quickInput.waitForTitle(page, 'Client (1/2)');
    const clientRow = quickInput.rows(page).filter({ hasText: client.name }).first();
    await clientRow.waitFor({ state: 'visible' });
    assert.equal(
      (await clientRow.locator('.label-name').innerText()).trim(),
      client.name,
      'clients are listed by name',
    );
    await clientRow.click();
    // Step 3: the report type, which Lab Data applies itself and says so.
    const typeTitle = await quickInput.waitForTitle(page, 'Report type (2/2)');
    assert.ok(typeTitle.includes('Filter Reports'));
    assert.match((await quickInput.box(page).getAttribute('placeholder')) ?? '', /no such filter/);
    await quickInput.rows(page).filter({ hasText: type }).first().click();
    const filterRowText = async (): Promise<string> =>
      (
        await pane(page, 'Reports')
          .locator('.monaco-list-row', { hasText: 'Filtered by' })
          .first()
          .innerText()
      ).trim();
    await scrollToTop(page, 'Reports');
    const applied = await waitUntil(
      async () => (await filterRowText().catch(() => '')) || undefined,
      'the filter row',
    );
    assert.ok(applied.includes(client.name) && applied.includes(type), applied);
    // At the default width the row's label is cut off: the count and each criterion have rows of their own.
    const reportsPane = pane(page, 'Reports');
    const filterParts = [
      reportsPane
        .locator(
          '.monaco-list-row[aria-label$="match the filter"]:not([aria-label^="Filtered by"])',
        )
        .first(),
      reportsPane
        .locator(`.monaco-list-row[aria-label^="Filter criterion: client ${client.name}"]`)
        .first(),
      reportsPane.locator(`.monaco-list-row[aria-label="Filter criterion: type ${type}"]`).first(),
    ];
    for (const [index, part] of filterParts.entries()) {
      await part.waitFor({ state: 'visible', timeout: 15_000 });
      const [name, box] = await Promise.all([
        part.locator('.label-name').boundingBox(),
        part.boundingBox(),
      ]);
      // The count whole; a criterion at least its kind and the start of its value (a long client name may end in "…").
      assert.ok(
        name &&
          box &&
          (index === 0
            ? name.x + name.width <= box.x + box.width
            : name.x + 120 < box.x + box.width),
        `"${await part.innerText()}" is on screen`,
      );
    }
    const matching = reports.filter(
      (report) => report.client_id === client.client_id && report.report_type === type,
    ).length;
    const countText = await filterParts[0]!.innerText();
    // The type is applied by Lab Data to the loaded reports: all of the client's, when one page holds them.
    assert.ok(
      countText === `${matching} reports match the filter` ||
        /^\d+ of the \d+ reports loaded match the filter$/.test(countText),
      countText,
    );
    await page.mouse.move(900, 700, { steps: 5 });
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'filter-row-default-width.png'),
    });

    // Reopened: the values are shown and checked, and Enter through every step keeps them.
    await clickToolbar(page, 'Reports', 'Filter Reports');
    await quickInput.waitForTitle(page, /^Lab Data: Filter Reports — \S/);
    await waitUntil(async () => (await criteria.count()) === 5, 'five criteria');
    const clientCriterion = criteria.filter({ hasText: /^Client/ }).first();
    assert.ok(
      (await clientCriterion.innerText()).includes(client.name),
      `the current client is shown: ${await clientCriterion.innerText()}`,
    );
    assert.equal(await clientCriterion.getAttribute('aria-checked'), 'true');
    assert.equal(
      await criteria
        .filter({ hasText: /^Status/ })
        .first()
        .getAttribute('aria-checked'),
      'false',
    );
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'filter-reports-criteria.png'),
    });
    await page.keyboard.press('Enter');
    await quickInput.waitForTitle(page, 'Client (1/2)');
    await waitUntil(
      async () =>
        (
          await page
            .locator('.quick-input-list .monaco-list-row.focused')
            .innerText()
            .catch(() => '')
        ).includes(client.name),
      'the current client highlighted',
    );
    await page.keyboard.press('Enter');
    await quickInput.waitForTitle(page, 'Report type (2/2)');
    await waitUntil(
      async () =>
        (
          await page
            .locator('.quick-input-list .monaco-list-row.focused')
            .innerText()
            .catch(() => '')
        ).includes(type),
      'the current type highlighted',
    );
    const asked = lab.requests.length;
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
    // The filter Enter leaves is the one the view lists with again: its request, then its row.
    await waitUntil(
      () =>
        lab.requests
          .slice(asked)
          .some(
            (request) =>
              request.path.endsWith('/reports') && request.query.client_id === client.client_id,
          ),
      'the Reports view to list again',
    );
    await pane(page, 'Reports')
      .locator('.monaco-list-row[aria-label^="Report "]')
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(await filterRowText(), applied, 'Enter kept the filter as it was');

    const filterRow = pane(page, 'Reports')
      .locator('.monaco-list-row', { hasText: 'Filtered by' })
      .first();
    await scrollToTop(page, 'Reports');
    await filterRow.waitFor({ state: 'visible', timeout: 15_000 });
    const expected = reports.filter(
      (report) => report.client_id === client.client_id && report.report_type === type,
    );
    const shown = pane(page, 'Reports').locator('.monaco-list-row[aria-label^="Report "]');
    await waitUntil(async () => (await shown.count()) > 0, 'filtered rows');
    for (const text of await shown.locator('.label-description').allInnerTexts()) {
      assert.ok(text.includes(type), `a ${type}: ${text}`);
    }
    assert.ok(expected.length > 0);
    await filterRow.hover();
    const hover = page
      .locator('.monaco-hover, .workbench-hover')
      .filter({ hasText: 'Filtered by' })
      .first();
    await hover.waitFor({ state: 'visible', timeout: 15_000 });
    const tooltip = await hover.innerText();
    assert.ok(
      tooltip.includes(client.name) && tooltip.includes(client.client_id) && tooltip.includes(type),
      `the whole filter in the tooltip:\n${tooltip}`,
    );
    assert.match(tooltip, /no report-type filter/);
    // Reading or clicking the row does not clear it.
    await filterRow.click();
    // The click is taken once the row shows as selected (the row has no command to run).
    await waitUntil(
      async () => (await filterRow.getAttribute('aria-selected')) === 'true',
      'the filter row to be selected',
    );
    assert.ok(await filterRow.isVisible(), 'a click does not clear the filter');
    await clickRowAction(filterRow, 'Clear Reports Filter');
    await filterRow.waitFor({ state: 'hidden', timeout: 15_000 });
  });

  it('Find Report suggests the loaded ids, narrows while typing, takes a unique part; Find and Preview Report say in the picker what an id looks like', async () => {
    const wanted = reports[7]!;
    const part = wanted.report_id.slice(-3);
    assert.equal(
      reports.slice(0, 100).filter((report) => report.report_id.includes(part)).length,
      1,
      'the part is unique among the loaded',
    );
    await runFromPalette(page, 'Lab Data: Find Report');
    await quickInput.waitForTitle(page, 'Find Report');
    await waitUntil(async () => (await quickInput.rows(page).count()) > 5, 'suggestions');
    const before = await quickInput.rows(page).count();
    await quickInput.box(page).fill(part);
    await waitUntil(
      async () =>
        (await quickInput.rows(page).count()) < before &&
        (await quickInput.rows(page).first().innerText()).includes(wanted.report_id),
      'the list to narrow, the wanted id first',
    );
    await page.keyboard.press('Enter');
    // The report was found: its actions are offered under a title naming it.
    await quickInput.waitForTitle(page, `${wanted.report_id}:`);
    await quickInput.close(page);

    // An id the lab does not know is said in the picker, which stays open for another: no error toast.
    for (const [command, title] of [
      ['Lab Data: Find Report', 'Find Report'],
      ['Lab Data: Preview Report', 'Preview Report'],
    ] as const) {
      await runFromPalette(page, command);
      await quickInput.waitForTitle(page, title);
      await waitUntil(
        async () => (await quickInput.rows(page).count()) > 5,
        `${title} suggests the loaded ids`,
      );
      await quickInput.box(page).fill('no-such-id');
      await page.keyboard.press('Enter');
      await waitUntil(
        async () =>
          (await quickInput.rows(page).first().innerText()).includes('has no report "no-such-id"'),
        `${title} says so in the picker`,
      );
      assert.match(
        await quickInput.rows(page).first().innerText(),
        /Report ids look like RPT-\d{4}-\d{6}/,
      );
      assert.equal(
        await page
          .locator('.notifications-toasts .notification-toast')
          .filter({ hasText: 'no-such-id' })
          .count(),
        0,
        'no toast',
      );
      await quickInput.close(page);
    }

    await runFromPalette(page, 'Lab Data: Search Reports');
    // Nothing checked: every report, once the picker has said so and Enter is pressed again. The title names the lab it searches.
    await quickInput.waitForTitle(
      page,
      new RegExp(`^Lab Data: Search Reports in ${labName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
    await waitUntil(async () => (await quickInput.rows(page).count()) === 5, 'the criteria');
    await page.keyboard.press('Enter');
    await waitUntil(
      async () =>
        /^Nothing is checked/.test((await quickInput.box(page).getAttribute('placeholder')) ?? ''),
      'nothing checked, said',
    );
    await page.keyboard.press('Enter');
    await quickInput.waitForTitle(page, `(${reports.length})`);
    await quickInput.box(page).fill(part);
    assert.match(
      await quickInput.waitForTitle(page, /match/),
      new RegExp(`1 of ${reports.length} match`),
    );
    await quickInput.close(page);
  });

  it('Sync Reports to Folder… asks where (the download folder first), the first sync asks once with the count the summary then adds up to, files land in template subfolders, and a second sync says "up to date" with a Reveal button', async () => {
    const syncFolder = `${folder}-sync`;
    await workspaceSettings(uiContext.workspace, {
      'labData.downloadFolder': syncFolder,
      'labData.fileNameTemplate': '${client_id}/${report_type}/${report_id}.pdf',
    });
    await runFromPalette(page, 'Lab Data: Sync Reports to Folder…');
    await quickInput.waitForTitle(page, `Sync Reports of ${labName} to Folder…`);
    // The download folder is offered (with the folder used last in this workspace, if another, first).
    const downloadRow = quickInput
      .rows(page)
      .filter({ hasText: 'the download folder (labData.downloadFolder)' })
      .first();
    assert.ok((await downloadRow.innerText()).includes(syncFolder), await downloadRow.innerText());
    assert.ok(
      (await quickInput.rows(page).filter({ hasText: 'Choose Another Folder…' }).count()) === 1,
      'another folder can be chosen',
    );
    await downloadRow.click();
    await dialog(page).waitFor({ state: 'visible', timeout: 30_000 });
    const question = await dialog(page).innerText();
    const withoutFile = reports.length - downloadable().length;
    assert.ok(
      question.includes(`Sync ${reports.length} reports of ${labName} into ${syncFolder}?`),
      question,
    );
    assert.ok(
      question.includes(
        `Of these ${reports.length} reports, ${downloadable().length} of them have a file, saved there; ${withoutFile} have none.`,
      ),
      question,
    );
    await dialog(page).locator('.monaco-button', { hasText: 'Sync' }).first().click();
    const syncing = waitUntil(
      async () => /Syncing/.test(await statusItem(page).innerText()),
      'the status bar to say syncing',
      30_000,
    );
    const done = await toast(page, /Sync of .* into .*: \d+ new or changed saved/, 60_000);
    await syncing.catch(() => undefined);
    // The summary adds up to the number the question gave.
    assert.match(
      done,
      new RegExp(
        `${downloadable().length} new or changed saved .*${withoutFile} skipped \\(${withoutFile} without a file\\)`,
      ),
    );
    const sample = downloadable()[0]!;
    assert.ok(
      existsSync(
        path.join(
          uiContext.workspace,
          syncFolder,
          sample.client_id,
          sample.report_type,
          `${sample.report_id}.pdf`,
        ),
      ),
      'saved under client and report type',
    );
    await clearToasts(page);

    await runFromPalette(page, 'Lab Data: Sync Reports to Folder…');
    await quickInput.waitForTitle(page, 'to Folder…');
    await waitUntil(async () => {
      const focused = await page
        .locator('.quick-input-list .monaco-list-row.focused')
        .innerText()
        .catch(() => '');
      return /used last/.test(focused) && focused.includes(syncFolder);
    }, 'the folder used last, highlighted: Enter keeps it');
    await page.keyboard.press('Enter');
    const upToDate = await toast(page, /is up to date/);
    assert.equal(
      upToDate,
      `${labName} is up to date (${downloadable().length} reports in ${syncFolder}).`,
    );
    assert.equal(await dialog(page).isVisible(), false, 'a later sync asks nothing');
    await clickToastButton(page, /is up to date/, 'Reveal in Explorer');
    await page
      .locator(
        '.explorer-folders-view .monaco-list-row.selected, .explorer-folders-view .monaco-list-row.focused',
        { hasText: syncFolder },
      )
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    await workspaceSettings(uiContext.workspace, { 'labData.downloadFolder': folder });
    await showLabData(page);
    await clearToasts(page);
  });

  it('Sync into another folder: a folder typed in the workspace that is not there yet is offered as new and made, and the sync asks about it', async () => {
    const made = path.join(uiContext.workspace, 'data', `new-reports-${Date.now()}`);
    const typed = path.relative(uiContext.workspace, made).split(path.sep).join('/');
    await runFromPalette(page, 'Lab Data: Sync Reports to Folder…');
    await quickInput.waitForTitle(page, `Sync Reports of ${labName} to Folder…`);
    // From the keyboard: the row's name, then Enter.
    await quickInput.box(page).fill('Choose Another Folder');
    await page.keyboard.press('Enter');
    await quickInput.waitForTitle(page, 'Lab Data: Sync into Another Folder');
    await quickInput.box(page).fill(typed);
    const newRow = quickInput.rows(page).filter({ hasText: 'a new folder, made now' }).first();
    await newRow.waitFor({ state: 'visible', timeout: 10_000 });
    assert.ok((await newRow.innerText()).includes(typed), await newRow.innerText());
    await page.screenshot({ path: path.join(uiContext.screenshotsDir, 'sync-new-folder.png') });
    await page.keyboard.press('Enter');
    await dialog(page).waitFor({ state: 'visible', timeout: 30_000 });
    // The question names the new folder as the workspace shows it.
    await waitUntil(
      async () => (await dialog(page).innerText()).includes(`into ${typed}?`),
      `the sync to ask about ${typed}`,
    );
    assert.ok(existsSync(made), 'the folder was made');
    await dialog(page).locator('.monaco-button', { hasText: 'Cancel' }).first().click();
    await dialog(page).waitFor({ state: 'hidden', timeout: 10_000 });
    await fs.rm(made, { recursive: true, force: true });
  });

  it('Sync from the view’s “More Actions” menu: no tooltip covers the folder picker, whose rows all stay readable', async () => {
    await scrollToTop(page, 'Reports');
    await clickMoreAction(page, 'Reports', 'Sync Reports to Folder');
    await quickInput.waitForTitle(page, `Sync Reports of ${labName} to Folder…`);
    // The pointer rests where the menu was, over the view's rows; a hover shows after its delay.
    await page.waitForTimeout(2_500);
    const another = quickInput.rows(page).filter({ hasText: 'Choose Another Folder…' }).first();
    const rowBox = await another.boundingBox();
    assert.ok(rowBox, 'the picker shows "Choose Another Folder…"');
    const hovers = await page
      .locator('.monaco-hover, .workbench-hover-container, .monaco-hover-content')
      .evaluateAll((elements) =>
        elements
          .map((element) => {
            const box = element.getBoundingClientRect();
            const style = (
              globalThis as unknown as {
                getComputedStyle(e: unknown): { visibility: string; display: string };
              }
            ).getComputedStyle(element);
            return style.visibility === 'hidden' || style.display === 'none' || box.width === 0
              ? undefined
              : {
                  x: box.x,
                  y: box.y,
                  width: box.width,
                  height: box.height,
                  text: (element.textContent ?? '').slice(0, 80),
                };
          })
          .filter((box) => box !== undefined),
      );
    await page.screenshot({ path: path.join(uiContext.screenshotsDir, 'sync-folder-picker.png') });
    const covering = hovers.filter(
      (box) =>
        box.x < rowBox.x + rowBox.width &&
        rowBox.x < box.x + box.width &&
        box.y < rowBox.y + rowBox.height &&
        rowBox.y < box.y + box.height,
    );
    assert.deepEqual(covering, [], 'no tooltip over "Choose Another Folder…"');
    await quickInput.close(page);
  });

  it('Enter and a double-click open a report row; after "Load more…" focus is on the first row it added', async () => {
    await closeEditors();
    const [a, b] = [reports[2]!, reports[3]!];
    const tabOf = (report: MockReport) =>
      page.locator('.tab', { hasText: report.report_id }).first();
    await scrollTo(page, 'Reports', row(page, `Report ${a.report_id}`));
    await row(page, `Report ${a.report_id}`).click({ button: 'right' });
    await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    await tabOf(a).waitFor({ state: 'visible', timeout: 30_000 });
    await closeEditors();
    await row(page, `Report ${b.report_id}`).dblclick();
    await tabOf(b).waitFor({ state: 'visible', timeout: 30_000 });
    await closeEditors();

    // The filter was cleared, so the list starts again at one page; "Load more…" adds the second.
    await (await scrollToLoadMore(page, 'Reports')).click();
    const next = reports[50]!;
    await waitUntil(
      async () =>
        (
          await pane(page, 'Reports').locator('.monaco-list-row.focused').getAttribute('aria-label')
        )?.startsWith(`Report ${next.report_id}`),
      `focus on ${next.report_id}`,
    );
  });

  it('the log has an info line per request (lab, method, path, status, milliseconds, request id)', async () => {
    const requests = lab.requests.slice(-20);
    const log = await waitUntil(async () => {
      const lines = await labDataLog(uiContext.userDataDir);
      return requests.every((request) => lines.some((line) => line.includes(request.requestId)))
        ? lines
        : undefined;
    }, 'a log line for each request');
    const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const host = escaped(new URL(baseUrl).host);
    // The lab by its name and host; the sign-in's first request, before the lab has its name, by its host.
    const who = `(?:${escaped(labName)} \\(${host}\\)|${host})`;
    for (const request of requests) {
      const line = log.find((candidate) => candidate.includes(request.requestId))!;
      assert.match(
        line,
        new RegExp(
          `\\[info\\] \\[http\\] ${who} ${request.method} ${escaped(request.path)}\\S* → ${request.status} in \\d+ ms \\(request id ${request.requestId}\\)`,
        ),
        line,
      );
      assert.ok(!line.includes(TOKEN));
    }
  });

  it('at the default width, the reports of one project lead with their day and type, not the project name all their titles share', async () => {
    // A project with several reports whose titles all read "<type>: <project name>".
    const counts = new Map<string, number>();
    reports.forEach((report) =>
      counts.set(report.project_id, (counts.get(report.project_id) ?? 0) + 1),
    );
    const project = lab.data.projects.find(
      (candidate) => (counts.get(candidate.project_id) ?? 0) >= 3,
    )!;
    const client = lab.data.clients.find((candidate) => candidate.client_id === project.client_id)!;
    const ofProject = reports.filter((report) => report.project_id === project.project_id);
    await expandPane(page, 'Clients');
    const clients = pane(page, 'Clients');
    const clientRow = clients
      .locator(`.monaco-list-row[aria-label^="Client ${client.name}, "]`)
      .first();
    await clientRow.waitFor({ state: 'visible', timeout: 30_000 });
    await clientRow.click();
    const projectRow = clients
      .locator(`.monaco-list-row[aria-label^="Project ${project.name}, "]`)
      .first();
    await projectRow.waitFor({ state: 'visible', timeout: 30_000 });
    await projectRow.click();
    const first = clients.locator(
      `.monaco-list-row[aria-label^="Report ${ofProject[0]!.report_id}, "]`,
    );
    await first.waitFor({ state: 'visible', timeout: 30_000 });
    await page.mouse.move(900, 700, { steps: 5 });
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'project-reports-default-width.png'),
    });
    for (const report of ofProject.slice(0, 3)) {
      const target = clients.locator(
        `.monaco-list-row[aria-label^="Report ${report.report_id}, "]`,
      );
      if (!(await target.isVisible())) {
        continue;
      }
      const description = (await target.locator('.label-description').innerText()).trim();
      const [day, type] = description.split(' · ');
      assert.ok(
        day!.includes(report.published_at.slice(0, 4)),
        `the day comes first: ${description}`,
      );
      assert.equal(type, report.report_type, `then the type: ${description}`);
      assert.ok(
        !description.includes(project.name),
        `not the project's name again: ${description}`,
      );
      // The day and the type start where the row still has room at the default width.
      const [box, rowBox] = await Promise.all([
        target.locator('.label-description').boundingBox(),
        target.boundingBox(),
      ]);
      assert.ok(box && rowBox && box.x + 80 < rowBox.x + rowBox.width, 'the day is on screen');
    }
    // Folded again, so the Reports view has its room back.
    await projectRow.click();
    await clientRow.click();
    await pane(page, 'Clients').locator('.pane-header').click();
  });

  it('at the default width, lab rows say their state and count first, an unreachable lab’s rows are marked, and the status bar counts the labs that answer', async () => {
    const harbor = new MockLabServer({ reports: 40, seed: 9 });
    const harborUrl = await harbor.start();
    const settingsFile = path.join(uiContext.userDataDir, 'User', 'settings.json');
    const original = await fs.readFile(settingsFile, 'utf8').catch(() => undefined);
    const settings = original ? (JSON.parse(original) as Record<string, unknown>) : {};
    try {
      await editUserSettings(
        page,
        JSON.stringify({
          ...settings,
          'labData.labs': [
            { name: 'Meridian', baseUrl },
            { name: 'Harbor', baseUrl: harborUrl },
          ],
        }),
      );
      await scrollToTop(page, 'Reports');
      const meridianRow = row(page, 'Lab Meridian, ');
      const harborRow = row(page, 'Lab Harbor, ');
      await harborRow.waitFor({ state: 'visible', timeout: 30_000 });
      await waitUntil(
        async () =>
          /^signed out · /.test(await harborRow.locator('.label-description').innerText()),
        'Harbor: signed out, first',
        30_000,
      );
      // Signing in to Harbor from its own row: only the token is asked.
      await harborRow.click();
      await row(page, 'Sign in to Harbor').click();
      await quickInput.waitForTitle(page, /Sign In \(2\/2\)/);
      await quickInput.box(page).fill(TOKEN);
      await page.keyboard.press('Enter');
      const harborCount = harbor.reportsFor(TOKEN).length;
      await waitUntil(
        async () =>
          (await harborRow.locator('.label-description').innerText()).startsWith(
            `${harborCount} reports · `,
          ),
        'Harbor: its count, first',
        30_000,
      );
      await waitUntil(
        async () =>
          (await meridianRow.locator('.label-description').innerText()).startsWith(
            `${reports.length} reports · `,
          ),
        'Meridian: its count, first',
        30_000,
      );
      await waitUntil(
        async () => (await statusItem(page).innerText()).includes('2 of 2 labs signed in'),
        'both labs answer',
        30_000,
      );
      // Find Report looks in both labs: suggestions name their lab, and an id both labs have asks
      // which lab, each lab beside its own report (no lab is asked first).
      const harborReports = harbor.reportsFor(TOKEN);
      const shared = reports.find((report) =>
        harborReports.some((other) => other.report_id === report.report_id),
      );
      assert.ok(shared, 'the two labs share an id');
      await runFromPalette(page, 'Lab Data: Find Report…');
      await quickInput.waitForTitle(page, /Find Report/);
      // Typing a lab's name narrows the suggestions to that lab's reports.
      await quickInput.box(page).fill('Harbor');
      await waitUntil(async () => {
        const offered = await quickInput.rows(page).allInnerTexts();
        return offered.length > 0 && offered.every((text) => text.includes('Harbor'));
      }, "Harbor's reports among the suggestions, each naming its lab");
      // An id both labs have, typed: the suggestion of the lab whose reports are loaded names that
      // lab (the pickers' suite checks one suggestion per lab once both are loaded), and Enter takes
      // that lab's report, with no question of which lab.
      await quickInput.box(page).fill(shared.report_id);
      await waitUntil(
        async () =>
          (await quickInput.rows(page).allInnerTexts()).some(
            (text) => text.includes(shared.report_id) && text.includes('Harbor'),
          ),
        'the id suggested with Harbor, whose reports are loaded',
        30_000,
      );
      await page.keyboard.press('Enter');
      await waitUntil(
        async () =>
          /What would you like to do\?/.test(
            (await quickInput.box(page).getAttribute('placeholder')) ?? '',
          ),
        "the actions for Harbor's report",
        30_000,
      );
      await page.screenshot({
        path: path.join(uiContext.screenshotsDir, 'find-report-two-labs.png'),
      });
      await quickInput.close(page);
      // Harbor goes down: its row says so first, its rows are marked, the status bar counts one.
      await harbor.stop();
      await clickToolbar(page, 'Reports', 'Refresh');
      await waitUntil(
        async () =>
          (await harborRow.locator('.label-description').innerText()).startsWith('unreachable · '),
        'Harbor: unreachable, first',
        30_000,
      );
      await row(page, 'Unreachable: ').waitFor({ state: 'visible', timeout: 15_000 });
      await waitUntil(
        async () => (await statusItem(page).innerText()).includes('1 of 2 labs unreachable'),
        'one lab answers',
        30_000,
      );
      for (const lab of [meridianRow, harborRow]) {
        const [box, rowBox] = await Promise.all([
          lab.locator('.label-description').boundingBox(),
          lab.boundingBox(),
        ]);
        assert.ok(
          box && rowBox && box.x + 90 < rowBox.x + rowBox.width,
          `the state or count is on screen: ${await lab.getAttribute('aria-label')}`,
        );
      }
      await page.mouse.move(900, 700, { steps: 5 });
      await animationsDone(page);
      await page.screenshot({
        path: path.join(uiContext.screenshotsDir, 'lab-rows-default-width.png'),
      });
      await harborRow.click();
    } finally {
      await editUserSettings(page, JSON.stringify(settings));
      await harbor.stop();
    }
    // One lab again: its reports at the top (signed in again if the sign-in went with the name).
    const signedIn = await row(page, `Report ${reports[0]!.report_id}`)
      .waitFor({ state: 'visible', timeout: 15_000 })
      .then(
        () => true,
        () => false,
      );
    if (!signedIn) {
      await signInFromPalette(page, baseUrl, TOKEN);
      await row(page, `Report ${reports[0]!.report_id}`).waitFor({
        state: 'visible',
        timeout: 30_000,
      });
    }
  });

  it('Refresh on a lab that keeps silent says at once what it waits on, with Cancel; cancelling keeps the rows shown', async () => {
    await scrollToTop(page, 'Reports');
    const first = row(page, `Report ${reports[0]!.report_id}`);
    await first.waitFor({ state: 'visible', timeout: 15_000 });
    await clearToasts(page);
    // The lab takes every request and never answers.
    lab.setFaults({ hangHeaders: { times: Infinity } });
    try {
      await clickToolbar(page, 'Reports', 'Refresh');
      // Shown 0.25 s after the click (PROGRESS_DELAY_MS); a busy machine may draw it later. A
      // refresh still under way from the test before (its second lab's retries) takes this click
      // in without a notification of its own: once that one has ended, the click is made again.
      if (
        !(await waitBriefly(
          async () => (await toasts(page)).some((text) => /waiting on/.test(text)),
          10_000,
        ))
      ) {
        await clickToolbar(page, 'Reports', 'Refresh');
      }
      const message = await toast(page, /waiting on/, 20_000);
      assert.match(message, /Refreshing/, message);
      assert.ok(
        message.includes(new URL(baseUrl).host),
        `it names the lab it waits on: ${message}`,
      );
      await page.screenshot({ path: path.join(uiContext.screenshotsDir, 'refresh-waiting.png') });
      await clickToastButton(page, /waiting on/, 'Cancel');
      await waitUntil(
        async () => !(await toasts(page)).some((text) => /waiting on/.test(text)),
        'the notification to go once cancelled',
      );
      await page
        .locator('.statusbar-item', { hasText: 'Refresh cancelled' })
        .first()
        .waitFor({ state: 'visible', timeout: 10_000 });
      assert.ok(await first.isVisible(), 'the rows shown before stay');
      assert.equal(
        await pane(page, 'Reports')
          .locator('.monaco-list-row', { hasText: /failed|cannot/i })
          .count(),
        0,
        'a cancelled refresh is no failure',
      );
    } finally {
      lab.setFaults({});
    }
  });

  it('the status bar says what matters and opens a menu: Sign Out, Refresh, Sync, Show Log', async () => {
    const item = statusItem(page);
    await waitUntil(
      // The status bar names the lab as every title does: by its name.
      async () => (await item.innerText()).includes(labName),
      'the lab in the status bar',
    );
    // Two answers of 429 in a row (Refresh's request and its retry), so the limit lasts long enough
    // to be seen whichever request meets it first.
    lab.setFaults({ rateLimit: { times: 2, retryAfter: '3' } });
    await clickToolbar(page, 'Reports', 'Refresh');
    const limited = async () => /rate-limited until \d/.test(await item.innerText());
    await waitUntil(limited, 'rate-limited until …', 8_000).catch(async () => {
      // A Refresh pressed while the view was still loading is folded into that load; press again.
      await clickToolbar(page, 'Reports', 'Refresh');
      await waitUntil(
        limited,
        `rate-limited until … (the status bar says "${await item.innerText()}")`,
      );
    });
    await waitUntil(
      async () => !/rate-limited/.test(await item.innerText()),
      'the limit to end',
      20_000,
    );
    lab.setFaults({});
    await item.click();
    await quickInput.waitForTitle(page, 'Lab Data');
    const entries = (await quickInput.rows(page).allInnerTexts()).map((text) => text.trim());
    for (const wanted of ['Refresh', 'Sync Reports to Folder', 'Show Log', 'Sign Out']) {
      assert.ok(
        entries.some((entry) => entry.includes(wanted)),
        `"${wanted}" in the menu: ${entries.join(' | ')}`,
      );
    }
    await quickInput.box(page).fill('Show Log');
    await page.keyboard.press('Enter');
    await page
      .locator('.panel .monaco-editor, .panel .output-view', { hasText: '[http]' })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    await item.click();
    await quickInput.waitForTitle(page, 'Lab Data');
    await quickInput.box(page).fill('Sign Out');
    await page.keyboard.press('Enter');
    await confirmSignOut(page);
    await waitUntil(
      async () => /signed out/.test(await item.innerText()),
      'the status bar to say signed out',
    );
    await item.click();
    await quickInput.waitForTitle(page, 'Lab Data');
    assert.ok(
      (await quickInput.rows(page).allInnerTexts()).some((text) => text.includes('Sign In')),
      'signed out, the menu offers Sign In',
    );
    await quickInput.close(page);
  });
});
