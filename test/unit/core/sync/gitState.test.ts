import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  isUnmerged,
  mergeDriverProblem,
  shellQuoted,
  shellWords,
  stageText,
  unmergedStages,
} from '../../../../core/sync/gitState';
import {
  MANIFEST_FILE_NAME,
  readManifest,
  readManifestStrictly,
} from '../../../../core/sync/manifest';

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

/** A version 3 manifest recording the given report ids (one line each, as the lockfile writes them). */
function lockfile(...ids: string[]): string {
  const reports = ids
    .map(
      (id) => `        "${id}": {"bytes": 10, "file": "${id}.pdf", "sha256": "${'a'.repeat(64)}"}`,
    )
    .join(',\n');
  return `{\n  "labs": {\n    "https://lab.example.com": {\n      "name": "Meridian",\n      "reports": {\n${reports}\n      }\n    }\n  },\n  "version": 3\n}\n`;
}

/**
 * A repository whose merge left reports/lab-data-sync.json unmerged without markers: the merge
 * driver it names cannot be found, as when git runs without lab-data on its PATH.
 */
async function unmergedRepository(root: string, driver: string): Promise<string> {
  const repo = await fs.mkdtemp(path.join(root, 'repo-'));
  git(repo, 'init', '--quiet', '-b', 'main');
  git(repo, 'config', 'merge.lab-data.driver', driver);
  await fs.mkdir(path.join(repo, 'reports'));
  await fs.writeFile(path.join(repo, '.gitattributes'), `${MANIFEST_FILE_NAME} merge=lab-data\n`);
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

describe('what git knows of a manifest (unmerged, its versions, the merge driver)', function () {
  this.timeout(30_000);
  let root: string;
  let repo: string;
  let file: string;

  before(async () => {
    root = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-git-'));
    repo = await unmergedRepository(root, 'lab-data-not-on-path merge-manifest %O %A %B');
    file = path.join(repo, 'reports', MANIFEST_FILE_NAME);
  });
  after(() => fs.rm(root, { recursive: true, force: true }));

  it('tells a manifest git left unmerged without markers, and its three versions', async () => {
    assert.equal(await fs.readFile(file, 'utf8'), lockfile('R-1', 'R-2'), 'ours, no markers');
    assert.equal(await isUnmerged(file), true);
    const stages = await unmergedStages(file);
    assert.deepEqual(
      stages.map((each) => each.stage),
      [1, 2, 3],
    );
    const texts = await Promise.all(stages.map((each) => stageText(file, each.object)));
    assert.deepEqual(texts, [lockfile('R-1'), lockfile('R-1', 'R-2'), lockfile('R-1', 'R-3')]);
  });

  it('both readers refuse it, naming the fix (the extension reads with readManifest)', async () => {
    const folder = path.dirname(file);
    await assert.rejects(
      readManifest(folder),
      /git left the manifest .* unmerged.*lab-data merge-manifest --resolve .*then git add/,
    );
    const strict = await readManifestStrictly(folder);
    assert.equal(strict.manifest, undefined);
    assert.deepEqual(
      strict.problems.map((problem) => problem.kind),
      ['unmerged'],
    );
  });

  it('refuses it with conflict markers too, and answers anew once git add changes the index', async () => {
    const marked = await unmergedRepository(root, 'lab-data-not-on-path merge-manifest %O %A %B');
    const markedFile = path.join(marked, 'reports', MANIFEST_FILE_NAME);
    await fs.writeFile(markedFile, '<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> theirs\n');
    assert.equal(await isUnmerged(markedFile), true);
    await fs.writeFile(markedFile, lockfile('R-1', 'R-2', 'R-3'));
    git(marked, 'add', 'reports');
    assert.equal(await isUnmerged(markedFile), false, 'the cached answer followed the index');
    assert.equal(
      Object.keys((await readManifest(path.dirname(markedFile))).labs.Meridian!.files).length,
      3,
    );
  });

  it('outside git, or without git installed, a manifest is not unmerged', async () => {
    const outside = await fs.mkdtemp(path.join(root, 'plain-'));
    await fs.writeFile(path.join(outside, MANIFEST_FILE_NAME), lockfile('R-1'));
    assert.equal(await isUnmerged(path.join(outside, MANIFEST_FILE_NAME)), false);
    const saved = process.env.PATH;
    process.env.PATH = outside;
    try {
      assert.deepEqual(await unmergedStages(file), []);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('finds the work tree through a linked worktree (.git is a file)', async () => {
    const linked = path.join(root, 'linked');
    git(repo, 'worktree', 'add', '--quiet', '--detach', linked, 'HEAD');
    const linkedFile = path.join(linked, 'reports', MANIFEST_FILE_NAME);
    assert.equal(await isUnmerged(linkedFile), false, 'merged in its own index');
    assert.equal(await isUnmerged(file), true, 'the main work tree still unmerged');
  });

  it('says when the merge driver .gitattributes names cannot be run', async () => {
    assert.match(
      (await mergeDriverProblem(file)) ?? '',
      /cannot run the merge driver "lab-data" \(lab-data-not-on-path is not found/,
    );
    const script = path.join(root, 'gone', 'lab-data.js');
    git(
      repo,
      'config',
      'merge.lab-data.driver',
      `${shellQuoted(process.execPath)} ${shellQuoted(script)} merge-manifest %O %A %B`,
    );
    assert.match((await mergeDriverProblem(file)) ?? '', /lab-data\.js is not there/);
    git(
      repo,
      'config',
      'merge.lab-data.driver',
      `${shellQuoted(process.execPath)} ${shellQuoted(__filename)} merge-manifest %O %A %B`,
    );
    assert.equal(await mergeDriverProblem(file), undefined, 'absolute paths that are there');
    git(repo, 'config', '--unset', 'merge.lab-data.driver');
    assert.match((await mergeDriverProblem(file)) ?? '', /has no merge\.lab-data\.driver/);
    await fs.writeFile(path.join(repo, '.gitattributes'), '');
    assert.equal(await mergeDriverProblem(file), undefined, 'no driver named: nothing to say');
  });

  it('quotes a word for sh and reads it back', () => {
    for (const word of ["/opt/it's here/node", 'C:\\Program Files\\nodejs\\node.exe', 'plain']) {
      assert.deepEqual(shellWords(`${shellQuoted(word)} merge-manifest %O`), [
        word,
        'merge-manifest',
        '%O',
      ]);
    }
  });
});
