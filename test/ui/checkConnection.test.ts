import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { answerTimeoutMs } from '../../core/connection/httpClient';
import { MockLabServer } from '../mock/server';
import { runFromPalette, signInFromPalette } from './palette';
import { uiContext } from './uiContext';
import { closeTabs, quickInput, showLabData, waitUntil } from './workbench';

/** What the line under the quick input says now. */
async function messageOf(): Promise<string> {
  return (
    await quickInput
      .message(uiContext.page)
      .innerText()
      .catch(() => '')
  ).trim();
}

describe('waiting on a lab that never answers', function () {
  this.timeout(180_000);
  let silent: MockLabServer;
  let stuck: MockLabServer;

  before(async () => {
    // Accepts every connection and never answers.
    silent = new MockLabServer({ faults: { hangHeaders: { times: Infinity } } });
    await silent.start();
    // Sends `200` and its headers, then never the body.
    stuck = new MockLabServer({ faults: { hangBody: { times: Infinity } } });
    await stuck.start();
    if (uiContext.page.url() !== uiContext.workbenchUrl) {
      await uiContext.page.goto(uiContext.workbenchUrl, { waitUntil: 'domcontentloaded' });
    }
    await showLabData(uiContext.page);
  });

  afterEach(async function () {
    // After a failure (runUi takes its screenshot): the token box closed.
    if (this.currentTest?.state === 'failed') {
      await uiContext.page.keyboard.press('Escape').catch(() => undefined);
    }
  });

  after(async () => {
    // Away from the command center, whose tooltip would cover the tabs.
    await uiContext.page.mouse.move(700, 600);
    await uiContext.page.keyboard.press('Escape');
    await closeTabs(uiContext.page, /Check Connection/);
    await silent.stop();
    await stuck.stop();
  });

  it('Sign In says at once what it waits for, keeps the token box and the token after one answer timeout, and its Check Connection button opens a report that answers first and fits the editor', async () => {
    const { page, screenshotsDir } = uiContext;
    const host = new URL(silent.baseUrl).host;
    await signInFromPalette(page, silent.baseUrl, 'typed-token-kept');
    // While it waits (the box says it before it asks the lab, and a lab that never answers is
    // waited for one answer timeout, however late a busy machine draws it): what it waits on, for
    // how long at most, and how to stop.
    const waiting = await waitUntil(
      async () => {
        const text = await messageOf();
        return text.includes('Checking access') ? text : undefined;
      },
      'the token box saying what it waits for',
      answerTimeoutMs(uiContext.hostEnv),
    );
    assert.match(waiting, new RegExp(`Checking access to ${host.replace(/\./g, '\\.')}…`));
    // One answer timeout (30 s; the test hosts set 10 s through LAB_DATA_ANSWER_TIMEOUT), said in the box.
    const answerSeconds = Number(/at most ([\d.]+) s; Escape stops/.exec(waiting)?.[1]);
    assert.equal(
      Math.round(answerSeconds * 1000),
      answerTimeoutMs(uiContext.hostEnv),
      `the box says how long it waits at most: ${waiting}`,
    );
    // One answer timeout, not four: then the box says so and keeps what was typed.
    const started = Date.now();
    const kept = await waitUntil(
      async () => {
        const text = await messageOf();
        return /What you typed is kept/.test(text) ? text : undefined;
      },
      'the box saying the lab did not answer',
      45_000,
    );
    assert.ok(
      Date.now() - started < (answerSeconds + 10) * 1000,
      `said after ${Date.now() - started} ms (one answer timeout is ${answerSeconds} s)`,
    );
    assert.match(kept, /timed out while waiting for an answer/);
    await quickInput.waitForTitle(page, 'Sign In (2/2)');
    assert.equal(await quickInput.box(page).inputValue(), 'typed-token-kept');
    await page.screenshot({ path: path.join(screenshotsDir, 'sign-in-lab-never-answers.png') });

    // The box's Check Connection button checks this address, not every lab.
    await page
      .locator('.quick-input-widget .action-label.codicon-debug-disconnect')
      .first()
      .click({ timeout: 10_000 });
    await quickInput.close(page);
    const tab = page.locator('.tabs-container .tab', { hasText: `Check Connection - ${host}` });
    await tab.first().waitFor({ state: 'visible', timeout: 60_000 });
    const lines = page.locator('.editor-instance .view-lines');
    // The editor draws spaces as no-break spaces.
    const shown = async (): Promise<string> =>
      (await lines.first().innerText()).replace(/\u00a0/g, ' ');
    await waitUntil(
      async () => ((await shown()).includes('sent no answer') ? true : undefined),
      'the report’s answer on screen',
      10_000,
    );
    const text = await shown();
    assert.match(text, /accepted the connection but sent no answer/);
    assert.match(text, /Next: Try again in a few minutes/);
    // Wrapped to fit: nothing runs past the right edge of the editor at the default width.
    const edges = await page
      .locator('.editor-instance .monaco-editor')
      .first()
      .evaluate((editor) => {
        const lines = [...editor.querySelectorAll('.view-lines .view-line > span')];
        const minimap = editor.querySelector('.minimap');
        return {
          text: Math.max(...lines.map((line) => line.getBoundingClientRect().right)),
          visible: minimap
            ? minimap.getBoundingClientRect().left
            : editor.getBoundingClientRect().right,
        };
      });
    assert.ok(
      edges.text <= edges.visible,
      `the report runs past the edge: ${JSON.stringify(edges)}`,
    );
    await page.mouse.move(700, 600);
    const file = path.join(screenshotsDir, 'check-connection-report.png');
    await page.screenshot({ path: file });
    console.log(`      screenshot: ${path.relative(process.cwd(), file)}`);
  });

  it('Add Lab’s token box, by keyboard alone: Enter twice on the empty box checks the connection, and the verdict of a stuck lab is read in the box, which keeps the keyboard', async () => {
    const { page, screenshotsDir } = uiContext;
    const host = new URL(stuck.baseUrl).host;
    const input = quickInput.box(page);
    await runFromPalette(page, 'Lab Data: Add Lab…');
    await quickInput.waitForTitle(page, 'Add Lab (1/4)');
    await input.fill(stuck.baseUrl);
    await page.keyboard.press('Enter');
    await quickInput.waitForTitle(page, 'Add Lab (2/4)');
    // The standard paths, highlighted: Enter.
    await page.keyboard.press('Enter');
    await quickInput.waitForTitle(page, 'Add Lab (3/4)');
    // Enter on the empty box says how to check the connection; Enter again checks it.
    await page.keyboard.press('Enter');
    await waitUntil(
      async () => ((await messageOf()).includes('press Enter again') ? true : undefined),
      'the box saying Enter again checks the connection',
      5_000,
    );
    const started = Date.now();
    await page.keyboard.press('Enter');
    const verdict = await waitUntil(
      async () => {
        const text = await messageOf();
        return /Next:/.test(text) ? text : undefined;
      },
      'the verdict in the box',
      45_000,
    );
    // Within one answer timeout (the test host's LAB_DATA_ANSWER_TIMEOUT) and a margin for a busy
    // machine's drawing.
    const answerMs = answerTimeoutMs(uiContext.hostEnv);
    assert.ok(
      Date.now() - started < answerMs + 15_000,
      `the verdict came after ${Date.now() - started} ms (one answer timeout is ${answerMs} ms)`,
    );
    assert.match(verdict, /sends headers but never the body: the lab’s service is stuck\./);
    assert.doesNotMatch(verdict, /not signed in|answers;/);
    // Still the token box, with the keyboard in it: a person types the token next.
    await quickInput.waitForTitle(page, 'Add Lab (3/4)');
    assert.equal(
      await input.evaluate(
        (element) =>
          (globalThis as unknown as { document: { activeElement: unknown } }).document
            .activeElement === element,
      ),
      true,
      'the box keeps the keyboard while the report opens behind it',
    );
    // The whole verdict is on screen: its line is not cut off at the box's edge.
    const fits = await quickInput
      .message(page)
      .evaluate(
        (element: {
          scrollWidth: number;
          clientWidth: number;
          scrollHeight: number;
          clientHeight: number;
        }) =>
          element.scrollWidth <= element.clientWidth + 1 &&
          element.scrollHeight <= element.clientHeight + 1,
      );
    assert.ok(fits, `the verdict runs past the box: ${verdict}`);
    await page.screenshot({
      path: path.join(screenshotsDir, 'add-lab-check-connection-verdict.png'),
    });
    // The full report opened behind the box.
    await page
      .locator('.tabs-container .tab', { hasText: `Check Connection - ${host}` })
      .first()
      .waitFor({ state: 'visible', timeout: 10_000 });
    await quickInput.close(page);
  });
});
