import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { shellWords } from '../../core/sync/gitState';
import { lockfileText } from '../../core/sync/lockfile';
import {
  MANIFEST_FILE_NAME,
  parseManifest,
  readManifest,
  type ManifestEntry,
} from '../../core/sync/manifest';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

type Lockfile = { labs: Record<string, { reports: Record<string, { file: string }> }> };

/** The report ids a committed manifest text records, all labs together. */
function idsIn(text: string): string[] {
  return Object.values((JSON.parse(text) as Lockfile).labs)
    .flatMap((section) => Object.keys(section.reports))
    .sort();
}

describe('lab-data and a merge git cannot hand to the driver: no merge loses a report (packed tool)', function () {
  this.timeout(120_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  let gitEnv: NodeJS.ProcessEnv;
  let env: Record<string, string>;
  /** The lab's clients with reports: each clone syncs its own, so both sides of a merge add entries. */
  let clients: string[];
  let origin: string;

  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: 'pipe' });
  /** A git run that may fail: its status and everything it printed. */
  const tryGit = (cwd: string, ...args: string[]): { status: number | null; output: string } => {
    const run = spawnSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  };
  const manifestOf = (clone: string): string => path.join(clone, 'reports', MANIFEST_FILE_NAME);

  /** A clone of the team's repository whose .gitattributes names the driver. */
  async function clone(name: string, driver?: string): Promise<string> {
    const folder = path.join(work, name);
    git(work, 'clone', '--quiet', origin, folder);
    if (driver !== undefined) {
      git(folder, 'config', 'merge.lab-data.driver', driver);
    }
    return folder;
  }

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 24 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-merge-'));
    // git's PATH, as a GUI's or an editor's git has it: no lab-data on it.
    gitEnv = {
      PATH: process.env.PATH,
      HOME: work,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Analyst',
      GIT_AUTHOR_EMAIL: 'analyst@example.com',
      GIT_COMMITTER_NAME: 'Analyst',
      GIT_COMMITTER_EMAIL: 'analyst@example.com',
    };
    assert.notEqual(spawnSync('sh', ['-c', 'command -v lab-data'], { env: gitEnv }).status, 0);
    env = {
      LAB_DATA_TOKEN: SECRET_TOKEN,
      LAB_DATA_URL: lab.baseUrl,
      LAB_DATA_CACHE: path.join(work, 'team-cache'),
    };
    const scratch = path.join(work, 'scratch');
    assert.equal((await tool.run(['sync', scratch], { env })).code, 0);
    const counts = new Map<string, number>();
    for (const entry of Object.values(
      Object.values((await readManifest(scratch)).labs)[0]!.files,
    )) {
      counts.set(entry.client!, (counts.get(entry.client!) ?? 0) + 1);
    }
    clients = [...counts.keys()].sort();
    assert.ok(clients.length >= 7, 'the lab has seven clients with reports');
    origin = path.join(work, 'origin.git');
    git(work, 'init', '--bare', '--quiet', '-b', 'main', origin);
    const first = path.join(work, 'first');
    git(work, 'clone', '--quiet', origin, first);
    await fs.writeFile(
      path.join(first, '.gitattributes'),
      `${MANIFEST_FILE_NAME} merge=lab-data\n`,
    );
    await fs.writeFile(path.join(first, '.gitignore'), 'reports/*.pdf\n');
    const synced = await tool.run(['sync', path.join(first, 'reports'), '--client', clients[0]!], {
      env,
    });
    assert.equal(synced.code, 0, said(synced));
    git(first, 'add', '.');
    git(first, 'commit', '--quiet', '-m', 'the driver named, the first client');
    git(first, 'push', '--quiet', 'origin', 'main');
  });
  after(async () => {
    tool?.remove();
    await lab?.close();
    await fs.rm(work, { recursive: true, force: true });
    for (const text of transcript) {
      assert.ok(!text.includes(SECRET_TOKEN), 'no output holds the token');
    }
  });

  /** Two clones add a client's reports each and commit; the second pulls the first's: git's answer. */
  async function divergingMerge(
    a: string,
    b: string,
    [clientA, clientB]: readonly [string, string],
  ): Promise<{ status: number | null; output: string; ours: string[]; theirs: string[] }> {
    for (const [folder, client] of [
      [a, clientA],
      [b, clientB],
    ] as const) {
      const synced = await tool.run(['sync', path.join(folder, 'reports'), '--client', client], {
        env,
      });
      assert.equal(synced.code, 0, said(synced));
      git(folder, 'commit', '--quiet', '-am', `the client ${client}`);
    }
    git(a, 'push', '--quiet', 'origin', 'main');
    const [theirs, ours] = [
      idsIn(await fs.readFile(manifestOf(a), 'utf8')),
      idsIn(await fs.readFile(manifestOf(b), 'utf8')),
    ];
    return { ...tryGit(b, 'pull', '--no-rebase', '--no-edit', 'origin', 'main'), ours, theirs };
  }

  it('with the driver not on git’s PATH: every command refuses the unmerged manifest, --resolve merges from git’s versions and keeps both sides’ reports', async () => {
    const a = await clone('a', 'lab-data merge-manifest %O %A %B');
    const b = await clone('b', 'lab-data merge-manifest %O %A %B');
    const merge = await divergingMerge(a, b, [clients[1]!, clients[2]!]);
    assert.notEqual(merge.status, 0, merge.output);
    assert.match(merge.output, /lab-data: (command )?not found/);
    const file = manifestOf(b);
    const left = await fs.readFile(file, 'utf8');
    assert.doesNotMatch(left, /<<<<<<<|>>>>>>>/, 'git left ours without markers');
    assert.deepEqual(idsIn(left), merge.ours, 'only our side is in the file');
    assert.notEqual(git(b, 'ls-files', '-u').trim(), '', 'git holds it unmerged');

    for (const command of ['pull', 'verify', 'status', 'sync']) {
      const result = await tool.run([command, path.join(b, 'reports')], { env });
      assert.equal(result.code, 2, `${command}: ${said(result)}`);
      assert.match(
        result.stderr,
        /git left the manifest .* unmerged.*lab-data merge-manifest --resolve .*then git add/,
        `${command}: ${said(result)}`,
      );
      assert.equal(await fs.readFile(file, 'utf8'), left, `${command} wrote nothing`);
    }
    const status = await tool.run(['status', path.join(b, 'reports')], { env });
    assert.equal(
      status.stderr.match(/warning: git cannot run the merge driver "lab-data"/g)?.length,
      1,
      `status warns once about the driver git cannot run: ${said(status)}`,
    );

    const resolved = await tool.run(['merge-manifest', '--resolve', path.join(b, 'reports')]);
    assert.equal(resolved.code, 0, said(resolved));
    assert.match(resolved.stderr, /from git's versions\. Now git add .*and commit/);
    const both = [...new Set([...merge.ours, ...merge.theirs])].sort();
    assert.ok(both.length > merge.ours.length && both.length > merge.theirs.length);
    assert.deepEqual(idsIn(await fs.readFile(file, 'utf8')), both);
    git(b, 'add', 'reports');
    git(b, 'commit', '--quiet', '--no-edit');
    assert.deepEqual(
      idsIn(git(b, 'show', `HEAD:reports/${MANIFEST_FILE_NAME}`)),
      both,
      'the commit keeps both sides’ reports',
    );
    const pulled = await tool.run(['pull', path.join(b, 'reports')], { env });
    assert.equal(pulled.code, 0, said(pulled));
    assert.equal((await tool.run(['verify', path.join(b, 'reports')], { env })).code, 0);
    git(b, 'push', '--quiet', 'origin', 'main');
  });

  it('--install writes the driver by absolute paths: a merge from a git whose PATH lacks lab-data succeeds, and status has no warning', async () => {
    const a = await clone('c');
    const b = await clone('d', 'lab-data merge-manifest %O %A %B');
    for (const folder of [a, b]) {
      const install = await tool.run(['merge-manifest', '--install', folder], { env: gitEnv });
      assert.equal(install.code, 0, said(install));
      assert.match(install.stderr, /run this again if either moves/);
    }
    const driver = git(b, 'config', 'merge.lab-data.driver').trim();
    const [node, script, ...rest] = shellWords(driver);
    assert.ok(path.isAbsolute(node!) && path.isAbsolute(script!), driver);
    assert.match(script!, /lab-data\.js$/);
    assert.deepEqual(rest, ['merge-manifest', '%O', '%A', '%B', '%P']);
    assert.equal(
      await fs.readFile(path.join(b, '.gitattributes'), 'utf8'),
      `${MANIFEST_FILE_NAME} merge=lab-data\nlab-data-uses.json merge=lab-data\n`,
      'the committed line is kept once, and the record of uses is named after it',
    );

    const merge = await divergingMerge(a, b, [clients[3]!, clients[4]!]);
    assert.equal(merge.status, 0, merge.output);
    assert.equal(git(b, 'status', '--porcelain').trim(), '', 'merged with no conflict');
    assert.deepEqual(
      idsIn(await fs.readFile(manifestOf(b), 'utf8')),
      [...new Set([...merge.ours, ...merge.theirs])].sort(),
    );
    const status = await tool.run(['status', path.join(b, 'reports')], { env });
    assert.doesNotMatch(status.stderr, /warning/, said(status));
  });

  it('status warns when the configured driver names a program that is not there, and when none is configured', async () => {
    const folder = await clone('e', `'${path.join(work, 'gone', 'node')}' merge-manifest %O %A %B`);
    await tool.run(['pull', path.join(folder, 'reports')], { env });
    const missing = await tool.run(['status', path.join(folder, 'reports')], { env });
    assert.equal(missing.code, 0, `the warning does not change the exit status: ${said(missing)}`);
    assert.match(
      missing.stderr,
      /warning: git cannot run the merge driver "lab-data" \(.*gone\/node is not found or cannot be run\).*lab-data merge-manifest --install/,
    );
    git(folder, 'config', '--unset', 'merge.lab-data.driver');
    const none = await tool.run(['status', path.join(folder, 'reports')], { env });
    assert.match(none.stderr, /warning: .*has no merge\.lab-data\.driver/);
  });

  /** Gives a report of a clone's manifest another file name, its file on disk moved with it. */
  async function rename(clone: string, reportId: string, to: string): Promise<void> {
    const file = manifestOf(clone);
    const manifest = parseManifest(await fs.readFile(file, 'utf8'));
    const files = Object.values(manifest.labs)[0]!.files as Record<string, ManifestEntry>;
    await fs.rename(
      path.join(clone, 'reports', files[reportId]!.file),
      path.join(clone, 'reports', to),
    );
    files[reportId] = { ...files[reportId]!, file: to };
    await fs.writeFile(file, lockfileText(manifest));
  }

  it('two reports claiming one file name in a merge: the driver gives the later id a second name, moves its file and says so; pull restores both', async () => {
    let [a, b] = [await clone('f'), await clone('g')];
    for (const folder of [a, b]) {
      assert.equal((await tool.run(['merge-manifest', '--install', folder])).code, 0);
    }
    const added: Record<string, string[]> = {};
    for (const [folder, client] of [
      [a, clients[5]!],
      [b, clients[6]!],
    ] as const) {
      const before = idsIn(await fs.readFile(manifestOf(folder), 'utf8'));
      const synced = await tool.run(['sync', path.join(folder, 'reports'), '--client', client], {
        env,
      });
      assert.equal(synced.code, 0, said(synced));
      added[folder] = idsIn(await fs.readFile(manifestOf(folder), 'utf8')).filter(
        (id) => !before.includes(id),
      );
    }
    // The clone that merges (b) holds the report whose id sorts later: its own file must move.
    if (added[b]!.at(-1)! < added[a]![0]!) {
      [a, b] = [b, a];
    }
    const [kept, moved] = [added[a]![0]!, added[b]!.at(-1)!];
    assert.ok(kept < moved);
    await rename(a, kept, 'clash.pdf');
    await rename(b, moved, 'clash.pdf');
    for (const folder of [a, b]) {
      git(folder, 'commit', '--quiet', '-am', 'one name');
    }
    git(a, 'push', '--quiet', 'origin', 'main');
    const merge = tryGit(b, 'pull', '--no-rebase', '--no-edit', 'origin', 'main');
    assert.equal(merge.status, 0, merge.output);
    assert.match(
      merge.output,
      new RegExp(
        `${kept} and ${moved} both claimed clash\\.pdf; ${moved}'s file is now clash~${moved}\\.pdf; lab-data pull restores it`,
      ),
    );
    const reports = path.join(b, 'reports');
    const pulled = await tool.run(['pull', reports], { env });
    assert.equal(pulled.code, 0, said(pulled));
    assert.equal((await tool.run(['verify', reports, '--rehash'], { env })).code, 0);
    const files = Object.values((await readManifest(reports)).labs)[0]!.files;
    assert.equal(files[kept]!.file, 'clash.pdf');
    assert.equal(files[moved]!.file, `clash~${moved}.pdf`);
  });

  it('a committed manifest where two reports claim one file name: every command names the fix; --resolve gives one a second name; pull restores both', async () => {
    const a = await clone('h');
    const file = manifestOf(a);
    const manifest = parseManifest(await fs.readFile(file, 'utf8'));
    const files = Object.values(manifest.labs)[0]!.files as Record<string, ManifestEntry>;
    const [first, second] = Object.keys(files).sort();
    files[second!] = { ...files[second!]!, file: files[first!]!.file };
    await fs.writeFile(file, lockfileText(manifest));
    git(a, 'commit', '--quiet', '-am', 'two reports, one name');
    for (const command of ['pull', 'verify', 'status']) {
      const refused = await tool.run([command, path.join(a, 'reports')], { env });
      assert.equal(refused.code, 2, said(refused));
      assert.match(refused.stderr, /same file name; lab-data merge-manifest --resolve /);
    }
    const resolved = await tool.run(['merge-manifest', '--resolve', path.join(a, 'reports')]);
    assert.equal(resolved.code, 0, said(resolved));
    const stem = files[first!]!.file.replace(/\.pdf$/, '');
    assert.match(
      resolved.stderr,
      new RegExp(
        `${first} and ${second} both claimed ${stem}\\.pdf; ${second}'s file is now ${stem}~${second}\\.pdf; lab-data pull restores it`,
      ),
    );
    const pulled = await tool.run(['pull', path.join(a, 'reports')], { env });
    assert.equal(pulled.code, 0, said(pulled));
    assert.equal(
      (await tool.run(['verify', path.join(a, 'reports'), '--rehash'], { env })).code,
      0,
    );
    assert.equal(
      Object.values((await readManifest(path.join(a, 'reports'))).labs)[0]!.files[second!]!.file,
      `${stem}~${second}.pdf`,
    );
  });
});
