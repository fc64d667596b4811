import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { BulkSummary } from '../../src/commands/saveAllReports';
import type { SyncSummary } from '../../src/commands/syncReports';
import type { LabNode } from '../../src/views/nodes';
import type { MockLabServer } from '../mock/server';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  errorsFromNow,
  eventually,
  extensionPackageJson,
  listing,
  ownNameOf,
  workspaceFolder,
  signedInLab,
  type SignedInLab,
} from './helpers';

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

describe('saving report PDFs into the workspace, bulk save and sync', () => {
  let lab: MockLabServer;
  let api: LabDataExtensionApi;
  let signedIn: SignedInLab;
  let restore: () => void;
  let prompts: FakePrompts;
  let folder: string;

  const downloadable = (): string[] =>
    lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter((r) => r.download_available)
      .map((r) => r.report_id);

  before(async () => {
    signedIn = await signedInLab({ reports: 420 });
    ({ api, lab } = signedIn);
    folder = path.join(workspaceFolder(), 'lab-reports');
  });

  beforeEach(async () => {
    prompts = new FakePrompts();
    restore = api.setPrompts(prompts);
    await fs.rm(folder, { recursive: true, force: true });
    lab.setFaults({});
    lab.takeRequests();
  });

  afterEach(() => restore());

  after(async () => {
    await vscode.workspace
      .getConfiguration('labData', vscode.workspace.workspaceFolders![0]!.uri)
      .update('fileNameTemplate', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
    await fs.rm(folder, { recursive: true, force: true });
    await fs.rm(path.join(workspaceFolder(), '.vscode'), { recursive: true, force: true });
    await signedIn.close();
  });

  it("saves a report by id into <workspace>/lab-reports: bytes and SHA-256 equal the server's, returns its Uri", async () => {
    const id = downloadable()[0]!;
    const uri = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', id);
    assert.ok(uri instanceof vscode.Uri);
    assert.equal(uri.fsPath, path.join(folder, `${id}.pdf`));
    const written = await fs.readFile(uri.fsPath);
    assert.equal(sha256(written), sha256(lab.pdfFor(id)));
    assert.deepEqual(
      await listing(folder),
      ['.lab-data', `${id}.pdf`, 'lab-data-sync.json'],
      'the PDF, the manifest that records its provenance, and this machine’s (git-ignored) state',
    );
  });

  it("saving a file already there with the lab's bytes says it is up to date, offers Open and Reveal, and returns that file", async () => {
    const id = downloadable()[1]!;
    const first = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', id);
    const before = await fs.stat(first.fsPath);
    lab.takeRequests();
    const shown: Array<{ message: string; actions: unknown[] }> = [];
    const window = vscode.window as {
      showInformationMessage: (...args: unknown[]) => Thenable<unknown>;
    };
    const original = window.showInformationMessage;
    window.showInformationMessage = (message: unknown, ...actions: unknown[]) => {
      shown.push({ message: String(message), actions });
      return Promise.resolve(undefined);
    };
    let again: vscode.Uri | undefined;
    try {
      again = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', id);
    } finally {
      window.showInformationMessage = original;
    }
    assert.ok(
      again instanceof vscode.Uri,
      'the contract returns the file, saved now or already there',
    );
    assert.equal(again.fsPath, first.fsPath);
    assert.equal((await fs.stat(first.fsPath)).mtimeMs, before.mtimeMs, 'not written again');
    assert.deepEqual(
      lab.takeRequests().filter((request) => request.path.endsWith('/file')),
      [],
      'not downloaded again',
    );
    assert.deepEqual(
      shown.map((each) => [each.message, each.actions]),
      [[`${id} is up to date in lab-reports/.`, ['Open', 'Reveal in Explorer']]],
    );
  });

  it('saves several selected tree items and returns a Uri[]', async () => {
    const provider = api.views.reports;
    const nodes = ((await provider.getChildren()) ?? []) as LabNode[];
    const items = await Promise.all(
      nodes.map(async (node) => ({ node, item: await provider.getTreeItem(node) })),
    );
    const selected = items
      .filter((i) => i.item.contextValue === 'labData.report.downloadable')
      .slice(0, 3)
      .map((i) => i.node);
    const uris = await vscode.commands.executeCommand<vscode.Uri[]>(
      'labData.saveReportPdf',
      selected[0],
      selected,
    );
    assert.equal(uris.length, 3);
    for (const uri of uris) {
      const id = path.basename(uri.fsPath, '.pdf');
      assert.equal(sha256(await fs.readFile(uri.fsPath)), sha256(lab.pdfFor(id)));
    }
  });

  it('a report row\'s context menu says "Save Report PDF…" for one row and "Save Selected Report PDFs…" for several, which saves them all', async () => {
    const contributes = extensionPackageJson().contributes as unknown as {
      commands: Array<{ command: string; title: string }>;
      menus: Record<string, Array<{ command: string; when?: string; group?: string }>>;
    };
    // The host gives package.json with its titles already put in from package.nls.json.
    const titleOf = (command: string): string =>
      contributes.commands.find((c) => c.command === command)!.title;
    /** The save entries of a downloadable report row's context menu (not its inline buttons). */
    const saveEntries = (multiSelection: boolean): string[] =>
      contributes.menus['view/item/context']!.filter(
        (entry) =>
          entry.group?.startsWith('2_save') &&
          entry.when?.includes('viewItem == labData.report.downloadable') &&
          (entry.when.includes('!listMultiSelection')
            ? !multiSelection
            : entry.when.includes('listMultiSelection')
              ? multiSelection
              : true),
      ).map((entry) => titleOf(entry.command));
    assert.deepEqual(saveEntries(false), ['Save Report PDF…']);
    assert.deepEqual(saveEntries(true), ['Save Selected Report PDFs…']);

    const provider = api.views.reports;
    const nodes = ((await provider.getChildren()) ?? []) as LabNode[];
    const items = await Promise.all(
      nodes.map(async (node) => ({ node, item: await provider.getTreeItem(node) })),
    );
    const selected = items
      .filter((i) => i.item.contextValue === 'labData.report.downloadable')
      .slice(3, 6)
      .map((i) => i.node);
    const uris = await vscode.commands.executeCommand<vscode.Uri[]>(
      'labData.saveSelectedReportPdfs',
      selected[1],
      selected,
    );
    assert.equal(uris.length, 3, 'the whole selection, as Save Report PDF would');
  });

  it('saving several says where they went, with a button that reveals that folder; so does Save All', async () => {
    const shown: Array<{ message: string; actions: unknown[] }> = [];
    const revealed: string[] = [];
    const window = vscode.window as {
      showInformationMessage: (...args: unknown[]) => Thenable<unknown>;
    };
    const commands = vscode.commands as {
      executeCommand: (command: string, ...args: unknown[]) => Thenable<unknown>;
    };
    const originals = {
      info: window.showInformationMessage,
      execute: commands.executeCommand,
    };
    window.showInformationMessage = (message: unknown, ...actions: unknown[]) => {
      shown.push({ message: String(message), actions });
      return Promise.resolve(
        actions.includes('Reveal in Explorer') ? 'Reveal in Explorer' : undefined,
      );
    };
    commands.executeCommand = (command: string, ...args: unknown[]) => {
      if (command === 'revealInExplorer') {
        revealed.push((args[0] as vscode.Uri).fsPath);
        return Promise.resolve(undefined);
      }
      return originals.execute.call(vscode.commands, command, ...args);
    };
    try {
      const ids = downloadable().slice(0, 3);
      await commands.executeCommand('labData.saveReportPdf', ids);
      await eventually(() => assert.equal(revealed.length, 1));
      assert.equal(shown.length, 1);
      assert.match(shown[0]!.message, /^3 saved to lab-reports\/ \(\d+(\.\d)? KB\)\.$/);
      assert.deepEqual(shown[0]!.actions, ['Reveal in Explorer']);
      assert.deepEqual(revealed, [folder], 'the folder they went to');

      const project = lab.data.projects.find((p) => p.project_id === 'P-2006')!;
      const clients = (await api.views.clients.getChildren()) ?? [];
      const clientItems = await Promise.all(
        clients.map(async (node) => ({ node, item: await api.views.clients.getTreeItem(node) })),
      );
      const client = clientItems.find((c) => c.item.label === 'Harbor Environmental Consulting')!;
      const projects = (await api.views.clients.getChildren(client.node)) ?? [];
      const projectItems = await Promise.all(
        projects.map(async (node) => ({ node, item: await api.views.clients.getTreeItem(node) })),
      );
      const projectNode = projectItems.find((p) => p.item.label === project.name)!.node;
      await commands.executeCommand('labData.saveAllReports', projectNode);
      await eventually(() => assert.equal(revealed.length, 2));
      assert.match(shown[1]!.message, /^Save All, .+: \d+ saved to lab-reports\/ \(/);
      assert.deepEqual(shown[1]!.actions, ['Reveal in Explorer']);
      assert.deepEqual(revealed, [folder, folder]);
    } finally {
      window.showInformationMessage = originals.info;
      commands.executeCommand = originals.execute;
    }
  });

  it('a report without a file gets a clear message and no request', async () => {
    const noFile = lab.reportsFor(LEAK_CHECK_TOKEN).find((r) => !r.download_available)!;
    const provider = api.views.reports;
    lab.takeRequests();
    const result = await vscode.commands.executeCommand('labData.saveReportPdf', noFile.report_id);
    assert.equal(result, undefined);
    assert.ok(
      !lab.takeRequests().some((r) => r.path.endsWith('/file')),
      'the file was never requested',
    );
    assert.ok(provider);
  });

  it('keeps hostile report ids and file-name templates inside the folder', async () => {
    const victims = lab.data.reports
      .filter((r) => r.download_available && r.status === 'published')
      .slice(10, 14);
    const hostile = ['../../escape', '..\\win-escape', 'CON', `${'x'.repeat(180)}\u202Efdp`];
    const originals = victims.map((r) => r.report_id);
    victims.forEach((report, i) => (report.report_id = hostile[i]!));
    try {
      const uris = await vscode.commands.executeCommand<vscode.Uri[]>(
        'labData.saveReportPdf',
        hostile,
      );
      assert.equal(uris.length, hostile.length);
      for (const uri of uris) {
        assert.equal(path.dirname(uri.fsPath), folder, uri.fsPath);
      }
      await vscode.workspace
        .getConfiguration('labData', vscode.workspace.workspaceFolders![0]!.uri)
        .update(
          'fileNameTemplate',
          '../../${client_id}/../${report_id}_${published_date}.pdf',
          vscode.ConfigurationTarget.WorkspaceFolder,
        );
      const plain = downloadable().find((id) => !hostile.includes(id))!;
      const templated = await vscode.commands.executeCommand<vscode.Uri>(
        'labData.saveReportPdf',
        plain,
      );
      // A template may name subfolders: each ".." segment is dropped, the client's folder stays inside.
      const clientId = lab.data.reports.find((report) => report.report_id === plain)!.client_id;
      assert.equal(path.dirname(templated.fsPath), path.join(folder, clientId));
      assert.match(
        path.basename(templated.fsPath),
        new RegExp(`${plain}_\\d{4}-\\d{2}-\\d{2}\\.pdf$`),
      );
      const outside = await listing(path.dirname(workspaceFolder()));
      assert.ok(
        !outside.some((name) => name.includes('escape')),
        'nothing was written outside the workspace',
      );
    } finally {
      victims.forEach((report, i) => (report.report_id = originals[i]!));
      await vscode.workspace
        .getConfiguration('labData', vscode.workspace.workspaceFolders![0]!.uri)
        .update('fileNameTemplate', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
    }
  });

  it('never overwrites without asking: skip, keep both, overwrite, and cancel', async () => {
    const id = downloadable()[1]!;
    const target = path.join(folder, `${id}.pdf`);
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(target, 'my annotated copy');

    prompts.existingAnswers = [{ choice: 'skip', forAll: false }];
    assert.equal(await vscode.commands.executeCommand('labData.saveReportPdf', id), undefined);
    assert.equal(await fs.readFile(target, 'utf8'), 'my annotated copy');

    prompts.existingAnswers = [undefined];
    assert.equal(
      await vscode.commands.executeCommand('labData.saveReportPdf', id),
      undefined,
      'cancelled',
    );
    assert.equal(await fs.readFile(target, 'utf8'), 'my annotated copy');

    prompts.existingAnswers = [{ choice: 'overwrite', forAll: false }];
    const replaced = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', id);
    assert.equal(replaced.fsPath, target);
    assert.equal(sha256(await fs.readFile(target)), sha256(lab.pdfFor(id)));

    // Annotated again: the report's recorded file now differs from what was saved.
    await fs.writeFile(target, 'my annotated copy');
    prompts.existingAnswers = [{ choice: 'keepBoth', forAll: false }];
    const both = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', id);
    assert.equal(path.basename(both.fsPath), `${id} (1).pdf`);
    assert.equal(await fs.readFile(target, 'utf8'), 'my annotated copy');
    assert.equal(prompts.asked.length, 4);
    // The report is now recorded as the copy kept beside it: a later Save finds it there, up to date, unasked.
    const again = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', id);
    assert.equal(again.fsPath, both.fsPath);
    assert.equal(prompts.asked.length, 4);
    assert.deepEqual(await listing(folder), [
      '.lab-data',
      `${id} (1).pdf`,
      `${id}.pdf`,
      'lab-data-sync.json',
    ]);
  });

  it('a manifest that still holds git conflict markers: Save, Sync and Verify each name the fix (Resolve) and write nothing', async () => {
    const [mine, theirs, another] = downloadable().slice(30, 33);
    await vscode.commands.executeCommand('labData.saveReportPdf', mine);
    // Two analysts saved different reports into the folder; git merged their version-3 manifests
    // without the merge driver and left both sides of the entry between its markers.
    const manifestFile = path.join(folder, 'lab-data-sync.json');
    const lines = (await fs.readFile(manifestFile, 'utf8')).split('\n');
    const at = lines.findIndex((line) => line.includes('"reports": {')) + 1;
    const ours = lines[at]!;
    assert.ok(ours.includes(`"${mine}"`), `the entry of ${mine} is one line: ${ours}`);
    const marked = Buffer.from(
      [
        ...lines.slice(0, at),
        '<<<<<<< HEAD',
        ours,
        '=======',
        ours.replaceAll(mine!, theirs!),
        '>>>>>>> origin/main',
        ...lines.slice(at + 1),
      ].join('\n'),
    );
    assert.equal(JSON.parse(lines.join('\n')).version, 3, 'both sides are version 3');
    await fs.writeFile(manifestFile, marked);
    const before = await listing(folder);

    const shown: string[] = [];
    const window = vscode.window as {
      showErrorMessage: (...args: unknown[]) => Thenable<unknown>;
      showWarningMessage: (...args: unknown[]) => Thenable<unknown>;
      showInformationMessage: (...args: unknown[]) => Thenable<unknown>;
    };
    const originals = {
      showErrorMessage: window.showErrorMessage,
      showWarningMessage: window.showWarningMessage,
      showInformationMessage: window.showInformationMessage,
    };
    const capture = (kind: string) => (message: unknown) => {
      shown.push(`${kind}: ${String(message)}`);
      return Promise.resolve(undefined);
    };
    window.showErrorMessage = capture('error');
    window.showWarningMessage = capture('warning');
    window.showInformationMessage = capture('info');
    // In the extension's own words, its Resolve button beside it (issue 57): no command line.
    const fix = `error: The manifest ${manifestFile} still holds git conflict markers; nothing was written. Resolve merges both sides entry by entry.`;
    try {
      for (const [command, args] of [
        ['labData.saveReportPdf', another],
        ['labData.syncReports', { lab: signedIn.name, folder }],
        ['labData.verifySavedReports', { folder }],
      ] as const) {
        shown.length = 0;
        await vscode.commands.executeCommand(command, args);
        assert.deepEqual(shown, [fix], `${command} names the fix`);
        assert.deepEqual(await fs.readFile(manifestFile), marked, `${command} wrote no manifest`);
        assert.deepEqual(await listing(folder), before, `${command} wrote no file`);
      }
    } finally {
      window.showErrorMessage = originals.showErrorMessage;
      window.showWarningMessage = originals.showWarningMessage;
      window.showInformationMessage = originals.showInformationMessage;
    }
  });

  it('a dropped connection or a non-PDF body leaves nothing behind', async () => {
    const [a, b] = downloadable();
    lab.setFaults({ dropFileAt: { fraction: 0.5, times: 10 } });
    assert.equal(await vscode.commands.executeCommand('labData.saveReportPdf', a), undefined);
    lab.setFaults({ notPdf: { times: 1 } });
    assert.equal(await vscode.commands.executeCommand('labData.saveReportPdf', b), undefined);
    assert.deepEqual(await listing(folder), []);
  });

  it('cancelling a bulk save mid-way stops it and leaves no partial file', async () => {
    const ids = downloadable().slice(0, 12);
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, `${ids[6]}.pdf`), 'mine');
    lab.setFaults({ latencyMs: 100 });
    prompts.existingAnswers = [undefined]; // "Cancel" at the overwrite question
    const uris = await vscode.commands.executeCommand<vscode.Uri[]>('labData.saveReportPdf', ids);
    const files = await listing(folder);
    assert.ok(
      files.every(
        (name) => name.endsWith('.pdf') || name === 'lab-data-sync.json' || name === '.lab-data',
      ),
      `no temporary files: ${files.join(', ')}`,
    );
    assert.ok(files.length < ids.length, 'the run stopped before saving everything');
    assert.equal(await fs.readFile(path.join(folder, `${ids[6]}.pdf`), 'utf8'), 'mine');
    for (const uri of uris ?? []) {
      assert.equal(
        sha256(await fs.readFile(uri.fsPath)),
        sha256(lab.pdfFor(path.basename(uri.fsPath, '.pdf'))),
      );
    }
  });

  it('bulk save of a project finishes with every file under a 429-ing server', async () => {
    const project = lab.data.projects.find((p) => p.project_id === 'P-2006')!;
    const clients = (await api.views.clients.getChildren()) ?? [];
    const clientItems = await Promise.all(
      clients.map(async (node) => ({ node, item: await api.views.clients.getTreeItem(node) })),
    );
    const client = clientItems.find((c) => c.item.label === 'Harbor Environmental Consulting')!;
    const projects = (await api.views.clients.getChildren(client.node)) ?? [];
    const projectItems = await Promise.all(
      projects.map(async (node) => ({ node, item: await api.views.clients.getTreeItem(node) })),
    );
    const projectNode = projectItems.find((p) => p.item.label === project.name)!.node;
    lab.setFaults({ rateLimit: { times: 4, retryAfter: '1', path: /\/file$/ } });
    const summary = await vscode.commands.executeCommand<BulkSummary>(
      'labData.saveAllReports',
      projectNode,
    );
    const expected = lab.reportsFor(LEAK_CHECK_TOKEN).filter((r) => r.project_id === 'P-2006');
    assert.equal(summary.failed, 0);
    assert.equal(summary.saved, expected.filter((r) => r.download_available).length);
    assert.equal(summary.skipped, expected.filter((r) => !r.download_available).length);
    const requests = lab.takeRequests();
    assert.equal(requests.filter((r) => r.status === 429).length, 4);
    for (const report of expected.filter((r) => r.download_available)) {
      assert.equal(
        sha256(await fs.readFile(path.join(folder, `${report.report_id}.pdf`))),
        sha256(lab.pdfFor(report.report_id)),
      );
    }
  });

  it('Save All asks once before writing more than 100 files, and writes nothing when told no', async () => {
    prompts.confirmAnswer = false;
    assert.equal(await vscode.commands.executeCommand('labData.saveAllReports'), undefined);
    assert.deepEqual(
      prompts.confirmAsked.map((asked) => asked.message),
      [`Save ${downloadable().length} report PDFs to lab-reports/?`],
    );
    assert.match(prompts.confirmAsked[0]!.detail, /^These are all reports of /);
    assert.deepEqual(
      (await listing(folder).catch(() => [])).filter((name) => name.endsWith('.pdf')),
      [],
      'nothing written',
    );
    assert.deepEqual(
      lab.takeRequests().filter((request) => request.path.endsWith('/file')),
      [],
    );
  });

  it('saves the whole report set, then syncs: the second sync makes one request and writes nothing', async function () {
    // Three runs over 342 files: 5 s on a quiet machine, 49 s once under npm run test:busy, and
    // over the suites' 60 s once more. The timeout only tells a hang.
    this.timeout(180_000);
    const startAll = Date.now();
    const all = await vscode.commands.executeCommand<BulkSummary>('labData.saveAllReports');
    const allMs = Date.now() - startAll;
    const allRequests = lab.takeRequests().length;
    assert.equal(prompts.confirmAsked.length, 1, 'asked once, for the whole run');
    assert.equal(all.saved, downloadable().length);
    assert.equal(all.failed, 0);
    console.log(
      `      save all: ${all.saved} files (${all.bytes} bytes) in ${allMs} ms with ${allRequests} requests`,
    );
    await fs.rm(folder, { recursive: true, force: true });

    const started = Date.now();
    const first = await vscode.commands.executeCommand<SyncSummary>('labData.syncReports');
    const firstMs = Date.now() - started;
    const firstRequests = lab.takeRequests().length;
    assert.equal(first.saved, downloadable().length);
    assert.equal(first.failed, 0);
    assert.ok(first.manifestWritten);
    console.log(
      `      first sync: ${first.saved} files in ${firstMs} ms with ${firstRequests} requests`,
    );
    const manifestText = await fs.readFile(path.join(folder, 'lab-data-sync.json'), 'utf8');
    assert.ok(!manifestText.includes(LEAK_CHECK_TOKEN), 'the manifest never holds the token');
    type Section = {
      name: string;
      files_at: string;
      reports: Record<
        string,
        { sha256: string; bytes: number; file: string; source?: string; published_at: string }
      >;
    };
    const written = JSON.parse(manifestText) as { version: number; labs: Record<string, Section> };
    // The lab signed in by address is called by the name it gives itself: the CLI's variable is LAB_DATA_TOKEN_<that name>.
    const labName = ownNameOf(lab);
    const origin = new URL(lab.baseUrl).origin;
    assert.equal(written.version, 3);
    assert.deepEqual(
      Object.keys(written.labs),
      [origin],
      'one section, kept under the lab’s origin',
    );
    const section = written.labs[origin]!;
    assert.equal(section.name, labName);
    const some = downloadable()[3]!;
    assert.equal(section.reports[some]!.sha256, sha256(lab.pdfFor(some)));
    assert.equal(section.files_at, '/api/v1/reports/{id}/file');
    assert.doesNotMatch(manifestText, /saved_at|mtime_ms|watermark/, 'machine state stays local');
    // The watermark is this machine's, beside the manifest.
    const state = JSON.parse(
      await fs.readFile(path.join(folder, '.lab-data', 'state.json'), 'utf8'),
    ) as { labs: Record<string, { watermark: string }> };
    const manifest = { watermark: state.labs[origin]!.watermark };
    assert.equal(manifest.watermark, lab.reportsFor(LEAK_CHECK_TOKEN)[0]!.published_at);
    const stat = await fs.stat(path.join(folder, 'lab-data-sync.json'));

    const second = await vscode.commands.executeCommand<SyncSummary>('labData.syncReports');
    const secondRequests = lab.takeRequests();
    assert.equal(secondRequests.length, 1, 'one list request');
    assert.equal(secondRequests[0]!.query.published_since, manifest.watermark);
    assert.equal(second.saved, 0);
    assert.equal(second.manifestWritten, false);
    assert.equal(
      (await fs.stat(path.join(folder, 'lab-data-sync.json'))).mtimeMs,
      stat.mtimeMs,
      'nothing written',
    );
    console.log(`      second sync: ${secondRequests.length} request, ${second.saved} files`);

    // A file deleted locally is fetched again; a file changed locally is never overwritten without asking.
    const [deleted, changed] = downloadable().slice(20, 22);
    await fs.rm(path.join(folder, `${deleted}.pdf`));
    await fs.writeFile(path.join(folder, `${changed}.pdf`), 'annotated by hand');
    const amended = lab.data.reports.find((r) => r.report_id === changed)!;
    const originalPublished = amended.published_at;
    amended.published_at = new Date(Date.now() + 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    lab.dataChanged();
    prompts.existingAnswers = [{ choice: 'skip', forAll: false }];
    try {
      const third = await vscode.commands.executeCommand<SyncSummary>('labData.syncReports');
      assert.equal(third.saved, 1);
      assert.deepEqual(prompts.asked, [{ fileName: `${changed}.pdf`, reason: 'changedLocally' }]);
      assert.equal(
        sha256(await fs.readFile(path.join(folder, `${deleted}.pdf`))),
        sha256(lab.pdfFor(deleted!)),
      );
      assert.equal(
        await fs.readFile(path.join(folder, `${changed}.pdf`), 'utf8'),
        'annotated by hand',
      );
    } finally {
      amended.published_at = originalPublished;
      lab.dataChanged();
    }
    assert.ok((await listing(folder)).every((name) => !name.includes('.part')));
  });

  it('Sync Reports to Folder… honours the Reports filter and says so before it starts, and syncs into a folder the user picks, remembered for the workspace', async () => {
    const client = lab.reportsFor(LEAK_CHECK_TOKEN)[0]!.client_id;
    const matching = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter((report) => report.client_id === client);
    const elsewhere = path.join(workspaceFolder(), '..', `sync-elsewhere-${process.pid}`);
    await fs.rm(elsewhere, { recursive: true, force: true });
    // The folder dialog only picks folders that exist.
    await fs.mkdir(elsewhere);
    await vscode.commands.executeCommand('labData.filterReports', { clientId: client });
    try {
      // The folder question: the download folder is highlighted; "Choose Another Folder…" opens the folder dialog.
      prompts.pickOneAnswers = [''];
      prompts.folderAnswers = [vscode.Uri.file(elsewhere)];
      prompts.confirmAnswer = true;
      const synced = await vscode.commands.executeCommand<SyncSummary>('labData.syncReports');
      const asked = prompts.pickOneOffered[0]!;
      assert.match(asked.title, /Sync Reports of .* to Folder…/);
      assert.equal(asked.current, folder, 'the download folder first, while nothing was picked');
      assert.deepEqual(
        asked.choices.map((choice) => choice.id),
        [folder, ''],
      );
      assert.equal(synced.folder, elsewhere);
      assert.equal(
        synced.listed,
        matching.length,
        'only the reports the filter matches are listed',
      );
      assert.equal(
        synced.saved,
        matching.filter((report) => report.download_available).length,
        synced.message,
      );
      assert.deepEqual(
        (await listing(elsewhere)).filter((name) => name.endsWith('.pdf')).sort(),
        matching
          .filter((report) => report.download_available)
          .map((report) => `${report.report_id}.pdf`)
          .sort(),
      );
      assert.equal(prompts.confirmAsked.length, 1);
      assert.equal(
        prompts.confirmAsked[0]!.message,
        `Sync the ${matching.length} reports of ${ownNameOf(lab)} that match the filter into ${elsewhere}?`,
      );
      assert.match(
        prompts.confirmAsked[0]!.detail,
        new RegExp(
          `The Reports view is filtered \\(client [^)]*${client}\\)\\): only the reports it matches are synced; clear the filter to sync every report\\.`,
        ),
      );
      assert.match(synced.message, /^Sync of .* \(filtered: client /);

      // The next sync offers the folder picked last, highlighted; Enter keeps it. Filtered, it asks again.
      prompts.confirmAnswer = false;
      assert.equal(await vscode.commands.executeCommand('labData.syncReports'), undefined);
      const again = prompts.pickOneOffered[1]!;
      assert.equal(again.current, elsewhere, 'remembered for this workspace');
      assert.deepEqual(
        again.choices.map((choice) => choice.id),
        [elsewhere, folder, ''],
      );
      assert.match(String(again.choices[0]!.description), /used last/);
      assert.equal(prompts.confirmAsked.length, 2, 'a filtered sync asks every time');
    } finally {
      await vscode.commands.executeCommand('labData.clearReportsFilter');
      await fs.rm(elsewhere, { recursive: true, force: true });
    }
    // Without a filter, the next sync into the picked folder asks nothing more (not its first) and lists everything.
    prompts.confirmAnswer = true;
    const all = await vscode.commands.executeCommand<SyncSummary>('labData.syncReports', {
      folder,
    });
    assert.equal(all.folder, folder, 'automation names its folder');
  });

  it('a filtered Sync into a folder whose manifest has a section of another address under this lab’s name keeps that section whole; its own section is keyed by its address', async () => {
    const client = lab.reportsFor(LEAK_CHECK_TOKEN)[0]!.client_id;
    const matching = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter((report) => report.client_id === client && report.download_available);
    const shared = await fs.mkdtemp(path.join(workspaceFolder(), 'sync-vpn-section-'));
    const manifestFile = path.join(shared, 'lab-data-sync.json');
    const vpn = 'https://vpn.meridian.example';
    // A colleague's VPN address of the same lab, committed under the name this lab has here.
    const vpnReports = Object.fromEntries(
      ['V-1', 'V-2', 'V-3', 'V-4'].map((id) => [
        id,
        { bytes: 3, file: `${id}.pdf`, revision: '1', sha256: sha256(Buffer.from(id)) },
      ]),
    );
    await fs.writeFile(
      manifestFile,
      `${JSON.stringify({ labs: { [vpn]: { name: signedIn.name, reports: vpnReports } }, version: 3 }, null, 2)}\n`,
    );
    for (const id of Object.keys(vpnReports)) {
      await fs.writeFile(path.join(shared, `${id}.pdf`), id);
    }
    await vscode.commands.executeCommand('labData.filterReports', { clientId: client });
    try {
      // From the UI, as a person syncs: "Choose Another Folder…", the folder, then Sync.
      prompts.pickOneAnswers = [''];
      prompts.folderAnswers = [vscode.Uri.file(shared)];
      prompts.confirmAnswer = true;
      const synced = await vscode.commands.executeCommand<SyncSummary>('labData.syncReports');
      assert.equal(synced.folder, shared);
      assert.match(synced.message, /\(filtered: client /);
      assert.equal(synced.saved, matching.length, synced.message);
      const written = JSON.parse(await fs.readFile(manifestFile, 'utf8')) as {
        labs: Record<string, { name: string; reports: Record<string, unknown> }>;
      };
      assert.deepEqual(written.labs[vpn], { name: signedIn.name, reports: vpnReports });
      const own = written.labs[new URL(lab.baseUrl).origin];
      assert.ok(own, `a section of this lab's address: ${Object.keys(written.labs).join(', ')}`);
      assert.notEqual(own.name, signedIn.name, 'a name of its own beside the other address’s');
      assert.deepEqual(
        Object.keys(own.reports).sort(),
        matching.map((report) => report.report_id).sort(),
      );
    } finally {
      await vscode.commands.executeCommand('labData.clearReportsFilter');
      await fs.rm(shared, { recursive: true, force: true });
    }
  });

  it('Save Report PDF into a folder whose manifest git left unmerged refuses with Resolve, in words without the command line', async () => {
    const id = downloadable()[0]!;
    const manifestFile = path.join(folder, 'lab-data-sync.json');
    const run = (...args: string[]): string =>
      execFileSync('git', args, {
        cwd: folder,
        encoding: 'utf8',
        stdio: 'pipe',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 'Analyst',
          GIT_AUTHOR_EMAIL: 'analyst@example.com',
          GIT_COMMITTER_NAME: 'Analyst',
          GIT_COMMITTER_EMAIL: 'analyst@example.com',
        },
      });
    const lockfile = (ids: string[]): string =>
      `${JSON.stringify(
        {
          labs: {
            [new URL(lab.baseUrl).origin]: {
              name: signedIn.name,
              reports: Object.fromEntries(
                ids.map((each) => [
                  each,
                  {
                    bytes: 3,
                    file: `${each}.pdf`,
                    revision: '1',
                    sha256: sha256(Buffer.from(each)),
                  },
                ]),
              ),
            },
          },
          version: 3,
        },
        null,
        2,
      )}\n`;
    await fs.mkdir(folder, { recursive: true });
    run('init', '--quiet', '-b', 'main');
    run('config', 'merge.lab-data.driver', 'lab-data-not-on-path %O %A %B');
    await fs.writeFile(path.join(folder, '.gitattributes'), 'lab-data-sync.json merge=lab-data\n');
    await fs.writeFile(manifestFile, lockfile(['R-1']));
    run('add', '.');
    run('commit', '--quiet', '-m', 'base');
    run('checkout', '--quiet', '-b', 'theirs');
    await fs.writeFile(manifestFile, lockfile(['R-1', 'R-3']));
    run('commit', '--quiet', '-am', 'theirs');
    run('checkout', '--quiet', 'main');
    await fs.writeFile(manifestFile, lockfile(['R-1', 'R-2']));
    run('commit', '--quiet', '-am', 'ours');
    assert.throws(() => run('merge', '--no-edit', 'theirs'));
    const shown = errorsFromNow(api);
    await vscode.commands.executeCommand('labData.saveReportPdf', id);
    const refusal = await eventually(() => {
      const found = shown().find((each) => each.message.includes('unmerged'));
      assert.ok(found, JSON.stringify(shown()));
      return found;
    });
    assert.deepEqual(refusal.actions, ['Resolve', 'Show Log']);
    assert.doesNotMatch(refusal.message, /lab-data merge-manifest/);
    assert.match(refusal.message, /Resolve merges both sides entry by entry/);
    assert.equal(existsSync(path.join(folder, `${id}.pdf`)), false, 'nothing was written');
  });
});
