import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME, readManifest } from '../../core/sync/manifest';
import { GITATTRIBUTES_LINE, USES_GITATTRIBUTES_LINE } from '../../core/sync/resolveManifest';
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

describe('lab-data and a merge committed with one side only: the lost entries are found, named with the commit and restored (packed tool)', function () {
  this.timeout(180_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  let gitEnv: NodeJS.ProcessEnv;
  let env: Record<string, string>;
  let clients: string[];
  let origin: string;

  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: 'pipe' });
  const manifestOf = (clone: string): string => path.join(clone, 'reports', MANIFEST_FILE_NAME);

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 24 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-lost-merge-'));
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
    env = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl };
    const scratch = path.join(work, 'scratch');
    assert.equal((await tool.run(['sync', scratch], { env })).code, 0);
    clients = [
      ...new Set(
        Object.values(Object.values((await readManifest(scratch)).labs)[0]!.files).map(
          (entry) => entry.client!,
        ),
      ),
    ].sort();
    assert.ok(clients.length >= 5, 'the lab has five clients with reports');
    origin = path.join(work, 'origin.git');
    git(work, 'init', '--bare', '--quiet', '-b', 'main', origin);
    const first = path.join(work, 'first');
    git(work, 'clone', '--quiet', origin, first);
    await fs.writeFile(
      path.join(first, '.gitattributes'),
      // As `merge-manifest --install` writes it, so a clone's install leaves it unchanged.
      `${GITATTRIBUTES_LINE}\n${USES_GITATTRIBUTES_LINE}\n`,
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

  for (const [index, [name, driver]] of (
    [
      ['lab-data not on git’s PATH', () => 'lab-data merge-manifest %O %A %B'],
      [
        'the installed path gone',
        () =>
          `'${path.join(work, 'gone', 'node')}' '${path.join(work, 'gone', 'lab-data.js')}' merge-manifest %O %A %B %P`,
      ],
    ] as const
  ).entries()) {
    it(`${name}: git kept ours, the usual add and commit lost the other side; status, verify and pull name the merge, --resolve rebuilds it from its parents`, async () => {
      const [a, b] = [path.join(work, `a${index}`), path.join(work, `b${index}`)];
      for (const folder of [a, b]) {
        git(work, 'clone', '--quiet', origin, folder);
        git(folder, 'config', 'merge.lab-data.driver', driver());
      }
      const pair = [clients[1 + 2 * index]!, clients[2 + 2 * index]!];
      for (const [folder, client] of [
        [a, pair[0]!],
        [b, pair[1]!],
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
      const merge = spawnSync('git', ['pull', '--no-rebase', '--no-edit', 'origin', 'main'], {
        cwd: b,
        env: gitEnv,
        encoding: 'utf8',
      });
      assert.notEqual(merge.status, 0, `${merge.stdout}${merge.stderr}`);
      // What a person does next, seeing no markers in the file: add it and commit the merge.
      git(b, 'add', '.');
      git(b, 'commit', '--quiet', '--no-edit');
      const commit = git(b, 'rev-parse', '--short=12', 'HEAD').trim();
      const lost = theirs.filter((id) => !ours.includes(id));
      assert.ok(lost.length > 0);
      assert.deepEqual(idsIn(git(b, 'show', `HEAD:reports/${MANIFEST_FILE_NAME}`)), ours);

      const text = await fs.readFile(manifestOf(b), 'utf8');
      for (const command of ['status', 'verify', 'pull']) {
        const result = await tool.run([command, path.join(b, 'reports')], { env });
        assert.equal(result.code, 2, `${command}: ${said(result)}`);
        assert.match(
          result.stderr,
          new RegExp(
            `The merge ${commit.slice(0, 7)}[0-9a-f]* left ${lost.length} report\\(s\\) out of the manifest .*${lost[0]}.*lab-data merge-manifest --resolve `,
          ),
          `${command}: ${said(result)}`,
        );
        assert.equal(await fs.readFile(manifestOf(b), 'utf8'), text, `${command} wrote nothing`);
      }

      const resolved = await tool.run(['merge-manifest', '--resolve', path.join(b, 'reports')]);
      assert.equal(resolved.code, 0, said(resolved));
      assert.match(
        resolved.stderr,
        new RegExp(`Restored ${lost.length} report\\(s\\) the merge ${commit.slice(0, 7)}`),
      );
      const both = [...new Set([...ours, ...theirs])].sort();
      assert.deepEqual(idsIn(await fs.readFile(manifestOf(b), 'utf8')), both);
      git(b, 'commit', '--quiet', '-am', 'the reports the merge lost');
      for (const command of ['pull', 'verify', 'status']) {
        const result = await tool.run([command, path.join(b, 'reports')], { env });
        assert.equal(result.code, 0, `${command}: ${said(result)}`);
      }
      git(b, 'push', '--quiet', 'origin', 'main');
    });
  }

  it('status warns when the driver is run by a name this PATH has but a git from an editor, a GUI or a hook may not; not once it is installed by absolute path', async () => {
    const folder = path.join(work, 'by-name');
    git(work, 'clone', '--quiet', origin, folder);
    git(folder, 'config', 'merge.lab-data.driver', 'lab-data merge-manifest %O %A %B');
    // The person's shell has lab-data on its PATH: the tool finds it, git from a GUI may not.
    const shellEnv = {
      ...env,
      PATH: `${path.dirname(tool.bin)}${path.delimiter}${process.env.PATH}`,
    };
    assert.equal(
      (await tool.run(['pull', path.join(folder, 'reports')], { env: shellEnv })).code,
      0,
    );
    const warned = await tool.run(['status', path.join(folder, 'reports')], { env: shellEnv });
    assert.equal(warned.code, 0, said(warned));
    assert.match(
      warned.stderr,
      /warning: git runs the merge driver "lab-data" by the name lab-data, which this PATH has but a git started by an editor, a GUI or a hook may not.*lab-data merge-manifest --install/,
    );
    assert.equal(
      (await tool.run(['merge-manifest', '--install', folder], { env: shellEnv })).code,
      0,
    );
    const installed = await tool.run(['status', path.join(folder, 'reports')], { env: shellEnv });
    assert.equal(installed.code, 0, said(installed));
    assert.doesNotMatch(installed.stderr, /warning/, said(installed));
  });

  it('a merge whose manifest drops an entry both parents record is found, and one that drops an entry one side removed is not', async () => {
    const [a, b] = [path.join(work, 'removal-a'), path.join(work, 'removal-b')];
    for (const folder of [a, b]) {
      git(work, 'clone', '--quiet', origin, folder);
      assert.equal((await tool.run(['merge-manifest', '--install', folder])).code, 0);
    }
    // a removes a report; b commits something else; the driver merges: the removal wins.
    const removed = idsIn(await fs.readFile(manifestOf(a), 'utf8'))[0]!;
    const removal = JSON.parse(await fs.readFile(manifestOf(a), 'utf8')) as Lockfile;
    for (const section of Object.values(removal.labs)) {
      delete section.reports[removed];
    }
    await fs.writeFile(manifestOf(a), `${JSON.stringify(removal, null, 2)}\n`);
    git(a, 'commit', '--quiet', '-am', 'one report less');
    git(a, 'push', '--quiet', 'origin', 'main');
    await fs.writeFile(path.join(b, 'notes.txt'), 'notes\n');
    git(b, 'add', 'notes.txt');
    git(b, 'commit', '--quiet', '-m', 'notes');
    git(b, 'pull', '--quiet', '--no-rebase', '--no-edit', 'origin', 'main');
    assert.ok(!idsIn(await fs.readFile(manifestOf(b), 'utf8')).includes(removed));
    for (const command of ['pull', 'status', 'verify']) {
      const fine = await tool.run([command, path.join(b, 'reports')], { env });
      assert.equal(fine.code, 0, `${command}: ${said(fine)}`);
      assert.doesNotMatch(fine.stderr, /left .* out of the manifest/);
    }
  });
});
