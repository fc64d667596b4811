import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readManifest } from '../../core/sync/manifest';
import { parseUses } from '../../core/uses/usesRecord';
import { SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';
import { notebook, readLine } from '../support/consumers';

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

const GIT_ENV = {
  PATH: process.env.PATH,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Analyst',
  GIT_AUTHOR_EMAIL: 'analyst@example.com',
  GIT_COMMITTER_NAME: 'Analyst',
  GIT_COMMITTER_EMAIL: 'analyst@example.com',
};

describe('lab-data uses and impact: which scripts and notebooks used an amended report (packed tool, real git)', function () {
  this.timeout(180_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  let env: Record<string, string>;
  let home: string;

  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, {
      cwd,
      env: { ...GIT_ENV, HOME: home },
      encoding: 'utf8',
      stdio: 'pipe',
    });

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 24 });
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-uses-'));
    home = work;
    env = {
      LAB_DATA_TOKEN: SECRET_TOKEN,
      LAB_DATA_URL: lab.baseUrl,
      LAB_DATA_CACHE: path.join(work, 'cache'),
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

  it('after the lab amends a report: sync records revision 2, impact names exactly its three consumers (exit 1); run again and recorded, none (exit 0)', async () => {
    const repo = path.join(work, 'study');
    await fs.mkdir(repo);
    git(repo, 'init', '--quiet', '-b', 'main');
    const folder = path.join(repo, 'lab-reports');
    const synced = await tool.run(['sync', folder], { env });
    assert.equal(synced.code, 0, said(synced));
    const manifest = await readManifest(folder);
    const section = Object.values(manifest.labs)[0]!;
    const origin = section.origin;
    const [amended, kept, other] = Object.values(section.files).filter(
      (entry) => entry.revision === '1',
    );
    assert.ok(amended && kept && other, 'three reports at revision 1');

    // Two consumers read the report through labdata, one only names it; two others use the rest.
    await fs.mkdir(path.join(repo, 'analysis'));
    await fs.mkdir(path.join(repo, 'notebooks'));
    await fs.writeFile(
      path.join(repo, 'analysis', 'trend.py'),
      `import labdata\n\nreport = labdata.path(REPORT)  # the id comes from the command line\n`,
    );
    await fs.writeFile(path.join(repo, 'notebooks', 'nitrate.ipynb'), notebook(amended.report_id));
    await fs.writeFile(
      path.join(repo, 'analysis', 'cites.R'),
      `# Results as in ${amended.report_id} (table 2)\nx <- 1\n`,
    );
    await fs.writeFile(
      path.join(repo, 'analysis', 'other.py'),
      `import labdata\np = labdata.path("${kept.report_id}")\n`,
    );
    await fs.writeFile(path.join(repo, 'README.md'), `Method from ${other.report_id}.\n`);
    const reads = path.join(folder, '.lab-data', 'reads.jsonl');
    await fs.writeFile(
      reads,
      `${[
        readLine('analysis/trend.py', origin, amended, '2026-11-30T09:00:00Z'),
        readLine('notebooks/nitrate.ipynb', origin, amended, '2026-11-30T09:01:00Z'),
        readLine('analysis/other.py', origin, kept, '2026-11-30T09:02:00Z'),
        '{"at": "2026-11-30T09:03:00Z", "consumer": "half a li',
      ].join('\n')}\n`,
    );

    const recorded = await tool.run(['uses', folder, '--record'], { env: {} });
    assert.equal(recorded.code, 0, said(recorded));
    assert.match(recorded.stderr, /1 line\(s\) of \.lab-data\/reads\.jsonl could not be read/);
    const usesFile = path.join(folder, 'lab-data-uses.json');
    const text = await fs.readFile(usesFile, 'utf8');
    assert.deepEqual(
      parseUses(text).uses.map((use) => `${use.consumer} ${use.id} ${use.revision} ${use.how}`),
      [
        `README.md ${other.report_id} 1 named`,
        `analysis/cites.R ${amended.report_id} 1 named`,
        `analysis/other.py ${kept.report_id} 1 read`,
        `analysis/trend.py ${amended.report_id} 1 read`,
        `notebooks/nitrate.ipynb ${amended.report_id} 1 read`,
      ],
    );
    assert.ok(!text.includes(work) && !text.includes(SECRET_TOKEN), 'no machine path, no token');
    assert.doesNotMatch(text, /"at"|20\d\d-\d\d-\d\dT/, 'no times');
    const clean = await tool.run(['impact', '--folder', folder], { env: {} });
    assert.equal(clean.code, 0, said(clean));
    git(repo, 'add', '.');
    git(repo, 'commit', '--quiet', '-m', 'the study and its uses');

    // The lab amends the report while it runs; sync records the new revision.
    const answer = await fetch(
      `${new URL(lab.baseUrl).origin}/__mock/amend/${encodeURIComponent(amended.report_id)}`,
      { method: 'POST' },
    );
    assert.equal(answer.status, 200);
    const replaced = (await answer.json()) as { revision: number; replaces: { revision: number } };
    assert.deepEqual([replaced.revision, replaced.replaces.revision], [2, 1]);
    const resynced = await tool.run(['sync', folder], { env });
    assert.equal(resynced.code, 0, said(resynced));
    const now = Object.values((await readManifest(folder)).labs)[0]!.files[amended.report_id]!;
    assert.equal(now.revision, '2');
    assert.notEqual(now.sha256, amended.sha256);

    const affected = await tool.run(['impact', '--folder', folder], { env: {} });
    assert.equal(affected.code, 1, said(affected));
    const rows = affected.stdout.split('\n').filter((line) => line.includes(amended.report_id));
    assert.deepEqual(
      rows.map((row) => row.split(/\s+/)[0]).sort(),
      ['analysis/cites.R', 'analysis/trend.py', 'notebooks/nitrate.ipynb'],
      said(affected),
    );
    assert.doesNotMatch(affected.stdout, /other\.py|README\.md/);
    assert.match(
      affected.stdout,
      /3 script\(s\), notebook\(s\) or document\(s\) used another revision/,
    );
    const json = await tool.run(['impact', '--folder', folder, '--json'], { env: {} });
    assert.equal(json.code, 1);
    const parsed = JSON.parse(json.stdout) as {
      consumers: string[];
      affected: { id: string; used_revision: string; revision: string; how: string }[];
      exit_code: number;
    };
    assert.deepEqual(parsed.consumers, [
      'analysis/cites.R',
      'analysis/trend.py',
      'notebooks/nitrate.ipynb',
    ]);
    assert.ok(parsed.affected.every((each) => each.used_revision === '1' && each.revision === '2'));
    assert.equal(parsed.exit_code, 1);
    const quiet = await tool.run(['impact', '--folder', folder, '--quiet'], { env: {} });
    assert.equal(quiet.code, 1);
    assert.equal(quiet.stdout.trim().split('\n').length, 3, said(quiet));
    const onlyOther = await tool.run(['impact', kept.report_id, '--folder', folder], { env: {} });
    assert.equal(onlyOther.code, 0, `another id: none affected. ${said(onlyOther)}`);
    const status = await tool.run(['status', folder], { env: {} });
    assert.match(
      status.stdout,
      /^Uses: 3 script\(s\) or notebook\(s\) used another revision than the one recorded; lab-data impact names them\.$/m,
      said(status),
    );

    // The two readers run again (new reads of revision 2); uses are recorded: none affected.
    await fs.appendFile(
      reads,
      `${readLine('analysis/trend.py', origin, now, '2026-12-01T09:00:00Z')}\n${readLine('notebooks/nitrate.ipynb', origin, now, '2026-12-01T09:01:00Z')}\n`,
    );
    const again = await tool.run(['uses', folder, '--record'], { env: {} });
    assert.equal(again.code, 0, said(again));
    const none = await tool.run(['impact', '--folder', folder], { env: {} });
    assert.equal(none.code, 0, said(none));
    assert.match(none.stdout, /no script, notebook or document used another revision/);
    assert.equal(
      (await tool.run(['impact', '--folder', folder, '--quiet'], { env: {} })).stdout,
      '',
    );
    assert.match(
      (await tool.run(['status', folder], { env: {} })).stdout,
      /^Uses: no script or notebook used another revision than the one recorded\.$/m,
    );
    const diff = git(repo, 'diff', '--', 'lab-reports/lab-data-uses.json');
    assert.equal(
      diff.split('\n').filter((line) => /^[-+]\s/.test(line)).length,
      6,
      `three uses changed, one line each:\n${diff}`,
    );
  });

  it('two branches that each record uses merge through the driver: no conflict markers, nothing lost', async () => {
    const origin = path.join(work, 'origin.git');
    git(work, 'init', '--bare', '--quiet', '-b', 'main', origin);
    const a = path.join(work, 'a');
    git(work, 'clone', '--quiet', origin, a);
    const folder = (clone: string): string => path.join(clone, 'lab-reports');
    assert.equal((await tool.run(['sync', folder(a)], { env })).code, 0);
    const section = Object.values((await readManifest(folder(a))).labs)[0]!;
    const ids = Object.keys(section.files);
    await fs.writeFile(path.join(a, '.gitignore'), 'lab-reports/*.pdf\n');
    await fs.writeFile(path.join(a, 'base.py'), `# ${ids[0]}\n`);
    assert.equal((await tool.run(['uses', folder(a), '--record'], { env: {} })).code, 0);
    const install = await tool.run(['merge-manifest', '--install', a], { env: { HOME: home } });
    assert.equal(install.code, 0, said(install));
    assert.match(
      await fs.readFile(path.join(a, '.gitattributes'), 'utf8'),
      /^lab-data-uses\.json merge=lab-data$/m,
    );
    git(a, 'add', '.');
    git(a, 'commit', '--quiet', '-m', 'base');
    git(a, 'push', '--quiet', 'origin', 'main');
    const b = path.join(work, 'b');
    git(work, 'clone', '--quiet', origin, b);
    assert.equal(
      (await tool.run(['merge-manifest', '--install', b], { env: { HOME: home } })).code,
      0,
    );
    assert.equal((await tool.run(['pull', folder(b)], { env })).code, 0);

    // Each branch adds consumers whose uses sort next to each other, and changes none the other has.
    await fs.writeFile(path.join(a, 'c1.py'), `# ${ids[1]}\n`);
    await fs.writeFile(path.join(a, 'c3.R'), `# ${ids[3]}\n`);
    await fs.writeFile(path.join(b, 'c2.py'), `# ${ids[2]}\n`);
    await fs.writeFile(path.join(b, 'c4.md'), `${ids[4]}\n`);
    for (const clone of [a, b]) {
      const recorded = await tool.run(['uses', folder(clone), '--record'], { env: {} });
      assert.equal(recorded.code, 0, said(recorded));
      git(clone, 'add', '.');
      git(clone, 'commit', '--quiet', '-m', `uses in ${path.basename(clone)}`);
    }
    git(a, 'push', '--quiet', 'origin', 'main');
    git(b, 'pull', '--quiet', '--no-rebase', '--no-edit', 'origin', 'main');
    const merged = await fs.readFile(path.join(folder(b), 'lab-data-uses.json'), 'utf8');
    // Without the driver, git's line merge of the same three versions conflicts.
    const side = async (revision: string): Promise<string> => {
      const file = path.join(work, `uses-${revision.replace(/\W/g, '')}.json`);
      await fs.writeFile(file, git(b, 'show', `${revision}:lab-reports/lab-data-uses.json`));
      return file;
    };
    const [baseSide, ourSide, theirSide] = [
      await side(git(b, 'merge-base', 'HEAD^1', 'HEAD^2').trim()),
      await side('HEAD^1'),
      await side('HEAD^2'),
    ];
    const textMerge = spawnSync('git', ['merge-file', '-p', ourSide, baseSide, theirSide], {
      encoding: 'utf8',
    });
    assert.ok(
      (textMerge.status ?? 0) > 0,
      `a plain text merge conflicts: ${await fs.readFile(baseSide, 'utf8')}\n${await fs.readFile(ourSide, 'utf8')}\n${await fs.readFile(theirSide, 'utf8')}\n${textMerge.stdout}`,
    );
    assert.match(textMerge.stdout, /<<<<<<</);
    assert.doesNotMatch(merged, /<<<<<<<|=======|>>>>>>>/);
    assert.deepEqual(
      parseUses(merged).uses.map((use) => `${use.consumer} ${use.id}`),
      [
        `base.py ${ids[0]}`,
        `c1.py ${ids[1]}`,
        `c2.py ${ids[2]}`,
        `c3.R ${ids[3]}`,
        `c4.md ${ids[4]}`,
      ],
    );
    assert.equal(
      git(b, 'status', '--porcelain').trim(),
      '',
      'the merge is committed, nothing unmerged',
    );
    const recordedAgain = await tool.run(['uses', folder(b), '--record'], { env: {} });
    assert.equal(recordedAgain.code, 0);
    assert.equal(
      await fs.readFile(path.join(folder(b), 'lab-data-uses.json'), 'utf8'),
      merged,
      'the merge is what recording there writes',
    );
  });

  it('impact --remote: a report the lab amended since the last sync names its consumers against the lab’s newest (exit 1); without --remote, none (exit 0)', async () => {
    const repo = path.join(work, 'remote');
    await fs.mkdir(repo);
    git(repo, 'init', '--quiet', '-b', 'main');
    const folder = path.join(repo, 'lab-reports');
    assert.equal((await tool.run(['sync', folder], { env })).code, 0);
    const section = Object.values((await readManifest(folder)).labs)[0]!;
    const [amended, kept] = Object.values(section.files).filter((entry) => entry.revision === '1');
    assert.ok(amended && kept, 'two reports at revision 1');
    await fs.writeFile(path.join(repo, 'reads.py'), 'import labdata\n');
    await fs.writeFile(path.join(repo, 'cites.R'), `# as in ${amended.report_id}\n`);
    await fs.writeFile(path.join(repo, 'other.py'), `# as in ${kept.report_id}\n`);
    await fs.writeFile(
      path.join(folder, '.lab-data', 'reads.jsonl'),
      `${readLine('reads.py', section.origin, amended, '2026-11-30T09:00:00Z')}\n`,
    );
    assert.equal((await tool.run(['uses', folder, '--record'], { env: {} })).code, 0);

    const answer = await fetch(
      `${new URL(lab.baseUrl).origin}/__mock/amend/${encodeURIComponent(amended.report_id)}`,
      { method: 'POST' },
    );
    assert.equal(answer.status, 200);
    const local = await tool.run(['impact', '--folder', folder], { env: {} });
    assert.equal(
      local.code,
      0,
      `not synced: the manifest still records revision 1. ${said(local)}`,
    );

    const remote = await tool.run(['impact', '--folder', folder, '--remote'], { env });
    assert.equal(remote.code, 1, said(remote));
    assert.deepEqual(
      remote.stdout
        .split('\n')
        .filter((line) => line.includes(amended.report_id))
        .map((row) => row.split(/\s+/).slice(0, 4).join(' '))
        .sort(),
      [`cites.R ${amended.report_id} 1 2`, `reads.py ${amended.report_id} 1 2`],
      said(remote),
    );
    assert.match(remote.stdout, /at the lab/);
    assert.doesNotMatch(remote.stdout, /other\.py/);
    assert.match(
      remote.stdout,
      /2 script\(s\), notebook\(s\) or document\(s\) used another revision than the labs' newest/,
    );
    const json = await tool.run(['impact', '--folder', folder, '--remote', '--json'], { env });
    assert.equal(json.code, 1, said(json));
    const parsed = JSON.parse(json.stdout) as {
      remote: boolean;
      consumers: string[];
      affected: { id: string; used_revision: string; revision: string }[];
    };
    assert.equal(parsed.remote, true);
    assert.deepEqual(parsed.consumers, ['cites.R', 'reads.py']);
    assert.ok(parsed.affected.every((each) => each.used_revision === '1' && each.revision === '2'));

    // Synced, the manifest records revision 2: impact without --remote says the same two.
    assert.equal((await tool.run(['sync', folder], { env })).code, 0);
    const synced = await tool.run(['impact', '--folder', folder, '--quiet'], { env: {} });
    assert.equal(synced.code, 1, said(synced));
    assert.equal(synced.stdout.trim().split('\n').length, 2, said(synced));
  });
});
