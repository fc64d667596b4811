import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import { aggregateReports } from '../../core/derived/overview';
import { parseReport } from '../../core/api/records';
import type { DrawnOverview } from '../../src/overview/overviewPanels';
import { MockLabServer } from '../mock/server';
import { localTime } from '../../src/views/nodes';
import { eventually, signInOnly, signedInLab, type SignedInLab } from './helpers';

const TOKEN = 'demo-full-access';

describe('the lab overview', () => {
  let api: LabDataExtensionApi;
  let lab: MockLabServer;
  let name: string;
  let signedIn: SignedInLab;

  before(async () => {
    // The demo lab: 420 reports of which 380 are visible.
    const demo = new MockLabServer();
    await demo.start();
    signedIn = await signedInLab({ lab: demo, token: TOKEN });
    ({ api, lab, name } = signedIn);
  });

  after(async () => {
    // A bar click focuses the Reports view; the suites after this one expect it closed, as they left it.
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('labData.clearReportsFilter');
    await signedIn.close();
  });

  it('draws exactly what the aggregation of one listing counts, without a request per report', async () => {
    lab.takeRequests();
    const started = Date.now();
    const drawn = (await vscode.commands.executeCommand(
      'labData.showOverview',
      {},
    )) as DrawnOverview;
    console.log(
      `[overview] ${drawn.total} reports: command to drawn charts ${Date.now() - started} ms`,
    );
    const visible = lab.reportsFor(TOKEN);
    assert.equal(drawn.total, visible.length);
    assert.equal(drawn.charts, 3);
    const requests = lab.takeRequests();
    assert.ok(
      requests.every((request) => !/\/reports\/[^/]+$/.test(request.path)),
      'no request for a single report',
    );
    assert.ok(
      requests.length <= Math.ceil(visible.length / 100) + 2,
      `${requests.length} requests: the listing and the clients`,
    );

    const names = new Map(lab.data.clients.map((client) => [client.client_id, client.name]));
    const expected = aggregateReports(
      visible.map((report) => parseReport(report)!),
      { now: new Date(), clientNames: names },
    );
    const panel = api.overview(name)!;
    assert.deepEqual(
      panel.overview!.buckets.map((bucket) => [bucket.key, bucket.total]),
      expected.buckets.map((bucket) => [bucket.key, bucket.total]),
    );
    assert.deepEqual(
      drawn.time,
      Object.fromEntries(expected.buckets.map((bucket) => [bucket.key, bucket.total])),
      "the time chart drew every bucket with the aggregation's count",
    );
    assert.deepEqual(
      drawn.clients,
      Object.fromEntries(expected.byClient.slice(0, 25).map((row) => [row.label, row.count])),
    );
    assert.deepEqual(
      drawn.status,
      Object.fromEntries(expected.byStatus.map((row) => [row.label, row.count])),
    );
    assert.deepEqual(Object.keys(drawn.status).sort(), ['amended', 'published']);
    assert.equal(
      Object.values(drawn.time).reduce((sum, count) => sum + count, 0),
      visible.length,
    );

    // Long names are shortened on the axis, their ids kept whole ("Northfield Agronomy Coo… (C-1002)").
    const clientIds = expected.byClient.slice(0, 25).map((row) => row.key);
    assert.ok(drawn.axisLabels.clients.length > 0);
    drawn.axisLabels.clients.forEach((label) =>
      assert.ok(
        clientIds.some((id) => label.endsWith(`(${id})`)),
        `${label} shows its client id`,
      ),
    );
    assert.ok(
      drawn.axisLabels.clients.some((label) => label.includes('…')),
      'a long name was shortened',
    );
    // Dates read as the Reports view shows them: the time axis' steps and the latest reports' times.
    drawn.axisLabels.time.forEach((label) =>
      assert.doesNotMatch(label, /^\d{4}-(W?\d{2}|\d{2}-\d{2})$/, `${label} is not an ISO key`),
    );
    assert.deepEqual(
      drawn.shown.published,
      panel.overview!.latest.map((row) => localTime(row.publishedAt) ?? ''),
    );
    assert.deepEqual(drawn.shown, {
      ...drawn.shown,
      filter: `Not filtered: every report of ${name}`,
      clearFilter: false,
    });
  });

  it('counts whole reports on every count axis, even for a handful', async () => {
    // One client's amended reports: two projects with one report each, where a count axis would step by 0.5.
    const drawn = (await vscode.commands.executeCommand('labData.showOverview', {
      filter: { clientId: 'C-1005', status: 'amended' },
    })) as DrawnOverview;
    assert.ok(drawn.total > 0 && drawn.total < 5, `${drawn.total} reports`);
    for (const chart of ['time', 'clients', 'status'] as const) {
      assert.ok(drawn.ticks[chart].length > 1, `${chart} has a count axis`);
      assert.deepEqual(
        drawn.ticks[chart].filter((tick) => !Number.isInteger(tick)),
        [],
        `${chart}: ${drawn.ticks[chart].join(', ')}`,
      );
    }
  });

  it("Refresh charts the Reports view's filter as it is now, shows it, and Clear Filter drops it there and in the view", async () => {
    await vscode.commands.executeCommand('labData.clearReportsFilter');
    await vscode.commands.executeCommand('labData.showOverview', {});
    const panel = api.overview(name)!;
    await vscode.commands.executeCommand('labData.filterReports', { status: 'amended' });
    const refreshed = await panel.press('refresh');
    const amended = lab.reportsFor(TOKEN).filter((report) => report.status === 'amended');
    assert.equal(
      refreshed.total,
      amended.length,
      'Refresh used the filter set after the panel opened',
    );
    assert.equal(refreshed.shown.filter, 'Filtered by: status Amended');
    assert.equal(refreshed.shown.clearFilter, true);
    // The report type (which Lab Data applies itself) counts too.
    await vscode.commands.executeCommand('labData.filterReports', {
      status: 'amended',
      reportType: amended[0]!.report_type,
    });
    const typed = await panel.press('refresh');
    assert.equal(
      typed.total,
      amended.filter((report) => report.report_type === amended[0]!.report_type).length,
    );
    assert.match(typed.shown.filter, /^Filtered by: status Amended, type /);

    const cleared = await panel.press('clearFilter');
    assert.equal(cleared.total, lab.reportsFor(TOKEN).length);
    assert.equal(cleared.shown.clearFilter, false);
    assert.match(cleared.shown.filter, /^Not filtered/);
    const rows = await api.views.reports.getChildren();
    const first = await api.views.reports.getTreeItem(rows![0]!);
    assert.doesNotMatch(
      String(first.label),
      /^Filtered by/,
      "the Reports view's filter is cleared too",
    );
  });

  it("follows the Reports view's filter for its lab: a filter set or cleared in the view redraws the open overview with it", async () => {
    await vscode.commands.executeCommand('labData.clearReportsFilter');
    await vscode.commands.executeCommand('labData.showOverview', {});
    const panel = api.overview(name)!;
    assert.match(panel.lastDrawn!.shown.filter, /^Not filtered/);
    const amended = lab.reportsFor(TOKEN).filter((report) => report.status === 'amended');
    // Set in the view (as its Filter Reports does), not in the overview: no Refresh pressed.
    await vscode.commands.executeCommand('labData.filterReports', { lab: name, status: 'amended' });
    const followed = await eventually(() => {
      const drawn = panel.lastDrawn!;
      assert.equal(drawn.shown.filter, 'Filtered by: status Amended');
      return drawn;
    }, 30_000);
    assert.equal(followed.total, amended.length, 'the charts count the new filter');
    assert.equal(followed.shown.clearFilter, true);
    await vscode.commands.executeCommand('labData.clearReportsFilter', { lab: name });
    const cleared = await eventually(() => {
      const drawn = panel.lastDrawn!;
      assert.match(drawn.shown.filter, /^Not filtered/);
      return drawn;
    }, 30_000);
    assert.equal(cleared.total, lab.reportsFor(TOKEN).length);
  });

  it('clicking a bar charts that slice in the overview and filters the Reports view to it, each type keeping its colour', async () => {
    const panel = api.overview(name)!;
    const before = panel.lastDrawn!;
    assert.match(before.shown.filter, /^Not filtered/);
    const top = panel.overview!.byClient[0]!;
    const clientName = lab.data.clients.find((client) => client.client_id === top.key)!.name;
    const drawn = await panel.click('clients', 0);
    const ofClient = lab.reportsFor(TOKEN).filter((report) => report.client_id === top.key);
    assert.equal(drawn.total, ofClient.length, "the overview charts the client's reports");
    assert.equal(drawn.shown.filter, `Filtered by: client ${clientName} (${top.key})`);
    assert.equal(drawn.shown.clearFilter, true);
    await eventually(async () => {
      const rows = await api.views.reports.getChildren();
      const item = await api.views.reports.getTreeItem(rows![0]!);
      assert.equal(item.label, `Filtered by: client ${clientName} (${top.key})`);
    });
    // A type keeps its colour whatever the filter left beside it.
    assert.ok(Object.keys(drawn.typeColours).length > 0);
    for (const [type, colour] of Object.entries(drawn.typeColours)) {
      if (type !== 'Other' && before.typeColours[type] !== undefined) {
        assert.equal(colour, before.typeColours[type], `${type} keeps its colour`);
      }
    }
    const amended = panel.overview!.byStatus.findIndex((row) => row.key === 'amended');
    const narrowed = await panel.click('status', amended);
    assert.equal(
      narrowed.total,
      ofClient.filter((report) => report.status === 'amended').length,
      'a second click narrows the slice charted',
    );
    assert.deepEqual(Object.keys(narrowed.status), ['amended']);
    await eventually(async () => {
      const rows = await api.views.reports.getChildren();
      const item = await api.views.reports.getTreeItem(rows![0]!);
      assert.equal(item.label, `Filtered by: status Amended, client ${clientName} (${top.key})`);
    });
  });

  it("with a client chosen, charts that client's projects, and a click narrows to one project", async () => {
    const client = lab.data.clients[0]!.client_id;
    const drawn = (await vscode.commands.executeCommand('labData.showOverview', {
      filter: { clientId: client },
    })) as DrawnOverview;
    const ofClient = lab.reportsFor(TOKEN).filter((report) => report.client_id === client);
    assert.equal(drawn.total, ofClient.length);
    const names = new Map(lab.data.projects.map((project) => [project.project_id, project.name]));
    const expected = new Map<string, number>();
    ofClient.forEach((report) => {
      const label = names.get(report.project_id)
        ? `${names.get(report.project_id)} (${report.project_id})`
        : report.project_id;
      expected.set(label, (expected.get(label) ?? 0) + 1);
    });
    assert.deepEqual(
      drawn.clients,
      Object.fromEntries(expected),
      "the second chart counts the client's projects",
    );
    const panel = api.overview(name)!;
    const project = panel.overview!.byProject[0]!.key;
    const clientName = lab.data.clients[0]!.name;
    const projectName = names.get(project)!;
    const narrowed = await panel.click('clients', 0);
    assert.equal(
      narrowed.total,
      ofClient.filter((report) => report.project_id === project).length,
      'the overview charts the project clicked',
    );
    // Named with their ids, in the overview's filter line and the Reports view's.
    const line = `Filtered by: client ${clientName} (${client}), project ${projectName} (${project})`;
    assert.equal(narrowed.shown.filter, line);
    await eventually(async () => {
      const rows = await api.views.reports.getChildren();
      const item = await api.views.reports.getTreeItem(rows![0]!);
      assert.equal(item.label, line);
    });
  });

  it('charts the newest 20,000 of a bigger tenant and says so', async function () {
    this.timeout(180_000);
    const big = new MockLabServer({ reports: 22_500, samples: 100 });
    await big.start();
    try {
      await signInOnly(big.baseUrl, TOKEN);
      await eventually(async () =>
        assert.equal((await api.getState()).origin, new URL(big.baseUrl).origin),
      );
      const bigName = (await api.getState()).labs[0]!.name;
      // It calls itself as the suite's lab does, so it has that lab's name, and with it the Reports
      // view's filter a bar click above left for that name.
      assert.equal(bigName, name);
      await vscode.commands.executeCommand('labData.clearReportsFilter');
      const visible = big.reportsFor(TOKEN).length;
      assert.ok(visible > 20_000, `${visible} reports`);
      const started = Date.now();
      const drawn = (await vscode.commands.executeCommand(
        'labData.showOverview',
        {},
      )) as DrawnOverview;
      console.log(
        `[overview] ${drawn.total} of ${visible} reports: command to drawn charts ${Date.now() - started} ms`,
      );
      assert.equal(drawn.total, 20_000);
      assert.equal(
        Object.values(drawn.time).reduce((sum, count) => sum + count, 0),
        20_000,
      );
      assert.equal(api.overview(bigName)!.overview!.total, 20_000);
    } finally {
      await signInOnly(lab.baseUrl, TOKEN);
      await big.stop();
    }
  });
});
