import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME } from '../../core/sync/manifest';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

/**
 * Issue 57, item 3: a committed `.lab-data` symlink made `pull` write a `.gitignore` into the folder
 * it points to. This machine's folder is never a link: refused, named, nothing written through it.
 */
describe("lab-data: a committed .lab-data link never chooses where this machine's state goes (packed tool, real git)", function () {
  this.timeout(120_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  const gitEnv = {
    ...process.env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'A',
    GIT_AUTHOR_EMAIL: 'a@example.com',
    GIT_COMMITTER_NAME: 'A',
    GIT_COMMITTER_EMAIL: 'a@example.com',
  };
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: 'pipe' });

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 3 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-local-link-'));
  });
  after(async () => {
    tool?.remove();
    await lab?.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  it('pull refuses a .lab-data that is a link, naming it, and writes no .gitignore (nor anything) where it points', async () => {
    const env = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl };
    const author = path.join(work, 'author');
    await fs.mkdir(author);
    git(author, 'init', '--quiet', '-b', 'main');
    const synced = await tool.run(['sync', 'reports'], { cwd: author, env });
    assert.equal(synced.code, 0, said(synced));
    // The repository commits the manifest, a folder of its own, and .lab-data as a link to it.
    await fs.mkdir(path.join(author, 'victim'));
    await fs.writeFile(path.join(author, 'victim', 'keep.txt'), 'keep\n');
    await fs.symlink('../victim', path.join(author, 'reports', '.lab-data.link'));
    await fs.rm(path.join(author, 'reports', '.lab-data'), { recursive: true, force: true });
    await fs.rename(
      path.join(author, 'reports', '.lab-data.link'),
      path.join(author, 'reports', '.lab-data'),
    );
    git(author, 'add', 'reports/' + MANIFEST_FILE_NAME, 'reports/.lab-data', 'victim/keep.txt');
    git(author, 'commit', '--quiet', '-m', 'reports');
    const clone = path.join(work, 'clone');
    git(work, 'clone', '--quiet', author, clone);
    assert.ok((await fs.lstat(path.join(clone, 'reports', '.lab-data'))).isSymbolicLink());
    const pull = await tool.run(['pull', 'reports'], {
      cwd: clone,
      env: { ...env, LAB_DATA_CACHE: path.join(work, 'cache') },
    });
    assert.notEqual(pull.code, 0, said(pull));
    assert.match(pull.stderr, /reports\/\.lab-data is a link, not a folder/, said(pull));
    assert.deepEqual(await fs.readdir(path.join(clone, 'victim')), ['keep.txt']);
    assert.equal(git(clone, 'status', '--porcelain'), '');
  });
});
