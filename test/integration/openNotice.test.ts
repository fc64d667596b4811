import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LabApi } from '../../core/api/labApi';
import { saveReports } from '../../core/sync/bulkSave';
import { listAllReports } from '../../core/sync/folderSync';
import { DEFAULT_FILE_NAME_TEMPLATE } from '../../core/sync/reportFiles';
import {
  LEAK_CHECK_TOKEN,
  eventually,
  signedInLab,
  workspaceFolder,
  type SignedInLab,
} from './helpers';

/**
 * Opening a workspace whose manifest lists files that are not there: one notification, with the
 * count and Restore, told once for the same missing files, and never again for a folder the person
 * set aside.
 */
describe('the notice of missing saved reports on opening a workspace', function () {
  this.timeout(120_000);
  let signedIn: SignedInLab;
  let folder: string;
  let names: string[];
  const asked: Array<{ message: string; actions: readonly string[] }> = [];
  /** Answers the notification with `choice` (a button's title, or undefined: dismissed), recording it. */
  const answering =
    (choice?: string) =>
    (message: string, actions: readonly string[]): Promise<string | undefined> => {
      asked.push({ message, actions });
      return Promise.resolve(choice);
    };

  before(async () => {
    signedIn = await signedInLab();
    folder = await fs.mkdtemp(path.join(workspaceFolder(), 'opened-'));
    const api = LabApi.forBaseUrl(signedIn.lab.baseUrl, { token: LEAK_CHECK_TOKEN });
    const reports = (await listAllReports(api, {}))
      .filter((report) => report.download_available)
      .slice(0, 5);
    await saveReports(reports, {
      api,
      target: { folder, template: DEFAULT_FILE_NAME_TEMPLATE },
      signal: new AbortController().signal,
      concurrency: 2,
    });
    await api.close();
    names = reports.map((report) => `${report.report_id}.pdf`);
  });

  after(async () => {
    await signedIn?.close();
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('activation checks once; a manifest listing missing files gets one notice with the count and Restore, once for the same state', async () => {
    assert.ok(signedIn.api.savedFiles.missingChecks() >= 1, 'activation ran the check');
    for (const name of names.slice(0, 3)) {
      await fs.rm(path.join(folder, name));
    }
    // Every folder with a manifest in the workspace: this one among them, with its count.
    const found = await signedIn.api.savedFiles.checkMissing(answering());
    assert.deepEqual(
      found.folders.find((item) => item.folder === folder),
      { folder, missing: 3 },
    );
    assert.equal(asked.length, 1, 'one notification');
    const scoped = found.folders.length === 1;
    if (scoped) {
      assert.match(
        asked[0]!.message,
        /^3 report file\(s\) recorded in .*lab-data-sync\.json are missing/,
      );
    }
    assert.deepEqual(asked[0]!.actions, [
      'Restore',
      scoped ? 'Don’t Ask for This Folder' : 'Don’t Ask for These Folders',
    ]);
    const again = await signedIn.api.savedFiles.checkMissing(answering(), [folder]);
    assert.deepEqual(again.folders, [], 'the same missing files are told of once');
    assert.equal(asked.length, 1);
  });

  it('told again when other files go missing; Restore restores them from there', async () => {
    await fs.rm(path.join(folder, names[3]!));
    const restored = await signedIn.api.savedFiles.checkMissing(answering('Restore'), [folder]);
    assert.deepEqual(restored.folders, [{ folder, missing: 4 }]);
    assert.equal(restored.choice, 'restore');
    assert.match(asked.at(-1)!.message, /^4 report file\(s\) recorded in /);
    for (const name of names) {
      assert.ok(existsSync(path.join(folder, name)), `${name} restored`);
    }
  });

  it('“Don’t Ask for This Folder” stops the notice for that folder', async () => {
    await fs.rm(path.join(folder, names[0]!));
    const never = await signedIn.api.savedFiles.checkMissing(
      answering('Don’t Ask for This Folder'),
      [folder],
    );
    assert.equal(never.choice, 'neverAsk');
    const told = asked.length;
    await fs.rm(path.join(folder, names[1]!));
    const after = await signedIn.api.savedFiles.checkMissing(answering(), [folder]);
    assert.deepEqual(after.folders, []);
    assert.equal(asked.length, told, 'not asked again');
  });

  it('a manifest a git merge left unmerged is told of on opening, with Resolve, which merges both sides; once', async () => {
    const repo = await fs.mkdtemp(path.join(workspaceFolder(), 'opened-unmerged-'));
    const manifestFile = path.join(repo, 'lab-data-sync.json');
    const git = (...args: string[]): string =>
      execFileSync('git', args, {
        cwd: repo,
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
    const origin = new URL(signedIn.lab.baseUrl).origin;
    const lockfile = (ids: string[]): string =>
      `${JSON.stringify(
        {
          labs: {
            [origin]: {
              name: 'Lab',
              reports: Object.fromEntries(
                ids.map((id) => [
                  id,
                  { bytes: 3, file: `${id}.pdf`, revision: '1', sha256: 'c'.repeat(64) },
                ]),
              ),
            },
          },
          version: 3,
        },
        null,
        2,
      )}\n`;
    try {
      git('init', '--quiet', '-b', 'main');
      git('config', 'merge.lab-data.driver', 'lab-data-not-on-path %O %A %B');
      await fs.writeFile(path.join(repo, '.gitattributes'), 'lab-data-sync.json merge=lab-data\n');
      await fs.writeFile(manifestFile, lockfile(['R-1']));
      git('add', '.');
      git('commit', '--quiet', '-m', 'base');
      git('checkout', '--quiet', '-b', 'theirs');
      await fs.writeFile(manifestFile, lockfile(['R-1', 'R-3']));
      git('commit', '--quiet', '-am', 'theirs');
      git('checkout', '--quiet', 'main');
      await fs.writeFile(manifestFile, lockfile(['R-1', 'R-2']));
      git('commit', '--quiet', '-am', 'ours');
      assert.throws(() => git('merge', '--no-edit', 'theirs'));

      const told = asked.length;
      const outcome = await signedIn.api.savedFiles.checkMissing(answering('Resolve'), [repo]);
      assert.deepEqual(outcome.conflicted, [repo]);
      assert.equal(asked.length, told + 1, 'one notification');
      assert.match(asked.at(-1)!.message, /^A git merge left .*lab-data-sync\.json unfinished/);
      assert.deepEqual(asked.at(-1)!.actions, ['Resolve']);
      await eventually(() => assert.equal(git('ls-files', '-u').trim(), '', 'resolved and staged'));
      const reports = (
        JSON.parse(await fs.readFile(manifestFile, 'utf8')) as {
          labs: Record<string, { reports: Record<string, unknown> }>;
        }
      ).labs[origin]!.reports;
      assert.deepEqual(Object.keys(reports), ['R-1', 'R-2', 'R-3']);
    } finally {
      await fs.rm(repo, { recursive: true, force: true });
    }
  });
});
