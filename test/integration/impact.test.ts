import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readManifest } from '../../core/sync/manifest';
import { currentUses } from '../../core/uses/uses';
import { USES_FILE_NAME, usesText } from '../../core/uses/usesRecord';
import type { SyncSummary } from '../../src/commands/syncReports';
import { eventually, signedInLab, workspaceFolder, type SignedInLab } from './helpers';
import { notebook, readLine } from '../support/consumers';

/** The promise: diagnostics and CodeLens within 2 s of the sync; a busy machine's margin on top (timers fire late, never early). */
const PROMISED_MS = 2_000;
const BUSY_MARGIN = 3;

function amendedDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages
    .getDiagnostics(uri)
    .filter((each) => each.source === 'Lab Data' && each.code === 'amended');
}

describe('uses of an amended report in VS Code: Problems, CodeLens, quick fix, notification, Explorer', function () {
  this.timeout(180_000);
  let signedIn: SignedInLab;
  let repo: string;
  let folder: string;
  const originals = {
    showWarningMessage: vscode.window.showWarningMessage,
    showQuickPick: vscode.window.showQuickPick,
  };
  const warnings: string[] = [];
  /** The quick picks shown: each item's label and description. */
  const picks: string[][] = [];

  before(async () => {
    signedIn = await signedInLab({ reports: 12 });
    repo = await fs.mkdtemp(path.join(workspaceFolder(), 'impact-'));
    execFileSync('git', ['init', '--quiet'], { cwd: repo });
    folder = path.join(repo, 'lab-reports');
    // The person chooses Show Affected; the list of consumers is recorded and dismissed.
    (vscode.window as { showWarningMessage: unknown }).showWarningMessage = (
      message: unknown,
      ...buttons: unknown[]
    ) => {
      warnings.push(String(message));
      return Promise.resolve(buttons.includes('Show Affected') ? 'Show Affected' : undefined);
    };
    (vscode.window as { showQuickPick: unknown }).showQuickPick = async (items: unknown) => {
      picks.push(
        ((await items) as vscode.QuickPickItem[]).map(
          (item) => `${item.label} ${item.description ?? ''}`,
        ),
      );
      return undefined;
    };
  });
  after(async () => {
    (vscode.window as { showWarningMessage: unknown }).showWarningMessage =
      originals.showWarningMessage;
    (vscode.window as { showQuickPick: unknown }).showQuickPick = originals.showQuickPick;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await fs.rm(repo, { recursive: true, force: true });
    await signedIn?.close();
  });

  it('after the lab amends a report and a sync: warnings and CodeLens on the lines that read or name it, one notification, both revisions side by side, Explorer badges', async () => {
    const first = await vscode.commands.executeCommand<SyncSummary>('labData.syncReports', {
      lab: signedIn.name,
      folder,
    });
    assert.ok(first && first.saved > 0, `the first sync saved reports: ${JSON.stringify(first)}`);
    const manifest = await readManifest(folder);
    const origin = Object.values(manifest.labs)[0]!.origin;
    const [amended, kept] = Object.values(Object.values(manifest.labs)[0]!.files).filter(
      (entry) => entry.revision === '1',
    );
    assert.ok(amended && kept, 'two reports at revision 1');
    const id = amended.report_id;

    // A script and a notebook read the report, a script only names it, another reads another.
    await fs.mkdir(path.join(repo, 'analysis'));
    const trend = path.join(repo, 'analysis', 'trend.py');
    const cites = path.join(repo, 'analysis', 'cites.R');
    const other = path.join(repo, 'analysis', 'other.py');
    const nitrate = path.join(repo, 'nitrate.ipynb');
    await fs.writeFile(trend, `import labdata\n\nreport = labdata.path("${id}")\nprint(report)\n`);
    await fs.writeFile(cites, `x <- 1\n# Results as in ${id} (table 2)\n`);
    await fs.writeFile(other, `import labdata\np = labdata.path("${kept.report_id}")\n`);
    await fs.writeFile(nitrate, notebook(id));
    await fs.writeFile(
      path.join(folder, '.lab-data', 'reads.jsonl'),
      `${[
        readLine('analysis/trend.py', origin, amended),
        readLine('nitrate.ipynb', origin, amended),
        readLine('analysis/other.py', origin, kept),
      ].join('\n')}\n`,
    );
    // As lab-data uses --record writes it: the core's own call.
    const uses = await currentUses(folder, manifest, { acknowledgeNamed: true });
    await fs.writeFile(path.join(folder, USES_FILE_NAME), usesText(uses.record));
    assert.equal(uses.record.uses.length, 4);

    const notebookDocument = await vscode.workspace.openNotebookDocument(vscode.Uri.file(nitrate));
    await vscode.window.showNotebookDocument(notebookDocument);
    const trendDocument = await vscode.workspace.openTextDocument(trend);
    await vscode.window.showTextDocument(trendDocument, { preview: false });

    // Nothing is amended yet: no warning anywhere.
    await signedIn.api.uses.refresh();
    assert.deepEqual(amendedDiagnostics(vscode.Uri.file(trend)), []);
    const manifestFile = path.join(folder, 'lab-data-sync.json');
    const beforeAmendment = await fs.readFile(manifestFile);

    const answer = await fetch(
      `${new URL(signedIn.lab.baseUrl).origin}/__mock/amend/${encodeURIComponent(id)}`,
      { method: 'POST' },
    );
    assert.equal(answer.status, 200);
    const synced = await vscode.commands.executeCommand<SyncSummary>('labData.syncReports', {
      lab: signedIn.name,
      folder,
    });
    const syncedAt = Date.now();
    assert.equal(synced?.saved, 1, `the sync saved revision 2: ${JSON.stringify(synced)}`);
    const now = Object.values((await readManifest(folder)).labs)[0]!.files[id]!;
    assert.equal(now.revision, '2');

    const cell = notebookDocument.cellAt(1).document.uri;
    assert.equal(cell.scheme, 'vscode-notebook-cell');
    await eventually(() => {
      assert.deepEqual(
        amendedDiagnostics(vscode.Uri.file(trend)).map((each) => each.range.start.line),
        [2],
      );
      assert.deepEqual(
        amendedDiagnostics(vscode.Uri.file(cites)).map((each) => each.range.start.line),
        [1],
      );
      assert.deepEqual(
        amendedDiagnostics(cell).map((each) => each.range.start.line),
        [1],
      );
    }, PROMISED_MS * BUSY_MARGIN);
    const appeared = Date.now() - syncedAt;
    console.log(`      the warnings appeared ${appeared} ms after the sync ended`);
    assert.ok(
      appeared < PROMISED_MS * BUSY_MARGIN,
      `diagnostics within 2 s of the sync (a busy machine's margin allowed): ${appeared} ms`,
    );
    assert.deepEqual(amendedDiagnostics(vscode.Uri.file(other)), [], 'the other report: none');
    const [warning] = amendedDiagnostics(vscode.Uri.file(trend));
    assert.equal(warning!.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(warning!.message, new RegExp(`^${id} was amended: revision 1 → 2`));

    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
      'vscode.executeCodeLensProvider',
      trendDocument.uri,
    );
    const lens = lenses.find((each) => each.command?.command === 'labData.openAmendedRevisions');
    assert.ok(lens, 'a CodeLens above the line');
    assert.equal(lens.range.start.line, 2);
    assert.equal(
      lens.command!.title,
      `${id} was amended: revision 1 → 2, published ${now.published_at!.slice(0, 10)}`,
    );
    const cellLenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
      'vscode.executeCodeLensProvider',
      cell,
    );
    assert.deepEqual(
      cellLenses
        .filter((each) => each.command?.command === 'labData.openAmendedRevisions')
        .map((each) => each.range.start.line),
      [1],
    );

    // One notification, naming how many scripts and notebooks used the old revision.
    await eventually(() =>
      assert.deepEqual(
        warnings.filter((each) => each.includes(id)),
        [`${id} was amended (revision 2): 3 script(s) and notebook(s) used revision 1.`],
      ),
    );
    // Show Affected: the three, none other.
    await eventually(() =>
      assert.deepEqual(
        picks.map((items) => items.map((item) => item.split(' ')[0]).sort()),
        [['cites.R', 'nitrate.ipynb', 'trend.py']],
      ),
    );

    // The quick fix opens both revisions side by side.
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      trendDocument.uri,
      warning!.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    const fix = actions.find((each) => each.title === `Open both revisions of ${id}`);
    assert.ok(fix?.command, `the quick fix: ${actions.map((each) => each.title).join(', ')}`);
    assert.equal(fix.kind?.value, vscode.CodeActionKind.QuickFix.value);
    const opened = await vscode.commands.executeCommand<vscode.Uri[]>(
      fix.command.command,
      ...(fix.command.arguments ?? []),
    );
    assert.equal(opened?.length, 2);
    const [older, newer] = await Promise.all(
      opened.map((uri) => vscode.workspace.openTextDocument(uri)),
    );
    assert.match(older!.getText(), /serves only the newest revision/);
    assert.match(older!.getText(), /"revision": "1"/);
    assert.match(older!.getText(), new RegExp(amended.sha256));
    assert.match(older!.getText(), /"consumer": "nitrate\.ipynb"/);
    assert.match(newer!.getText(), new RegExp(`"report_id": "${id}"`));
    await eventually(() => {
      const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs);
      assert.ok(
        tabs.some(
          (tab) =>
            tab.input instanceof vscode.TabInputTextDiff &&
            tab.input.original.toString() === opened[0]!.toString() &&
            tab.input.modified.toString() === opened[1]!.toString(),
        ),
        'a diff editor shows the two side by side',
      );
    });

    // The Explorer: the consumers amended since used; the saved report names its older users.
    await eventually(async () => {
      for (const file of [trend, cites, nitrate]) {
        const decoration = signedIn.api.savedFiles.decoration(vscode.Uri.file(file));
        assert.equal(decoration?.badge, '↻', file);
        assert.equal(decoration?.tooltip, `Amended since used: ${id} revision 1 → 2`);
      }
      assert.equal(signedIn.api.savedFiles.decoration(vscode.Uri.file(other)), undefined);
      const saved = signedIn.api.savedFiles.decoration(
        vscode.Uri.file(path.join(folder, now.file)),
      );
      assert.match(saved?.tooltip ?? '', /3 script\(s\) or notebook\(s\) used an older revision$/);
    });

    // Editing moves the warning with the line (settled typing); the same amendment is not told again.
    const editor = await vscode.window.showTextDocument(trendDocument);
    await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), '# first\n# second\n'));
    await eventually(() =>
      assert.deepEqual(
        amendedDiagnostics(vscode.Uri.file(trend)).map((each) => each.range.start.line),
        [4],
      ),
    );
    await vscode.commands.executeCommand('workbench.action.files.revert');
    // As a checkout of the commit before the sync, then back: revision 2 recorded again, not told again.
    const afterAmendment = await fs.readFile(manifestFile);
    await fs.writeFile(manifestFile, beforeAmendment);
    await signedIn.api.uses.refresh();
    assert.deepEqual(amendedDiagnostics(vscode.Uri.file(cites)), []);
    await fs.writeFile(manifestFile, afterAmendment);
    await signedIn.api.uses.refresh();
    assert.equal(amendedDiagnostics(vscode.Uri.file(cites)).length, 1);
    await signedIn.api.uses.refresh();
    assert.equal(warnings.filter((each) => each.includes(id)).length, 1, 'told once');
  });
});
