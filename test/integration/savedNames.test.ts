import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApi } from '../../core/api/labApi';
import { saveReports } from '../../core/sync/bulkSave';
import { listAllReports } from '../../core/sync/folderSync';
import type { MockLabServer } from '../mock/server';
import {
  LEAK_CHECK_TOKEN,
  eventually,
  signIn,
  signedInLab,
  startLab,
  workspaceFolder,
  type SignedInLab,
} from './helpers';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * A folder saved before a second lab was signed in, as a colleague's repository has it: every
 * per-file action (Save, and the preview's Save, which runs it) writes a recorded report to its
 * recorded file and leaves every other entry of the manifest as it was; the folder stays flat.
 */
describe('saves keep recorded names and the folder’s layout with two labs signed in', function () {
  this.timeout(120_000);
  let signedIn: SignedInLab;
  let second: MockLabServer;
  let folder: string;
  let recorded: string[];
  let manifestText: string;
  const manifestFile = (): string => path.join(folder, 'lab-data-sync.json');

  before(async () => {
    signedIn = await signedInLab();
    folder = path.join(workspaceFolder(), 'lab-reports');
    await fs.rm(folder, { recursive: true, force: true });
    // Saved by the tool with one lab, under names of the colleague's own template.
    const api = LabApi.forBaseUrl(signedIn.lab.baseUrl, { token: LEAK_CHECK_TOKEN });
    const reports = (await listAllReports(api, {}))
      .filter((report) => report.download_available)
      .slice(0, 4);
    await saveReports(reports, {
      api,
      target: { folder, template: 'certificate ${report_id}.pdf' },
      signal: new AbortController().signal,
      concurrency: 2,
    });
    await api.close();
    recorded = reports.map((report) => report.report_id);
    manifestText = await fs.readFile(manifestFile(), 'utf8');
    second = await startLab({ seed: 7 });
    await signIn(second.baseUrl, LEAK_CHECK_TOKEN, 'Second lab');
    await eventually(async () =>
      assert.equal((await signedIn.api.getState()).labs.filter((lab) => lab.signedIn).length, 2),
    );
  });

  after(async () => {
    await vscode.commands
      .executeCommand('labData.signOut', { name: 'Second lab' })
      .then(undefined, () => false);
    await second?.stop();
    await signedIn?.close();
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('Save of a recorded report writes its recorded file and leaves the manifest’s bytes as they were', async () => {
    const id = recorded[1]!;
    const file = path.join(folder, `certificate ${id}.pdf`);
    const before = await fs.readFile(file);
    await fs.rm(file);
    const uri = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', {
      lab: signedIn.name,
      id,
    });
    assert.equal(uri.fsPath, file, 'saved at the recorded name, not by the template');
    assert.ok((await fs.readFile(file)).equals(before), 'the recorded bytes');
    assert.equal(await fs.readFile(manifestFile(), 'utf8'), manifestText, 'no entry rewritten');
    assert.ok(!existsSync(path.join(folder, signedIn.name)), 'no folder per lab');
    assert.ok(!existsSync(path.join(folder, `${id}.pdf`)), 'no second copy by the template');
  });

  it('a new report goes flat into a flat folder; another lab’s report of a recorded id is saved beside it, never over it', async () => {
    // A report of the first lab that the second lab also has, not recorded yet.
    const fromFirst = signedIn.lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .find(
        (report) =>
          report.download_available &&
          !recorded.includes(report.report_id) &&
          second
            .reportsFor(LEAK_CHECK_TOKEN)
            .some((other) => other.report_id === report.report_id && other.download_available),
      )!;
    assert.ok(fromFirst, 'the two labs share a report id');
    const uri = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', {
      lab: signedIn.name,
      id: fromFirst.report_id,
    });
    assert.equal(uri.fsPath, path.join(folder, `${fromFirst.report_id}.pdf`), 'flat');
    const first = await fs.readFile(uri.fsPath);
    const besides = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', {
      lab: 'Second lab',
      id: fromFirst.report_id,
    });
    assert.equal(path.dirname(besides.fsPath), folder, 'flat: no folder for the second lab');
    assert.equal(path.basename(besides.fsPath), `${fromFirst.report_id} (Second lab).pdf`);
    assert.equal(
      sha256(await fs.readFile(uri.fsPath)),
      sha256(first),
      'the first lab’s file is untouched',
    );
    assert.equal(
      sha256(await fs.readFile(besides.fsPath)),
      sha256(second.pdfFor(fromFirst.report_id)),
      'the second lab’s own file',
    );
    assert.ok(
      (await fs.readdir(folder)).every((name) => !name.startsWith('Second')),
      'nothing in a folder per lab',
    );
  });

  it('the Explorer decoration names the lab and revision and tells a changed file by Lab Data’s own badge and color', async () => {
    const id = recorded[2]!;
    const uri = vscode.Uri.file(path.join(folder, `certificate ${id}.pdf`));
    const inStep = await eventually(() => {
      const found = signedIn.api.savedFiles.decoration(uri);
      assert.ok(found?.tooltip?.includes('in step'), String(found?.tooltip));
      return found!;
    });
    assert.equal(inStep.badge, '✓');
    assert.equal(inStep.tooltip, `Saved from ${signedIn.name} · revision 1 · in step`);
    await fs.writeFile(uri.fsPath, 'my annotated copy');
    const changed = await eventually(() => {
      const found = signedIn.api.savedFiles.decoration(uri);
      assert.equal(found?.badge, '≠');
      return found!;
    });
    assert.equal(
      changed.tooltip,
      `Saved from ${signedIn.name} · revision 1 · changed locally since it was saved`,
    );
    assert.equal(
      (changed.color as vscode.ThemeColor & { id: string }).id,
      'labData.savedFile.changedLocallyForeground',
    );
    assert.notEqual(changed.badge, 'M', 'not git’s badge');
  });
});
