import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { formatBytes } from '../../core/files/sizes';
import { MANIFEST_FILE_NAME, readManifest } from '../../core/sync/manifest';
import type { ManifestEntry } from '../../core/sync/manifestModel';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

/** The PDFs in a folder, sorted. */
async function pdfs(folder: string): Promise<string[]> {
  return (await fs.readdir(folder)).filter((name) => name.endsWith('.pdf')).sort();
}

describe('lab-data pull, status and verify a subset: flags and profiles (packed tool)', function () {
  this.timeout(120_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  let env: Record<string, string>;
  /** The committed manifest's reports, and those of the client the profile selects. */
  let all: ManifestEntry[];
  let mine: ManifestEntry[];
  let client: string;
  let origin: string;
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: 'pipe',
      env: {
        PATH: process.env.PATH,
        HOME: work,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'Analyst',
        GIT_AUTHOR_EMAIL: 'analyst@example.com',
        GIT_COMMITTER_NAME: 'Analyst',
        GIT_COMMITTER_EMAIL: 'analyst@example.com',
      },
    });
  /** A fresh clone of the team's repository: the manifest and the profile file, no PDF. */
  const freshClone = (name: string): string => {
    const clone = path.join(work, name);
    git(work, 'clone', '--quiet', origin, clone);
    return path.join(clone, 'reports');
  };

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 12 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-selection-'));
    env = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl };
    origin = path.join(work, 'origin.git');
    git(work, 'init', '--bare', '--quiet', '-b', 'main', origin);
    const first = path.join(work, 'first');
    git(work, 'clone', '--quiet', origin, first);
    const synced = await tool.run(['sync', path.join(first, 'reports')], { env });
    assert.equal(synced.code, 0, said(synced));
    const manifest = await readManifest(path.join(first, 'reports'));
    all = Object.values(Object.values(manifest.labs)[0]!.files);
    // The client with the most reports, though not all of them: a real subset.
    const counts = new Map<string, number>();
    all.forEach((entry) => counts.set(entry.client!, (counts.get(entry.client!) ?? 0) + 1));
    client = [...counts].sort(([, a], [, b]) => b - a)[0]![0];
    mine = all.filter((entry) => entry.client === client);
    assert.ok(mine.length > 1 && mine.length < all.length, 'the profile selects a subset');
    await fs.writeFile(
      path.join(first, 'reports', 'lab-data-profiles.json'),
      `${JSON.stringify({ version: 1, default: 'mine', profiles: { mine: { client: [client] } } }, null, 2)}\n`,
    );
    await fs.writeFile(path.join(first, '.gitignore'), '*.pdf\n.lab-data/\n');
    git(first, 'add', '.');
    git(first, 'commit', '--quiet', '-m', 'reports and a profile');
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

  it("a fresh clone pulls its default profile's reports only, says so in one line, and status and verify of that selection exit 0 while the rest is missing; --all takes every report", async () => {
    const folder = freshClone('fresh');
    const bytes = formatBytes(mine.reduce((sum, entry) => sum + entry.bytes, 0));
    const reminder = `Profile "mine" selects ${mine.length} of ${all.length} reports (${bytes}) (lab-data-profiles.json); --all for every report.`;

    const pulled = await tool.run(['pull', folder], { env });
    assert.equal(pulled.code, 0, said(pulled));
    assert.equal(
      pulled.stderr.split('\n').filter((line) => line === reminder).length,
      1,
      said(pulled),
    );
    assert.match(pulled.stderr, new RegExp(`; ${all.length - mine.length} not selected;`));
    assert.deepEqual(await pdfs(folder), mine.map((entry) => entry.file).sort());

    const status = await tool.run(['status', folder], { env });
    assert.equal(status.code, 0, said(status));
    assert.match(status.stdout, /Nothing is out of step/);
    assert.doesNotMatch(status.stdout, /missing/);
    assert.match(
      status.stdout,
      new RegExp(`${mine.length} recorded \\(${all.length - mine.length} not selected\\)`),
    );
    const json = JSON.parse((await tool.run(['status', folder, '--json'], { env })).stdout) as {
      in_step: boolean;
      entries: Array<{ report_id: string; local: string }>;
      not_selected: number;
      selection: { profile: string; selected: number };
    };
    assert.equal(json.in_step, true);
    assert.equal(json.not_selected, all.length - mine.length);
    assert.deepEqual(json.selection.profile, 'mine');
    assert.deepEqual(
      json.entries.map((entry) => entry.report_id).sort(),
      mine.map((entry) => entry.report_id).sort(),
      'the unselected reports are not listed as missing',
    );
    const verified = await tool.run(['verify', folder, '--json'], { env });
    assert.equal(verified.code, 0, said(verified));
    const checked = JSON.parse(verified.stdout) as { missing: number; not_selected: number };
    assert.equal(checked.missing, 0);
    assert.equal(checked.not_selected, all.length - mine.length);

    // Without the selection the folder is not in step: every other report is missing.
    const statusAll = await tool.run(['status', folder, '--all'], { env });
    assert.equal(statusAll.code, 1, said(statusAll));
    assert.doesNotMatch(statusAll.stderr, /Profile "mine"/, '--all: no profile applies');
    const verifyAll = await tool.run(['verify', folder, '--all'], { env });
    assert.equal(verifyAll.code, 1, said(verifyAll));

    const pullAll = await tool.run(['pull', folder, '--all'], { env });
    assert.equal(pullAll.code, 0, said(pullAll));
    assert.deepEqual(await pdfs(folder), all.map((entry) => entry.file).sort());
    assert.equal((await tool.run(['verify', folder, '--all'], { env })).code, 0);
  });

  it('flags select without a profile (--all) or narrow it; --dry-run prints the counts and bytes of the selection; --lab takes a name or the address that confirms the token', async () => {
    const folder = freshClone('flags');
    const [one, two] = mine;
    const bytes = one!.bytes + two!.bytes;
    const dry = await tool.run(
      ['pull', folder, '--report', one!.report_id, '--report', two!.report_id, '--dry-run'],
      { env },
    );
    assert.equal(dry.code, 0, said(dry));
    assert.match(
      dry.stderr,
      new RegExp(
        `Profile "mine" with --report ${one!.report_id} --report ${two!.report_id} selects 2 of ${all.length} reports \\(${formatBytes(bytes)}\\)`,
      ),
    );
    assert.match(
      dry.stderr,
      new RegExp(
        `Would pull ${folder}: 2 files: 2 to restore; 2 from the lab \\(${formatBytes(bytes)}\\); ${all.length - 2} not selected; nothing was written\\.`,
      ),
      said(dry),
    );
    assert.deepEqual(await pdfs(folder), [], 'a dry run writes nothing');

    // A report of another client: the default profile and the flag select none of them together.
    const other = all.find((entry) => entry.client !== client)!;
    const none = await tool.run(['pull', folder, '--report', other.report_id], { env });
    assert.equal(none.code, 2, said(none));
    assert.match(
      none.stderr,
      new RegExp(
        `selects none of the ${all.length} reports in the manifest; nothing was done\\. \\(Profile "mine" is the default of lab-data-profiles\\.json; --all selects without it\\.\\)`,
      ),
    );
    // --all drops the profile, the flag still applies; --lab by the section's name, the address from LAB_DATA_URL.
    const name = Object.keys((await readManifest(folder)).labs)[0]!;
    const theirs = await tool.run(
      ['pull', folder, '--all', '--report', other.report_id, '--lab', name, '--json'],
      { env },
    );
    assert.equal(theirs.code, 0, said(theirs));
    assert.equal(
      (JSON.parse(theirs.stdout) as { selection: { not_selected: number } }).selection.not_selected,
      all.length - 1,
    );
    assert.deepEqual(await pdfs(folder), [other.file]);
    // --lab URL still confirms the address a token goes to (no LAB_DATA_URL), and selects its lab.
    const byAddress = await tool.run(['pull', folder, '--all', '--lab', lab.baseUrl], {
      env: { LAB_DATA_TOKEN: SECRET_TOKEN },
    });
    assert.equal(byAddress.code, 0, said(byAddress));
    assert.equal((await pdfs(folder)).length, all.length);
    const elsewhere = await tool.run(['status', folder, '--lab', 'https://elsewhere.example.com'], {
      env,
    });
    assert.equal(elsewhere.code, 2, said(elsewhere));
    assert.match(
      elsewhere.stderr,
      /names the lab "https:\/\/elsewhere\.example\.com", which the manifest does not have at that address/,
    );
  });

  it('a clone keeps its own profile (profile use NAME, in .lab-data/): after pull --profile coa, status and verify exit 1 until it is used, then 0; LAB_DATA_PROFILE overrides it, --profile both; an unknown name is refused naming the profile file; status and verify list missing files alike', async () => {
    const folder = freshClone('per-clone');
    const other = all.find((entry) => entry.client !== client)!.client!;
    const coa = all.filter((entry) => entry.client === other);
    await fs.writeFile(
      path.join(folder, 'lab-data-profiles.json'),
      JSON.stringify({
        version: 1,
        profiles: { mine: { client: [client] }, coa: { client: [other] } },
      }),
    );
    const pulled = await tool.run(['pull', folder, '--profile', 'coa'], { env });
    assert.equal(pulled.code, 0, said(pulled));
    assert.deepEqual(await pdfs(folder), coa.map((entry) => entry.file).sort());

    // Reproduced: without the clone's profile, every report outside coa is missing.
    const verifyPlain = await tool.run(['verify', folder, '-v'], { env });
    const statusPlain = await tool.run(['status', folder, '-v'], { env });
    assert.equal(verifyPlain.code, 1, said(verifyPlain));
    assert.equal(statusPlain.code, 1, said(statusPlain));
    // The same count line, the same files in the same order, the same words.
    const missingBlock = (text: string): string[] => {
      const lines = text.split('\n');
      const start = lines.findIndex((line) => / missing$/.test(line));
      assert.ok(start >= 0, text);
      return lines.slice(start, start + 1 + all.length - coa.length + 1);
    };
    const block = missingBlock(verifyPlain.stdout);
    assert.equal(block[0], `${all.length - coa.length} files missing`);
    assert.deepEqual(missingBlock(statusPlain.stdout), block);

    const used = await tool.run(['profile', 'use', 'coa', folder], { env });
    assert.equal(used.code, 0, said(used));
    assert.equal(await fs.readFile(path.join(folder, '.lab-data', 'profile'), 'utf8'), 'coa\n');
    assert.equal(
      git(path.dirname(folder), 'status', '--porcelain'),
      ' M reports/lab-data-profiles.json\n',
      "the clone's profile is never committed",
    );
    const shown = await tool.run(['profile', folder], { env });
    assert.equal(shown.code, 0, said(shown));
    assert.match(shown.stdout, /coa/);
    assert.match(shown.stdout, /\.lab-data\/profile/);

    for (const command of ['verify', 'status']) {
      const run = await tool.run([command, folder], { env });
      assert.equal(run.code, 0, `${command}\n${said(run)}`);
      assert.match(
        run.stderr,
        new RegExp(
          `Profile "coa" selects ${coa.length} of ${all.length} reports .*\\.lab-data/profile`,
        ),
      );
    }
    // LAB_DATA_PROFILE overrides the clone's file; --profile overrides both; --all takes none.
    const byVariable = await tool.run(['verify', folder], {
      env: { ...env, LAB_DATA_PROFILE: 'mine' },
    });
    assert.equal(byVariable.code, 1, said(byVariable));
    assert.match(byVariable.stderr, /Profile "mine" selects .*LAB_DATA_PROFILE/);
    const byFlag = await tool.run(['status', folder, '--profile', 'coa'], {
      env: { ...env, LAB_DATA_PROFILE: 'mine' },
    });
    assert.equal(byFlag.code, 0, said(byFlag));
    assert.equal((await tool.run(['verify', folder, '--all'], { env })).code, 1);

    // An unknown name: refused naming the profile file (and where the name came from).
    const unknown = await tool.run(['profile', 'use', 'nope', folder], { env });
    assert.equal(unknown.code, 2, said(unknown));
    assert.match(
      unknown.stderr,
      /lab-data-profiles\.json has no profile "nope" \(its profiles: mine, coa\)/,
    );
    assert.equal(await fs.readFile(path.join(folder, '.lab-data', 'profile'), 'utf8'), 'coa\n');
    const badVariable = await tool.run(['status', folder], {
      env: { ...env, LAB_DATA_PROFILE: 'nope' },
    });
    assert.equal(badVariable.code, 2, said(badVariable));
    assert.match(
      badVariable.stderr,
      /lab-data-profiles\.json has no profile "nope" .*LAB_DATA_PROFILE/,
    );

    const cleared = await tool.run(['profile', 'use', '--clear', folder], { env });
    assert.equal(cleared.code, 0, said(cleared));
    await assert.rejects(fs.stat(path.join(folder, '.lab-data', 'profile')), { code: 'ENOENT' });
    assert.equal((await tool.run(['verify', folder], { env })).code, 1);
  });

  it('a bad profile file, an unknown profile, a lab or field the manifest lacks: a clear message, exit 2, nothing written', async () => {
    const folder = freshClone('bad');
    const profiles = path.join(folder, 'lab-data-profiles.json');
    const cases: Array<[unknown, string[], RegExp]> = [
      [
        { version: 1, profiles: { mine: { client: [client], colour: 'red' } } },
        ['--profile', 'mine'],
        /lab-data-profiles\.json: profile "mine" has an unknown field "colour" \(known: lab, client, project, status, type, sample, report, since, until, description\)\./,
      ],
      [
        { version: 1, profiles: { mine: { client: 1001 } } },
        ['--profile', 'mine'],
        /profile "mine": "client" must be a list of one or more values/,
      ],
      [
        { version: 1, default: 'far', profiles: { far: { lab: ['Riverside lab'] } } },
        [],
        /profile "far" names the lab "Riverside lab", which the manifest does not have by that name \(its labs: ".*" at http:\/\/127\.0\.0\.1:\d+\)/,
      ],
      [
        { version: 1, profiles: { mine: { client: [client] } } },
        ['--profile', 'theirs'],
        /lab-data-profiles\.json has no profile "theirs" \(its profiles: mine\)/,
      ],
      [
        { version: 1, profiles: { mine: { since: 'last week' } } },
        ['--profile', 'mine'],
        /profile "mine": since/,
      ],
    ];
    for (const [file, args, message] of cases) {
      await fs.writeFile(profiles, JSON.stringify(file));
      for (const command of ['pull', 'status', 'verify']) {
        const result = await tool.run([command, folder, ...args], { env });
        assert.equal(result.code, 2, `${command} ${JSON.stringify(file)}\n${said(result)}`);
        assert.match(result.stderr, message, said(result));
      }
    }
    await fs.writeFile(profiles, '{ "version": 1, ');
    const broken = await tool.run(['verify', folder], { env });
    assert.equal(broken.code, 2, said(broken));
    assert.match(broken.stderr, /lab-data-profiles\.json is not JSON/);
    // --all reads no profile: a broken file does not stop a run that names none.
    const whole = await tool.run(['status', folder, '--all', '--json'], { env });
    assert.equal(whole.code, 1, said(whole));
    assert.deepEqual(await pdfs(folder), [], 'nothing was written');
    assert.deepEqual(
      (await fs.readdir(folder)).sort(),
      ['lab-data-profiles.json', MANIFEST_FILE_NAME].sort(),
    );
  });
});
