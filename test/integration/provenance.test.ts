import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { MockLabServer } from '../mock/server';
import { pickExportChoice } from '../../src/commands/exportFormats';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  eventually,
  rows,
  workspaceFolder,
  signedInLab,
  type SignedInLab,
} from './helpers';

/** An RFC 4180 reader, written apart from the exporter so the two cannot share a mistake. */
function parseCsv(text: string, separator = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === separator) {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else {
      field += c;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap((hover) =>
      hover.contents.map((content) =>
        typeof content === 'string' ? content : 'value' in content ? content.value : '',
      ),
    )
    .join('\n');
}

describe('report ids in code, deep links, verified provenance and list export', () => {
  let api: LabDataExtensionApi;
  let lab: MockLabServer;
  let labName: string;
  let signedIn: SignedInLab;
  let restorePrompts: () => void;
  const prompts = new FakePrompts();
  const folder = (): string => path.join(workspaceFolder(), 'lab-reports');

  before(async () => {
    // The mock's whole report set, for the figures the closing note gives.
    signedIn = await signedInLab();
    ({ api, lab } = signedIn);
    restorePrompts = api.setPrompts(prompts);
    labName = signedIn.name;
    // Loading the views teaches the extension what this lab's ids look like.
    await api.views.reports.getChildren(undefined);
    await api.views.samples.getChildren(undefined);
  });

  after(async () => {
    restorePrompts();
    await fs.rm(folder(), { recursive: true, force: true });
    await fs.rm(path.join(workspaceFolder(), 'lab-exports'), { recursive: true, force: true });
    await signedIn.close();
  });

  it('hovers over a report id in a Python file show its type and date; a second hover asks nothing; the document link exists', async () => {
    // Beyond the first page, so the hover must ask the lab; one with a file, so the card offers Preview.
    const report = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .slice(90)
      .find((candidate) => candidate.download_available)!;
    const document = await vscode.workspace.openTextDocument({
      language: 'python',
      content: `import pandas as pd\ncoa = pd.read_csv("lab-reports/${report.report_id}.csv")  # certificate ${report.report_id}\n`,
    });
    const column = document.lineAt(1).text.lastIndexOf(report.report_id) + 3;
    lab.takeRequests();
    const first = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      document.uri,
      new vscode.Position(1, column),
    );
    const text = hoverText(first);
    assert.match(text, new RegExp(report.report_type.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.match(
      text,
      new RegExp(new Date(report.published_at).getFullYear().toString()),
      'an absolute date',
    );
    const order = ['previewReport', 'saveReportPdf', 'openReportMetadata', 'copyLink'].map(
      (command) => text.indexOf(`command:labData.${command}?`),
    );
    assert.ok(
      order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!)),
      `the card offers Preview, then Save PDF, Open Metadata and the copy actions (${order.join(', ')})`,
    );
    assert.deepEqual(
      lab.takeRequests().map((r) => r.path),
      [`/api/v1/reports/${report.report_id}`],
      'one request',
    );
    await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      document.uri,
      new vscode.Position(1, column),
    );
    assert.deepEqual(lab.takeRequests(), [], 'the second hover made no request');
    const none = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      document.uri,
      new vscode.Position(0, 3),
    );
    assert.ok(!hoverText(none).includes('Report'), 'no card over text that is not an id');
    assert.deepEqual(lab.takeRequests(), [], 'and no request');

    const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>(
      'vscode.executeLinkProvider',
      document.uri,
    );
    const ours = links.filter((link) => document.getText(link.range) === report.report_id);
    assert.equal(ours.length, 2, 'both mentions are links');
    assert.match(
      decodeURIComponent(ours[0]!.target!.toString()),
      new RegExp(`labData\\.previewReport.*${report.report_id}`),
      'an id in code opens the report, as a click in the tree does',
    );
  });

  it("a report's metadata document is no dead end: its title bar previews and saves that report", async () => {
    // Away from the reports the verification tests below save; a one-page one.
    const report = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter(
        (candidate) =>
          candidate.download_available && candidate.report_id !== lab.multiPageReportId,
      )[12]!;
    const uri = await vscode.commands.executeCommand<vscode.Uri>(
      'labData.openReportMetadata',
      report.report_id,
    );
    const menus =
      (
        vscode.extensions.getExtension('lab-data.lab-data')!.packageJSON as {
          contributes: {
            menus: Record<string, Array<{ command: string; when?: string; group?: string }>>;
          };
        }
      ).contributes.menus['editor/title'] ?? [];
    // VS Code hands the manifest back with its when-clauses normalised (`resourceScheme == 'labdata'`).
    const titleBar = menus
      .filter((item) => /resourceScheme == '?labdata\b/.test(item.when ?? ''))
      .map((item) => [item.command, item.group]);
    assert.deepEqual(titleBar, [
      ['labData.previewReport', 'navigation@1'],
      ['labData.saveReportPdf', 'navigation@2'],
    ]);
    // What VS Code passes a title-bar button: the document's address.
    assert.deepEqual(await vscode.commands.executeCommand('labData.previewReport', uri), {
      pages: 1,
    });
    assert.equal(
      vscode.window.tabGroups.activeTabGroup.activeTab?.label,
      `${report.report_id} (preview)`,
    );
    const saved = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', uri);
    assert.equal(path.basename(saved.fsPath), `${report.report_id}.pdf`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await fs.rm(folder(), { recursive: true, force: true });
  });

  it("a report's row says whether it is saved, verified after Verify, and changed after its file is edited: its accessible label and its icon", async () => {
    const report = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter((candidate) => candidate.download_available)[6]!;
    const row = async (): Promise<vscode.TreeItem> => {
      const found = (await rows(api, 'reports')).find(
        (candidate) => candidate.node.ref?.id === report.report_id,
      );
      assert.ok(found, `a row of ${report.report_id} on the first page`);
      return found.item;
    };
    const spoken = (item: vscode.TreeItem): string => item.accessibilityInformation?.label ?? '';
    const icon = (item: vscode.TreeItem): string => (item.iconPath as vscode.ThemeIcon).id;
    try {
      const before = await row();
      assert.doesNotMatch(spoken(before), /\bsaved\b/, 'not saved yet');
      assert.equal(icon(before), 'file-pdf');
      const saved = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', {
        lab: labName,
        id: report.report_id,
        ifExists: 'overwrite',
      });
      await eventually(async () => {
        const item = await row();
        assert.match(spoken(item), new RegExp(`^Report ${report.report_id}, saved, `));
        assert.doesNotMatch(spoken(item), /verified|changed/);
        assert.equal(icon(item), 'pass');
      });
      // The Clients view's row of it (under its client and project) says the same.
      const byId = (list: Awaited<ReturnType<typeof rows>>, id: string) => {
        const found = list.find((candidate) => candidate.node.ref?.id === id);
        assert.ok(found, `${id} among ${list.map((candidate) => candidate.label).join(', ')}`);
        return found;
      };
      const client = byId(await rows(api, 'clients'), report.client_id);
      const project = byId(await rows(api, 'clients', client.node), report.project_id);
      assert.match(
        spoken(byId(await rows(api, 'clients', project.node), report.report_id).item),
        new RegExp(`^Report ${report.report_id}, saved, `),
      );
      await vscode.commands.executeCommand('labData.verifySavedReports');
      await eventually(async () => {
        const item = await row();
        assert.match(spoken(item), new RegExp(`^Report ${report.report_id}, saved, verified, `));
        assert.equal(icon(item), 'verified-filled');
      });
      await fs.writeFile(saved.fsPath, 'annotated by hand');
      await eventually(async () => {
        const item = await row();
        assert.match(
          spoken(item),
          new RegExp(`^Report ${report.report_id}, saved, changed since it was saved, `),
        );
        assert.doesNotMatch(spoken(item), /verified/);
        assert.equal(icon(item), 'diff-modified');
      });
    } finally {
      await fs.rm(folder(), { recursive: true, force: true });
    }
    // The folder gone, the row no longer says saved.
    await eventually(async () => assert.doesNotMatch(spoken(await row()), /\bsaved\b/));
  });

  it('the rows are redrawn when a report of theirs is saved, not when a folder with none of theirs is first read (a redraw replaces the rows, and a click on one meanwhile is lost)', async () => {
    let redraws = 0;
    const counting = api.views.reports.onDidChangeTreeData!(() => redraws++);
    const elsewhere = path.join(workspaceFolder(), 'elsewhere-reports');
    const report = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter((candidate) => candidate.download_available)[7]!;
    try {
      await api.views.reports.getChildren(undefined);
      // Another lab's saved report, in a folder Lab Data has not read before.
      const bytes = Buffer.from('%PDF-1.4 another lab\n');
      const file = path.join(elsewhere, 'RPT-ELSEWHERE-1.pdf');
      await fs.mkdir(elsewhere, { recursive: true });
      await fs.writeFile(file, bytes);
      const entry = {
        bytes: bytes.length,
        file: 'RPT-ELSEWHERE-1.pdf',
        sha256: createHash('sha256').update(bytes).digest('hex'),
        revision: '1',
      };
      await fs.writeFile(
        path.join(elsewhere, 'lab-data-sync.json'),
        `${JSON.stringify({ labs: { 'https://elsewhere.example': { name: 'Elsewhere', reports: { 'RPT-ELSEWHERE-1': entry } } }, version: 3 }, null, 2)}\n`,
      );
      // Read once its file has an Explorer decoration.
      await eventually(() => assert.ok(api.savedFiles.decoration(vscode.Uri.file(file))), 30_000);
      assert.equal(redraws, 0, 'no row of this lab changed, so none was redrawn');
      await vscode.commands.executeCommand('labData.saveReportPdf', {
        lab: labName,
        id: report.report_id,
        ifExists: 'overwrite',
      });
      await eventually(() => assert.ok(redraws > 0, "the saved report's row was redrawn"), 30_000);
    } finally {
      counting.dispose();
      await fs.rm(elsewhere, { recursive: true, force: true });
      await fs.rm(folder(), { recursive: true, force: true });
    }
  });

  it('hovering over 20 different ids twice costs at most one request per id', async () => {
    const ids = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .slice(60, 80)
      .map((r) => r.report_id);
    const document = await vscode.workspace.openTextDocument({
      language: 'markdown',
      content: ids.join('\n'),
    });
    lab.takeRequests();
    const before = api.idLookups();
    for (let round = 0; round < 2; round++) {
      for (let line = 0; line < ids.length; line++) {
        // Hovers draw on a budget of a few requests a second: pace them as a person would.
        await vscode.commands.executeCommand(
          'vscode.executeHoverProvider',
          document.uri,
          new vscode.Position(line, 2),
        );
        await new Promise((resolve) => setTimeout(resolve, round === 0 ? 260 : 0));
      }
    }
    const requests = lab.takeRequests().length;
    console.log(
      `      hovering over 20 ids twice: ${requests} requests (${api.idLookups() - before} lookups)`,
    );
    assert.ok(requests <= 20, `${requests} requests`);
  });

  it('a deep link opens the report, or a sample, and never contacts a lab you are not signed in to', async () => {
    const report = lab.reportsFor(LEAK_CHECK_TOKEN)[5]!;
    const opened = await api.openLink(
      vscode.Uri.parse(
        `${vscode.env.uriScheme}://lab-data.lab-data/report?id=${encodeURIComponent(report.report_id)}&lab=${encodeURIComponent(labName)}`,
      ),
    );
    assert.ok(opened);
    assert.equal(
      JSON.parse((await vscode.workspace.openTextDocument(opened)).getText()).report_id,
      report.report_id,
    );
    const sample = lab.data.samples[3]!;
    const sampleDoc = await api.openLink(
      vscode.Uri.parse(
        `${vscode.env.uriScheme}://lab-data.lab-data/sample?id=${sample.sample_id}&lab=${encodeURIComponent(labName)}`,
      ),
    );
    assert.ok(sampleDoc);
    assert.equal(
      JSON.parse((await vscode.workspace.openTextDocument(sampleDoc)).getText()).sample_id,
      sample.sample_id,
    );
    lab.takeRequests();
    assert.equal(
      await api.openLink(
        vscode.Uri.parse(
          `${vscode.env.uriScheme}://lab-data.lab-data/report?id=${report.report_id}&lab=Elsewhere`,
        ),
      ),
      undefined,
    );
    assert.deepEqual(lab.takeRequests(), []);
    const copied = await vscode.commands.executeCommand<string>('labData.copyMarkdownLink', {
      lab: labName,
      id: report.report_id,
    });
    assert.equal(await vscode.env.clipboard.readText(), copied);
    assert.match(
      copied,
      new RegExp(
        `^\\[${report.report_id}\\]\\(.+://lab-data\\.lab-data/report\\?id=${report.report_id}&lab=`,
      ),
    );
  });

  it('verify: ok for untouched files, changedLocally, changedAtLab after the lab amends, missing after a delete', async () => {
    const ids = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter((r) => r.download_available)
      .slice(0, 5)
      .map((r) => r.report_id);
    const uris = await vscode.commands.executeCommand<vscode.Uri[]>('labData.saveReportPdf', {
      lab: labName,
      ids,
      ifExists: 'overwrite',
    });
    assert.equal(uris.length, 5);
    const manifestUri = vscode.Uri.file(path.join(folder(), 'lab-data-sync.json'));
    const manifest = JSON.parse(await fs.readFile(manifestUri.fsPath, 'utf8'));
    const origin = new URL(lab.baseUrl).origin;
    const entry = manifest.labs[origin].reports[ids[0]!];
    assert.equal(
      entry.status,
      lab.reportsFor(LEAK_CHECK_TOKEN).find((r) => r.report_id === ids[0])!.status,
    );
    assert.equal(manifest.labs[origin].name, labName);
    assert.ok(entry.sha256 && entry.bytes > 0 && entry.published_at);
    // When it was saved is this machine's state, beside the manifest.
    const state = JSON.parse(
      await fs.readFile(path.join(folder(), '.lab-data', 'state.json'), 'utf8'),
    );
    assert.ok(state.labs[origin].files[ids[0]!].saved_at);
    assert.ok(!JSON.stringify(manifest).includes(LEAK_CHECK_TOKEN));

    await fs.writeFile(path.join(folder(), `${ids[1]}.pdf`), 'annotated');
    await fs.rm(path.join(folder(), `${ids[2]}.pdf`));
    const amended = lab.data.reports.find((r) => r.report_id === ids[3])!;
    const original = { status: amended.status, published_at: amended.published_at };
    amended.status = 'amended';
    amended.published_at = new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    lab.dataChanged();
    try {
      const started = Date.now();
      const result = await vscode.commands.executeCommand<{
        ok: string[];
        changedLocally: string[];
        changedAtLab: string[];
        missing: string[];
        unavailable: string[];
        checked: string[];
      }>('labData.verifySavedReports');
      console.log(`      verify: ${result.checked.length} files in ${Date.now() - started} ms`);
      assert.deepEqual(result.ok.sort(), [ids[0]!, ids[4]!].sort());
      assert.deepEqual(result.changedLocally, [ids[1]]);
      assert.deepEqual(result.missing, [ids[2]]);
      assert.deepEqual(result.changedAtLab, [ids[3]]);
      assert.deepEqual(result.unavailable, []);
      const problems = vscode.languages.getDiagnostics(manifestUri);
      assert.equal(problems.length, 3);
      assert.ok(
        problems.some(
          (problem) => problem.message.includes(ids[3]!) && problem.message.includes('amended'),
        ),
      );
      const document = await vscode.workspace.openTextDocument(manifestUri);
      const problem = problems.find((candidate) => candidate.message.includes(ids[3]!))!;
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        document.uri,
        problem.range,
      );
      assert.ok(actions.some((action) => action.command?.command === 'labData.compareSavedReport'));
      assert.ok(
        actions.some((action) => action.command?.command === 'labData.redownloadSavedReport'),
      );
      // "Download again" on the missing file: its problem and badge go at once, the others stay.
      const missing = problems.find((candidate) => candidate.message.includes(ids[2]!))!;
      const again = (
        await vscode.commands.executeCommand<vscode.CodeAction[]>(
          'vscode.executeCodeActionProvider',
          document.uri,
          missing.range,
        )
      ).find((action) => action.command?.command === 'labData.redownloadSavedReport')!;
      await vscode.commands.executeCommand(
        again.command!.command,
        ...(again.command!.arguments ?? []),
      );
      const left = vscode.languages.getDiagnostics(manifestUri);
      assert.equal(left.length, 2, left.map((each) => each.message).join('\n'));
      assert.ok(
        !left.some((each) => each.message.includes(ids[2]!)),
        "the missing file's problem disappeared at once",
      );
    } finally {
      Object.assign(amended, original);
      lab.dataChanged();
    }

    // The mock's whole report set: save everything, then verify it all.
    const all = await vscode.commands.executeCommand<{ saved: number; upToDate: number }>(
      'labData.saveAllReports',
      { ifExists: 'overwrite' },
    );
    const started = Date.now();
    const whole = await vscode.commands.executeCommand<{ ok: string[]; checked: string[] }>(
      'labData.verifySavedReports',
    );
    console.log(
      `      verify the whole report set: ${whole.checked.length} files in ${Date.now() - started} ms`,
    );
    // Files identical to the lab's (the manifest's SHA-256) are left alone, even with ifExists: overwrite.
    assert.ok(all.upToDate > 0, 'the files saved before and untouched were up to date');
    assert.equal(whole.checked.length, all.saved + all.upToDate);
    assert.equal(whole.ok.length, whole.checked.length, 'everything saved again is unchanged');
    assert.deepEqual(vscode.languages.getDiagnostics(manifestUri), [], 'no problems left');
  });

  it('exports the reports as CSV, one row per visible report, that parses back, lists as one cell and names beside ids; and as JSON Lines', async () => {
    const started = Date.now();
    const csv = await vscode.commands.executeCommand<{ uri: vscode.Uri; rows: number }>(
      'labData.exportList',
      { list: 'reports', format: 'csv' },
    );
    console.log(`      export: ${csv.rows} reports in ${Date.now() - started} ms`);
    const visible = lab.reportsFor(LEAK_CHECK_TOKEN);
    assert.equal(csv.rows, visible.length);
    assert.ok(csv.uri instanceof vscode.Uri);
    assert.match(csv.uri.fsPath, /lab-exports[\\/]reports-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = parseCsv(await fs.readFile(csv.uri.fsPath, 'utf8'));
    const [header, ...records] = rows;
    assert.equal(records.length, visible.length);
    const idColumn = header!.indexOf('report_id');
    const samplesColumn = header!.indexOf('sample_ids');
    assert.deepEqual(
      records.map((row) => row[idColumn]),
      visible.map((r) => r.report_id),
    );
    assert.equal(
      records[0]![samplesColumn],
      visible[0]!.sample_ids.join('; '),
      'a list of sample ids is one readable cell',
    );
    // Client and project names stand right beside their ids.
    for (const kind of ['client', 'project'] as const) {
      const idColumn = header!.indexOf(`${kind}_id`);
      assert.equal(header![idColumn + 1], `${kind}_name`);
      const names = new Map<string, string>(
        (kind === 'client'
          ? lab.data.clients.map((c) => [c.client_id, c.name])
          : lab.data.projects.map((p) => [p.project_id, p.name])) as Array<[string, string]>,
      );
      assert.deepEqual(
        records.map((row) => row[idColumn + 1]),
        visible.map((r) => names.get(kind === 'client' ? r.client_id : r.project_id) ?? ''),
      );
    }
    assert.ok(
      records.every((row) => row[header!.indexOf('client_name')] !== ''),
      'every client has its name',
    );
    // A lab that cannot list its projects (here a 400) still gets its CSV, with the ids and no project names.
    lab.setFaults({ status: { status: 400, times: Infinity, path: /\/projects$/ } });
    try {
      const withoutNames = await vscode.commands.executeCommand<{ uri: vscode.Uri; rows: number }>(
        'labData.exportList',
        { list: 'reports', format: 'csv', target: 'lab-exports/no-names.csv' },
      );
      assert.equal(withoutNames.rows, visible.length, 'the export is not lost to the names');
      const [plainHeader] = parseCsv(await fs.readFile(withoutNames.uri.fsPath, 'utf8'));
      assert.ok(
        plainHeader!.includes('report_id') && !plainHeader!.includes('project_name'),
        plainHeader!.join(','),
      );
    } finally {
      lab.setFaults({});
    }
    const jsonl = await vscode.commands.executeCommand<{ uri: vscode.Uri; rows: number }>(
      'labData.exportList',
      { list: 'samples', format: 'jsonl', filter: { receivedSince: '2000-01-01' } },
    );
    const lines = (await fs.readFile(jsonl.uri.fsPath, 'utf8')).trim().split('\n');
    assert.equal(lines.length, jsonl.rows);
    assert.ok(JSON.parse(lines[0]!).sample_id);
    // The Reports view's report-type filter (applied by Lab Data, not the lab) holds for its export too.
    await vscode.commands.executeCommand('labData.filterReports', { reportType: 'QC Summary' });
    try {
      const typed = await vscode.commands.executeCommand<{ uri: vscode.Uri; rows: number }>(
        'labData.exportList',
        { list: 'reports', format: 'jsonl', target: 'lab-exports/qc.jsonl' },
      );
      const qc = visible.filter((r) => r.report_type === 'QC Summary');
      assert.ok(qc.length > 0);
      assert.equal(typed.rows, qc.length);
      const exported = (await fs.readFile(typed.uri.fsPath, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { report_id: string; report_type: string });
      assert.deepEqual(
        exported.map((r) => r.report_id),
        qc.map((r) => r.report_id),
      );
    } finally {
      await vscode.commands.executeCommand('labData.clearReportsFilter');
    }
    const leftovers = (await fs.readdir(path.join(workspaceFolder(), 'lab-exports'))).filter(
      (name) => name.endsWith('.part'),
    );
    assert.deepEqual(leftovers, []);
  });

  it('exports the CSV for spreadsheets in German (BOM, ";", decimal comma) beside the standard CSV, and says which is which', async () => {
    const standard = await vscode.commands.executeCommand<{ uri: vscode.Uri; format: string }>(
      'labData.exportList',
      { list: 'samples', format: 'csv', target: 'lab-exports/samples-standard.csv' },
    );
    const german = await vscode.commands.executeCommand<{
      uri: vscode.Uri;
      rows: number;
      format: string;
    }>('labData.exportList', {
      list: 'samples',
      format: 'spreadsheet-csv',
      locale: 'de',
      target: 'lab-exports/samples-de.csv',
    });
    assert.equal(standard.format, 'csv');
    assert.equal(german.format, 'spreadsheet-csv');
    const standardText = await fs.readFile(standard.uri.fsPath, 'utf8');
    const germanText = await fs.readFile(german.uri.fsPath, 'utf8');
    assert.ok(germanText.startsWith('\uFEFF'), 'a BOM, so spreadsheets read it as UTF-8');
    assert.ok(!standardText.startsWith('\uFEFF'), 'no BOM in the standard CSV');
    const [columns, ...rows] = parseCsv(germanText.slice(1), ';');
    assert.ok(columns!.includes('temperature_c'), `columns split at ";": ${columns!.join('|')}`);
    const temperature = columns!.indexOf('temperature_c');
    const values = rows.map((row) => row[temperature]!);
    assert.ok(
      values.some((value) => /^\d+,\d+$/.test(value)),
      `decimal commas: ${values.slice(0, 5).join(' ')}`,
    );
    assert.deepEqual(
      values.filter((value) => value.includes('.')),
      [],
      'no decimal point in the German CSV',
    );
    const [standardHeader, ...standardRows] = parseCsv(standardText);
    const standardTemperature = standardHeader!.indexOf('temperature_c');
    assert.deepEqual(
      values.slice(0, 20),
      standardRows.slice(0, 20).map((row) => row[standardTemperature]!.replace('.', ',')),
      'the same values, written for the locale',
    );

    // A person in a decimal-comma language is asked which CSV, each saying what it is for; in English, not.
    const offered = prompts.pickOneOffered.length;
    prompts.pickOneAnswers.push(undefined);
    assert.equal(await pickExportChoice(prompts, 'de'), undefined, 'Escape cancels');
    const asked = prompts.pickOneOffered[offered]!;
    assert.equal(asked.current, 'spreadsheet-csv', 'the spreadsheet CSV is highlighted');
    assert.deepEqual(
      asked.choices.map((choice) => [choice.id, choice.label, choice.description]),
      [
        ['spreadsheet-csv', 'CSV for spreadsheets in Deutsch', 'separator ";", decimal mark ","'],
        ['csv', 'Standard CSV', 'separator ",", decimal mark "."'],
        ['jsonl', 'JSON Lines', undefined],
      ],
    );
    prompts.pickOneAnswers.push('csv');
    assert.equal(await pickExportChoice(prompts, 'fr'), 'csv');
    assert.match(prompts.pickOneOffered.at(-1)!.choices[0]!.label, /français/);
    const before = prompts.pickOneOffered.length;
    assert.equal(await pickExportChoice(prompts, 'en'), 'dialog');
    assert.equal(prompts.pickOneOffered.length, before, 'nothing asked in English');
  });

  it('an export from a script never replaces a file: the taken target gets a numbered name, and the first file is kept', async () => {
    const args = { list: 'clients', format: 'csv', target: 'lab-exports/clients.csv' };
    const first = await vscode.commands.executeCommand<{ uri: vscode.Uri; rows: number }>(
      'labData.exportList',
      args,
    );
    assert.equal(path.basename(first.uri.fsPath), 'clients.csv');
    await fs.writeFile(first.uri.fsPath, 'kept by hand\r\n');
    const asked = prompts.saveAsked.length;
    const second = await vscode.commands.executeCommand<{ uri: vscode.Uri; rows: number }>(
      'labData.exportList',
      args,
    );
    assert.equal(
      path.basename(second.uri.fsPath),
      'clients (1).csv',
      'the Uri written is returned',
    );
    assert.equal(
      await fs.readFile(first.uri.fsPath, 'utf8'),
      'kept by hand\r\n',
      'the existing file is untouched',
    );
    assert.equal(parseCsv(await fs.readFile(second.uri.fsPath, 'utf8')).length, second.rows + 1);
    assert.equal(prompts.saveAsked.length, asked, 'a script is asked nothing');
  });

  it('the save dialog of Export starts in a folder that is there (made now, without a question); a cancelled export leaves no empty folder behind', async () => {
    const exports = path.join(workspaceFolder(), 'lab-exports');
    await fs.rm(exports, { recursive: true, force: true });
    const seen: boolean[] = [];
    const saveFile = prompts.saveFile.bind(prompts);
    prompts.saveFile = async (title, defaultUri, filters) => {
      seen.push(
        await fs.stat(path.dirname(defaultUri.fsPath)).then(
          (stats) => stats.isDirectory(),
          () => false,
        ),
      );
      return saveFile(title, defaultUri, filters);
    };
    try {
      prompts.saveAnswers.push(undefined);
      assert.equal(await vscode.commands.executeCommand('labData.exportClients'), undefined);
      assert.deepEqual(seen, [true], 'the dialog opened in a folder that exists');
      assert.equal(existsSync(exports), false, 'cancelled: the folder made for it is gone');
      const written = await vscode.commands.executeCommand<{ uri: vscode.Uri }>(
        'labData.exportClients',
      );
      assert.deepEqual(seen, [true, true]);
      assert.equal(path.dirname(written.uri.fsPath), exports);
    } finally {
      prompts.saveFile = saveFile;
    }
  });

  it("from a view's toolbar: that view's list and filter, a save dialog on a dated name not yet taken, and the filter said", async () => {
    const date = new Date().toISOString().slice(0, 10);
    const exports = path.join(workspaceFolder(), 'lab-exports');
    await fs.mkdir(exports, { recursive: true });
    await fs.writeFile(path.join(exports, `reports-${date}.csv`), 'an earlier export\r\n');
    await vscode.commands.executeCommand('labData.filterReports', { status: 'amended' });
    try {
      const offered = prompts.pickOneOffered.length;
      const result = await vscode.commands.executeCommand<{
        uri: vscode.Uri;
        rows: number;
        filter?: string;
      }>('labData.exportReports');
      assert.equal(
        prompts.pickOneOffered.length,
        offered,
        'neither the list nor the format was asked',
      );
      const dialog = prompts.saveAsked.at(-1)!;
      assert.equal(
        path.basename(dialog.defaultUri.fsPath),
        `reports-${date} (1).csv`,
        'the dialog starts on a dated name that is not taken',
      );
      assert.match(dialog.title, /^Export reports of .+ \(filtered: status Amended\)$/);
      assert.deepEqual(Object.values(dialog.filters).flat().sort(), ['csv', 'jsonl']);
      assert.equal(
        await fs.readFile(path.join(exports, `reports-${date}.csv`), 'utf8'),
        'an earlier export\r\n',
        'the earlier export is untouched',
      );
      const amended = lab
        .reportsFor(LEAK_CHECK_TOKEN)
        .filter((report) => report.status === 'amended');
      assert.equal(result.rows, amended.length, "the Reports view's filter holds");
      assert.equal(result.filter, 'status Amended', 'and the closing message says so');

      // The type chosen in the dialog is the format; a cancelled dialog writes nothing.
      prompts.saveAnswers.push(vscode.Uri.file(path.join(exports, 'amended.jsonl')));
      const jsonl = await vscode.commands.executeCommand<{ uri: vscode.Uri; rows: number }>(
        'labData.exportReports',
      );
      assert.equal(
        JSON.parse((await fs.readFile(jsonl.uri.fsPath, 'utf8')).split('\n')[0]!).status,
        'amended',
      );
      prompts.saveAnswers.push(undefined);
      const before = await fs.readdir(exports);
      assert.equal(await vscode.commands.executeCommand('labData.exportSamples'), undefined);
      assert.deepEqual(await fs.readdir(exports), before);
      assert.match(
        path.basename(prompts.saveAsked.at(-1)!.defaultUri.fsPath),
        /^samples-/,
        "the Samples view's button exports samples",
      );
    } finally {
      await vscode.commands.executeCommand('labData.clearReportsFilter');
    }
  });

  it('report ids in an exported CSV are not links (they would underline every row), but their hover still works', async () => {
    const csv = await vscode.commands.executeCommand<{ uri: vscode.Uri }>('labData.exportList', {
      list: 'reports',
      format: 'csv',
      target: 'lab-exports/links.csv',
    });
    const document = await vscode.workspace.openTextDocument(csv.uri);
    const id = lab.reportsFor(LEAK_CHECK_TOKEN)[0]!.report_id;
    assert.ok(document.getText().includes(id));
    const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>(
      'vscode.executeLinkProvider',
      document.uri,
    );
    assert.deepEqual(
      links.filter((link) => /labData\./.test(decodeURIComponent(link.target?.toString() ?? ''))),
      [],
      'no report or sample id is a link',
    );
    const line = document
      .getText()
      .split(/\r?\n/)
      .findIndex((text) => text.startsWith(id));
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      document.uri,
      new vscode.Position(line, 2),
    );
    assert.match(
      hoverText(hovers),
      /command:labData\.openReportMetadata/,
      'the hover card still offers the report',
    );
    // The same ids in code are still links.
    const code = await vscode.workspace.openTextDocument({
      language: 'python',
      content: `report = "${id}"\n`,
    });
    assert.equal(
      (
        await vscode.commands.executeCommand<vscode.DocumentLink[]>(
          'vscode.executeLinkProvider',
          code.uri,
        )
      ).length,
      1,
    );
  });
});
