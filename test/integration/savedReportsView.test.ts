import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApi } from '../../core/api/labApi';
import { ContentCache } from '../../core/files/contentCache';
import { listAllReports } from '../../core/sync/folderSync';
import { readManifestStrictly } from '../../core/sync/manifest';
import { useCloneProfile } from '../../core/derived/selection';
import { syncedAsColleague } from '../support/colleagueFolder';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  bigLockfile,
  eventually,
  signedInLab,
  workspaceFolder,
  type SignedInLab,
} from './helpers';

interface Row {
  readonly label: string;
  readonly description: string;
  readonly contextValue: string;
  readonly node: unknown;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Colleague',
  GIT_AUTHOR_EMAIL: 'colleague@example.com',
  GIT_COMMITTER_NAME: 'Colleague',
  GIT_COMMITTER_EMAIL: 'colleague@example.com',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: GIT_ENV, stdio: 'pipe' });
}

type Lockfile = { labs: Record<string, { reports: Record<string, unknown> }> };

/**
 * The Saved Reports view over a colleague's repository (made by the same core sync as `lab-data
 * sync`, committed with real git): each report's state from the disk and the cache alone, no lab
 * request unless asked; the actions Restore, Check the Lab for Amendments, Resolve and Push.
 */
describe('the Saved Reports view (labData.savedReports)', function () {
  this.timeout(180_000);
  let signedIn: SignedInLab;
  let repo: string;
  let folder: string;
  let names: string[];
  let machineCache: string;
  /** A colleague's own cache, made for the set-up and removed after. */
  let colleagueCacheFolder: string;
  let cacheBefore: unknown;
  const provider = (): vscode.TreeDataProvider<unknown> =>
    signedIn.api.savedReports.provider as vscode.TreeDataProvider<unknown>;

  async function rowsOf(parent?: unknown): Promise<Row[]> {
    const nodes = (await provider().getChildren(parent)) ?? [];
    return Promise.all(
      nodes.map(async (node) => {
        const item = await provider().getTreeItem(node);
        return {
          label: String(typeof item.label === 'object' ? item.label.label : item.label),
          description: String(item.description ?? ''),
          contextValue: item.contextValue ?? '',
          node,
        };
      }),
    );
  }

  async function folderRow(where: string): Promise<Row> {
    const rows = await rowsOf();
    const found = rows.find((row) => (row.node as { folder?: string }).folder === where);
    assert.ok(found, `the view lists ${where}: ${rows.map((row) => row.label).join(', ')}`);
    return found;
  }

  /** Each report row's file and context value (its state) under the folder's only lab. */
  async function statesOf(where: string): Promise<Map<string, string>> {
    const [lab] = await rowsOf((await folderRow(where)).node);
    assert.ok(lab, 'a lab row');
    return new Map(
      (await rowsOf(lab.node)).map((row) => [
        row.label,
        row.contextValue.replace('labData.savedReport.', ''),
      ]),
    );
  }

  before(async () => {
    signedIn = await signedInLab();
    const config = vscode.workspace.getConfiguration('labData');
    cacheBefore = config.inspect('cacheFolder')?.globalValue;
    machineCache = await fs.mkdtemp(path.join(tmpdir(), 'lab-view-cache-'));
    await config.update('cacheFolder', machineCache, vscode.ConfigurationTarget.Global);

    repo = await fs.mkdtemp(path.join(workspaceFolder(), 'view-colleague-'));
    folder = path.join(repo, 'lab-reports');
    git(repo, 'init', '--quiet', '-b', 'main');
    await fs.writeFile(path.join(repo, '.gitignore'), 'lab-reports/*.pdf\n');
    const api = LabApi.forBaseUrl(signedIn.lab.baseUrl, { token: LEAK_CHECK_TOKEN });
    colleagueCacheFolder = await fs.mkdtemp(path.join(tmpdir(), 'view-colleague-cache-'));
    const colleagueCache = new ContentCache(colleagueCacheFolder);
    const reports = (await listAllReports(api, {}))
      .filter((report) => report.download_available && report.status !== 'amended')
      .slice(0, 8);
    await syncedAsColleague(api, folder, reports, colleagueCache);
    await api.close();
    git(repo, 'add', '.');
    git(repo, 'commit', '--quiet', '-m', 'reports');
    // The clone as checked out: this machine's cache holds two of the files; one kept, changed.
    names = (await fs.readdir(folder)).filter((name) => name.endsWith('.pdf')).sort();
    assert.equal(names.length, 8);
    const { manifest } = await readManifestStrictly(folder);
    const entries = Object.values(Object.values(manifest!.labs)[0]!.files);
    const cache = new ContentCache(machineCache);
    for (const name of names.slice(0, 2)) {
      const entry = entries.find((each) => each.file === name)!;
      await cache.publish(path.join(folder, name), entry.sha256, entry.bytes);
    }
    for (const name of names.slice(0, 7)) {
      await fs.rm(path.join(folder, name));
    }
    await fs.writeFile(path.join(folder, names[7]!), 'my annotated copy');
  });

  after(async () => {
    await vscode.workspace
      .getConfiguration('labData')
      .update('cacheFolder', cacheBefore, vscode.ConfigurationTarget.Global);
    await signedIn?.close();
    await fs.rm(repo, { recursive: true, force: true });
    await fs.rm(machineCache, { recursive: true, force: true });
    await fs.rm(colleagueCacheFolder, { recursive: true, force: true });
  });

  it('shows a colleague’s repository as it is (missing from the cache or the lab, changed locally) without a lab request; after Restore, in step', async () => {
    signedIn.lab.takeRequests();
    const row = await eventually(() => folderRow(folder));
    assert.equal(row.description, '8 recorded · 7 missing · 1 changed');
    const states = await statesOf(folder);
    assert.equal(states.get(names[0]!), 'missingCached');
    assert.equal(states.get(names[1]!), 'missingCached');
    assert.equal(states.get(names[2]!), 'missingLab');
    assert.equal(states.get(names[7]!), 'changed');
    assert.deepEqual(signedIn.lab.takeRequests(), [], 'the view asked the lab nothing');

    await vscode.commands.executeCommand('labData.restoreSavedFolder', { folder });
    await eventually(async () => {
      const now = await statesOf(folder);
      for (const name of names.slice(0, 7)) {
        assert.equal(now.get(name), 'inStep', name);
      }
      assert.equal(now.get(names[7]!), 'changed', 'a changed file is kept');
    });
  });

  it('follows a file deleted outside VS Code without asking the lab', async () => {
    await statesOf(folder);
    signedIn.lab.takeRequests();
    await fs.rm(path.join(folder, names[3]!));
    await eventually(async () =>
      // Restore kept it in this machine's cache: restorable without the lab.
      assert.equal((await statesOf(folder)).get(names[3]!), 'missingCached'),
    );
    assert.deepEqual(signedIn.lab.takeRequests(), [], 'no lab request');

    // Restore on that row: the one file, from the cache, at its recorded name.
    const [lab] = await rowsOf((await folderRow(folder)).node);
    const row = (await rowsOf(lab!.node)).find((each) => each.label === names[3]);
    assert.equal(row?.contextValue, 'labData.savedReport.missingCached');
    await vscode.commands.executeCommand('labData.restoreSavedFolder', row!.node);
    assert.ok(existsSync(path.join(folder, names[3]!)));
    assert.deepEqual(signedIn.lab.takeRequests(), [], 'restored from the cache');
    await eventually(async () => assert.equal((await statesOf(folder)).get(names[3]!), 'inStep'));
  });

  it('Check the Lab for Amendments finds a report the lab amended; nothing before it is asked', async () => {
    const { manifest } = await readManifestStrictly(folder);
    const amendedEntry = Object.values(Object.values(manifest!.labs)[0]!.files).find(
      (entry) => entry.file === names[4],
    )!;
    signedIn.lab.amendReport(amendedEntry.report_id);
    assert.equal((await statesOf(folder)).get(names[4]!), 'inStep', 'not before the check');
    const found = await vscode.commands.executeCommand<{ amended: number }>(
      'labData.checkForAmendments',
      { folder },
    );
    assert.equal(found.amended, 1);
    assert.ok(signedIn.lab.takeRequests().length > 0, 'the check asked the lab');
    await eventually(async () => assert.equal((await statesOf(folder)).get(names[4]!), 'amended'));
    const [lab] = await rowsOf((await folderRow(folder)).node);
    const row = (await rowsOf(lab!.node)).find((each) => each.label === names[4]);
    assert.match(row!.description, /amended at the lab: revision 1 → 2/);

    // Update to the Lab's Revision: asked first (declined: nothing changes), then that entry alone.
    const before = await readManifestStrictly(folder);
    const fake = new FakePrompts();
    const restorePrompts = signedIn.api.setPrompts(fake);
    try {
      fake.confirmAnswer = false;
      assert.equal(
        await vscode.commands.executeCommand('labData.updateToLabRevision', row!.node),
        false,
      );
      assert.match(fake.confirmAsked[0]!.detail, /recorded revision 1, at the lab 2/);
      fake.confirmAnswer = true;
      assert.equal(
        await vscode.commands.executeCommand('labData.updateToLabRevision', row!.node),
        true,
      );
    } finally {
      restorePrompts();
    }
    const after = await readManifestStrictly(folder);
    const [beforeFiles, afterFiles] = [before, after].map(
      (read) => Object.values(read.manifest!.labs)[0]!.files,
    );
    assert.equal(afterFiles![amendedEntry.report_id]!.revision, '2');
    assert.notEqual(afterFiles![amendedEntry.report_id]!.sha256, amendedEntry.sha256);
    for (const [id, entry] of Object.entries(beforeFiles!)) {
      if (id !== amendedEntry.report_id) {
        assert.deepEqual(afterFiles![id], entry, `${id} is unchanged`);
      }
    }
    await eventually(async () => assert.equal((await statesOf(folder)).get(names[4]!), 'inStep'));
  });

  it('installs the merge driver for a repository whose .gitattributes names none', async () => {
    await vscode.commands.executeCommand('labData.installMergeDriver', { folder });
    assert.match(
      await fs.readFile(path.join(repo, '.gitattributes'), 'utf8'),
      /^lab-data-sync\.json merge=lab-data$/m,
    );
    assert.equal(
      git(repo, 'check-attr', 'merge', '--', 'lab-reports/lab-data-sync.json').trim(),
      'lab-reports/lab-data-sync.json: merge: lab-data',
    );
  });

  it('Push to Team Cache fills a cache folder with every file as recorded', async () => {
    const team = await fs.mkdtemp(path.join(tmpdir(), 'lab-view-team-'));
    const config = vscode.workspace.getConfiguration('labData');
    await config.update('cacheFolder', team, vscode.ConfigurationTarget.Global);
    try {
      const summary = await vscode.commands.executeCommand<{
        pushed: number;
        notPushed: number;
        cache: string;
      }>('labData.pushToTeamCache', { folder });
      assert.equal(summary.cache, team);
      // 8 recorded, one changed locally (never pushed): the other seven go in.
      assert.equal(summary.pushed, 7);
      assert.equal(summary.notPushed, 1);
      const { manifest } = await readManifestStrictly(folder);
      const entry = Object.values(Object.values(manifest!.labs)[0]!.files).find(
        (each) => each.file === names[0],
      )!;
      assert.ok(existsSync(path.join(team, 'sha256', entry.sha256.slice(0, 2), entry.sha256)));
    } finally {
      await config.update('cacheFolder', machineCache, vscode.ConfigurationTarget.Global);
      await fs.rm(team, { recursive: true, force: true });
    }
  });

  it('shows a manifest git left unmerged, with Resolve: the core merges both sides and stages it', async () => {
    const conflicted = await fs.mkdtemp(path.join(workspaceFolder(), 'view-merge-'));
    const reports = path.join(conflicted, 'reports');
    const origin = new URL(signedIn.lab.baseUrl).origin;
    const manifestFile = path.join(reports, 'lab-data-sync.json');
    try {
      git(conflicted, 'init', '--quiet', '-b', 'main');
      git(conflicted, 'config', 'merge.lab-data.driver', 'lab-data-not-on-path %O %A %B');
      await fs.mkdir(reports);
      await fs.writeFile(
        path.join(conflicted, '.gitattributes'),
        'lab-data-sync.json merge=lab-data\n',
      );
      await fs.writeFile(manifestFile, bigLockfile(origin, 1, 'R-1'));
      git(conflicted, 'add', '.');
      git(conflicted, 'commit', '--quiet', '-m', 'base');
      git(conflicted, 'checkout', '--quiet', '-b', 'theirs');
      await fs.writeFile(manifestFile, bigLockfile(origin, 3, 'R-1'));
      git(conflicted, 'commit', '--quiet', '-am', 'theirs');
      git(conflicted, 'checkout', '--quiet', 'main');
      await fs.writeFile(manifestFile, bigLockfile(origin, 2, 'R-1'));
      git(conflicted, 'commit', '--quiet', '-am', 'ours');
      assert.throws(() => git(conflicted, 'merge', '--no-edit', 'theirs'));

      const row = await eventually(() => folderRow(reports));
      assert.equal(row.contextValue, 'labData.savedFolder.conflicted');
      assert.equal(row.description, 'unmerged');
      const resolved = await vscode.commands.executeCommand<{ staged: boolean; conflicts: number }>(
        'labData.resolveManifest',
        row.node,
      );
      assert.equal(resolved.conflicts, 0);
      assert.equal(resolved.staged, true);
      await eventually(async () => {
        const now = await folderRow(reports);
        assert.equal(now.contextValue, 'labData.savedFolder');
        assert.match(now.description, /^3 recorded · 3 missing/);
      });
    } finally {
      await fs.rm(conflicted, { recursive: true, force: true });
    }
  });

  it('shows a committed merge that lost reports (its driver never ran, git kept ours), with Resolve: rebuilt from the merge’s parents and staged', async () => {
    const lost = await fs.mkdtemp(path.join(workspaceFolder(), 'view-lost-merge-'));
    const reports = path.join(lost, 'reports');
    const origin = new URL(signedIn.lab.baseUrl).origin;
    const manifestFile = path.join(reports, 'lab-data-sync.json');
    const lockfileOf = (...prefixes: string[]): string => {
      const labs = prefixes.map((prefix) => JSON.parse(bigLockfile(origin, 1, prefix)) as Lockfile);
      const reportsOf = Object.assign({}, ...labs.map((each) => each.labs[origin]!.reports));
      return `${JSON.stringify({ labs: { [origin]: { name: 'Big lab', reports: reportsOf } }, version: 3 }, null, 2)}\n`;
    };
    try {
      git(lost, 'init', '--quiet', '-b', 'main');
      git(lost, 'config', 'merge.lab-data.driver', 'lab-data-not-on-path %O %A %B');
      await fs.mkdir(reports);
      await fs.writeFile(path.join(lost, '.gitattributes'), 'lab-data-sync.json merge=lab-data\n');
      await fs.writeFile(manifestFile, lockfileOf('R-1'));
      git(lost, 'add', '.');
      git(lost, 'commit', '--quiet', '-m', 'base');
      git(lost, 'checkout', '--quiet', '-b', 'theirs');
      await fs.writeFile(manifestFile, lockfileOf('R-1', 'R-3'));
      git(lost, 'commit', '--quiet', '-am', 'theirs');
      git(lost, 'checkout', '--quiet', 'main');
      await fs.writeFile(manifestFile, lockfileOf('R-1', 'R-2'));
      git(lost, 'commit', '--quiet', '-am', 'ours');
      assert.throws(() => git(lost, 'merge', '--no-edit', 'theirs'));
      // No markers in the file: a person adds it and commits the merge, which loses R-3.
      git(lost, 'add', '.');
      git(lost, 'commit', '--quiet', '--no-edit');
      const commit = git(lost, 'rev-parse', 'HEAD').trim();

      const row = await eventually(async () => {
        const now = await folderRow(reports);
        assert.equal(now.description, 'a merge lost reports');
        return now;
      });
      assert.equal(row.contextValue, 'labData.savedFolder.conflicted');
      const item = await provider().getTreeItem(row.node);
      assert.match(
        String(item.tooltip),
        new RegExp(`The merge ${commit.slice(0, 12)} left 1 report\\(s\\) out of .*R-3-000000`),
      );
      const resolved = await vscode.commands.executeCommand<{
        outcome: string;
        staged: boolean;
        conflicts: number;
      }>('labData.resolveManifest', row.node);
      assert.deepEqual(resolved, { outcome: 'restored', conflicts: 0, staged: true });
      assert.deepEqual(
        Object.keys(
          (JSON.parse(await fs.readFile(manifestFile, 'utf8')) as Lockfile).labs[origin]!.reports,
        ),
        ['R-1-000000', 'R-2-000000', 'R-3-000000'],
      );
      git(lost, 'commit', '--quiet', '-m', 'the report the merge lost');
      await eventually(async () => {
        const now = await folderRow(reports);
        assert.equal(now.contextValue, 'labData.savedFolder');
        assert.match(now.description, /^3 recorded · 3 missing/);
      });
    } finally {
      await fs.rm(lost, { recursive: true, force: true });
    }
  });

  // Its speed (≤ 1 s) is a figure of `npm run bench` (test/integration/performance.test.ts), not a
  // timed test: a busy machine took 5 s. Here, what it does: every row, from the disk alone.
  it('opens a manifest of 10,000 reports: every report a row, the first one named, from the disk alone (no lab request)', async () => {
    const big = await fs.mkdtemp(path.join(workspaceFolder(), 'view-big-'));
    try {
      await fs.writeFile(
        path.join(big, 'lab-data-sync.json'),
        bigLockfile(new URL(signedIn.lab.baseUrl).origin, 10_000),
      );
      // Once the view knows of the new manifest (the watcher), it is opened from a fresh read.
      await eventually(() => folderRow(big));
      await vscode.commands.executeCommand('labData.refreshSavedReports');
      signedIn.lab.takeRequests();
      const started = performance.now();
      const row = await folderRow(big);
      const [lab] = await rowsOf(row.node);
      const reports = await provider().getChildren(lab!.node);
      console.log(
        `      (10,000 reports: the view opened the folder and its lab in ${(performance.now() - started).toFixed(0)} ms)`,
      );
      assert.equal(reports?.length, 10_000);
      assert.equal(row.description, '10,000 recorded · 10,000 missing');
      const first = await provider().getTreeItem(reports[0]);
      const firstLabel = String(typeof first.label === 'object' ? first.label.label : first.label);
      assert.match(firstLabel, /RPT-9-000000/);
      assert.deepEqual(signedIn.lab.takeRequests(), []);
    } finally {
      await fs.rm(big, { recursive: true, force: true });
    }
  });

  it('shows the reports outside the folder’s default profile as not selected', async () => {
    const { manifest } = await readManifestStrictly(folder);
    const entries = Object.values(Object.values(manifest!.labs)[0]!.files);
    const chosen = entries.filter((entry) => entry.file === names[0] || entry.file === names[1]);
    const profiles = path.join(folder, 'lab-data-profiles.json');
    await fs.writeFile(
      profiles,
      JSON.stringify({
        version: 1,
        default: 'mine',
        profiles: { mine: { report: chosen.map((entry) => entry.report_id) } },
      }),
    );
    try {
      await eventually(async () => {
        const states = await statesOf(folder);
        assert.notEqual(states.get(names[0]!), 'notSelected');
        assert.notEqual(states.get(names[1]!), 'notSelected');
        for (const name of names.slice(2)) {
          assert.equal(states.get(name), 'notSelected', name);
        }
        assert.match((await folderRow(folder)).description, /· 6 not selected$/);
      });
    } finally {
      await fs.rm(profiles, { force: true });
    }
  });

  it('honours the clone’s own profile (lab-data profile use, .lab-data/profile): the reports outside it shown as not selected, and all again once it is forgotten', async () => {
    const { manifest } = await readManifestStrictly(folder);
    const entries = Object.values(Object.values(manifest!.labs)[0]!.files);
    const chosen = entries.filter((entry) => entry.file === names[2] || entry.file === names[3]);
    const profiles = path.join(folder, 'lab-data-profiles.json');
    let disposeWatcher = (): void => undefined;
    // No "default": only the clone's own profile selects.
    await fs.writeFile(
      profiles,
      JSON.stringify({
        version: 1,
        profiles: { coa: { report: chosen.map((entry) => entry.report_id) } },
      }),
    );
    // The window's file events of the clone's profile file: a create and a delete that reach the
    // host in one batch are dropped as nothing, so the delete waits until the create was heard.
    const created = new Promise<void>((resolve) => {
      const watcher = vscode.workspace.createFileSystemWatcher('**/.lab-data/profile');
      disposeWatcher = () => watcher.dispose();
      watcher.onDidCreate((uri) => {
        if (uri.fsPath === path.join(folder, '.lab-data', 'profile')) {
          resolve();
        }
      });
    });
    try {
      await eventually(async () => {
        const states = await statesOf(folder);
        assert.ok(
          names.every((name) => states.get(name) !== 'notSelected'),
          'no profile applies yet',
        );
      });
      // What `lab-data profile use coa` does.
      await useCloneProfile(folder, 'coa');
      await eventually(async () => {
        const states = await statesOf(folder);
        for (const name of names) {
          const inProfile = name === names[2] || name === names[3];
          assert.equal(states.get(name) === 'notSelected', !inProfile, name);
        }
        assert.match((await folderRow(folder)).description, /· 6 not selected$/);
      });
      await created;
      await useCloneProfile(folder, undefined);
      await eventually(async () => {
        const states = await statesOf(folder);
        assert.ok(names.every((name) => states.get(name) !== 'notSelected'));
      });
    } finally {
      disposeWatcher();
      await useCloneProfile(folder, undefined);
      await fs.rm(profiles, { force: true });
    }
  });
});
