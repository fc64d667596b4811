import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import { VsCodePrompts, validateIsoDate } from '../../src/ui/prompts';
import { toUtcTimestamp } from '../../core/api/query';
import type { MockLabServer } from '../mock/server';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  extensionPackageJson,
  signedInLab,
  type SignedInLab,
} from './helpers';

describe('command palette queries', () => {
  let lab: MockLabServer;
  let api: LabDataExtensionApi;
  let signedIn: SignedInLab;
  let prompts: FakePrompts;
  let restore: () => void;

  before(async () => {
    signedIn = await signedInLab();
    ({ api, lab } = signedIn);
    await vscode.commands.executeCommand('labData.clearReportsFilter');
  });

  beforeEach(() => {
    prompts = new FakePrompts();
    restore = api.setPrompts(prompts);
    lab.setFaults({});
  });

  afterEach(() => restore());

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await signedIn.close();
  });

  it('every command is in the "Lab Data" category; titles that ask end in "…"; tree-only commands are hidden', () => {
    const contributes = extensionPackageJson().contributes as unknown as {
      commands: Array<{ command: string; title: string; category: string }>;
      menus: { commandPalette: Array<{ command: string; when: string }> };
    };
    for (const command of contributes.commands) {
      assert.equal(command.category, 'Lab Data', command.command);
    }
    const asking = [
      'labData.signIn',
      'labData.filterReports',
      'labData.filterSamples',
      'labData.openReportMetadata',
      'labData.saveReportPdf',
      'labData.findReport',
      'labData.searchReports',
      'labData.listSamples',
      'labData.newAnalysisScript',
    ];
    for (const id of asking) {
      assert.ok(contributes.commands.find((c) => c.command === id)!.title.endsWith('…'), id);
    }
    const hidden = contributes.menus.commandPalette
      .filter((entry) => entry.when === 'false')
      .map((entry) => entry.command)
      .sort();
    // Export Reports/Clients/Samples are the views' own buttons; the palette has Export List…, which asks which list.
    // The Saved Reports view's row actions act on a row; the palette has Restore and Verify Saved Reports.
    // Open Both Revisions is the quick fix's and the CodeLens's action on one amended use.
    assert.deepEqual(hidden, [
      'labData.compareSavedReport',
      'labData.compareWithLab',
      'labData.copyId',
      'labData.copyLink',
      'labData.copyMarkdownLink',
      'labData.exportClients',
      'labData.exportReports',
      'labData.exportSamples',
      'labData.installMergeDriver',
      'labData.loadMore',
      'labData.openAmendedRevisions',
      'labData.previewSavedReport',
      'labData.redownloadSavedReport',
      'labData.resolveManifest',
      'labData.restoreSavedFolder',
      'labData.retry',
      'labData.revealSavedReport',
      'labData.saveSelectedReportPdfs',
      'labData.statusMenu',
      'labData.updateToLabRevision',
      'labData.verifySavedFolder',
    ]);
  });

  it('findReport with an id and an action needs no prompt', async () => {
    const report = lab.reportsFor(LEAK_CHECK_TOKEN)[4]!;
    const copied = await vscode.commands.executeCommand<{
      report: { report_id: string };
      result: string[];
    }>('labData.findReport', { id: report.report_id, action: 'copyId' });
    assert.equal(copied.report.report_id, report.report_id);
    assert.equal(await vscode.env.clipboard.readText(), report.report_id);
    const opened = await vscode.commands.executeCommand<{ result: vscode.Uri }>(
      'labData.findReport',
      { id: report.report_id, action: 'openMetadata' },
    );
    assert.ok(opened.result.path.endsWith(`${report.report_id}.json`));
    const revealed = await vscode.commands.executeCommand<{ result: boolean }>(
      'labData.findReport',
      { id: lab.reportsFor(LEAK_CHECK_TOKEN)[70]!.report_id, action: 'reveal' },
    );
    assert.equal(revealed.result, true, 'found on a later page of the Reports view and revealed');
  });

  it('findReport from the palette asks for the id, shows the summary and offers the actions', async () => {
    const report = lab.reportsFor(LEAK_CHECK_TOKEN)[1]!;
    prompts.reportIdAnswer = report.report_id;
    prompts.pickOneAnswers = ['copyId'];
    await vscode.commands.executeCommand('labData.findReport');
    const offered = prompts.pickOneOffered[0]!;
    assert.match(
      offered.title,
      new RegExp(`^${report.report_id}: ${report.report_type} · .+ · ${report.status}`),
    );
    assert.deepEqual(
      offered.choices.map((c) => c.id),
      ['preview', 'openMetadata', 'savePdf', 'copyId', 'reveal'],
    );
    assert.equal(await vscode.env.clipboard.readText(), report.report_id);
  });

  it("findReport's Preview PDF action opens the report in Lab Data's preview", async () => {
    const report = lab.reportsFor(LEAK_CHECK_TOKEN).find((r) => r.download_available)!;
    prompts.reportIdAnswer = report.report_id;
    prompts.pickOneAnswers = ['preview'];
    const found = await vscode.commands.executeCommand<{ action: string; result: unknown }>(
      'labData.findReport',
    );
    assert.equal(found.action, 'preview');
    assert.deepEqual(found.result, { pages: 1 }, 'page 1 of the PDF is on screen');
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.equal(tab?.label, `${report.report_id} (preview)`);
    assert.ok(tab?.input instanceof vscode.TabInputCustom);
    assert.equal(tab.input.viewType, 'labData.pdfPreview');
    const withoutFile = lab.reportsFor(LEAK_CHECK_TOKEN).find((r) => !r.download_available)!;
    prompts.reportIdAnswer = withoutFile.report_id;
    prompts.pickOneAnswers = ['preview'];
    assert.equal(
      await vscode.commands.executeCommand('labData.findReport'),
      undefined,
      'a report without a file has nothing to preview (the failure is shown, not thrown)',
    );
  });

  it('"Last 30 days" stays rolling: reopening the filter offers it as itself (current), not the date it gave today', async () => {
    const real = new VsCodePrompts();
    prompts.since = (title, verb, current) => real.since(title, verb, current);
    prompts.criteriaAnswers = [['published_since'], ['published_since']];
    const offered: string[][] = [];
    const window = vscode.window as { showQuickPick: (...args: unknown[]) => Thenable<unknown> };
    const original = window.showQuickPick;
    window.showQuickPick = (items: unknown) => {
      const list = items as Array<{ label: string; description?: string }>;
      offered.push(list.map((i) => `${i.label}${i.description ? ` (${i.description})` : ''}`));
      // First the preset; then Enter, which takes the first row.
      return Promise.resolve(
        offered.length === 1 ? list.find((i) => i.label === 'Last 30 days') : list[0],
      );
    };
    try {
      const now = new Date();
      const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 30);
      const set = await vscode.commands.executeCommand<{ publishedSince?: string }>(
        'labData.filterReports',
      );
      assert.equal(set.publishedSince, toUtcTimestamp(midnight), 'local midnight 30 days ago');
      const kept = await vscode.commands.executeCommand('labData.filterReports');
      assert.equal(offered[1]![0], 'Last 30 days (current)');
      assert.deepEqual(kept, set);
      const labels = await Promise.all(
        ((await api.views.reports.getChildren()) ?? []).map(
          async (node) => (await api.views.reports.getTreeItem(node)).label,
        ),
      );
      assert.ok(
        labels.includes('Filtered by: published in the last 30 days'),
        JSON.stringify(labels.slice(0, 3)),
      );
    } finally {
      window.showQuickPick = original;
      await vscode.commands.executeCommand('labData.clearReportsFilter');
    }
  });

  it("searchReports with a filter object returns exactly the server's filtered list", async () => {
    const result = await vscode.commands.executeCommand<{ ids: string[] }>(
      'labData.searchReports',
      { publishedSince: '2025-01-01', status: 'published', clientId: 'C-1002' },
    );
    const expected = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter(
        (r) =>
          r.published_at >= '2025-01-01T00:00:00Z' &&
          r.status === 'published' &&
          r.client_id === 'C-1002',
      );
    assert.ok(expected.length > 0);
    assert.deepEqual(
      result.ids,
      expected.map((r) => r.report_id),
    );
  });

  it('searchReports step by step streams the results page by page, then acts on the chosen ones in bulk', async () => {
    prompts.sinceAnswers = ['2025-06-01T00:00:00Z'];
    // Status: any; client C-1001; project: any; report type: any (the step Lab Data filters itself); then the action.
    prompts.pickOneAnswers = [null, 'C-1001', null, null, 'copyId'];
    prompts.choose = (choices) => choices.map((_, index) => index).slice(0, 3);
    const result = await vscode.commands.executeCommand<{ ids: string[]; action: string }>(
      'labData.searchReports',
    );
    const expected = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter((r) => r.published_at >= '2025-06-01T00:00:00Z' && r.client_id === 'C-1001');
    assert.deepEqual(
      prompts.streamedChoices.map((c) => c.id),
      expected.map((r) => r.report_id),
    );
    assert.equal(
      prompts.streamedPages.reduce((a, b) => a + b, 0),
      expected.length,
    );
    assert.deepEqual(
      prompts.pickOneOffered[1]!.choices.map((c) => c.id),
      lab.data.clients.map((c) => c.client_id),
      'clients come from the API',
    );
    assert.deepEqual(
      prompts.pickOneOffered[1]!.choices.map((c) => c.label),
      lab.data.clients.map((c) => c.name),
      'and are shown by name',
    );
    assert.match(prompts.pickOneOffered[3]!.title, /\(5\/5\)$/);
    assert.ok(
      prompts.pickOneOffered[3]!.choices.some((c) => c.id === 'Certificate of Analysis'),
      'report types seen at the lab are offered',
    );
    assert.deepEqual(
      result.ids,
      expected.slice(0, 3).map((r) => r.report_id),
    );
    assert.equal(await vscode.env.clipboard.readText(), result.ids.join('\n'));
  });

  it('rejects a bad ISO 8601 date with a clear message, as you type and as an argument', async () => {
    assert.equal(validateIsoDate('2024-05-01'), undefined);
    assert.equal(validateIsoDate('2024-05-01T08:00:00Z'), undefined);
    assert.match(validateIsoDate('yesterday')!, /is not an ISO 8601 date such as 2024-05-01/);
    assert.match(validateIsoDate('2024-02-30')!, /not a real date/);
    assert.match(validateIsoDate('2024-05-01T08:00')!, /no time zone/);
    lab.takeRequests();
    assert.equal(
      await vscode.commands.executeCommand('labData.searchReports', {
        publishedSince: 'last tuesday',
      }),
      undefined,
    );
    assert.equal(lab.takeRequests().length, 0, 'nothing was sent');
  });

  it("listSamples returns the server's received-since list, and opens the chosen sample", async () => {
    const result = await vscode.commands.executeCommand<{ ids: string[] }>('labData.listSamples', {
      receivedSince: '2026-09-01',
      pageSize: 100,
    });
    assert.deepEqual(
      result.ids,
      lab.data.samples
        .filter((s) => s.received_at >= '2026-09-01T00:00:00Z')
        .map((s) => s.sample_id),
    );
    prompts.sinceAnswers = ['2026-10-15T00:00:00Z'];
    prompts.choose = () => [2];
    const opened = await vscode.commands.executeCommand<{ opened: string }>('labData.listSamples');
    const expected = lab.data.samples.filter((s) => s.received_at >= '2026-10-15T00:00:00Z')[2]!;
    assert.equal(opened.opened, expected.sample_id);
    const editor = vscode.window.activeTextEditor!;
    assert.deepEqual(JSON.parse(editor.document.getText()), expected);
  });

  it('copies a support report of the last failure with every field and no token', async () => {
    // Only the search fails: a view's page loaded meanwhile must not become the last failure.
    lab.setFaults({ status: { status: 503, times: Infinity, query: /client_id=C-1001/ } });
    const failed = await vscode.commands.executeCommand('labData.searchReports', {
      publishedSince: '2025-01-01',
      clientId: 'C-1001',
    });
    assert.equal(failed, undefined);
    const failure = lab
      .takeRequests()
      .filter((request) => request.query.client_id === 'C-1001')
      .at(-1)!;
    lab.setFaults({});
    const text = await vscode.commands.executeCommand<string>('labData.copySupportReport');
    assert.equal(await vscode.env.clipboard.readText(), text);
    assert.match(
      text,
      /^Timestamp: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(UTC[+-]\d{2}:\d{2}\) \S+; \d{4}-\d{2}-\d{2}T/m,
    );
    assert.match(text, /^Endpoint: GET \/api\/v1\/reports$/m);
    assert.match(text, /^HTTP status: 503$/m);
    assert.match(text, new RegExp(`^Request ID: ${failure.requestId}$`, 'm'));
    assert.match(
      text,
      new RegExp(
        `^Tenant: ${signedIn.name} \\(${new URL(lab.baseUrl).host.replace(/\./g, '\\.')}\\)$`,
        'm',
      ),
    );
    // The VS Code it runs in, whichever test host that is (1.100.3 at the floor, 1.139.1 the newest).
    assert.match(
      text,
      new RegExp(
        `^Integration: Lab Data for VS Code \\d+\\.\\d+\\.\\d+ \\(VS Code ${vscode.version.replace(/\./g, '\\.')}\\)$`,
        'm',
      ),
    );
    assert.match(
      text,
      /^Request parameters: .*published_since=2025-01-01T00:00:00Z.*client_id=C-1001/m,
    );
    assert.match(text, /^Is a production workflow blocked\? \(yes\/no\):/m);
    assert.ok(!text.includes(LEAK_CHECK_TOKEN));
  });
});
