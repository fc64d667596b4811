import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorsFromNow, signedInLab, type SignedInLab } from '../helpers';

/** The test fixture's in-memory file system (test/fixtures/memfs-extension), registered here. */
interface MemFsModule {
  registerMemFs(context?: undefined): { registration: vscode.Disposable };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain JavaScript outside out/
const memFs = require(
  path.join(
    __dirname,
    '..',
    '..',
    '..',
    '..',
    'test',
    'fixtures',
    'memfs-extension',
    'extension.js',
  ),
) as MemFsModule;

/** Each command whose work reads or writes a folder's files on disk, the arguments it is run with, and the start of its sentence. */
const COMMANDS: ReadonlyArray<{ id: string; args: (id: string) => unknown[]; opens: string }> = [
  { id: 'labData.saveReportPdf', args: (id) => [id], opens: 'Saving reports' },
  { id: 'labData.saveSelectedReportPdfs', args: (id) => [[id]], opens: 'Saving reports' },
  { id: 'labData.saveAllReports', args: () => [], opens: 'Saving reports' },
  { id: 'labData.syncReports', args: () => [], opens: 'Syncing reports' },
  { id: 'labData.restoreReports', args: () => [], opens: 'Restoring saved reports' },
  { id: 'labData.verifySavedReports', args: () => [], opens: 'Verifying saved reports' },
];

/**
 * The window's only workspace folder is `memfs:/demo`, a folder on no disk (the runner opens it,
 * `virtualWorkspaces: limited`): browsing and preview work, and every command that reads or writes
 * a folder's files says in one warning why it cannot, shows no error and writes nothing.
 */
describe('a virtual workspace: browse and preview, and work on files needs a folder on disk', function () {
  this.timeout(120_000);
  let signedIn: SignedInLab;
  let registration: vscode.Disposable;
  const demo = vscode.Uri.parse('memfs:/demo');

  before(async () => {
    registration = memFs.registerMemFs().registration;
    assert.deepEqual(
      (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString()),
      [demo.toString()],
      'the runner opened memfs:/demo as the only workspace folder',
    );
    signedIn = await signedInLab();
  });

  after(async () => {
    await signedIn?.close();
    registration?.dispose();
  });

  it('previews a report', async () => {
    const errors = errorsFromNow(signedIn.api);
    const report = signedIn.lab.data.reports.find((candidate) => candidate.download_available)!;
    assert.deepEqual(
      await vscode.commands.executeCommand('labData.previewReport', { id: report.report_id }),
      { pages: 1 },
    );
    assert.deepEqual(errors(), []);
  });

  for (const command of COMMANDS) {
    it(`${command.id} says in one warning that it needs a folder on disk, and writes nothing`, async () => {
      const errors = errorsFromNow(signedIn.api);
      const warnings = signedIn.api.warningsShown().length;
      const requests = signedIn.lab.requests.length;
      const report = signedIn.lab.data.reports.find((candidate) => candidate.download_available)!;
      assert.equal(
        await vscode.commands.executeCommand(command.id, ...command.args(report.report_id)),
        undefined,
      );
      const said = signedIn.api.warningsShown().slice(warnings);
      assert.deepEqual(said, [
        {
          message: `${command.opens} needs a folder on this machine’s disk, and memfs:/demo is virtual: ${command.opens.startsWith('Saving') ? 'browse and preview here, or open a folder on disk to save' : command.opens.startsWith('Syncing') ? 'browse and preview here, or open a folder on disk to sync' : `open the folder on disk to ${command.opens.startsWith('Restoring') ? 'restore' : 'verify'} it`}.`,
          actions: [],
        },
      ]);
      assert.deepEqual(errors(), [], 'no error notification');
      assert.deepEqual(signedIn.lab.requests.slice(requests), [], 'the lab was not asked');
      assert.deepEqual(await vscode.workspace.fs.readDirectory(demo), [
        ['README.md', vscode.FileType.File],
      ]);
      assert.equal(existsSync(demo.fsPath), false, `nothing at ${demo.fsPath} on disk`);
    });
  }

  it('a virtual folder handed to Verify or Restore is refused the same way', async () => {
    const errors = errorsFromNow(signedIn.api);
    const warnings = signedIn.api.warningsShown().length;
    const folder = vscode.Uri.parse('memfs:/demo/lab-reports');
    await vscode.commands.executeCommand('labData.verifySavedReports', { folder });
    await vscode.commands.executeCommand('labData.restoreReports', folder);
    assert.deepEqual(
      signedIn.api
        .warningsShown()
        .slice(warnings)
        .map((shown) => shown.message.split(':')[0]),
      [
        'Verifying saved reports needs a folder on this machine’s disk, and memfs',
        'Restoring saved reports needs a folder on this machine’s disk, and memfs',
      ],
    );
    assert.match(
      signedIn.api.warningsShown().at(-1)!.message,
      /memfs:\/demo\/lab-reports is virtual/,
    );
    assert.deepEqual(errors(), [], 'no error notification');
  });
});
