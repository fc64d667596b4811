import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readManifest } from '../../core/sync/manifest';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

function linesOf(result: RunResult): string[] {
  return `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.trim() !== '');
}

/**
 * The team's full cycle the docs show (docs/reports-in-git-and-ci.md, "A team's full cycle"):
 * two analysts sync and fill the team cache, their manifests merge through the driver, and CI
 * pulls a profile from the team cache with the lab down and no token.
 */
describe("lab-data, a team's full cycle: sync, cache push, commit, merge, a profile pulled in CI from the team cache with the lab down (packed tool)", function () {
  this.timeout(180_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  let gitEnv: NodeJS.ProcessEnv;
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: 'pipe' });

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 30 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-cycle-'));
    gitEnv = {
      // git's own PATH holds no lab-data: the driver --install writes must be found all the same.
      PATH: process.env.PATH,
      HOME: work,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Analyst',
      GIT_AUTHOR_EMAIL: 'analyst@example.com',
      GIT_COMMITTER_NAME: 'Analyst',
      GIT_COMMITTER_EMAIL: 'analyst@example.com',
    };
  });
  after(async () => {
    tool?.remove();
    await lab?.close();
    await fs.rm(work, { recursive: true, force: true });
    for (const text of transcript) {
      assert.ok(!text.includes(SECRET_TOKEN), 'no output holds the token');
    }
  });

  it('ends with the profile restored byte for byte in a fresh clone, in four lines of CI log', async () => {
    const team = path.join(work, 'team-cache');
    const origin = path.join(work, 'origin.git');
    git(work, 'init', '--bare', '--quiet', '-b', 'main', origin);
    const clone = (name: string): string => {
      const folder = path.join(work, name);
      git(work, 'clone', '--quiet', origin, folder);
      return folder;
    };
    const a = clone('a');
    assert.equal((await tool.run(['merge-manifest', '--install', a], { env: gitEnv })).code, 0);
    await fs.writeFile(path.join(a, '.gitignore'), 'reports/*.pdf\n');
    git(a, 'add', '.');
    git(a, 'commit', '--quiet', '-m', 'the merge driver');
    git(a, 'push', '--quiet', 'origin', 'main');
    const b = clone('b');
    assert.equal((await tool.run(['merge-manifest', '--install', b], { env: gitEnv })).code, 0);

    // Each analyst syncs with a private cache, then publishes the folder to the team cache.
    const labEnv = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl };
    const syncAndPush = async (clone: string, name: string): Promise<void> => {
      const env = { ...labEnv, LAB_DATA_CACHE: path.join(work, `private-${name}`) };
      const synced = await tool.run(['sync', path.join(clone, 'reports')], { env });
      assert.equal(synced.code, 0, said(synced));
      const pushed = await tool.run(['cache', 'push', path.join(clone, 'reports')], {
        env: { ...env, LAB_DATA_CACHE: team },
      });
      assert.equal(pushed.code, 0, said(pushed));
    };
    await syncAndPush(a, 'a');
    git(a, 'add', 'reports');
    git(a, 'commit', '--quiet', '-m', 'reports (A)');
    git(a, 'push', '--quiet', 'origin', 'main');
    lab.server.publishReport();
    await syncAndPush(b, 'b');
    // The profile CI pulls: one client's reports, committed beside the manifest.
    const manifest = await readManifest(path.join(b, 'reports'));
    const entries = Object.values(Object.values(manifest.labs)[0]!.files);
    const client = entries.find((entry) => entry.client)!.client!;
    const selected = entries.filter((entry) => entry.client === client);
    assert.ok(selected.length > 0 && selected.length < entries.length);
    await fs.writeFile(
      path.join(b, 'reports', 'lab-data-profiles.json'),
      `${JSON.stringify({ version: 1, profiles: { ci: { client: [client] } } }, null, 2)}\n`,
    );
    git(b, 'add', 'reports');
    git(b, 'commit', '--quiet', '-m', 'reports (B) and the CI profile');
    git(b, 'pull', '--quiet', '--no-rebase', '--no-edit', 'origin', 'main');
    assert.equal(git(b, 'status', '--porcelain').trim(), '', 'merged by the driver, no conflict');
    git(b, 'push', '--quiet', 'origin', 'main');
    const check = await tool.run(['status', path.join(b, 'reports'), '--check-cache'], {
      env: { LAB_DATA_CACHE: team },
    });
    assert.equal(check.code, 0, said(check));

    // CI: a fresh clone, the lab down, no token; only the team cache.
    await lab.close();
    const ci = clone('ci');
    const ciEnv = { LAB_DATA_CACHE: team };
    const pulled = await tool.run(['pull', path.join(ci, 'reports'), '--profile', 'ci'], {
      env: ciEnv,
    });
    assert.equal(pulled.code, 0, said(pulled));
    const verified = await tool.run(['verify', path.join(ci, 'reports'), '--profile', 'ci'], {
      env: ciEnv,
    });
    assert.equal(verified.code, 0, said(verified));
    const pdfs = (await fs.readdir(path.join(ci, 'reports'))).filter((name) =>
      name.endsWith('.pdf'),
    );
    assert.deepEqual(pdfs.sort(), selected.map((entry) => entry.file).sort());
    for (const name of pdfs) {
      assert.deepEqual(
        await fs.readFile(path.join(ci, 'reports', name)),
        await fs.readFile(path.join(b, 'reports', name)),
      );
    }
    const log = [...linesOf(pulled), ...linesOf(verified)];
    assert.ok(log.length <= 4, `a profile's reminder and a summary each:\n${log.join('\n')}`);
  });
});
