import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApi } from '../../core/api/labApi';
import { defaultCacheFolder } from '../../core/files/contentCache';
import { HttpCache } from '../../core/files/httpCache';
import { listAllReports } from '../../core/sync/folderSync';
import { syncedAsColleague } from '../support/colleagueFolder';
import { nginxBinary, startNginxCache, type NginxCache } from '../cli/nginxCache';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  signedInLab,
  workspaceFolder,
  type SignedInLab,
} from './helpers';

const CACHE_TOKEN = 'vscode-team-cache-token-9e107d9d';

/**
 * A colleague filled the team's cache server; this window, with labData.cacheFolder set to its
 * address and its token set through Set Team Cache Token, restores the folder from it with the lab
 * stopped. Real nginx on loopback.
 */
describe('restoring from a team cache server in VS Code (labData.cacheFolder address, labData.setCacheToken)', function () {
  this.timeout(120_000);
  let signedIn: SignedInLab;
  let nginx: NginxCache;
  let folder: string;
  let originals: Map<string, Buffer>;
  let cacheBefore: unknown;
  let restorePrompts: () => void;
  const prompts = new FakePrompts();

  before(async function () {
    if (!nginxBinary()) {
      console.log('    (skipped: nginx is not installed; npm run bootstrap installs it)');
      this.skip();
    }
    signedIn = await signedInLab();
    nginx = await startNginxCache(CACHE_TOKEN);
    restorePrompts = signedIn.api.setPrompts(prompts);
    const config = vscode.workspace.getConfiguration('labData');
    cacheBefore = config.inspect('cacheFolder')?.globalValue;
    await config.update('cacheFolder', nginx.tokenUrl, vscode.ConfigurationTarget.Global);

    // The colleague's sync kept every file on the team server.
    folder = path.join(await fs.mkdtemp(path.join(workspaceFolder(), 'team-')), 'lab-reports');
    const api = LabApi.forBaseUrl(signedIn.lab.baseUrl, { token: LEAK_CHECK_TOKEN });
    const server = new HttpCache(nginx.tokenUrl, { authorization: `Bearer ${CACHE_TOKEN}` });
    const reports = (await listAllReports(api, {}))
      .filter((report) => report.download_available)
      .slice(0, 8);
    await syncedAsColleague(api, folder, reports, server);
    await api.close();
    await server.close();
    originals = new Map();
    for (const name of (await fs.readdir(folder)).filter((file) => file.endsWith('.pdf'))) {
      originals.set(name, await fs.readFile(path.join(folder, name)));
    }
    assert.equal(originals.size, 8);
  });

  after(async () => {
    if (!signedIn) {
      return;
    }
    prompts.tokenAnswers = [''];
    await vscode.commands.executeCommand('labData.setCacheToken');
    restorePrompts();
    await vscode.workspace
      .getConfiguration('labData')
      .update('cacheFolder', cacheBefore, vscode.ConfigurationTarget.Global);
    await nginx?.stop();
    await signedIn.close();
    await fs.rm(path.dirname(folder), { recursive: true, force: true });
  });

  /** PUTs the server had taken when this window's Save began: none may follow (only Push publishes). */
  let putsBeforeSave = -1;

  it('Save publishes nothing to the team server: the file is kept in the personal cache alone', async () => {
    prompts.tokenAnswers = [CACHE_TOKEN];
    assert.equal(await vscode.commands.executeCommand('labData.setCacheToken'), true);
    const api = LabApi.forBaseUrl(signedIn.lab.baseUrl, { token: LEAK_CHECK_TOKEN });
    const recorded = new Set(
      [...originals.values()].map((bytes) => createHash('sha256').update(bytes).digest('hex')),
    );
    const other = (await listAllReports(api, {})).find(
      (report) => report.download_available && !originals.has(`${report.report_id}.pdf`),
    )!;
    await api.close();
    putsBeforeSave = (await nginx.accessLog()).filter((line) => line.method === 'PUT').length;
    const uri = await vscode.commands.executeCommand<vscode.Uri>(
      'labData.saveReportPdf',
      other.report_id,
    );
    const bytes = await fs.readFile(uri.fsPath);
    const hash = createHash('sha256').update(bytes).digest('hex');
    assert.ok(!recorded.has(hash), 'a file the server did not hold yet');
    const onServer = path.join(nginx.files, 'sha256', hash.slice(0, 2), hash);
    assert.equal(await fs.stat(onServer).catch(() => undefined), undefined, 'not on the server');
    const puts = (await nginx.accessLog()).filter((line) => line.method === 'PUT');
    assert.ok(!puts.some((line) => line.path.endsWith(hash)), JSON.stringify(puts));
    await fs.rm(uri.fsPath);
  });

  it("restores every file from the server with the lab stopped, sending the cache's token there and never the lab's", async () => {
    for (const name of originals.keys()) {
      await fs.rm(path.join(folder, name));
    }
    // Earlier suites of this window may have kept these reports in the personal cache, which
    // Restore reads first: gone from it, the server alone can give them.
    for (const bytes of originals.values()) {
      const hash = createHash('sha256').update(bytes).digest('hex');
      await fs.rm(path.join(defaultCacheFolder(), 'sha256', hash.slice(0, 2), hash), {
        force: true,
      });
    }
    await signedIn.lab.stop();
    const logged = (await nginx.accessLog()).length;
    const summary = await vscode.commands.executeCommand<{
      restored: number;
      fromCache: number;
      failed: number;
    }>('labData.restoreReports', { folder });
    assert.equal(summary.restored, 8);
    assert.equal(summary.fromCache, 8);
    assert.equal(summary.failed, 0);
    for (const [name, bytes] of originals) {
      assert.ok((await fs.readFile(path.join(folder, name))).equals(bytes), name);
    }
    const asked = (await nginx.accessLog()).slice(logged);
    assert.equal(asked.filter((line) => line.method === 'GET' && line.status === 200).length, 8);
    for (const line of await nginx.accessLog()) {
      assert.equal(line.authorization, `Bearer ${CACHE_TOKEN}`, `${line.method} ${line.path}`);
      assert.ok(!line.authorization.includes(LEAK_CHECK_TOKEN));
    }
  });

  it('a second Restore takes every file from the personal cache, and no Save or Restore wrote to the server', async () => {
    for (const name of originals.keys()) {
      await fs.rm(path.join(folder, name));
    }
    const logged = (await nginx.accessLog()).length;
    const summary = await vscode.commands.executeCommand<{
      restored: number;
      fromCache: number;
      failed: number;
    }>('labData.restoreReports', { folder });
    assert.equal(summary.restored, 8);
    assert.equal(summary.failed, 0);
    for (const [name, bytes] of originals) {
      assert.ok((await fs.readFile(path.join(folder, name))).equals(bytes), name);
    }
    const asked = (await nginx.accessLog()).slice(logged);
    assert.deepEqual(asked, [], 'the personal cache served the second Restore');
    const puts = (await nginx.accessLog()).filter((line) => line.method === 'PUT').length;
    assert.ok(putsBeforeSave >= 0);
    assert.equal(puts, putsBeforeSave, 'no PUT since the colleague filled the server');
  });
});
