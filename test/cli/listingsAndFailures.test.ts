import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Report } from '../../core/api/records';
import { saveReports } from '../../core/sync/bulkSave';
import { listAllReports, syncFolder } from '../../core/sync/folderSync';
import { DEFAULT_FILE_NAME_TEMPLATE } from '../../core/sync/reportFiles';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, type PackedTool, type RunResult } from './packedTool';

const root = path.resolve(__dirname, '..', '..', '..');

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout.slice(0, 2000)}\nstderr: ${result.stderr.slice(0, 4000)}`;
}

/** List pages from the second on: a lab that fails part-way through a listing. */
const FROM_PAGE_2 = /[?&]page=([2-9]|\d\d+)(&|$)/;

describe('lab-data for scripts: a lab down as a whole, listings that fail part-way, -o, -q, help (packed tool)', function () {
  // A hang detector, not a speed claim: a test here runs the tool up to a dozen times, and a busy
  // machine (load 40 seen) makes each start take seconds.
  this.timeout(180_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  let env: Record<string, string>;
  const outputs: string[] = [];

  async function run(args: readonly string[], cwd?: string): Promise<RunResult> {
    const result = await tool.run(args, { env, cwd });
    outputs.push(result.stdout, result.stderr);
    return result;
  }

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 280 });
    env = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl };
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-cli-scripts-'));
  });
  after(async () => {
    tool?.remove();
    await lab?.close();
    await fs.rm(work, { recursive: true, force: true });
  });
  beforeEach(() => {
    lab.server.setFaults({});
    lab.server.takeRequests();
  });

  it('pull of 195 files from a lab answering 503 to everything: exit 4 within 10 requests and 30 s, naming the answer', async () => {
    const folder = path.join(work, 'down');
    const api = lab.api(SECRET_TOKEN);
    const reports: Report[] = (await listAllReports(api, {}))
      .filter((report) => report.download_available !== false)
      .slice(0, 195);
    assert.equal(reports.length, 195);
    const target = { folder, template: DEFAULT_FILE_NAME_TEMPLATE };
    await syncFolder(api, target, {
      list: async () => reports,
      save: (chosen, decide) =>
        saveReports(chosen, {
          api,
          target,
          decide,
          signal: new AbortController().signal,
          concurrency: 4,
        }),
    });
    for (const name of await fs.readdir(folder)) {
      if (name.endsWith('.pdf')) {
        await fs.rm(path.join(folder, name));
      }
    }
    lab.server.setFaults({ status: { status: 503, times: Infinity } });
    lab.server.takeRequests();
    const started = Date.now();
    const pulled = await run(['pull', folder]);
    const seconds = (Date.now() - started) / 1000;
    const requests = lab.server.takeRequests().length;
    assert.equal(pulled.code, 4, said(pulled));
    assert.ok(requests <= 10, `${requests} requests`);
    assert.ok(seconds < 30, `${seconds} s`);
    assert.match(
      pulled.stderr,
      /The lab at http:\/\/127\.0\.0\.1:\d+ answered 503 Service Unavailable to the last \d+ requests; the remaining files and pages were not requested/,
    );
    assert.match(pulled.stderr, /195 failed/);
    assert.deepEqual(
      (await fs.readdir(folder)).filter((name) => /\.(pdf|part)$/.test(name)),
      [],
      'nothing half-written',
    );
  });

  it('a JSON Lines listing on stdout that fails on page 2: exit 4, and stderr says the output is incomplete', async () => {
    lab.server.setFaults({ status: { status: 503, times: Infinity, query: FROM_PAGE_2 } });
    const listed = await run(['reports', '--jsonl']);
    assert.equal(listed.code, 4, said(listed));
    const lines = listed.stdout.split('\n').filter(Boolean);
    assert.equal(lines.length, 50);
    assert.match(
      listed.stderr,
      /^lab-data: the output is incomplete: 50 rows written before the listing failed; do not use it\.$/m,
    );
    // Later pages were asked for at once: the lab's answer is named either way.
    assert.match(listed.stderr, /HTTP 503|503 Service Unavailable/);
  });

  it('a JSON array on stdout that fails part-way is left unclosed, so it never parses as a whole', async () => {
    lab.server.setFaults({ status: { status: 503, times: Infinity, query: FROM_PAGE_2 } });
    const listed = await run(['clients', '--json']);
    // The mock's clients fit one page: the array completes.
    assert.equal(listed.code, 0, said(listed));
    assert.ok(Array.isArray(JSON.parse(listed.stdout)));
    const cut = await run(['samples', '--json']);
    assert.equal(cut.code, 4, said(cut));
    assert.ok(cut.stdout.startsWith('[\n'));
    assert.throws(() => JSON.parse(cut.stdout) as unknown);
    assert.match(cut.stderr, /the output is incomplete: 50 rows written/);
  });

  it('-o FILE writes the whole listing under its name, and nothing at all when the lab fails part-way', async () => {
    const folder = path.join(work, 'listings');
    await fs.mkdir(folder);
    const file = path.join(folder, 'reports.jsonl');
    const whole = await run(['reports', '--jsonl', '-o', file]);
    assert.equal(whole.code, 0, said(whole));
    assert.equal(whole.stdout, '');
    const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    assert.ok(rows.length > 100, `${rows.length} rows`);
    assert.match(whole.stderr, new RegExp(`^${rows.length} reports written to `, 'm'));

    lab.server.setFaults({ status: { status: 503, times: Infinity, query: FROM_PAGE_2 } });
    const failed = await run(['reports', '--jsonl', '--output', file]);
    assert.equal(failed.code, 4, said(failed));
    assert.equal(failed.stdout, '');
    assert.equal(
      readFileSync(file, 'utf8').split('\n').filter(Boolean).length,
      rows.length,
      'the earlier file is untouched',
    );
    assert.deepEqual(await fs.readdir(folder), ['reports.jsonl'], 'no temporary file is left');

    const fresh = path.join(folder, 'samples.csv');
    const none = await run(['samples', '--csv', '-o', fresh]);
    assert.equal(none.code, 4, said(none));
    assert.deepEqual(await fs.readdir(folder), ['reports.jsonl'], 'no samples.csv, no temporary');
    const help = await run(['reports', '--help']);
    assert.match(help.stdout, /-o, --output FILE {2}write the listing to FILE/);
  });

  it('-q is quiet: nothing on stderr from any command that succeeds, before or after the command; failures still said', async () => {
    const folder = path.join(work, 'quiet');
    const [report] = await listAllReports(lab.api(SECRET_TOKEN), {});
    const commands: Array<readonly string[]> = [
      ['sync', folder, '-q'],
      ['-q', 'verify', folder],
      ['--quiet', 'reports'],
      ['clients', '--quiet'],
      ['projects', '-q', '--csv'],
      ['samples', '-q', '--jsonl'],
      ['report', report!.report_id, '-q'],
    ];
    for (const args of commands) {
      const result = await run(args);
      assert.equal(result.code, 0, `${args.join(' ')}\n${said(result)}`);
      assert.equal(result.stderr, '', args.join(' '));
      if (args[0] !== 'sync') {
        assert.notEqual(result.stdout, '', `results still go to stdout: ${args.join(' ')}`);
      }
    }
    const pdf = (await fs.readdir(folder)).find((name) => name.endsWith('.pdf'))!;
    await fs.rm(path.join(folder, pdf));
    const pulled = await run(['-q', 'pull', folder]);
    assert.equal(pulled.code, 0, said(pulled));
    assert.equal(pulled.stderr, '');
    const said1 = await run(['reports', '--since', '7d', '-v']);
    // Each request line names the lab (here its host: LAB_DATA_URL gives no name), then the request.
    const host = new URL(lab.baseUrl).host.replace(/[.]/g, '\\.');
    assert.match(
      said1.stderr,
      new RegExp(`\\[http\\] ${host} GET /api/v1/reports\\?\\S* → 200 in \\d+ ms`),
      `-v says more without -q:\n${said1.stderr}`,
    );
    const quietVerbose = await run(['-q', '-v', 'clients']);
    assert.equal(quietVerbose.stderr, '');

    lab.server.setFaults({ status: { status: 503, times: Infinity, query: FROM_PAGE_2 } });
    const failed = await run(['-q', 'reports', '--jsonl']);
    assert.equal(failed.code, 4);
    assert.match(failed.stderr, /the output is incomplete/);
    assert.match(failed.stderr, /HTTP 503|503 Service Unavailable/);
  });

  it('help names --version, and verify --help says plainly that unchanged size and time are trusted unless --rehash', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /lab-data --version/);
    const version = await run(['--version']);
    assert.equal(version.code, 0);
    assert.equal(
      version.stdout.trim(),
      (
        JSON.parse(readFileSync(path.join(root, 'cli', 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version,
    );
    const verify = await run(['verify', '--help']);
    const text = verify.stdout.replace(/\s+/g, ' ');
    assert.match(
      text,
      /A file whose size and modification time are unchanged since they were recorded is trusted without being read: .* not noticed unless --rehash, which reads and hashes every file\./,
    );
  });

  it('no output of these runs holds the token', () => {
    assert.ok(outputs.length > 20);
    for (const text of outputs) {
      assert.ok(!text.includes(SECRET_TOKEN));
    }
  });
});

/**
 * The README's build steps on a fresh clone: `(cd cli && npm pack)` installs the repository's
 * packages itself when they are missing (cli/build.mjs → scripts/bootstrap.mjs), then
 * `npm install -g ./cli/lab-data-cli-<version>.tgz`. A full install of the repository's packages
 * takes over a minute, so the clone's package.json and lock are cut down to the two the bundle
 * needs (esbuild, undici), from the npm cache: the same mechanism, a smaller install.
 */
describe('building lab-data on a fresh clone, as the README says', function () {
  this.timeout(180_000);
  let clone: string;

  before(async () => {
    clone = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-clone-'));
  });
  after(async () => {
    await fs.rm(clone, { recursive: true, force: true });
  });

  it('(cd cli && npm pack) installs the missing packages, builds, and the tarball installs and runs', () => {
    const repo = path.join(clone, 'repo');
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', root, repo], { stdio: 'pipe' });
    const lock = JSON.parse(readFileSync(path.join(repo, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, Record<string, unknown>>;
    };
    const manifest = JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    const kept = Object.fromEntries(
      Object.entries(lock.packages).filter(([key]) =>
        /^node_modules\/(esbuild|undici|@esbuild\/[^/]+)$/.test(key),
      ),
    );
    const dependencies = { undici: manifest.dependencies!.undici! };
    const devDependencies = { esbuild: manifest.devDependencies!.esbuild! };
    const small = {
      name: manifest.name,
      version: manifest.version,
      dependencies,
      devDependencies,
      allowScripts: manifest.allowScripts,
    };
    writeFileSync(path.join(repo, 'package.json'), JSON.stringify(small, null, 2));
    writeFileSync(
      path.join(repo, 'package-lock.json'),
      JSON.stringify(
        {
          ...lock,
          packages: {
            '': {
              name: manifest.name,
              version: manifest.version,
              dependencies,
              devDependencies,
            },
            ...kept,
          },
        },
        null,
        2,
      ),
    );
    const npmEnv = { ...process.env, npm_config_prefer_offline: 'true' };
    // The README's first step, verbatim, in a shell.
    execFileSync('sh', ['-c', '(cd cli && npm pack --silent)'], {
      cwd: repo,
      env: npmEnv,
      stdio: 'pipe',
    });
    const { version } = JSON.parse(
      readFileSync(path.join(repo, 'cli', 'package.json'), 'utf8'),
    ) as {
      version: string;
    };
    const tarball = `./cli/lab-data-cli-${version}.tgz`;
    const prefix = path.join(clone, 'prefix');
    execFileSync(
      'npm',
      ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball],
      { cwd: repo, env: npmEnv, stdio: 'pipe' },
    );
    const printed = execFileSync(path.join(prefix, 'bin', 'lab-data'), ['--version'], {
      encoding: 'utf8',
    });
    assert.equal(printed.trim(), version);
  });
});
