import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { eventually, signedInLab, workspaceFolder, type SignedInLab } from './helpers';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * With `extensionKind: ["workspace"]`, Lab Data runs on the machine that holds the files: the
 * remote (SSH, WSL, a container) or code-server's own machine. A machine setting
 * (`"scope": "machine"`: `labData.cacheFolder`, the only one) is read from that machine's settings,
 * the file docs/remote.md names: for code-server `<user-data-dir>/Machine/settings.json`
 * (Preferences: Open Remote Settings), written here by hand as a person or a provisioning script
 * would, not through VS Code's API.
 */
describe('a machine setting in the remote’s settings (labData.cacheFolder, docs/remote.md)', function () {
  this.timeout(120_000);
  let signedIn: SignedInLab;
  let machineFile: string;
  let machineBefore: string | undefined;
  let cacheFolder: string;
  const saved = path.join(workspaceFolder(), 'lab-reports');

  before(async () => {
    const userData = process.env.LABDATA_TEST_USER_DATA_DIR;
    assert.ok(userData, 'the runner passes LABDATA_TEST_USER_DATA_DIR');
    machineFile = path.join(userData, 'Machine', 'settings.json');
    machineBefore = existsSync(machineFile) ? await fs.readFile(machineFile, 'utf8') : undefined;
    signedIn = await signedInLab();
    cacheFolder = await fs.mkdtemp(path.join(tmpdir(), 'lab-machine-cache-'));
  });

  after(async () => {
    // Rewritten, not removed: VS Code 1.139 does not hear the file's removal.
    await fs.writeFile(machineFile, machineBefore ?? '{}');
    await eventually(() =>
      assert.notEqual(vscode.workspace.getConfiguration('labData').get('cacheFolder'), cacheFolder),
    );
    if (machineBefore === undefined) {
      await fs.rm(machineFile, { force: true });
    }
    await fs.rm(cacheFolder, { recursive: true, force: true });
    await fs.rm(saved, { recursive: true, force: true });
    await signedIn.close();
  });

  it('is read from <user-data-dir>/Machine/settings.json: a saved report’s copy lands in that cache folder', async () => {
    const before = machineBefore ? (JSON.parse(machineBefore) as Record<string, unknown>) : {};
    await fs.mkdir(path.dirname(machineFile), { recursive: true });
    await fs.writeFile(
      machineFile,
      JSON.stringify({ ...before, 'labData.cacheFolder': cacheFolder }, null, 2),
    );
    await eventually(() =>
      assert.equal(vscode.workspace.getConfiguration('labData').get('cacheFolder'), cacheFolder),
    );

    const id = signedIn.lab.data.reports.find(
      (report) => report.download_available !== false,
    )!.report_id;
    const uri = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', id);
    assert.ok(uri instanceof vscode.Uri, 'the report was saved');
    const hash = sha256(await fs.readFile(uri.fsPath));
    assert.equal(hash, sha256(signedIn.lab.pdfFor(id)));
    const copy = path.join(cacheFolder, 'sha256', hash.slice(0, 2), hash);
    assert.equal(sha256(await fs.readFile(copy)), hash, 'the cache folder of the setting holds it');
  });
});
