import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import { answerTimeoutMs } from '../../core/connection/httpClient';
import { MockLabServer, type MockFaults } from '../mock/server';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  activateExtension,
  errorsFromNow,
  eventually,
  onlyTheseLabs,
  signIn,
  oneAnswerTimeoutDeadline,
} from './helpers';

/** The answer timeout the extension runs with (LAB_DATA_ANSWER_TIMEOUT, from the test host's environment). */
const answerMs = answerTimeoutMs();
/** What an action a person waits for may take on a lab that stalls: one answer timeout, never two. */
const deadlineMs = oneAnswerTimeoutDeadline(answerMs);

/** The two ways a lab stalls: it accepts and never answers; it sends `200` headers and then nothing. */
const STALLS: ReadonlyArray<{ readonly name: string; readonly faults: MockFaults }> = [
  { name: 'a silent lab', faults: { hangHeaders: { times: Infinity } } },
  { name: 'a lab that sends its headers, then nothing', faults: { hangBody: { times: Infinity } } },
];

/** Runs `action` and says how long it took. */
async function timed<T>(
  action: () => Thenable<T> | Promise<T>,
): Promise<{ value: T; took: number }> {
  const started = Date.now();
  const value = await action();
  return { value, took: Date.now() - started };
}

describe('A lab that stalls: one deadline per action a person waits for, the cause named, the healthy lab first', function () {
  this.timeout(180_000);
  let api: LabDataExtensionApi;
  let healthy: MockLabServer;
  let stalled: MockLabServer;
  /** Puts back the settings as they were before this suite made its two labs the only ones. */
  let restoreLabs: () => Promise<void>;

  before(async () => {
    api = await activateExtension();
    healthy = new MockLabServer({
      reports: 12,
      tokens: { [LEAK_CHECK_TOKEN]: { label: 'healthy' } },
    });
    stalled = new MockLabServer({
      reports: 12,
      tokens: { [LEAK_CHECK_TOKEN]: { label: 'stalled' } },
    });
    await healthy.start();
    await stalled.start();
    restoreLabs = await onlyTheseLabs([
      { name: 'Healthy', baseUrl: healthy.baseUrl },
      { name: 'Stalled', baseUrl: stalled.baseUrl },
    ]);
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => lab.name),
        ['Healthy', 'Stalled'],
      ),
    );
    assert.notEqual(await signIn(healthy.baseUrl, LEAK_CHECK_TOKEN, 'Healthy'), undefined);
    assert.notEqual(await signIn(stalled.baseUrl, LEAK_CHECK_TOKEN, 'Stalled'), undefined);
  });

  afterEach(async () => {
    stalled.setFaults({});
    // One answer from the lab: it is no longer known to be down, so the next test asks it afresh.
    await vscode.commands.executeCommand('labData.checkConnection', { lab: 'Stalled' });
  });

  /** Shows each lab's reports in the Reports view (its rows are what Refresh asks for again). */
  async function loadLabRows(): Promise<void> {
    const provider = api.views.reports;
    const roots = (await provider.getChildren()) ?? [];
    for (const node of roots) {
      await provider.getChildren(node);
    }
  }

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await restoreLabs();
    await healthy.stop();
    await stalled.stop();
  });

  for (const stall of STALLS) {
    it(`Refresh with ${stall.name} settles within one answer timeout (no retries after a timeout)`, async () => {
      await loadLabRows();
      stalled.setFaults(stall.faults);
      stalled.takeRequests();
      const { took } = await timed(() => vscode.commands.executeCommand('labData.refresh'));
      assert.ok(took < deadlineMs, `Refresh took ${took} ms; the deadline is ${deadlineMs} ms`);
      const lists = new Set(stalled.takeRequests().map((request) => request.path));
      assert.ok(lists.size > 0, 'the stalled lab was asked');
    });

    it(`Open Metadata of a report of ${stall.name}: within one answer timeout, the document says why in place, and the message names the lab and the cause with Retry and Check Connection`, async () => {
      stalled.setFaults(stall.faults);
      const id = stalled.data.reports[0]!.report_id;
      const since = errorsFromNow(api);
      const { took } = await timed(() =>
        vscode.commands.executeCommand('labData.openReportMetadata', { lab: 'Stalled', id }),
      );
      assert.ok(
        took < deadlineMs,
        `Open Metadata took ${took} ms; the deadline is ${deadlineMs} ms`,
      );
      const shown = await eventually(() => {
        const errors = since();
        assert.equal(errors.length, 1, 'one error notification');
        return errors[0]!;
      });
      assert.match(shown.message, /^Stalled: /, `names the lab: ${shown.message}`);
      assert.ok(shown.message.includes(new URL(stalled.baseUrl).origin), shown.message);
      assert.doesNotMatch(shown.message, /Something went wrong/);
      assert.deepEqual(shown.actions.slice(0, 2), ['Retry', 'Check Connection']);
      const document = vscode.workspace.textDocuments.find(
        (doc) => doc.uri.scheme === 'labdata' && doc.uri.query.includes(`id=${id}`),
      );
      assert.ok(document, 'the document opened');
      const text = document.getText();
      assert.match(text, new RegExp(`could not fetch ${id} from Stalled`));
      assert.match(text, /try again/i);
    });
  }

  it('Search Reports of a lab that sends its headers, then nothing: within one answer timeout, the message naming the lab and the cause', async () => {
    stalled.setFaults({ hangBody: { times: Infinity } });
    const since = errorsFromNow(api);
    const { value, took } = await timed(() =>
      vscode.commands.executeCommand('labData.searchReports', { lab: 'Stalled' }),
    );
    assert.equal(value, undefined);
    assert.ok(took < deadlineMs, `Search took ${took} ms; the deadline is ${deadlineMs} ms`);
    const shown = await eventually(() => since()[0]!);
    assert.match(shown.message, /^Stalled: /, shown.message);
    assert.deepEqual(shown.actions.slice(0, 2), ['Retry', 'Check Connection']);
  });

  it('Open Metadata right after Refresh found the lab silent fails at once, naming the lab, with Retry', async () => {
    await loadLabRows();
    stalled.setFaults({ hangHeaders: { times: Infinity } });
    await vscode.commands.executeCommand('labData.refresh');
    const id = stalled.data.reports[1]!.report_id;
    const since = errorsFromNow(api);
    stalled.takeRequests();
    const { took } = await timed(() =>
      vscode.commands.executeCommand('labData.openReportMetadata', { lab: 'Stalled', id }),
    );
    // Not asked again (a count, not a time): a request to the silent lab would wait its answer timeout.
    assert.deepEqual(
      stalled
        .takeRequests()
        .filter((request) => request.path.includes(id))
        .map((request) => request.path),
      [],
      'the lab known silent was not asked for the report',
    );
    assert.ok(took < answerMs, `took ${took} ms: the lab was asked again and waited for`);
    const shown = await eventually(() => since()[0]!);
    assert.match(shown.message, /^Stalled: /, shown.message);
    assert.equal(shown.actions[0], 'Retry');
  });

  it('Find Report by id across a healthy and a silent lab: the healthy lab’s report comes without waiting for the silent one, whose name is said', async () => {
    stalled.setFaults({ hangHeaders: { times: Infinity } });
    const id = healthy.data.reports[0]!.report_id;
    const { value, took } = await timed(() =>
      vscode.commands.executeCommand<{ report: { report_id: string } } | undefined>(
        'labData.findReport',
        { id, action: 'copyId' },
      ),
    );
    assert.equal(value?.report.report_id, id);
    // Waiting for the silent lab would take at least its answer timeout.
    assert.ok(
      took < answerMs,
      `Find took ${took} ms: it waited for the silent lab (answer timeout ${answerMs} ms)`,
    );
  });

  it('Check Connection of every lab opens with one line per lab, the failing lab first, within one answer timeout', async () => {
    stalled.setFaults({ hangHeaders: { times: Infinity } });
    const { value, took } = await timed(() =>
      vscode.commands.executeCommand<string>('labData.checkConnection'),
    );
    assert.ok(
      took < deadlineMs,
      `Check Connection took ${took} ms; the deadline is ${deadlineMs} ms`,
    );
    const lines = value.split('\n');
    assert.match(
      lines[2]!,
      new RegExp(`^✗ Stalled \\(${stalled.baseUrl.replace(/[.]/g, '\\.')}\\): `),
    );
    assert.match(lines[3]!, /^✓ Healthy \(/);
  });

  it('Add Lab…: Check Connection in the token box says its verdict in the box, within one answer timeout', async () => {
    const prompts = new FakePrompts();
    const restore = api.setPrompts(prompts);
    const newLab = new MockLabServer({ reports: 3, tokens: { 'new-token': { label: 'new' } } });
    await newLab.start();
    newLab.setFaults({ hangHeaders: { times: Infinity } });
    try {
      prompts.textAnswers = [newLab.baseUrl];
      prompts.pickOneAnswers = ['standard'];
      prompts.tokenAnswers = [FakePrompts.CHECK_CONNECTION];
      const { value, took } = await timed(() => vscode.commands.executeCommand('labData.addLab'));
      assert.equal(value, undefined);
      assert.ok(took < deadlineMs, `took ${took} ms; the deadline is ${deadlineMs} ms`);
      assert.equal(prompts.tokenVerdicts.length, 1);
      assert.match(
        prompts.tokenVerdicts[0]!,
        /accepted the connection but sent no answer.*Next: /,
        prompts.tokenVerdicts[0],
      );
    } finally {
      restore();
      await newLab.stop();
    }
  });
});
