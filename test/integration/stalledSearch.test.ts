import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BulkSummary } from '../../src/commands/saveAllReports';
import { readManifest, sectionFor } from '../../core/sync/manifest';
import type { LabDataExtensionApi } from '../../src/api';
import { answerTimeoutMs } from '../../core/connection/httpClient';
import { MockLabServer, type MockFaults } from '../mock/server';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  activateExtension,
  eventually,
  signIn,
  workspaceFolder,
  onlyTheseLabs,
  oneAnswerTimeoutDeadline,
} from './helpers';

/** The PDFs under `folder`, at any depth (a folder per lab or not). */
async function pdfsUnder(folder: string): Promise<string[]> {
  const entries = await fs.readdir(folder, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((entry) => entry.endsWith('.pdf')).map((entry) => path.join(folder, entry));
}

/** The answer timeout the extension runs with (LAB_DATA_ANSWER_TIMEOUT, from the test host's environment). */
const answerMs = answerTimeoutMs();
/** What an action a person waits for may take on a lab that stalls: one answer timeout, never two. */
const deadlineMs = oneAnswerTimeoutDeadline(answerMs);

const STALLS: ReadonlyArray<{ readonly name: string; readonly faults: MockFaults }> = [
  { name: 'a silent lab', faults: { hangHeaders: { times: Infinity } } },
  { name: 'a lab that sends its headers, then nothing', faults: { hangBody: { times: Infinity } } },
];

describe('A stalled lab beside a healthy one: Search and Find across labs never wait on the slowest, each action a person waits for settles within one answer timeout and says why', function () {
  this.timeout(120_000);
  let api: LabDataExtensionApi;
  let healthy: MockLabServer;
  let stalled: MockLabServer;
  let prompts: FakePrompts;
  let restorePrompts: () => void;
  /** Puts back the settings as they were before this suite made its two labs the only ones. */
  let restoreLabs: () => Promise<void>;

  before(async () => {
    api = await activateExtension();
    healthy = new MockLabServer({ reports: 12, tokens: { [LEAK_CHECK_TOKEN]: { label: 'h' } } });
    stalled = new MockLabServer({ reports: 24, tokens: { [LEAK_CHECK_TOKEN]: { label: 's' } } });
    await healthy.start();
    await stalled.start();
    restoreLabs = await onlyTheseLabs([
      // The stalled lab first: the healthy one must not wait behind it.
      { name: 'Stalled', baseUrl: stalled.baseUrl },
      { name: 'Healthy', baseUrl: healthy.baseUrl },
    ]);
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => lab.name),
        ['Stalled', 'Healthy'],
      ),
    );
    assert.notEqual(await signIn(stalled.baseUrl, LEAK_CHECK_TOKEN, 'Stalled'), undefined);
    assert.notEqual(await signIn(healthy.baseUrl, LEAK_CHECK_TOKEN, 'Healthy'), undefined);
  });

  beforeEach(() => {
    prompts = new FakePrompts();
    restorePrompts = api.setPrompts(prompts);
  });

  afterEach(async () => {
    restorePrompts();
    stalled.setFaults({});
    // One complete answer from the lab: it is no longer known to be down, so the next test asks it
    // afresh. While its breaker cools down it fails at once: asked again each second, not more.
    const until = Date.now() + 60_000;
    for (;;) {
      const answered = await vscode.commands.executeCommand<{ ids: string[] } | undefined>(
        'labData.searchReports',
        { lab: 'Stalled' },
      );
      if (answered?.ids.length === stalled.reportsFor(LEAK_CHECK_TOKEN).length) {
        break;
      }
      assert.ok(Date.now() < until, 'the stalled lab answers again once it is mended');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  });

  after(async () => {
    await fs.rm(path.join(workspaceFolder(), 'lab-reports'), { recursive: true, force: true });
    await restoreLabs();
    await healthy.stop();
    await stalled.stop();
  });

  for (const stall of STALLS) {
    it(`Search Reports from the palette with ${stall.name}: every signed-in lab searched, the healthy lab's results first and well within the deadline, the stalled lab named`, async () => {
      stalled.setFaults(stall.faults);
      prompts.criteriaAnswers = [[]];
      prompts.choose = (choices) => choices.map((_, index) => index);
      prompts.pickOneAnswers = ['copyId'];
      const started = Date.now();
      const result = await vscode.commands.executeCommand<{ ids: string[] } | undefined>(
        'labData.searchReports',
      );
      const took = Date.now() - started;
      assert.ok(took < deadlineMs, `Search took ${took} ms; the deadline is ${deadlineMs} ms`);
      const streamed = prompts.streamed!;
      assert.match(streamed.title, /^Lab Data: Search Reports in Stalled, Healthy$/);
      const results = streamed.parts.filter((part) => part.choices);
      assert.ok(results.length > 0, 'results came');
      const notes = streamed.parts.filter((part) => part.note);
      assert.equal(notes.length, 1, JSON.stringify(notes));
      // Not waited for: the healthy lab's results came before the stalled lab was given up on (at
      // its answer timeout), whatever a busy machine adds to both.
      assert.ok(
        results[0]!.at < notes[0]!.at,
        `the healthy lab's first results came after ${results[0]!.at} ms, the stalled lab's note after ${notes[0]!.at} ms`,
      );
      assert.equal(notes[0]!.source, 'Stalled');
      assert.equal(notes[0]!.note, `Stalled did not answer in ${Math.round(answerMs / 1000)} s`);
      assert.ok(notes[0]!.at < deadlineMs, `the stalled lab was named after ${notes[0]!.at} ms`);
      const healthyIds = healthy.reportsFor(LEAK_CHECK_TOKEN).map((report) => report.report_id);
      assert.deepEqual(
        streamed.parts.flatMap((part) => part.choices ?? []).map((choice) => choice.id),
        healthyIds,
      );
      assert.ok(
        streamed.parts
          .flatMap((part) => part.choices ?? [])
          .every((choice) => choice.description?.startsWith('Healthy · ')),
        'each result names its lab',
      );
      assert.deepEqual(result?.ids, healthyIds);
      assert.equal(await vscode.env.clipboard.readText(), healthyIds.join('\n'));
    });

    it(`Find Report by id with ${stall.name}: the healthy lab's report comes without waiting for the stalled one`, async () => {
      stalled.setFaults(stall.faults);
      const id = healthy.data.reports[0]!.report_id;
      const started = Date.now();
      const found = await vscode.commands.executeCommand<
        { report: { report_id: string } } | undefined
      >('labData.findReport', { id, action: 'copyId' });
      const took = Date.now() - started;
      assert.equal(found?.report.report_id, id);
      // Waiting for the stalled lab would take at least its answer timeout.
      assert.ok(
        took < answerMs,
        `Find took ${took} ms: it waited for the stalled lab (answer timeout ${answerMs} ms)`,
      );
    });
  }

  it("Search Reports from a lab's row searches that lab alone, and its title says so", async () => {
    stalled.setFaults({ hangHeaders: { times: Infinity } });
    const roots = (await api.views.reports.getChildren()) ?? [];
    const row = roots.find(
      (node) => (node as { labName?: string }).labName === 'Healthy',
    ) as unknown;
    assert.ok(row, 'the Healthy lab has a row');
    prompts.criteriaAnswers = [[]];
    prompts.choose = () => [];
    const started = Date.now();
    // A context-menu click: VS Code passes the clicked row and the selection.
    await vscode.commands.executeCommand('labData.searchReports', row, [row]);
    // Had the silent lab been asked too, the search would have ended only at its answer timeout.
    const took = Date.now() - started;
    assert.ok(took < answerMs, `took ${took} ms (answer timeout ${answerMs} ms)`);
    assert.deepEqual(
      prompts.streamed!.parts.filter((part) => part.note),
      [],
      'no other lab is named',
    );
    assert.match(prompts.streamed!.title, /^Lab Data: Search Reports in Healthy$/);
    assert.equal(
      prompts.streamed!.parts.flatMap((part) => part.choices ?? []).length,
      healthy.reportsFor(LEAK_CHECK_TOKEN).length,
    );
  });

  it('Search Reports with a title-bar row selected still searches every lab (never silently the selected row’s lab only)', async () => {
    const roots = (await api.views.reports.getChildren()) ?? [];
    const row = roots.find((node) => (node as { labName?: string }).labName === 'Healthy');
    prompts.criteriaAnswers = [[]];
    prompts.choose = () => [];
    await vscode.commands.executeCommand('labData.searchReports', row);
    assert.match(prompts.streamed!.title, /^Lab Data: Search Reports in Stalled, Healthy$/);
    assert.equal(
      prompts.streamed!.parts.flatMap((part) => part.choices ?? []).length,
      healthy.reportsFor(LEAK_CHECK_TOKEN).length + stalled.reportsFor(LEAK_CHECK_TOKEN).length,
    );
  });

  it('Save All on a lab that stalls while it runs: the files already saved stay saved and recorded in the manifest, and the progress says each retry', async function () {
    this.timeout(240_000);
    const root = path.join(workspaceFolder(), 'lab-reports');
    await fs.rm(root, { recursive: true, force: true });
    // Slow answers, so the run is still going when the lab stops answering.
    stalled.setFaults({ latencyMs: 300 });
    const running = vscode.commands.executeCommand<BulkSummary | undefined>(
      'labData.saveAllReports',
      { lab: 'Stalled', ifExists: 'overwrite' },
    );
    await eventually(async () => assert.ok((await pdfsUnder(root)).length >= 2), 60_000);
    stalled.setFaults({ hangHeaders: { times: Infinity } });
    const summary = await running;
    assert.ok(summary, 'the run ended with a summary');
    assert.ok(summary.saved >= 2, `saved ${summary.saved}`);
    assert.ok(summary.failed > 0, 'the files the lab did not send failed');
    assert.equal(summary.cancelled, false);
    const onDisk = await pdfsUnder(root);
    for (const uri of summary.uris) {
      assert.ok(onDisk.includes(uri.fsPath), `${uri.fsPath} stayed saved`);
    }
    const recorded = Object.keys(
      sectionFor(await readManifest(summary.folder), {
        name: 'Stalled',
        origin: new URL(stalled.baseUrl).origin,
      }).files,
    );
    for (const uri of summary.uris) {
      const id = path.basename(uri.fsPath, '.pdf');
      assert.ok(recorded.includes(id), `${id} is recorded in the manifest`);
    }
    const progress = api.progressShown().filter((shown) => shown.title.includes('Stalled'));
    assert.ok(
      progress.some((shown) =>
        shown.messages.some((message) =>
          /^Stalled did not answer; trying again \(1 of 3\)…$/.test(message),
        ),
      ),
      `a retry is said in the progress: ${JSON.stringify(progress)}`,
    );
  });

  /** The progress of work whose title or messages name `lab`, started since `since`. */
  function progressNaming(
    lab: string,
    since: number,
  ): ReturnType<LabDataExtensionApi['progressShown']> {
    return api
      .progressShown()
      .filter(
        (shown) =>
          shown.startedAt >= since &&
          [shown.title, ...shown.messages].some((text) => text.includes(lab)),
      );
  }

  /** The error notification shown since `before` (those shown then): names the lab and the cause, with Retry and Check Connection. */
  async function errorNamingTheLab(before: ShownErrors): Promise<string> {
    const shown = await eventually(() => {
      const errors = since(before);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      return errors[0]!;
    });
    assert.match(shown.message, /^Stalled: /, shown.message);
    assert.ok(shown.message.includes(new URL(stalled.baseUrl).origin), shown.message);
    assert.doesNotMatch(shown.message, /Something went wrong/);
    assert.deepEqual(shown.actions.slice(0, 2), ['Retry', 'Check Connection']);
    return shown.message;
  }

  /** Within this a person waiting must see something: the product schedules its progress sooner. */
  const PROGRESS_WITHIN_MS = 500;

  /**
   * The progress naming the lab was scheduled within half a second of the work's start (by the
   * product's own timer, not the wall clock: a busy host fires it late) and was shown while the lab's
   * answer was still awaited, not after the action had settled.
   */
  function assertProgressEarly(
    progress: ReturnType<LabDataExtensionApi['progressShown']>,
    settledAt: number,
  ): void {
    const all = JSON.stringify(api.progressShown().slice(-3));
    assert.ok(progress.length > 0, `progress named the lab: ${all}`);
    const first = progress[0]!;
    assert.ok(
      first.delayMs <= PROGRESS_WITHIN_MS,
      `the progress was scheduled ${first.delayMs} ms after the work started`,
    );
    assert.ok(first.shownAt !== undefined, `the progress was shown: ${all}`);
    assert.ok(
      first.shownAt <= settledAt,
      `the progress showed ${first.shownAt - first.startedAt} ms after the work started, which settled after ${settledAt - first.startedAt} ms`,
    );
  }

  type ShownErrors = ReturnType<LabDataExtensionApi['errorsShown']>;
  /** The error notifications shown after those in `before` (the list keeps the last 20 only, so not by index). */
  function since(before: ShownErrors): ShownErrors {
    return api.errorsShown().filter((shown) => !before.includes(shown));
  }

  for (const stall of STALLS) {
    const actions: ReadonlyArray<{ name: string; run: () => Thenable<unknown> }> = [
      {
        name: 'Preview',
        run: () =>
          vscode.commands.executeCommand('labData.previewReport', {
            lab: 'Stalled',
            id: stalled.reportsFor(LEAK_CHECK_TOKEN).find((r) => r.download_available)!.report_id,
          }),
      },
      {
        name: 'Open Metadata',
        run: () =>
          vscode.commands.executeCommand('labData.openReportMetadata', {
            lab: 'Stalled',
            id: stalled.reportsFor(LEAK_CHECK_TOKEN)[2]!.report_id,
          }),
      },
      {
        name: 'Sign In',
        run: () => signIn(stalled.baseUrl, LEAK_CHECK_TOKEN, 'Stalled'),
      },
    ];
    for (const action of actions) {
      it(`${action.name} with ${stall.name}: progress naming the lab within 0.5 s, settled within one answer timeout, the message naming the lab and the cause with Retry and Check Connection`, async () => {
        stalled.setFaults(stall.faults);
        const before = api.errorsShown();
        const started = Date.now();
        // A preview that fails has said why; its rejection is for the caller.
        await Promise.resolve(action.run()).catch(() => undefined);
        const took = Date.now() - started;
        assert.ok(
          took < deadlineMs,
          `${action.name} took ${took} ms; the deadline is ${deadlineMs} ms`,
        );
        const message = await errorNamingTheLab(before);
        assert.match(message, /sent nothing|nothing for|did not answer|timed out/, message);
        assertProgressEarly(progressNaming('Stalled', started), started + took);
      });
    }

    it(`Refresh with ${stall.name}: progress naming the lab within 0.5 s, settled within one answer timeout`, async () => {
      const roots = (await api.views.reports.getChildren()) ?? [];
      for (const node of roots) {
        await api.views.reports.getChildren(node);
      }
      stalled.setFaults(stall.faults);
      const started = Date.now();
      await vscode.commands.executeCommand('labData.refresh');
      const took = Date.now() - started;
      assert.ok(took < deadlineMs, `Refresh took ${took} ms; the deadline is ${deadlineMs} ms`);
      assertProgressEarly(progressNaming('Stalled', started), started + took);
    });
  }

  it('a lab known unreachable never flips healthy on headers alone: its row stays "unreachable" while a refresh gets headers and no body', async () => {
    const labRow = async (): Promise<string> => {
      const roots = (await api.views.reports.getChildren()) ?? [];
      for (const node of roots) {
        const item = await api.views.reports.getTreeItem(node);
        if (item.label === 'Stalled') {
          return String(item.description);
        }
      }
      throw new Error('no row for Stalled');
    };
    stalled.setFaults({ hangHeaders: { times: Infinity } });
    await vscode.commands.executeCommand('labData.refresh');
    await eventually(async () => assert.match(await labRow(), /^unreachable/));
    stalled.setFaults({ hangBody: { times: Infinity } });
    const seen = new Set<string>();
    let refreshing = true;
    const refreshed = Promise.resolve(vscode.commands.executeCommand('labData.refresh')).finally(
      () => (refreshing = false),
    );
    while (refreshing) {
      seen.add((await labRow()).split(' · ')[0]!);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await refreshed;
    seen.add((await labRow()).split(' · ')[0]!);
    assert.deepEqual([...seen], ['unreachable'], 'the row said only "unreachable"');
  });

  it('Open Metadata on a lab that asks to wait an hour (429, Retry-After: 3600): said at once, not waited', async () => {
    stalled.setFaults({ rateLimit: { times: 1, retryAfter: '3600' } });
    const before = api.errorsShown();
    const started = Date.now();
    await vscode.commands.executeCommand('labData.openReportMetadata', {
      lab: 'Stalled',
      id: stalled.reportsFor(LEAK_CHECK_TOKEN)[3]!.report_id,
    });
    const took = Date.now() - started;
    // A wait the product keeps is one answer timeout at most; an hour is said, not waited.
    assert.ok(
      took < answerMs,
      `took ${took} ms: the wait was waited (answer timeout ${answerMs} ms)`,
    );
    const shown = await eventually(() => since(before)[0]!);
    assert.match(shown.message, /^Stalled: /);
    assert.match(shown.message, /asks to wait 1 hour/, shown.message);
  });
});
