import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApi } from '../../core/api/labApi';
import { ContentCache } from '../../core/files/contentCache';
import { listAllReports } from '../../core/sync/folderSync';
import { syncedAsColleague } from '../support/colleagueFolder';
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

interface RestoreSummary {
  restored: number;
  kept: number;
  failed: number;
  fromCache: number;
  fromLab: number;
  changedLocally: number;
}

/**
 * A colleague's repository, as `lab-data sync` leaves it (the same core sync the tool runs),
 * committed with real git, opened on a machine where two labs are signed in: Restore puts its
 * reports back at their recorded names and revisions without touching the manifest.
 */
describe('restoring a colleague’s saved reports in VS Code (labData.restoreReports)', function () {
  this.timeout(120_000);
  let signedIn: SignedInLab;
  let second: MockLabServer;
  let repo: string;
  let folder: string;
  let originals: Map<string, Buffer>;
  let manifestText: string;
  let cacheBefore: unknown;
  let machineCache: string;
  /** A colleague's own cache, made for the set-up and removed after. */
  let colleagueCacheFolder: string;
  const git = (...args: string[]): string =>
    execFileSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Colleague',
        GIT_AUTHOR_EMAIL: 'colleague@example.com',
        GIT_COMMITTER_NAME: 'Colleague',
        GIT_COMMITTER_EMAIL: 'colleague@example.com',
      },
    });

  before(async () => {
    signedIn = await signedInLab();
    second = await startLab({ seed: 7 });
    await signIn(second.baseUrl, LEAK_CHECK_TOKEN, 'Second lab');
    await eventually(async () =>
      assert.equal((await signedIn.api.getState()).labs.filter((lab) => lab.signedIn).length, 2),
    );
    const config = vscode.workspace.getConfiguration('labData');
    cacheBefore = config.inspect('cacheFolder')?.globalValue;
    machineCache = await fs.mkdtemp(path.join(tmpdir(), 'lab-restore-cache-'));
    await config.update('cacheFolder', machineCache, vscode.ConfigurationTarget.Global);

    // The colleague's clone: a folder synced with the lab, its manifest committed, PDFs ignored.
    repo = await fs.mkdtemp(path.join(workspaceFolder(), 'colleague-'));
    folder = path.join(repo, 'lab-reports');
    git('init', '--quiet', '-b', 'main');
    await fs.writeFile(path.join(repo, '.gitignore'), 'lab-reports/*.pdf\n');
    const api = LabApi.forBaseUrl(signedIn.lab.baseUrl, { token: LEAK_CHECK_TOKEN });
    colleagueCacheFolder = await fs.mkdtemp(path.join(tmpdir(), 'colleague-cache-'));
    const colleagueCache = new ContentCache(colleagueCacheFolder);
    const reports = (await listAllReports(api, {}))
      .filter((report) => report.download_available)
      .slice(0, 12);
    await syncedAsColleague(api, folder, reports, colleagueCache);
    await api.close();
    originals = new Map();
    for (const name of (await fs.readdir(folder)).filter((file) => file.endsWith('.pdf'))) {
      originals.set(name, await fs.readFile(path.join(folder, name)));
    }
    assert.equal(originals.size, 12);
    git('add', '.');
    git('commit', '--quiet', '-m', 'reports');
    manifestText = await fs.readFile(path.join(folder, 'lab-data-sync.json'), 'utf8');
  });

  after(async () => {
    await vscode.workspace
      .getConfiguration('labData')
      .update('cacheFolder', cacheBefore, vscode.ConfigurationTarget.Global);
    await vscode.commands
      .executeCommand('labData.signOut', { name: 'Second lab' })
      .then(undefined, () => false);
    await second?.stop();
    await signedIn?.close();
    await fs.rm(repo, { recursive: true, force: true });
    await fs.rm(machineCache, { recursive: true, force: true });
    await fs.rm(colleagueCacheFolder, { recursive: true, force: true });
  });

  /** The clone as a colleague's checkout has it: every PDF but two gone, one of the two changed. */
  async function asCheckedOut(): Promise<{ changed: string; kept: string }> {
    const names = [...originals.keys()].sort();
    for (const name of names.slice(2)) {
      await fs.rm(path.join(folder, name), { force: true });
    }
    const [changed, kept] = names as [string, string];
    await fs.writeFile(path.join(folder, changed), 'my annotated copy');
    await fs.writeFile(path.join(folder, kept), originals.get(kept)!);
    return { changed, kept };
  }

  it('restores every missing file byte for byte at its recorded name, keeps the changed one, leaves the manifest and git status as they were; then again from the cache with the lab stopped', async () => {
    const { changed } = await asCheckedOut();
    const summary = await vscode.commands.executeCommand<RestoreSummary>('labData.restoreReports', {
      folder,
    });
    assert.equal(summary.restored, 10);
    assert.equal(summary.fromLab, 10);
    assert.equal(summary.changedLocally, 1);
    assert.equal(summary.kept, 2);
    assert.equal(summary.failed, 0);
    for (const [name, bytes] of originals) {
      const now = await fs.readFile(path.join(folder, name));
      if (name === changed) {
        assert.equal(
          now.toString(),
          'my annotated copy',
          'a locally changed file is never replaced',
        );
      } else {
        assert.ok(now.equals(bytes), `${name} is byte-identical`);
      }
    }
    assert.equal(await fs.readFile(path.join(folder, 'lab-data-sync.json'), 'utf8'), manifestText);
    assert.equal(git('status', '--porcelain'), '', 'git sees no change: no stray folder or file');
    assert.deepEqual(
      (await fs.readdir(folder)).filter((name) => !name.endsWith('.pdf')).sort(),
      ['.lab-data', 'lab-data-sync.json'],
      'no folder per lab appeared',
    );

    // The lab stops: what the first restore kept in this machine's cache comes back without it.
    await asCheckedOut();
    await signedIn.lab.stop();
    const offline = await vscode.commands.executeCommand<RestoreSummary>('labData.restoreReports', {
      folder,
    });
    assert.equal(offline.restored, 10);
    assert.equal(offline.fromCache, 10);
    assert.equal(offline.fromLab, 0);
    assert.equal(offline.failed, 0);
    for (const [name, bytes] of originals) {
      if (name !== changed) {
        assert.ok((await fs.readFile(path.join(folder, name))).equals(bytes), name);
      }
    }
    assert.equal(git('status', '--porcelain'), '');
  });

  it('the per-file fix restores a file in place at its recorded name with two labs signed in, and changes no entry (from the cache: the lab is still stopped)', async () => {
    await asCheckedOut();
    // A file this machine restored before (so its cache has it), annotated since.
    const changed = [...originals.keys()].sort()[5]!;
    await fs.writeFile(path.join(folder, changed), 'my annotated copy');
    await vscode.commands.executeCommand('labData.verifySavedReports', { folder });
    const manifestUri = vscode.Uri.file(path.join(folder, 'lab-data-sync.json'));
    const id = changed.replace(/\.pdf$/, '');
    const problem = await eventually(() => {
      const found = vscode.languages
        .getDiagnostics(manifestUri)
        .find((diagnostic) => diagnostic.code === id);
      assert.ok(found, `a problem for ${id}`);
      return found;
    });
    const document = await vscode.workspace.openTextDocument(manifestUri);
    const fix = (
      await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        document.uri,
        problem.range,
      )
    ).find((action) => action.command?.command === 'labData.redownloadSavedReport')!;
    assert.ok(fix, 'the quick fix is offered');
    const restored = await vscode.commands.executeCommand<vscode.Uri>(
      fix.command!.command,
      ...(fix.command!.arguments ?? []),
    );
    assert.equal(restored?.fsPath, path.join(folder, changed));
    assert.ok((await fs.readFile(path.join(folder, changed))).equals(originals.get(changed)!));
    assert.equal(await fs.readFile(path.join(folder, 'lab-data-sync.json'), 'utf8'), manifestText);
    assert.ok(
      !existsSync(path.join(folder, signedIn.name)),
      'nothing was written into a folder named after the lab',
    );
    assert.ok(
      !vscode.languages.getDiagnostics(manifestUri).some((diagnostic) => diagnostic.code === id),
      'its problem is gone',
    );
  });
});
