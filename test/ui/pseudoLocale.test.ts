import * as assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { MockLabServer } from '../mock/server';
import {
  PSEUDO_LOCALE,
  englishLeftovers,
  pseudoLocalize as P,
  registerPseudoLanguagePack,
  pseudoExtension,
} from '../support/pseudoLocale';
import { notebookWithCard } from '../support/reportCardNotebook';
import { uiContext } from './uiContext';
import { animationsDone, shows, waitUntil } from './workbench';

const root = path.resolve(__dirname, '..', '..', '..');

/** What a person (and a screen reader) gets from the elements under `selector`: their text, labels, titles and placeholders. */
async function textsIn(frame: Page | Frame, selector: string): Promise<string[]> {
  return (await frame.evaluate(`(() => {
    const texts = [];
    for (const top of document.querySelectorAll(${JSON.stringify(selector)})) {
      if (top.innerText) texts.push(...top.innerText.split('\\n'));
      for (const element of [top, ...top.querySelectorAll('*')]) {
        if (!element.checkVisibility()) continue;
        for (const name of ['aria-label', 'title', 'placeholder']) {
          const value = element.getAttribute(name);
          if (value) texts.push(value);
        }
      }
    }
    return texts.map((text) => text.trim()).filter(Boolean);
  })()`)) as string[];
}

/** Elements under `selector` whose text does not fit their box (cut off or ellipsed), as their text. */
async function cutOff(frame: Page | Frame, selector: string): Promise<string[]> {
  return (await frame.evaluate(`(() => [...document.querySelectorAll(${JSON.stringify(selector)})]
    .filter((element) => element.offsetParent !== null && element.scrollWidth > element.clientWidth + 1)
    .map((element) => (element.innerText || element.getAttribute('aria-label') || '').trim()))()`)) as string[];
}

/** Runs a command of the pseudo-localised palette by its pseudo title. */
async function runPseudoCommand(page: Page, category: string, title: string): Promise<void> {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  for (let i = 0; i < 3 && (await input.isVisible().catch(() => false)); i++) {
    await page.keyboard.press('Escape');
  }
  await page.locator('.monaco-workbench').click({ position: { x: 700, y: 5 } });
  await page.keyboard.press('F1');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`>${P(category)}: ${P(title)}`);
  await page
    .locator('.quick-input-widget .monaco-list-row', { hasText: P(title) })
    .first()
    .waitFor({ state: 'visible', timeout: 15_000 });
  await page.keyboard.press('Enter');
}

/** The webview frame that has `selector`. */
async function webviewFrame(page: Page, selector: string): Promise<Frame> {
  return waitUntil(
    async () => {
      for (const frame of page.frames()) {
        if (
          await frame
            .locator(selector)
            .count()
            .catch(() => 0)
        ) {
          return frame;
        }
      }
      return undefined;
    },
    `a webview frame with ${selector}`,
    60_000,
  );
}

describe('Lab Data in another language: the pseudo-locale qps-ploc', () => {
  it('shows no English string of its own in the views, pickers, messages and webviews, and cuts nothing essential at the default width', async function () {
    this.timeout(420_000);
    const { screenshotsDir } = uiContext;
    const codeServer = (await import(path.join(root, 'scripts', 'codeServer.mjs'))) as {
      makeSandbox: (prefix: string) => {
        sandbox: string;
        userData: string;
        extensions: string;
        workspace: string;
      };
      startCodeServer: (options: Record<string, unknown>) => Promise<{
        port: number;
        url: string;
        stop(): Promise<void>;
      }>;
      workbenchUrl: (
        server: { port: number; url: string },
        options: { extensionPath: string; workspace: string },
      ) => string;
    };
    const dirs = codeServer.makeSandbox('lab-data-pseudo-');
    const { extensionPath, english } = pseudoExtension(root, dirs.sandbox);
    const messages = [...english.l10n, ...english.nls];
    const nls = JSON.parse(readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<
      string,
      string
    >;
    registerPseudoLanguagePack(dirs.userData);
    const lab = new MockLabServer();
    const baseUrl = await lab.start();
    const server = await codeServer.startCodeServer({ ...dirs, locale: PSEUDO_LOCALE });
    const page = await uiContext.page.context().newPage();
    const seen: Array<{ where: string; texts: string[] }> = [];
    const look = async (where: string, frame: Page | Frame, selector: string): Promise<void> => {
      seen.push({ where, texts: await textsIn(frame, selector) });
    };
    const shot = async (name: string): Promise<void> => {
      await animationsDone(page);
      await page.screenshot({ path: path.join(screenshotsDir, name) });
    };
    try {
      await page.goto(
        codeServer.workbenchUrl(server, { extensionPath, workspace: dirs.workspace }),
        {
          waitUntil: 'domcontentloaded',
        },
      );
      // The activity bar's item and the views carry the pseudo names of package.nls.qps-ploc.json.
      const item = page
        .locator(
          `.activitybar .action-item a[aria-label^="${P(nls['viewsContainers.labData.title']!)}"]`,
        )
        .first();
      if (!(await shows(item, 45_000))) {
        // Seen once on a busy machine: the first window never showed Lab Data. Said, then loaded again.
        const labels = await page
          .locator('.activitybar .action-item a')
          .evaluateAll((links) => links.map((link) => link.getAttribute('aria-label')));
        console.log(
          `      (the activity bar after 45 s: ${JSON.stringify(labels)}; loading the window again)`,
        );
        await page.screenshot({ path: path.join(screenshotsDir, 'pseudo-locale-not-ready.png') });
        await page.reload({ waitUntil: 'domcontentloaded' });
      }
      await item.click({ timeout: 60_000 });
      const welcome = page.locator('.welcome-view-content').first();
      await welcome.waitFor({ state: 'visible', timeout: 30_000 });
      await page
        .locator('.welcome-view-content .monaco-button', { hasText: P('Sign In').slice(1, -1) })
        .first()
        .waitFor({ state: 'visible', timeout: 30_000 });
      await look('the signed-out views', page, '.part.sidebar');
      const welcomeCut = await cutOff(
        page,
        '.part.sidebar .welcome-view-content .monaco-button, .part.sidebar .pane-header .title',
      );
      await shot('pseudo-locale-welcome.png');

      // Sign in through the pickers.
      await runPseudoCommand(page, nls['command.category']!, nls['command.signIn.title']!);
      const input = page.locator('.quick-input-widget .quick-input-box input');
      const firstStep = page.locator('.quick-input-widget .quick-input-title', {
        hasText: P('Lab Data: Sign In (1/2)'),
      });
      if (!(await shows(firstStep, 30_000))) {
        // Seen once in CI, on a busy machine: the command ran from the palette, and no picker came.
        const showing = await page
          .locator('.quick-input-widget')
          .innerText({ timeout: 1000 })
          .catch(() => '(no quick input)');
        console.log(
          `      (no Sign In picker after 30 s; the quick input showed ${JSON.stringify(showing.slice(0, 200))}; running Sign In again)`,
        );
        await page.screenshot({ path: path.join(screenshotsDir, 'pseudo-locale-no-sign-in.png') });
        await runPseudoCommand(page, nls['command.category']!, nls['command.signIn.title']!);
        await firstStep.waitFor({ state: 'visible', timeout: 30_000 });
      }
      await look('the sign-in picker (address)', page, '.quick-input-widget');
      await shot('pseudo-locale-sign-in.png');
      await input.fill(baseUrl);
      await page.keyboard.press('Enter');
      await page
        .locator('.quick-input-widget .quick-input-title', {
          hasText: P('Lab Data: Sign In (2/2)'),
        })
        .waitFor({ state: 'visible', timeout: 15_000 });
      await look('the sign-in picker (token)', page, '.quick-input-widget');
      await input.fill('demo-full-access');
      await page.keyboard.press('Enter');
      const first = lab.reportsFor('demo-full-access')[0]!.report_id;
      const row = page.locator('.part.sidebar .monaco-list-row', { hasText: first }).first();
      await row.waitFor({ state: 'visible', timeout: 60_000 });
      // Every view loaded: no progress bar running in the side bar.
      await waitUntil(
        async () =>
          (await page.locator('.part.sidebar .monaco-progress-container.active').count()) === 0,
        'the views to finish loading',
        30_000,
      );
      await look('the views, signed in', page, '.part.sidebar');
      const viewsCut = await cutOff(page, '.part.sidebar .pane-header .title');
      await look('notifications', page, '.notifications-toasts, .notifications-center');
      await look('the status bar item', page, '.statusbar-item[id$="labData.connection"]');
      // A report's tooltip: labelled fields and local dates.
      // Point at the row (again, if the first hover went to something else) until its tooltip shows.
      const tooltip = page
        .locator('.monaco-hover, .workbench-hover', { hasText: P('Report {0}').slice(0, 6) })
        .first();
      await waitUntil(
        async () => {
          await page.mouse.move(700, 600);
          await row.hover();
          return tooltip
            .waitFor({ state: 'visible', timeout: 4_000 })
            .then(() => true)
            .catch(() => false);
        },
        'a report row’s tooltip',
        40_000,
      );
      await look('a report row’s tooltip', page, '.monaco-hover, .workbench-hover');
      await shot('pseudo-locale-reports.png');

      // A "since" picker (Filter Samples asks it first): its presets and their descriptions, then
      // the box for a typed date.
      await page.mouse.move(700, 600);
      await runPseudoCommand(page, nls['command.category']!, nls['command.filterSamples.title']!);
      await page
        .locator('.quick-input-widget .quick-input-title', {
          // The title names the lab it filters ("… — {0}"): its words up to the name.
          hasText: P('Lab Data: Filter Samples — {0}').split('{0}')[0]!,
        })
        .waitFor({ state: 'visible', timeout: 15_000 });
      const sinceADate = page
        .locator('.quick-input-widget .monaco-list-row', {
          hasText: P('Since a date…').slice(1, -1),
        })
        .first();
      await sinceADate.waitFor({ state: 'visible', timeout: 15_000 });
      await look('the "since" picker', page, '.quick-input-widget');
      await shot('pseudo-locale-since-picker.png');
      // Every preset, its description and the placeholder are translated: a string left out of
      // l10n is also left out of the bundle, so the leftover check below would not know it.
      const untranslated = [
        ...(await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts()),
        (await page
          .locator('.quick-input-widget .quick-input-box input')
          .getAttribute('placeholder')) ?? '',
      ].filter((text) => /[A-Za-z]{2}/.test(text.replace(/\[[^\]]*\]/g, '')));
      assert.deepEqual(untranslated, [], 'the "since" picker shows only translated text');
      await sinceADate.click();
      await page
        .locator('.quick-input-widget', {
          hasText: P('Received since (an ISO 8601 date, or a time with its zone)').slice(1, -1),
        })
        .waitFor({ state: 'visible', timeout: 15_000 });
      await look('the "since" date box', page, '.quick-input-widget');
      await page.keyboard.press('Escape');

      // The overview webview: its texts come from the extension.
      await runPseudoCommand(page, nls['command.category']!, nls['command.showOverview.title']!);
      const overview = await webviewFrame(page, 'section.chart canvas');
      await overview.locator('h1').waitFor({ state: 'visible', timeout: 30_000 });
      await waitUntil(
        async () => (await overview.locator('section.chart canvas').count()) === 3,
        'the overview to draw its three charts',
      );
      await look('the overview', overview, 'body');
      const overviewCut = await cutOff(overview, 'button, h1, h2');
      await shot('pseudo-locale-overview.png');

      // The PDF preview webview.
      await runPseudoCommand(page, nls['command.category']!, nls['command.previewReport.title']!);
      await page
        .locator('.quick-input-widget .quick-input-title', {
          // The title names the lab it previews from ("… — {0}"): its words up to the name.
          hasText: P('Lab Data: Preview Report — {0}').split('{0}')[0]!,
        })
        .waitFor({ state: 'visible', timeout: 15_000 });
      // Its rows listed: the lab answered and nothing is loading.
      await waitUntil(
        async () =>
          (await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').count()) >
            0 &&
          (await page.locator('.quick-input-widget .monaco-progress-container.active').count()) ===
            0,
        'the report picker to list reports',
        30_000,
      );
      await look('the report picker', page, '.quick-input-widget');
      await shot('pseudo-locale-report-picker.png');
      const withFile = lab
        .reportsFor('demo-full-access')
        .find((report) => report.download_available)!;
      await input.fill(withFile.report_id);
      await page.keyboard.press('Enter');
      const preview = await webviewFrame(page, '.page.drawn canvas');
      // Its toolbar and messages; the pages' text is the lab's PDF.
      await look('the PDF preview', preview, '#toolbar, #message');
      const toolbarCut = await cutOff(
        preview,
        '#toolbar, #toolbar button, #toolbar label, #toolbar select',
      );
      await shot('pseudo-locale-pdf-preview.png');

      // A report card in a notebook output: the renderer's labels come from the extension.
      writeFileSync(
        path.join(dirs.workspace, 'report-card.ipynb'),
        notebookWithCard({ id: withFile.report_id, lab: withFile.lab_name, revision: '1' }),
      );
      await page.locator('.monaco-workbench').click({ position: { x: 700, y: 5 } });
      await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 15_000 });
      await input.fill('report-card.ipynb');
      await page
        .locator('.quick-input-widget .monaco-list-row', { hasText: 'report-card.ipynb' })
        .first()
        // Quick Open finds a file just written through VS Code's file search, which took over
        // 15 s once in the newest host: a hang detector, not a speed claim.
        .waitFor({ state: 'visible', timeout: 60_000 });
      await page.keyboard.press('Enter');
      const card = await webviewFrame(page, '.labdata-card button');
      await waitUntil(
        async () => (await card.locator('.labdata-card button').innerText()) === P('Preview'),
        'the report card’s labels in the display language',
        30_000,
      );
      await look('a report card in a notebook', card, '.labdata-card');
      await shot('pseudo-locale-notebook-card.png');

      const leftovers = seen.flatMap(({ where, texts }) =>
        englishLeftovers(texts, messages).map(
          (found) => `${where}: "${found.text}" (English "${found.message}")`,
        ),
      );
      if (leftovers.length > 0) {
        console.log(
          `      English left on screen:\n        ${[...new Set(leftovers)].join('\n        ')}`,
        );
      }
      assert.deepEqual(leftovers, [], 'no English string of Lab Data on screen');
      for (const { where, texts } of seen.filter(
        // Notifications may have gone; the status bar item shows the lab's address alone.
        (entry) => !['notifications', 'the status bar item'].includes(entry.where),
      )) {
        assert.ok(
          texts.some((text) => /\[[^\]]*[ȧḗīǿŭ]{2}/.test(text)),
          `${where} shows pseudo-localised text: ${texts.slice(0, 8).join(' | ')}`,
        );
      }
      assert.deepEqual(
        [...welcomeCut, ...viewsCut, ...overviewCut, ...toolbarCut],
        [],
        'buttons, view titles, headings and the PDF toolbar fit at the default width',
      );
      console.log(
        `      screenshots: ${path.relative(process.cwd(), screenshotsDir)}/pseudo-locale-{welcome,sign-in,reports,since-picker,overview,report-picker,pdf-preview,notebook-card}.png`,
      );
    } catch (error) {
      await page.screenshot({ path: path.join(screenshotsDir, 'pseudo-locale-failure.png') });
      throw error;
    } finally {
      await page.close().catch(() => undefined);
      // The suite's own page takes the focus back, as the window a person returns to.
      await uiContext.page.bringToFront().catch(() => undefined);
      await server.stop();
      await lab.stop();
      rmSync(dirs.sandbox, { recursive: true, force: true });
    }
  });
});
