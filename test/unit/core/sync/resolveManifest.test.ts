import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { isUnmerged, namesMergeDriver, stageFile } from '../../../../core/sync/gitState';
import { MANIFEST_FILE_NAME, readManifestStrictly } from '../../../../core/sync/manifest';
import {
  GITATTRIBUTES_LINE,
  USES_GITATTRIBUTES_LINE,
  ManifestGitError,
  installMergeDriver,
  resolveManifest,
} from '../../../../core/sync/resolveManifest';

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Analyst',
  GIT_AUTHOR_EMAIL: 'analyst@example.com',
  GIT_COMMITTER_NAME: 'Analyst',
  GIT_COMMITTER_EMAIL: 'analyst@example.com',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: 'pipe' });
}

/** A version 3 manifest recording the given report ids. */
function lockfile(...ids: string[]): string {
  const reports = ids
    .map(
      (id) => `        "${id}": {"bytes": 10, "file": "${id}.pdf", "sha256": "${'a'.repeat(64)}"}`,
    )
    .join(',\n');
  return `{\n  "labs": {\n    "https://lab.example.com": {\n      "name": "Meridian",\n      "reports": {\n${reports}\n      }\n    }\n  },\n  "version": 3\n}\n`;
}

/** Two branches that each added a report, merged without a driver git can run: left unmerged. */
async function unmergedRepository(root: string): Promise<string> {
  const repo = await fs.mkdtemp(path.join(root, 'repo-'));
  git(repo, 'init', '--quiet', '-b', 'main');
  git(repo, 'config', 'merge.lab-data.driver', 'lab-data-not-on-path merge-manifest %O %A %B');
  await fs.mkdir(path.join(repo, 'reports'));
  await fs.writeFile(path.join(repo, '.gitattributes'), `${GITATTRIBUTES_LINE}\n`);
  const file = path.join(repo, 'reports', MANIFEST_FILE_NAME);
  await fs.writeFile(file, lockfile('R-1'));
  git(repo, 'add', '.');
  git(repo, 'commit', '--quiet', '-m', 'base');
  git(repo, 'checkout', '--quiet', '-b', 'theirs');
  await fs.writeFile(file, lockfile('R-1', 'R-3'));
  git(repo, 'commit', '--quiet', '-am', 'theirs');
  git(repo, 'checkout', '--quiet', 'main');
  await fs.writeFile(file, lockfile('R-1', 'R-2'));
  git(repo, 'commit', '--quiet', '-am', 'ours');
  assert.throws(() => git(repo, 'merge', '--no-edit', 'theirs'));
  return repo;
}

describe('resolving a manifest and installing the merge driver (core of merge-manifest --resolve/--install)', function () {
  this.timeout(30_000);
  let root: string;

  before(async () => {
    root = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-resolve-'));
  });
  after(() => fs.rm(root, { recursive: true, force: true }));

  it('merges a manifest git holds as unmerged from its index: both sides’ reports kept, readable again once added', async () => {
    const repo = await unmergedRepository(root);
    const folder = path.join(repo, 'reports');
    assert.equal((await readManifestStrictly(folder)).problems[0]?.kind, 'unmerged');
    const resolved = await resolveManifest(folder);
    assert.equal(resolved.outcome, 'merged');
    assert.equal(resolved.fromGit, true);
    assert.deepEqual(resolved.conflicts, []);
    assert.equal(await stageFile(path.join(folder, MANIFEST_FILE_NAME)), true);
    assert.equal(await isUnmerged(path.join(folder, MANIFEST_FILE_NAME)), false);
    const { manifest, problems } = await readManifestStrictly(folder);
    assert.deepEqual(problems, []);
    assert.deepEqual(Object.keys(Object.values(manifest!.labs)[0]!.files).sort(), [
      'R-1',
      'R-2',
      'R-3',
    ]);
  });

  it('merges a manifest with conflict markers outside a merge; says there is nothing to do for a clean one', async () => {
    const folder = await fs.mkdtemp(path.join(root, 'plain-'));
    const file = path.join(folder, MANIFEST_FILE_NAME);
    const [ours, theirs] = [lockfile('R-1', 'R-2'), lockfile('R-1', 'R-3')];
    await fs.writeFile(file, `<<<<<<< ours\n${ours}=======\n${theirs}>>>>>>> theirs\n`);
    const resolved = await resolveManifest(file);
    assert.equal(resolved.outcome, 'merged');
    assert.equal(resolved.fromGit, false);
    assert.equal(await stageFile(file), false, 'outside git nothing is staged');
    const { manifest } = await readManifestStrictly(folder);
    assert.deepEqual(Object.keys(Object.values(manifest!.labs)[0]!.files).sort(), [
      'R-1',
      'R-2',
      'R-3',
    ]);
    assert.equal((await resolveManifest(folder)).outcome, 'nothing');
  });

  it('a missing manifest is unreadable, with its path', async () => {
    await assert.rejects(
      resolveManifest(path.join(root, 'nowhere')),
      (error: unknown) => error instanceof ManifestGitError && error.kind === 'unreadable',
    );
  });

  it('installs the attribute once (with a driver command, also the config); tells whether the attributes name a driver', async () => {
    const repo = await fs.mkdtemp(path.join(root, 'install-'));
    git(repo, 'init', '--quiet', '-b', 'main');
    const manifest = path.join(repo, 'reports', MANIFEST_FILE_NAME);
    await fs.mkdir(path.dirname(manifest));
    await fs.writeFile(manifest, lockfile('R-1'));
    assert.equal(await namesMergeDriver(manifest), false);
    const first = await installMergeDriver(path.dirname(manifest));
    assert.equal(first.attributesWritten, true);
    assert.equal(first.driver, undefined);
    assert.equal(await namesMergeDriver(manifest), true);
    assert.throws(() => git(repo, 'config', 'merge.lab-data.driver'), 'no driver configured');
    const second = await installMergeDriver(repo, 'lab-data merge-manifest %O %A %B %P');
    assert.equal(second.attributesWritten, false);
    assert.equal(
      await fs.readFile(path.join(repo, '.gitattributes'), 'utf8'),
      `${GITATTRIBUTES_LINE}\n${USES_GITATTRIBUTES_LINE}\n`,
      'the manifest and the record of uses, each named once',
    );
    assert.equal(
      git(repo, 'config', 'merge.lab-data.driver').trim(),
      'lab-data merge-manifest %O %A %B %P',
    );
    assert.equal(await namesMergeDriver(path.join(root, 'outside', MANIFEST_FILE_NAME)), undefined);
  });
});
