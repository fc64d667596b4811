import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { Timers } from '../../core/derived/newReports';
import { resolveSince } from '../../core/derived/savedSearches';
import type { LabNode } from '../../src/views/nodes';
import type { MockLabServer } from '../mock/server';
import {
  FakePrompts,
  activateExtension,
  eventually,
  rows as viewRows,
  signIn,
  signInOnly,
  signOutOfAll,
  startLab,
  workspaceFolder,
  type Row,
  signedInLab,
  type SignedInLab,
} from './helpers';

const rows = (api: LabDataExtensionApi, parent?: LabNode): Promise<Row[]> =>
  viewRows(api, 'reports', parent);

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('labData');
const reportRows = (list: Row[]): Row[] =>
  list.filter((row) => row.item.contextValue?.startsWith('labData.report'));
const isNewRow = (row: Row): boolean => String(row.item.description ?? '').startsWith('new ·');

/** The checker's clock in a test: one interval (the setting's) at a time, passed when the test says. */
class ManualClock implements Timers {
  private callback?: () => void;
  /** The interval the checker asked for, while it is checking. */
  intervalMs?: number;
  setInterval(callback: () => void, ms: number): unknown {
    this.callback = callback;
    this.intervalMs = ms;
    return this;
  }
  clearInterval(): void {
    this.callback = undefined;
    this.intervalMs = undefined;
  }
  /** One interval passes. */
  interval(): void {
    assert.ok(this.callback, 'the checker is checking');
    this.callback();
  }
}

describe('new since you last looked, and checking for new reports', () => {
  let api: LabDataExtensionApi;
  let lab: MockLabServer;
  let other: MockLabServer;

  before(async () => {
    api = await activateExtension();
    lab = await startLab({ reports: 90 });
    other = await startLab({ reports: 30, seed: 5 });
  });

  after(async () => {
    api.newReports.setCheckClock(undefined);
    api.newReports.setLookDelay(4000);
    await config().update(
      'checkForNewReportsMinutes',
      undefined,
      vscode.ConfigurationTarget.Global,
    );
    await signOutOfAll(api);
    await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await lab.stop();
    await other.stop();
  });

  it('after looking, a newly published report gives a badge of 1 and a "new" marker on its row; looking again clears it', async () => {
    await signInOnly(lab.baseUrl, 'demo-full-access');
    await eventually(async () =>
      assert.equal((await api.getState()).origin, new URL(lab.baseUrl).origin),
    );
    const name = (await api.getState()).labs[0]!.name;
    const first = reportRows(await rows(api));
    assert.ok(first.length > 0);
    assert.equal(first.filter(isNewRow).length, 0, 'a first run marks nothing as new');
    assert.equal(api.newReports.badge(), 0);
    const markBefore = api.newReports.markOf(name);
    assert.ok(markBefore, 'the lab got a starting mark');

    // Looking: the Reports view visible for the look delay.
    api.newReports.setLookDelay(300);
    await vscode.commands.executeCommand('labData.reports.focus');
    const published = lab.publishReport();
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await vscode.commands.executeCommand('labData.refresh');
    await eventually(() => assert.equal(api.newReports.badge(), 1));
    const after = reportRows(await rows(api));
    assert.equal(after[0]!.id, published.report_id);
    assert.ok(
      isNewRow(after[0]!),
      `the new report's row is marked: ${String(after[0]!.item.description)}`,
    );
    assert.deepEqual(
      after.filter(isNewRow).map((row) => row.id),
      [published.report_id],
      'only that row',
    );
    assert.match(String(after[0]!.item.accessibilityInformation?.label), /new/);
    assert.equal(api.newReports.count(name), 1);

    const looks = api.newReports.looks();
    await vscode.commands.executeCommand('labData.reports.focus');
    await eventually(() => assert.equal(api.newReports.looks(), looks + 1), 5000);
    await eventually(() => assert.equal(api.newReports.badge(), 0));
    assert.equal(
      api.newReports.markOf(name),
      published.published_at,
      'the mark moved to the newest report shown',
    );
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await vscode.commands.executeCommand('labData.refresh');
    assert.equal(
      reportRows(await rows(api)).filter(isNewRow).length,
      0,
      'after the next refresh no row is new',
    );

    // "Mark All as Seen" does the same without waiting.
    const second = lab.publishReport();
    await vscode.commands.executeCommand('labData.refresh');
    await eventually(() => assert.equal(api.newReports.badge(), 1));
    await vscode.commands.executeCommand('labData.markAllSeen');
    assert.equal(api.newReports.badge(), 0);
    assert.equal(api.newReports.markOf(name), second.published_at);
    assert.equal(reportRows(await rows(api)).filter(isNewRow).length, 0);
  });

  it('checks each signed-in lab exactly once per interval, none while signed out, and shows what arrived', async () => {
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update(
      'labs',
      [
        { name: 'Alpha', baseUrl: lab.baseUrl },
        { name: 'Omega', baseUrl: other.baseUrl },
      ],
      vscode.ConfigurationTarget.Global,
    );
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((state) => state.name),
        ['Alpha', 'Omega'],
      ),
    );
    await signIn(lab.baseUrl, 'demo-full-access', 'Alpha');
    await signIn(other.baseUrl, 'demo-full-access', 'Omega');
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((state) => state.signedIn),
        [true, true],
      ),
    );
    const checks = (server: MockLabServer): number =>
      server
        .takeRequests()
        .filter(
          (request) =>
            request.path.endsWith('/reports') &&
            request.query.published_since !== undefined &&
            request.query.page_size === '1',
        ).length;
    // The test is the checker's clock: the setting switches checking on, the clock says when an
    // interval has passed, and each round is let end before the next, so what each round asked is
    // known however busy the machine (a wall clock would let a slow check overlap the next round).
    const clock = new ManualClock();
    api.newReports.setCheckClock(clock);
    const run = async (rounds: number): Promise<number> => {
      checks(lab);
      checks(other);
      const before = api.newReports.checks();
      await config().update('checkForNewReportsMinutes', 15, vscode.ConfigurationTarget.Global);
      await eventually(() =>
        assert.equal(clock.intervalMs, 15 * 60_000, 'checking on, every 15 minutes'),
      );
      for (let round = 0; round < rounds; round++) {
        clock.interval();
        await api.newReports.settled();
      }
      await config().update('checkForNewReportsMinutes', 0, vscode.ConfigurationTarget.Global);
      await eventually(() => assert.equal(clock.intervalMs, undefined, 'checking off'));
      await api.newReports.settled();
      return api.newReports.checks() - before;
    };
    await config().update('checkForNewReportsMinutes', 0, vscode.ConfigurationTarget.Global);

    const ticks = await run(5);
    assert.equal(ticks, 5, 'one round per interval');
    assert.equal(checks(lab), 5, 'one request to Alpha per interval');
    assert.equal(checks(other), 5, 'one request to Omega per interval');

    // Never two in flight for one lab: a round that comes while a lab's check is still out skips it.
    checks(lab);
    checks(other);
    await config().update('checkForNewReportsMinutes', 15, vscode.ConfigurationTarget.Global);
    await eventually(() => assert.equal(clock.intervalMs, 15 * 60_000));
    clock.interval();
    clock.interval();
    await api.newReports.settled();
    await config().update('checkForNewReportsMinutes', 0, vscode.ConfigurationTarget.Global);
    await eventually(() => assert.equal(clock.intervalMs, undefined));
    assert.deepEqual([checks(lab), checks(other)], [1, 1], 'the second round found both in flight');

    await vscode.commands.executeCommand('labData.signOut', { lab: 'Omega' });
    await eventually(async () => assert.equal((await api.getState()).labs[1]!.signedIn, false));
    const ticksSignedOut = await run(3);
    assert.equal(ticksSignedOut, 3);
    assert.equal(checks(lab), 3, 'Alpha is still asked once per interval');
    assert.equal(checks(other), 0, 'no request to a signed-out lab');

    // A lab inside a rate-limit pause is not asked until the pause ends.
    lab.setFaults({ status: { status: 429, times: 1, retryAfter: '3600' } });
    const ticksLimited = await run(3);
    assert.equal(ticksLimited, 3);
    assert.equal(
      checks(lab),
      1,
      'the check answered 429 (retry in an hour) is the last one while the lab limits requests',
    );
    lab.setFaults({});
    await vscode.commands.executeCommand('labData.signOut', { lab: 'Alpha' });
    await signIn(lab.baseUrl, 'demo-full-access', 'Alpha');
    await eventually(async () => assert.equal((await api.getState()).labs[0]!.signedIn, true));

    // A report published meanwhile: the next check counts it and the badge shows it. First the
    // user sees Alpha's list (so everything published until now counts as seen).
    const alphaRow = (await rows(api)).find((row) => row.label === 'Alpha')!;
    assert.ok(reportRows(await rows(api, alphaRow.node)).length > 0);
    await vscode.commands.executeCommand('labData.markAllSeen');
    assert.equal(api.newReports.count('Alpha'), 0);
    lab.publishReport();
    lab.publishReport();
    await run(2);
    await eventually(() => assert.equal(api.newReports.count('Alpha'), 2));
    assert.equal(api.newReports.badge(), 2);
    await vscode.commands.executeCommand('labData.markAllSeen');
    assert.equal(api.newReports.badge(), 0);
  });

  it('with several labs, a saved search without a lab shows under each lab, one with a lab under that lab only', async () => {
    await signIn(other.baseUrl, 'demo-full-access', 'Omega');
    await config().update(
      'savedSearches',
      [
        { name: 'Everything amended', status: 'amended' },
        { name: 'Omega this month', lab: 'Omega', publishedSince: '-1m' },
      ],
      vscode.ConfigurationTarget.Global,
    );
    try {
      const labRows = await eventually(async () => {
        const found = await rows(api);
        assert.deepEqual(
          found.map((row) => row.label),
          ['Alpha', 'Omega'],
        );
        return found;
      });
      const foldersOf = async (row: Row): Promise<string[]> =>
        (await rows(api, row.node))
          .filter((child) => child.item.contextValue === 'labData.savedSearch')
          .map((child) => child.label);
      await eventually(async () =>
        assert.deepEqual(await foldersOf(labRows[0]!), ['Everything amended']),
      );
      assert.deepEqual(await foldersOf(labRows[1]!), ['Everything amended', 'Omega this month']);
    } finally {
      await config().update('savedSearches', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});

describe('saved searches', () => {
  let signedIn: SignedInLab;
  let api: LabDataExtensionApi;
  let lab: MockLabServer;
  const prompts = new FakePrompts();
  let restorePrompts: () => void;

  before(async () => {
    signedIn = await signedInLab({ reports: 150, token: 'demo-full-access' });
    ({ api, lab } = signedIn);
    restorePrompts = api.setPrompts(prompts);
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
  });

  after(async () => {
    restorePrompts();
    await config().update('savedSearches', undefined, vscode.ConfigurationTarget.Global);
    await fs.rm(path.join(workspaceFolder(), 'lab-reports'), { recursive: true, force: true });
    await fs.rm(path.join(workspaceFolder(), 'lab-exports'), { recursive: true, force: true });
    await signedIn.close();
  });

  it('shows saved searches as folders at the top, resolving relative dates at each refresh, with bad entries explained', async () => {
    await config().update(
      'savedSearches',
      [
        { name: 'Last week', publishedSince: '-7d' },
        { name: 'Amended', status: 'amended' },
        { name: 'Elsewhere', lab: 'Some Other Lab' },
        { name: 'Broken date', publishedSince: '-7 days' },
      ],
      vscode.ConfigurationTarget.Global,
    );
    const top = await eventually(async () => {
      const found = await rows(api);
      assert.ok(found.some((row) => row.label === 'Last week'));
      return found;
    });
    const folders = top.filter((row) => row.item.contextValue === 'labData.savedSearch');
    assert.deepEqual(
      folders.map((row) => row.label),
      ['Last week', 'Amended'],
      'a search for another lab is not shown',
    );
    assert.equal(top.indexOf(folders[0]!), 0, 'saved searches come first');
    assert.equal(folders[0]!.item.description, 'published since -7d');
    const broken = top.find((row) => row.label.includes('Broken date'));
    assert.ok(broken, 'the unusable entry has a row');
    assert.match(String(broken.item.tooltip), /-7 days/);

    lab.takeRequests();
    const started = new Date();
    const lastWeek = reportRows(await rows(api, folders[0]!.node));
    const ended = new Date();
    const request = lab
      .takeRequests()
      .find((candidate) => candidate.query.published_since !== undefined)!;
    // Seven days before the moment the folder was opened: between seven days before the test asked
    // and seven days before it had its rows, however long a busy machine took between the two.
    const asked = Date.parse(request.query.published_since!);
    assert.ok(
      asked >= Date.parse(resolveSince('-7d', started)) &&
        asked <= Date.parse(resolveSince('-7d', ended)),
      `published_since ${request.query.published_since} is seven days before ${started.toISOString()}–${ended.toISOString()}`,
    );
    const since = Date.parse(request.query.published_since!);
    const inWeek = lab
      .reportsFor('demo-full-access')
      .filter((report) => Date.parse(report.published_at) >= since);
    assert.deepEqual(
      lastWeek.map((row) => row.id),
      inWeek.slice(0, 50).map((report) => report.report_id),
    );

    const amended = reportRows(await rows(api, folders[1]!.node));
    assert.ok(amended.length > 0);
    assert.ok(amended.every((row) => String(row.item.description).includes('Amended')));

    // Save All from the folder's row saves exactly what the search lists.
    await fs.rm(path.join(workspaceFolder(), 'lab-reports'), { recursive: true, force: true });
    const summary = (await vscode.commands.executeCommand(
      'labData.saveAllReports',
      folders[1]!.node,
    )) as { saved: number; listed: number };
    const expectedAmended = lab
      .reportsFor('demo-full-access')
      .filter((report) => report.status === 'amended');
    assert.equal(summary.listed, expectedAmended.length);
    assert.equal(
      summary.saved,
      expectedAmended.filter((report) => report.download_available).length,
    );

    // Export from the folder's row exports the search's reports, asking only where (the save dialog), and says which search.
    const exported = (await vscode.commands.executeCommand(
      'labData.exportList',
      folders[1]!.node,
    )) as { rows: number; filter?: string };
    assert.equal(exported.rows, expectedAmended.length);
    assert.equal(exported.filter, 'saved search Amended');
    assert.match(prompts.saveAsked.at(-1)!.title, /\(filtered: saved search Amended\)$/);
  });

  it('"Save Current Filter as Search…" keeps the view\'s filter in the user settings', async () => {
    await vscode.commands.executeCommand('labData.filterReports', {
      status: 'published',
      publishedSince: '2026-01-01',
    });
    prompts.pickOneAnswers.push('-30d');
    prompts.textAnswers.push('Published lately');
    const row = (await rows(api)).find(
      (candidate) => candidate.item.contextValue === 'labData.savedSearch',
    );
    // From the toolbar (a selected row passed along): it asks for the date kind and the name.
    const saved = await vscode.commands.executeCommand('labData.saveFilterAsSearch', row!.node);
    assert.deepEqual(saved, {
      name: 'Published lately',
      publishedSince: '-30d',
      status: 'published',
    });
    assert.equal(prompts.textAsked.length, 1);
    const stored = config().inspect<unknown[]>('savedSearches')?.globalValue;
    assert.deepEqual(stored?.at(-1), {
      name: 'Published lately',
      publishedSince: '-30d',
      status: 'published',
    });
    await eventually(async () =>
      assert.ok((await rows(api)).some((candidate) => candidate.label === 'Published lately')),
    );

    // From automation: the filters given, with a relative date, and no question.
    const asked = prompts.textAsked.length;
    const automated = await vscode.commands.executeCommand('labData.saveFilterAsSearch', {
      name: 'Today',
      publishedSince: 'today',
    });
    assert.deepEqual(automated, { name: 'Today', publishedSince: 'today' });
    assert.equal(prompts.textAsked.length, asked);
    await vscode.commands.executeCommand('labData.clearReportsFilter');
  });
});
