import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MANIFEST_FILE_NAME, readManifest } from '../../core/sync/manifest';
import { bytesPerReportFigures, tarballFigures } from '../support/docFigures';
import { closedPort, SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

const root = path.resolve(__dirname, '..', '..', '..');

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

/** The lines a run printed, stdout and stderr together, as a CI log shows them. */
function linesOf(...results: readonly RunResult[]): string[] {
  return results
    .flatMap((result) => [result.stdout, result.stderr])
    .flatMap((text) => text.split('\n'))
    .filter((line, index, all) => line !== '' || index < all.length - 1)
    .filter((line) => line !== '');
}

/** How many printed lines name `file`. */
function timesNamed(result: RunResult, file: string): number {
  return linesOf(result).filter((line) => line.endsWith(`  ${file}`) || line.includes(`  ${file}:`))
    .length;
}

describe('lab-data in a CI log: one line when green, each cause once, the exit status documented (packed tool)', function () {
  this.timeout(120_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  /** A folder synced from the lab: 500 and more files and their manifest. */
  let synced: string;
  /** The content cache the sync filled. */
  let cache: string;
  /** The manifest's files, in its order. */
  let files: string[];
  let env: Record<string, string>;

  before(async function () {
    this.timeout(240_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 620 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-ci-log-'));
    synced = path.join(work, 'synced');
    cache = path.join(work, 'cache');
    env = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl, LAB_DATA_CACHE: cache };
    const sync = await tool.run(['sync', synced, '-q'], { env });
    assert.equal(sync.code, 0, said(sync));
    files = Object.values(Object.values((await readManifest(synced)).labs)[0]!.files).map(
      (entry) => entry.file,
    );
    assert.ok(files.length >= 500, `${files.length} files synced`);
  });
  after(async () => {
    tool?.remove();
    await lab?.close();
    await fs.rm(work, { recursive: true, force: true });
    for (const text of transcript) {
      assert.ok(!text.includes(SECRET_TOKEN), 'no output holds the token');
    }
  });

  /** A fresh folder holding the synced manifest and the PDFs `keep` chooses (a clone, a CI checkout). */
  async function clone(
    name: string,
    keep: (file: string) => boolean = () => false,
  ): Promise<string> {
    const folder = path.join(work, name);
    await fs.mkdir(folder, { recursive: true });
    await fs.copyFile(path.join(synced, MANIFEST_FILE_NAME), path.join(folder, MANIFEST_FILE_NAME));
    for (const file of files.filter(keep)) {
      await fs.copyFile(path.join(synced, file), path.join(folder, file));
    }
    return folder;
  }

  it(`a green pull && verify of 500 files prints two lines in all, without a TTY; -v lists every file once`, async () => {
    const folder = await clone('green');
    const pulled = await tool.run(['pull', folder], { env });
    assert.equal(pulled.code, 0, said(pulled));
    const verified = await tool.run(['verify', folder], { env });
    assert.equal(verified.code, 0, said(verified));
    const lines = linesOf(pulled, verified);
    assert.ok(lines.length <= 2, `${lines.length} lines:\n${lines.join('\n')}`);
    assert.match(
      pulled.stderr,
      new RegExp(
        `^Pulled .*: ${files.length} files: ${files.length} restored \\(${files.length} from the cache`,
      ),
    );
    assert.equal(verified.stdout, `All ${files.length} files in ${folder} are as recorded.\n`);
    const quiet = await tool.run(['-q', 'pull', folder], { env });
    assert.equal(quiet.code, 0, said(quiet));
    assert.deepEqual(linesOf(quiet), [], '-q: nothing at all');

    const listed = await tool.run(['verify', folder, '-v'], { env });
    assert.equal(listed.code, 0, said(listed));
    assert.match(listed.stdout, new RegExp(`^${files.length} files as recorded$`, 'm'));
    for (const file of files) {
      assert.equal(timesNamed(listed, file), 1, `${file}\n${said(listed)}`);
    }
    const json = JSON.parse((await tool.run(['verify', folder, '--json'], { env })).stdout) as {
      files: Array<{ state: string }>;
      exit_code: number;
    };
    assert.equal(json.exit_code, 0);
    assert.equal(json.files.filter((file) => file.state === 'ok').length, files.length);
  });

  it('a failing pull says each cause once with its count and files (the first ten; -v lists them all), never a reason that did not happen', async () => {
    // The last 13 files are missing, with no cache and no token; an early one was changed locally.
    const missing = files.slice(-13);
    const changed = files[0]!;
    const folder = await clone('failing', (file) => !missing.includes(file));
    await fs.appendFile(path.join(folder, changed), 'changed here');
    const noToken = { LAB_DATA_URL: lab.baseUrl, LAB_DATA_CACHE: path.join(work, 'empty') };
    lab.server.takeRequests();
    const pulled = await tool.run(['pull', folder], { env: noToken });
    // No token (3) is worse than a file changed locally (1).
    assert.equal(pulled.code, 3, said(pulled));
    assert.deepEqual(lab.server.takeRequests(), [], 'no request was sent');
    assert.doesNotMatch(pulled.stderr, /did not accept the access token/, 'no request was refused');
    const lines = linesOf(pulled);
    assert.equal(
      lines.filter((line) =>
        /^13 files not restored: No token for the lab .*: set LAB_DATA_TOKEN/.test(line),
      ).length,
      1,
      said(pulled),
    );
    assert.equal(lines.filter((line) => line.includes('No token')).length, 1, said(pulled));
    assert.ok(lines.includes('  … and 3 more (-v lists them)'), said(pulled));
    assert.equal(missing.filter((file) => timesNamed(pulled, file) === 1).length, 10);
    assert.equal(missing.filter((file) => timesNamed(pulled, file) > 1).length, 0);
    assert.match(
      pulled.stderr,
      new RegExp(
        `^1 file changed locally and left alone\\n {2}\\S+ {2}${changed}\\nlab-data pull --force`,
        'm',
      ),
    );
    assert.match(pulled.stderr, /: 13 failed|, 13 failed/);

    const verbose = await tool.run(['pull', folder, '-v'], { env: noToken });
    assert.equal(verbose.code, 3, said(verbose));
    for (const file of files) {
      assert.equal(timesNamed(verbose, file), 1, `${file}\n${said(verbose)}`);
    }
    assert.doesNotMatch(verbose.stderr, /more \(-v lists them\)/);
    const json = JSON.parse(
      (await tool.run(['pull', folder, '--json'], { env: noToken })).stdout,
    ) as {
      files: Array<{ file: string; state: string; error?: string }>;
      exit_code: number;
    };
    assert.equal(json.exit_code, 3);
    const failed = json.files.filter((file) => file.state === 'failed');
    assert.deepEqual(
      failed.map((file) => file.file),
      missing,
    );
    assert.ok(
      failed.every((file) => /^No token for the lab/.test(file.error ?? '')),
      JSON.stringify(failed),
    );
  });

  /** What the lab part lacks; the exit status it gives; a lab answering 503 to everything, when true. */
  const lacking: ReadonlyArray<
    readonly [string, () => Record<string, string>, RegExp, number, boolean?]
  > = [
    [
      'no token',
      () => ({ LAB_DATA_URL: lab.baseUrl }),
      /^1 file not restored: No token for the lab/,
      3,
    ],
    [
      'an address not confirmed',
      () => ({ LAB_DATA_TOKEN: SECRET_TOKEN }),
      /^1 file not restored: The lab .* is placed at .* Confirm it before LAB_DATA_TOKEN goes there/,
      3,
    ],
    [
      'the lab down (503 to everything)',
      () => ({ LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl }),
      /^1 file not restored: .*503/,
      4,
      true,
    ],
  ];
  for (const [what, given, cause, exitCode, down] of lacking) {
    it(`a cache holding all but one file and ${what}: the others are restored, the one is named once under that cause`, async () => {
      const partial = path.join(work, `partial-${what.replace(/\W+/g, '-')}`);
      await fs.cp(cache, partial, { recursive: true });
      // The first file pulled is the one the cache lacks: the lab part fails before any other
      // file is looked at, and every other file must still come from the cache.
      const last = Object.values(Object.values((await readManifest(synced)).labs)[0]!.files).sort(
        (a, b) => (a.report_id < b.report_id ? -1 : a.report_id > b.report_id ? 1 : 0),
      )[0]!;
      await fs.rm(path.join(partial, 'sha256', last.sha256.slice(0, 2), last.sha256));
      const folder = await clone(`partial-${what.replace(/\W+/g, '-')}-folder`);
      lab.server.takeRequests();
      if (down) {
        lab.server.setFaults({ status: { status: 503, times: Infinity } });
      }
      const pulled = await tool
        .run(['pull', folder], { env: { ...given(), LAB_DATA_CACHE: partial } })
        .finally(() => lab.server.setFaults({}));
      assert.equal(pulled.code, exitCode, said(pulled));
      if (!down) {
        assert.deepEqual(lab.server.takeRequests(), [], 'no request was sent');
      }
      assert.doesNotMatch(pulled.stderr, /did not accept the access token/);
      assert.equal(linesOf(pulled).filter((line) => cause.test(line)).length, 1, said(pulled));
      assert.equal(timesNamed(pulled, last.file), 1, said(pulled));
      assert.match(
        pulled.stderr,
        new RegExp(
          `: ${files.length} files: ${files.length - 1} restored, 1 failed \\(${files.length - 1} from the cache`,
        ),
      );
      assert.equal(linesOf(pulled).length, 3, `cause, file, summary:\n${said(pulled)}`);
    });
  }

  it('verify of a failing folder: each cause once, then its files; --json parses', async () => {
    const [gone, altered] = files;
    const folder = await clone('verify-failing', (file) => file !== gone);
    await fs.appendFile(path.join(folder, altered!), 'changed here');
    const verified = await tool.run(['verify', folder], { env });
    assert.equal(verified.code, 1, said(verified));
    assert.equal(
      verified.stdout,
      [
        `1 file missing`,
        `  ${gone!.replace(/\.pdf$/, '')}  ${gone}`,
        'lab-data pull restores them from the cache or the lab.',
        `1 file changed: not the recorded SHA-256`,
        `  ${altered!.replace(/\.pdf$/, '')}  ${altered}`,
        'lab-data pull --force replaces them with the recorded files.',
        `2 of ${files.length} files in ${folder} are not as recorded (exit 1).`,
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await tool.run(['verify', folder, '--json'], { env })).stdout) as {
      files: Array<{ file: string; state: string }>;
      missing: number;
      changed: number;
      exit_code: number;
    };
    assert.deepEqual([json.missing, json.changed, json.exit_code], [1, 1, 1]);
  });

  it('status --remote exits 3 without a token or a confirmed address and 4 with the lab down, as every command does', async () => {
    const folder = await clone('status', () => true);
    const inStep = await tool.run(['status', folder, '--remote'], { env });
    assert.equal(inStep.code, 0, said(inStep));
    const noToken = await tool.run(['status', folder, '--remote'], {
      env: { LAB_DATA_URL: lab.baseUrl },
    });
    assert.equal(noToken.code, 3, said(noToken));
    assert.equal(noToken.stderr.match(/No token for the lab/g)?.length, 1, said(noToken));
    const unconfirmed = await tool.run(['status', folder, '--remote', '--json'], {
      env: { LAB_DATA_TOKEN: SECRET_TOKEN },
    });
    assert.equal(unconfirmed.code, 3, said(unconfirmed));
    assert.equal((JSON.parse(unconfirmed.stdout) as { exit_code: number }).exit_code, 3);

    const downUrl = `http://127.0.0.1:${await closedPort()}`;
    const down = await clone('status-down', () => true);
    const text = (await fs.readFile(path.join(down, MANIFEST_FILE_NAME), 'utf8'))
      .split(lab.baseUrl)
      .join(downUrl);
    await fs.writeFile(path.join(down, MANIFEST_FILE_NAME), text);
    const unreachable = await tool.run(['status', down, '--remote'], {
      env: { ...env, LAB_DATA_URL: downUrl },
    });
    assert.equal(unreachable.code, 4, said(unreachable));
    assert.match(unreachable.stderr, /could not be asked: Cannot reach the lab/);
  });

  it('the documents give the packed tarball and a report in the manifest within 10 % of what is measured here', async () => {
    for (const figure of tarballFigures()) {
      const measured = tool.tarballBytes / 1000;
      assert.ok(
        Math.abs(figure.value - measured) <= measured * 0.1,
        `${figure.document}: "${figure.text}", measured ${measured.toFixed(0)} KB`,
      );
    }
    const perReport =
      Buffer.byteLength(await fs.readFile(path.join(synced, MANIFEST_FILE_NAME))) / files.length;
    for (const figure of bytesPerReportFigures()) {
      assert.ok(
        Math.abs(figure.value - perReport) <= perReport * 0.1,
        `${figure.document}: "${figure.text}", measured ${perReport.toFixed(0)} B a report`,
      );
    }
  });

  it('every `npm run cli -- …` the documents print runs from a clone as printed', async () => {
    const printed = [
      'README.md',
      'CONTRIBUTING.md',
      'cli/README.md',
      'docs/reports-in-git-and-ci.md',
    ]
      .flatMap((document) => readFileSync(path.join(root, document), 'utf8').split('\n'))
      .map((line) => /^\s*npm run cli -- ([^#]*)/.exec(line)?.[1]?.trim())
      .filter((args): args is string => args !== undefined);
    assert.ok(printed.length > 0);
    for (const args of printed) {
      const code = await new Promise<number>((resolve) =>
        execFile(
          process.execPath,
          [path.join(root, 'scripts', 'cli.mjs'), ...args.split(/\s+/)],
          { cwd: root, env: { ...process.env, INIT_CWD: root } },
          (error) => resolve(error ? ((error.code as number | undefined) ?? 1) : 0),
        ),
      );
      assert.equal(code, 0, `npm run cli -- ${args}`);
    }
  });
});
