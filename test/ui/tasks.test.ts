import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { recordedFolder } from '../support/recordedFolder';
import { runFromPalette } from './palette';
import { uiContext } from './uiContext';
import { quickInput, shows, waitBriefly, waitUntil } from './workbench';

/** The Problems panel's rows that hold `text`. */
function problemRows(page: Page, text: string): ReturnType<Page['locator']> {
  return page.locator('.markers-panel .monaco-list-row', { hasText: text });
}

/**
 * Picks a row of Run Task's open list by its text; VS Code's question whether to scan the task's
 * output is answered only when it comes (the lab-data tasks name their problem matcher).
 */
async function pick(page: Page, filter: string, text: string | RegExp): Promise<void> {
  // As a person does: type to narrow the list, then click the row.
  await quickInput.box(page).fill(filter);
  const choice = quickInput.rows(page).filter({ hasText: text }).first();
  try {
    await choice.waitFor({ state: 'visible', timeout: 30_000 });
  } catch (error) {
    const shown = await quickInput.rows(page).allInnerTexts();
    throw new Error(`no row ${String(text)} among ${JSON.stringify(shown)}`, { cause: error });
  }
  await choice.click();
}

/** Opens Tasks: Run Task from the palette, again if its picker did not come (a key press lost on a busy machine). */
async function openRunTask(page: Page): Promise<void> {
  await waitUntil(
    async () => {
      await runFromPalette(page, 'Tasks: Run Task');
      const shown = await waitBriefly(
        async () =>
          /task to run/i.test(
            (await quickInput
              .box(page)
              .getAttribute('placeholder')
              .catch(() => '')) ?? '',
          ),
        15_000,
      );
      if (!shown) {
        await page.keyboard.press('Escape');
      }
      return shown ? true : undefined;
    },
    'the Run Task picker',
    90_000,
  );
}

async function answerScanQuestionIfAsked(page: Page): Promise<void> {
  const withoutScanning = quickInput
    .rows(page)
    .filter({ hasText: 'Continue without scanning the task output' })
    .first();
  if (await shows(withoutScanning, 3_000)) {
    await withoutScanning.click();
  }
}

/**
 * The lab-data tasks as a person runs them: Tasks: Run Task, the lab-data type, then verify; the
 * Problems panel then shows each missing or changed file on its report's line of the manifest.
 */
describe('the lab-data tasks from Run Task, as a person sees them', function () {
  this.timeout(240_000);
  let page: Page;
  const name = `ui-tasks-${process.pid}`;
  let root: string;
  const tasksJson = (): string => path.join(uiContext.workspace, '.vscode', 'tasks.json');
  let tasksJsonBefore: string | undefined;

  before(async () => {
    page = uiContext.page;
    root = path.join(uiContext.workspace, name);
    tasksJsonBefore = await fs.readFile(tasksJson(), 'utf8').catch(() => undefined);
    if (page.url() !== uiContext.workbenchUrl) {
      await page.goto(uiContext.workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
  });

  after(async () => {
    if (tasksJsonBefore === undefined) {
      await fs.rm(tasksJson(), { force: true });
    } else {
      await fs.writeFile(tasksJson(), tasksJsonBefore);
    }
    await fs.rm(root, { recursive: true, force: true });
    await page.keyboard.press('Escape').catch(() => undefined);
  });

  it('runs "lab-data: verify" from Run Task and shows the changed and the missing file in Problems, on their lines of the manifest', async () => {
    const folder = path.join(root, 'lab-reports');
    const { lineOf } = await recordedFolder(folder, 'UIT');
    await fs.writeFile(path.join(folder, 'UIT-002.pdf'), 'my annotated copy');
    await fs.rm(path.join(folder, 'UIT-003.pdf'));
    const relative = `${name}/lab-reports`;

    await openRunTask(page);
    await pick(page, 'lab-data', 'lab-data');
    // The lab-data tasks, by the folder (the workspace may hold other folders with a manifest).
    // Named with the folder when the workspace holds several (never another folder's verify).
    await pick(page, 'verify', new RegExp(`lab-data: verify(?: ${relative})?(?! [\\w.-]+/)`));
    await answerScanQuestionIfAsked(page);

    await runFromPalette(page, 'Problems: Focus on Problems View');
    const changed = problemRows(page, 'UIT-002');
    const missing = problemRows(page, 'UIT-003');
    await changed.waitFor({ state: 'visible', timeout: 60_000 });
    await missing.waitFor({ state: 'visible', timeout: 30_000 });
    const changedText = await changed.innerText();
    const missingText = await missing.innerText();
    assert.match(changedText, /UIT-002\.pdf changed: not the recorded SHA-256/);
    assert.match(missingText, /UIT-003\.pdf is missing/);
    // VS Code shows lines from 1.
    assert.match(changedText, new RegExp(`Ln ${lineOf('UIT-002') + 1}, Col 1`));
    assert.match(missingText, new RegExp(`Ln ${lineOf('UIT-003') + 1}, Col 1`));
    assert.equal(await problemRows(page, 'UIT-001').count(), 0, 'the file as recorded is fine');
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'tasks-verify-problems.png'),
    });
  });

  it('runs a verify task written by hand in tasks.json from Run Task', async () => {
    const folder = path.join(root, 'by-hand');
    const { lineOf } = await recordedFolder(folder, 'UIH');
    await fs.rm(path.join(folder, 'UIH-001.pdf'));
    const label = 'Verify the analysis reports';
    await fs.mkdir(path.dirname(tasksJson()), { recursive: true });
    await fs.writeFile(
      tasksJson(),
      JSON.stringify(
        {
          version: '2.0.0',
          tasks: [
            {
              label,
              type: 'lab-data',
              command: 'verify',
              folder: `${name}/by-hand`,
              problemMatcher: ['$lab-data'],
            },
          ],
        },
        null,
        2,
      ),
    );
    // The workbench reads tasks.json when it changes: Run Task lists the task once it has.
    await waitUntil(
      async () => {
        await openRunTask(page);
        const listed = await shows(quickInput.rows(page).filter({ hasText: label }).first(), 5_000);
        if (!listed) {
          await quickInput.close(page);
        }
        return listed ? true : undefined;
      },
      `Run Task to list "${label}" from tasks.json`,
      60_000,
    );
    await pick(page, label, label);
    await answerScanQuestionIfAsked(page);

    await runFromPalette(page, 'Problems: Focus on Problems View');
    const missing = problemRows(page, 'UIH-001');
    await missing.waitFor({ state: 'visible', timeout: 60_000 });
    const text = await missing.innerText();
    assert.match(text, /UIH-001\.pdf is missing/);
    assert.match(text, new RegExp(`Ln ${lineOf('UIH-001') + 1}, Col 1`));
    await page.screenshot({
      path: path.join(uiContext.screenshotsDir, 'tasks-hand-written-problems.png'),
    });
  });
});
