import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LabApi } from '../../core/api/labApi';
import { defaultLabDefinition } from '../../core/api/labDefinition';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { RateLimitGate } from '../../core/connection/timing';
import { listAllReports, syncFolder } from '../../core/sync/folderSync';
import { saveReports } from '../../core/sync/bulkSave';
import { MANIFEST_FILE_NAME, readManifest } from '../../core/sync/manifest';
import { DEFAULT_FILE_NAME_TEMPLATE } from '../../core/sync/reportFiles';
import { closedPort, FULL, SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { MockLabServer } from '../mock/server';
import { makeTestCertificates } from '../support/certificates';
import { startForwardProxy } from '../support/forwardProxy';
import { packAndInstall, transcript, type PackedTool, type RunResult } from './packedTool';

/** The extension's own sync (the core function labData.syncReports runs, without its dialogs). */
async function extensionSync(
  lab: MockLab,
  folder: string,
): Promise<{ saved: number; skipped: number }> {
  const api = lab.api(SECRET_TOKEN);
  const target = { folder, template: DEFAULT_FILE_NAME_TEMPLATE };
  const result = await syncFolder(api, target, {
    list: (query) => listAllReports(api, query),
    save: (reports, decide) =>
      saveReports(reports, {
        api,
        target,
        decide,
        signal: new AbortController().signal,
        concurrency: 4,
      }),
  });
  return { saved: result.run.saved.length, skipped: result.run.skipped.length };
}

async function pdfsIn(folder: string): Promise<string[]> {
  return (await fs.readdir(folder)).filter((name) => name.endsWith('.pdf')).sort();
}

function said(result: RunResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

describe('lab-data, the command-line tool (packed, installed, run as a subprocess)', function () {
  this.timeout(60_000);
  let tool: PackedTool;
  let lab: MockLab;
  let work: string;
  /** A folder the extension's sync filled, and a copy of its manifest alone. */
  let synced: string;
  /** The token, and the lab's address given by whoever runs the tool (a manifest alone never decides where a token goes). */
  let env: Record<string, string>;

  before(async function () {
    this.timeout(180_000);
    tool = packAndInstall();
    lab = await startMockLab({ reports: 40 });
    env = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: lab.baseUrl };
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-cli-work-'));
    synced = path.join(work, 'synced');
    const { saved } = await extensionSync(lab, synced);
    assert.ok(saved >= 20, `the extension's sync saved ${saved} files`);
  });
  after(async () => {
    tool?.remove();
    await lab?.close();
    await fs.rm(work, { recursive: true, force: true });
  });
  beforeEach(() => lab.server.setFaults({}));

  /** A fresh folder holding only the synced folder's manifest (what a colleague's clone has). */
  async function manifestOnly(name: string): Promise<string> {
    const folder = path.join(work, name);
    await fs.mkdir(folder, { recursive: true });
    await fs.copyFile(path.join(synced, MANIFEST_FILE_NAME), path.join(folder, MANIFEST_FILE_NAME));
    return folder;
  }

  /** A folder whose manifest is `text`, inside a parent that holds nothing else. */
  async function withManifest(
    name: string,
    text: string,
  ): Promise<{ parent: string; folder: string }> {
    const parent = path.join(work, name);
    const folder = path.join(parent, 'reports');
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, MANIFEST_FILE_NAME), text);
    return { parent, folder };
  }

  it('explains itself: --help for the tool and every command, with examples; no command is a usage error', async () => {
    const general = await tool.run(['--help']);
    assert.equal(general.code, 0);
    for (const command of [
      'pull',
      'verify',
      'sync',
      'reports',
      'samples',
      'clients',
      'projects',
      'report',
    ]) {
      assert.match(general.stdout, new RegExp(`^  ${command} `, 'm'), command);
      const help = await tool.run([command, '--help']);
      assert.equal(help.code, 0, said(help));
      assert.match(help.stdout, new RegExp(`Usage: lab-data ${command}`));
      assert.match(help.stdout, /Examples:\n {2}\S/);
      assert.match(help.stdout, /Exit status: 0 done; 1 .*\n2 usage.*; 3 .*\n4 /);
    }
    const none = await tool.run([]);
    assert.equal(none.code, 2);
    const unknown = await tool.run(['restore']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /"restore" is not a lab-data command/);
    const badOption = await tool.run(['pull', '--frobnicate']);
    assert.equal(badOption.code, 2);
    assert.match(badOption.stderr, /--frobnicate/);
  });

  it('pulls a folder holding only the manifest the extension wrote: every file byte-identical, and pulling again downloads nothing', async () => {
    const fresh = await manifestOnly('fresh');
    const pulled = await tool.run(['pull', fresh], { env });
    assert.equal(pulled.code, 0, said(pulled));
    const names = await pdfsIn(synced);
    assert.deepEqual(await pdfsIn(fresh), names);
    for (const name of names) {
      assert.ok(
        (await fs.readFile(path.join(fresh, name))).equals(
          await fs.readFile(path.join(synced, name)),
        ),
        name,
      );
    }
    assert.match(pulled.stderr, new RegExp(`${names.length} files: ${names.length} restored`));
    lab.server.takeRequests();
    const again = await tool.run(['pull', fresh, '--json'], { env });
    assert.equal(again.code, 0, said(again));
    const summary = JSON.parse(again.stdout) as { files: Array<{ state: string }>; bytes: number };
    assert.ok(summary.files.every((file) => file.state === 'present'));
    assert.equal(summary.bytes, 0);
    assert.ok(
      lab.server.takeRequests().every((request) => !request.path.endsWith('/file')),
      'no file was downloaded again',
    );
  });

  it('verify finds a tampered file (exit 1, named), and a missing one', async () => {
    const folder = await manifestOnly('tampered');
    assert.equal((await tool.run(['pull', folder], { env })).code, 0);
    const [first, second] = await pdfsIn(folder);
    await fs.appendFile(path.join(folder, first!), 'tampered');
    await fs.rm(path.join(folder, second!));
    const table = await tool.run(['verify', folder]);
    assert.equal(table.code, 1, said(table));
    // Each cause once, with its count, then its files.
    assert.match(table.stdout, new RegExp(`^1 file changed: .*\\n {2}\\S+ {2}${first}$`, 'm'));
    assert.match(table.stdout, new RegExp(`^1 file missing\\n {2}\\S+ {2}${second}$`, 'm'));
    const json = JSON.parse((await tool.run(['verify', folder, '--json'])).stdout) as {
      files: Array<{ file: string; state: string }>;
      exit_code: number;
    };
    assert.equal(json.exit_code, 1);
    assert.equal(json.files.find((file) => file.file === first)?.state, 'changed');
  });

  it('`npm run cli -- verify <relative folder>` from a clone finds the folder where the command was typed', async () => {
    const root = path.resolve(__dirname, '..', '..', '..');
    // As `npm run cli -- verify synced --json` typed in `work` runs it: in the clone, with INIT_CWD
    // saying where it was typed (npm itself is left out: its script would also check node_modules).
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve) =>
        execFile(
          process.execPath,
          [path.join(root, 'scripts', 'cli.mjs'), 'verify', 'synced', '--json'],
          { cwd: root, env: { ...process.env, INIT_CWD: work } },
          (error, stdout, stderr) =>
            resolve({
              code: error ? ((error.code as number | undefined) ?? 1) : 0,
              stdout,
              stderr,
            }),
        ),
    );
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    const json = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as {
      folder: string;
      files: Array<{ state: string }>;
    };
    assert.equal(await fs.realpath(json.folder), await fs.realpath(synced));
    assert.ok(json.files.length >= 20 && json.files.every((file) => file.state === 'ok'));
  });

  it('verify trusts size and time as recorded, and --rehash reads every file (the manifest records both)', async () => {
    const folder = await manifestOnly('rehash');
    const manifest = await readManifest(synced);
    const entry = Object.values(Object.values(manifest.labs)[0]!.files)[0]!;
    assert.equal(typeof entry.mtime_ms, 'number', 'the extension recorded the modification time');
    // The synced folder's files have their recorded size and time: same bytes length, other bytes, time put back.
    const file = path.join(folder, entry.file);
    const original = await fs.readFile(path.join(synced, entry.file));
    await fs.copyFile(path.join(synced, MANIFEST_FILE_NAME), path.join(folder, MANIFEST_FILE_NAME));
    // The times are this machine's state, kept beside the manifest (a copy of the folder has them).
    await fs.cp(path.join(synced, '.lab-data'), path.join(folder, '.lab-data'), {
      recursive: true,
    });
    for (const name of await pdfsIn(synced)) {
      await fs.copyFile(path.join(synced, name), path.join(folder, name));
      const stats = await fs.stat(path.join(synced, name));
      await fs.utimes(path.join(folder, name), stats.atime, stats.mtime);
    }
    const altered = Buffer.from(original);
    altered[altered.length - 2] = altered[altered.length - 2]! ^ 0xff;
    await fs.writeFile(file, altered);
    const stats = await fs.stat(path.join(synced, entry.file));
    await fs.utimes(file, stats.atime, stats.mtime);
    const trusted = await tool.run(['verify', folder, '--json']);
    assert.equal(trusted.code, 0, `size and time as recorded: not read again\n${said(trusted)}`);
    const rehashed = await tool.run(['verify', folder, '--rehash', '--json']);
    assert.equal(rehashed.code, 1, said(rehashed));
    assert.equal(
      (JSON.parse(rehashed.stdout) as { files: Array<{ file: string; state: string }> }).files.find(
        (item) => item.file === entry.file,
      )?.state,
      'changed',
    );
  });

  it('a report amended at the lab: pull needs no lab for the intact file, status --remote exits 1 naming both revisions; --update takes the new one and updates the manifest', async () => {
    // A lab of its own, since the amendment stays.
    const own = await startMockLab({ reports: 12 });
    const folder = path.join(work, 'amended');
    await extensionSync(own, folder);
    const ownEnv = { ...env, LAB_DATA_URL: own.baseUrl };
    assert.equal((await tool.run(['pull', folder], { env: ownEnv })).code, 0);
    const manifest = await readManifest(folder);
    const [labName, section] = Object.entries(manifest.labs)[0]!;
    const entry = Object.values(section.files).find((candidate) => candidate.revision === '1')!;
    const old = await fs.readFile(path.join(folder, entry.file));
    own.server.amendReport(entry.report_id);
    try {
      const pulled = await tool.run(['pull', folder], { env: ownEnv });
      assert.equal(pulled.code, 0, said(pulled));
      const status = await tool.run(['status', folder, '--remote'], { env: ownEnv });
      assert.equal(status.code, 1, said(status));
      assert.match(
        status.stdout,
        new RegExp(
          `${entry.report_id}\\): amended at the lab \\(recorded revision 1, at the lab 2\\)`,
        ),
      );
      assert.ok(
        (await fs.readFile(path.join(folder, entry.file))).equals(old),
        'the old file is kept',
      );
      const updated = await tool.run(['pull', folder, '--update', '--json'], { env: ownEnv });
      assert.equal(updated.code, 0, said(updated));
      const fresh = own.server.pdfFor(entry.report_id);
      assert.ok(!fresh.equals(old));
      assert.ok(
        (await fs.readFile(path.join(folder, entry.file))).equals(fresh),
        'the new file is taken',
      );
      const after = (await readManifest(folder)).labs[labName]!.files[entry.report_id]!;
      assert.equal(after.revision, '2');
      assert.equal(after.status, 'amended');
      assert.notEqual(after.sha256, entry.sha256);
      assert.equal((await tool.run(['verify', folder, '--remote'], { env: ownEnv })).code, 0);
    } finally {
      await own.close();
    }
  });

  it('sync writes the manifest the extension reads, and reads the one it wrote: one folder, both ways', async () => {
    const folder = path.join(work, 'by-the-tool');
    const synced1 = await tool.run(['sync', folder, '--lab', lab.baseUrl, '--json'], { env });
    assert.equal(synced1.code, 0, said(synced1));
    const result = JSON.parse(synced1.stdout) as { saved: unknown[]; lab: string };
    assert.equal(
      result.lab,
      lab.server.reportsFor(FULL)[0]!.lab_name,
      'named as the extension names it: by the name the lab gives itself, not its address',
    );
    const ownName = lab.server.reportsFor(FULL)[0]!.lab_name;
    assert.deepEqual(Object.keys((await readManifest(folder)).labs), [ownName]);
    // Another lab that calls itself the same, synced into the same folder, keeps its own section.
    const twin = await startMockLab({ reports: 3 });
    try {
      // (Its ids are the first lab's, so its files go to a subfolder of their own.)
      const synced = await tool.run(
        ['sync', folder, '--lab', twin.baseUrl, '--template', 'twin/${report_id}.pdf', '--json'],
        // LAB_DATA_URL gives the first lab, so LAB_DATA_TOKEN would not go to the twin: --lab gives its address.
        { env: { LAB_DATA_TOKEN: SECRET_TOKEN } },
      );
      assert.equal(synced.code, 0, said(synced));
      const twinName = `${ownName} (${new URL(twin.baseUrl).host})`;
      assert.equal((JSON.parse(synced.stdout) as { lab: string }).lab, twinName);
      const labs = (await readManifest(folder)).labs;
      assert.deepEqual(Object.keys(labs).sort(), [ownName, twinName].sort());
      assert.equal(labs[ownName]!.origin, new URL(lab.baseUrl).origin);
      assert.equal(labs[twinName]!.origin, new URL(twin.baseUrl).origin);
    } finally {
      await twin.close();
    }
    assert.deepEqual(await pdfsIn(folder), await pdfsIn(synced));
    // The extension's sync finds everything up to date: it read the tool's manifest.
    const byExtension = await extensionSync(lab, folder);
    assert.equal(byExtension.saved, 0);
    // And the tool syncing the extension's folder finds nothing to save either.
    const again = await tool.run(['sync', synced, '--json'], {
      env: { ...env, LAB_DATA_URL: lab.baseUrl },
    });
    assert.equal(again.code, 0, said(again));
    assert.deepEqual((JSON.parse(again.stdout) as { saved: unknown[] }).saved, []);
  });

  it("the name a lab gives itself never picks a token: with another lab's LAB_DATA_TOKEN_<that name> set, a new section is named after the address and sent the address's token", async () => {
    const ownName = lab.server.reportsFor(FULL)[0]!.lab_name;
    const otherLabsVariable = `LAB_DATA_TOKEN_${ownName.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
    const folder = path.join(work, 'name-taken-by-a-token');
    // The lab answers 401 to any token but its own: had the other lab's token gone out, this would exit 3.
    const synced = await tool.run(['sync', folder, '--json'], {
      env: {
        ...env,
        [otherLabsVariable]: 'another-labs-token',
        [otherLabsVariable.replace('_TOKEN_', '_URL_')]: 'https://another-lab.example.org',
      },
    });
    assert.equal(synced.code, 0, said(synced));
    const host = new URL(lab.baseUrl).host;
    assert.equal((JSON.parse(synced.stdout) as { lab: string }).lab, host);
    assert.deepEqual(Object.keys((await readManifest(folder)).labs), [host]);
    // The same variable confirmed for this address by LAB_DATA_URL_<that name>: the lab's own name is taken.
    const confirmedFolder = path.join(work, 'name-confirmed');
    const confirmed = await tool.run(['sync', confirmedFolder, '--json'], {
      env: {
        ...env,
        [otherLabsVariable]: SECRET_TOKEN,
        [otherLabsVariable.replace('_TOKEN_', '_URL_')]: lab.baseUrl,
      },
    });
    assert.equal(confirmed.code, 0, said(confirmed));
    assert.equal((JSON.parse(confirmed.stdout) as { lab: string }).lab, ownName);
  });

  it("a manifest section renamed after another lab never gets that lab's token: LAB_DATA_TOKEN_<name> goes only where LAB_DATA_URL_<name> says", async () => {
    // A committed manifest whose section at this lab's address is renamed "Riverside lab", while
    // the person running the tool holds Riverside lab's token and the generic LAB_DATA_URL.
    const text = JSON.parse(await fs.readFile(path.join(synced, MANIFEST_FILE_NAME), 'utf8')) as {
      labs: Record<string, { name: string }>;
    };
    const origin = new URL(lab.baseUrl).origin;
    text.labs[origin]!.name = 'Riverside lab';
    const { folder } = await withManifest('renamed-section', JSON.stringify(text));
    const cache = path.join(work, 'renamed-section', 'empty-cache');
    const riversideOnly = {
      LAB_DATA_TOKEN_RIVERSIDE_LAB: SECRET_TOKEN,
      LAB_DATA_URL: lab.baseUrl,
      LAB_DATA_CACHE: cache,
    };
    lab.server.takeRequests();
    for (const command of [
      ['pull', folder],
      ['status', folder, '--remote'],
      ['sync', folder],
    ]) {
      const result = await tool.run(command, { env: riversideOnly });
      // Every command stops on the token (exit 3), status --remote too.
      assert.equal(result.code, 3, `${command[0]}: ${said(result)}`);
      assert.match(
        result.stderr,
        /LAB_DATA_TOKEN_RIVERSIDE_LAB is only sent to the address LAB_DATA_URL_RIVERSIDE_LAB gives, and LAB_DATA_URL_RIVERSIDE_LAB is not set; .*set LAB_DATA_URL_RIVERSIDE_LAB=http:\/\/127\.0\.0\.1:\d+;/,
      );
      assert.ok(!result.stderr.includes(SECRET_TOKEN) && !result.stdout.includes(SECRET_TOKEN));
    }
    assert.deepEqual(lab.server.takeRequests(), [], 'no request reached the lab');
    // Another address given for it: still nothing sent, and the message says which address.
    const elsewhere = await tool.run(['pull', folder], {
      env: { ...riversideOnly, LAB_DATA_URL_RIVERSIDE_LAB: 'https://riverside.example.org' },
    });
    assert.equal(elsewhere.code, 3, said(elsewhere));
    assert.match(
      elsewhere.stderr,
      /LAB_DATA_URL_RIVERSIDE_LAB gives https:\/\/riverside\.example\.org;/,
    );
    assert.deepEqual(lab.server.takeRequests(), []);
    // Said where it may go, the same token is sent there.
    const confirmed = await tool.run(['pull', folder], {
      env: { ...riversideOnly, LAB_DATA_URL_RIVERSIDE_LAB: lab.baseUrl },
    });
    assert.equal(confirmed.code, 0, said(confirmed));
  });

  it('sync keeps to the section of a lab the extension named ("Riverside lab"), so one folder keeps one section', async () => {
    const folder = path.join(work, 'named');
    const api = new LabApi({
      lab: defaultLabDefinition(parseBaseUrl(lab.baseUrl), 'Riverside lab', false),
      token: SECRET_TOKEN,
      rateLimitGate: new RateLimitGate(),
    });
    const target = { folder, template: DEFAULT_FILE_NAME_TEMPLATE };
    try {
      await syncFolder(api, target, {
        list: (query) => listAllReports(api, query),
        save: (reports, decide) =>
          saveReports(reports, {
            api,
            target,
            decide,
            signal: new AbortController().signal,
            concurrency: 4,
          }),
      });
    } finally {
      await api.close();
    }
    const synced2 = await tool.run(['sync', folder, '--json'], {
      env: {
        ...env,
        LAB_DATA_TOKEN_RIVERSIDE_LAB: SECRET_TOKEN,
        LAB_DATA_URL_RIVERSIDE_LAB: lab.baseUrl,
      },
    });
    assert.equal(synced2.code, 0, said(synced2));
    const result = JSON.parse(synced2.stdout) as { saved: unknown[]; lab: string };
    assert.equal(result.lab, 'Riverside lab');
    assert.deepEqual(result.saved, []);
    assert.deepEqual(Object.keys((await readManifest(folder)).labs), ['Riverside lab']);
    const pulled = await tool.run(['pull', folder], {
      env: { LAB_DATA_TOKEN_RIVERSIDE_LAB: SECRET_TOKEN, LAB_DATA_URL_RIVERSIDE_LAB: lab.baseUrl },
    });
    assert.equal(pulled.code, 0, said(pulled));
    // A CI set up when the lab was still called after its address keeps working once it has its own name.
    const byAddress = `127_0_0_1_${new URL(lab.baseUrl).port}`;
    const oldNames = await tool.run(['verify', folder, '--remote'], {
      env: {
        [`LAB_DATA_TOKEN_${byAddress}`]: SECRET_TOKEN,
        [`LAB_DATA_URL_${byAddress}`]: lab.baseUrl,
      },
    });
    assert.equal(oldNames.code, 0, said(oldNames));
  });

  it('lists for scripts as JSON Lines, JSON and CSV with the export columns, and one report', async () => {
    const visible = lab.server.reportsFor('demo-full-access');
    const jsonl = await tool.run(['reports', '--lab', lab.baseUrl, '--jsonl'], { env });
    assert.equal(jsonl.code, 0, said(jsonl));
    const lines = jsonl.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { report_id: string });
    assert.deepEqual(
      lines.map((record) => record.report_id),
      visible.map((report) => report.report_id),
    );
    const json = JSON.parse(
      (await tool.run(['clients', '--lab', lab.baseUrl, '--json'], { env })).stdout,
    ) as unknown[];
    assert.equal(json.length, lab.server.data.clients.length);
    const csv = await tool.run(
      ['reports', '--lab', lab.baseUrl, '--csv', '--type', visible[0]!.report_type],
      { env },
    );
    assert.equal(csv.code, 0, said(csv));
    const [header, ...rows] = csv.stdout.trim().split('\r\n');
    assert.equal(
      header,
      Object.keys(visible[0]!)
        .filter((key) => key in (lines[0] as object))
        .join(','),
    );
    assert.equal(
      rows.length,
      visible.filter((report) => report.report_type === visible[0]!.report_type).length,
    );
    const one = await tool.run(['report', visible[0]!.report_id, '--json'], {
      env: { ...env, LAB_DATA_URL: lab.baseUrl },
    });
    assert.equal(
      (JSON.parse(one.stdout) as { report_id: string }).report_id,
      visible[0]!.report_id,
    );
    const table = await tool.run(['samples', '--lab', lab.baseUrl, '--since', '3650d'], { env });
    assert.equal(table.code, 0, said(table));
    assert.match(table.stdout, /^SAMPLE_ID\s+MATRIX/);
  });

  it('a title holding ESC, BEL, NUL, DEL and a C1 control reaches the terminal escaped: CSV (still one field), JSON Lines, JSON, the table and one report', async () => {
    const report = lab.server.reportsFor('demo-full-access')[0]! as {
      title: string;
      report_id: string;
    };
    const title = report.title;
    report.title =
      'Soil \u001b[31mred\u0007 bell\u0000 nul\u007f del\u009b[2J c1, "quoted"\r\nnext line';
    lab.server.dataChanged();
    // Any control but tab, LF and CR (those a CSV's quoted field and JSON text may carry).
    const raw = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
    try {
      const csv = await tool.run(['reports', '--lab', lab.baseUrl, '--csv'], { env });
      assert.equal(csv.code, 0, said(csv));
      assert.doesNotMatch(csv.stdout, raw, 'no raw control in the CSV');
      assert.ok(
        csv.stdout.includes(
          '"Soil \\u001b[31mred\\u0007 bell\\u0000 nul\\u007f del\\u009b[2J c1, ""quoted""\r\nnext line"',
        ),
        `the title, escaped, is one quoted field: ${JSON.stringify(csv.stdout.slice(0, 600))}`,
      );
      for (const format of ['--jsonl', '--json']) {
        const run = await tool.run(['reports', '--lab', lab.baseUrl, format], { env });
        assert.equal(run.code, 0, said(run));
        assert.doesNotMatch(run.stdout, raw, format);
        const records = (
          format === '--json'
            ? (JSON.parse(run.stdout) as Array<{ report_id: string; title: string }>)
            : run.stdout
                .trim()
                .split('\n')
                .map((line) => JSON.parse(line) as { report_id: string; title: string })
        ).filter((record) => record.report_id === report.report_id);
        assert.equal(records[0]?.title, report.title, `${format}: the same title once parsed`);
      }
      const table = await tool.run(['reports', '--lab', lab.baseUrl], { env });
      assert.equal(table.code, 0, said(table));
      assert.doesNotMatch(table.stdout, raw, 'the table');
      const one = await tool.run(['report', report.report_id], {
        env: { ...env, LAB_DATA_URL: lab.baseUrl },
      });
      assert.equal(one.code, 0, said(one));
      assert.doesNotMatch(one.stdout, raw, 'one report');
      const oneJson = await tool.run(['report', report.report_id, '--json'], {
        env: { ...env, LAB_DATA_URL: lab.baseUrl },
      });
      assert.doesNotMatch(oneJson.stdout, raw, 'one report as JSON');
      assert.equal((JSON.parse(oneJson.stdout) as { title: string }).title, report.title);
    } finally {
      report.title = title;
      lab.server.dataChanged();
    }
  });

  describe('bad input gets a clear message and nothing lost', () => {
    it('no manifest, malformed JSON, an unknown version: exit 2, the file named, nothing written', async () => {
      const empty = path.join(work, 'no-manifest');
      await fs.mkdir(empty);
      const none = await tool.run(['pull', empty], { env });
      assert.equal(none.code, 2, said(none));
      assert.match(
        none.stderr,
        new RegExp(
          `There is no manifest at ${path.join(empty, MANIFEST_FILE_NAME).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`,
        ),
      );
      const malformed = await withManifest('malformed', '{ "version": 2, "labs": {');
      const broken = await tool.run(['pull', malformed.folder], { env });
      assert.equal(broken.code, 2, said(broken));
      assert.match(broken.stderr, /cannot be read/);
      const future = await withManifest('future', JSON.stringify({ version: 9, labs: {} }));
      const unknown = await tool.run(['verify', future.folder]);
      assert.equal(unknown.code, 2, said(unknown));
      assert.match(unknown.stderr, /version 9, which is newer than this version .* reads .*update/);
      for (const folder of [empty, malformed.folder, future.folder]) {
        assert.deepEqual(
          (await fs.readdir(folder)).filter((name) => name !== MANIFEST_FILE_NAME),
          [],
        );
      }
    });

    const hostile: Array<[string, string]> = [
      ['a parent folder', '../outside.pdf'],
      ['an absolute path', '/etc/lab-data-test.pdf'],
      ['a drive letter', 'C:\\reports\\x.pdf'],
      ['a reserved Windows name', 'CON.pdf'],
      ['a control character', 'bad\u0007name.pdf'],
      ['a nested parent', 'sub/../../x.pdf'],
      ['the manifest itself', 'LAB-DATA-SYNC.json'],
    ];
    for (const [what, name] of hostile) {
      it(`an entry whose file name is ${what} is refused, named, and nothing is written anywhere`, async () => {
        const manifest = JSON.parse(
          await fs.readFile(path.join(synced, MANIFEST_FILE_NAME), 'utf8'),
        ) as { labs: Record<string, { reports: Record<string, { file: string }> }> };
        const section = Object.values(manifest.labs)[0]!;
        const [id] = Object.keys(section.reports);
        section.reports[id!]!.file = name;
        const { parent, folder } = await withManifest(
          `hostile-${hostile.findIndex(([other]) => other === what)}`,
          JSON.stringify(manifest),
        );
        const result = await tool.run(['pull', folder], { env });
        assert.equal(result.code, 2, said(result));
        assert.match(result.stderr, new RegExp(`for ${id} .*cannot be used`));
        assert.deepEqual(await fs.readdir(parent), ['reports']);
        assert.deepEqual(
          await fs.readdir(folder),
          [MANIFEST_FILE_NAME],
          'nothing written in the folder either',
        );
      });
    }

    it('two entries with one file name are refused', async () => {
      const manifest = JSON.parse(
        await fs.readFile(path.join(synced, MANIFEST_FILE_NAME), 'utf8'),
      ) as { labs: Record<string, { reports: Record<string, { file: string }> }> };
      const files = Object.values(manifest.labs)[0]!.reports;
      const [a, b] = Object.keys(files);
      files[b!]!.file = files[a!]!.file.toLowerCase();
      const { folder } = await withManifest('duplicate', JSON.stringify(manifest));
      const result = await tool.run(['pull', folder], { env });
      assert.equal(result.code, 2, said(result));
      assert.match(result.stderr, /has the same file name/);
      assert.deepEqual(await fs.readdir(folder), [MANIFEST_FILE_NAME]);
    });

    it('a missing token names the variable (exit 3); a token on the command line is refused without echoing it', async () => {
      const folder = await manifestOnly('no-token');
      const missing = await tool.run(['pull', folder], { env: { LAB_DATA_URL: lab.baseUrl } });
      assert.equal(missing.code, 3, said(missing));
      assert.match(
        missing.stderr,
        /set LAB_DATA_TOKEN \(or LAB_DATA_TOKEN_127_0_0_1_\d+ with LAB_DATA_URL_127_0_0_1_\d+=http:\/\/127\.0\.0\.1:\d+\)/,
      );
      const inline = await tool.run(['pull', folder, `--token=${SECRET_TOKEN}`]);
      assert.equal(inline.code, 2);
      assert.match(inline.stderr, /never given on the command line/);
      const perLab = await tool.run(['pull', folder], {
        env: {
          [`LAB_DATA_TOKEN_127_0_0_1_${new URL(lab.baseUrl).port}`]: SECRET_TOKEN,
          [`LAB_DATA_URL_127_0_0_1_${new URL(lab.baseUrl).port}`]: lab.baseUrl,
        },
      });
      assert.equal(perLab.code, 0, said(perLab));
    });

    it('a token file others can read is refused; a private one is used', async () => {
      const folder = await manifestOnly('token-file');
      const file = path.join(work, 'token');
      await fs.writeFile(file, `${SECRET_TOKEN}\n`, { mode: 0o644 });
      await fs.chmod(file, 0o644);
      const open = await tool.run(['pull', folder, '--token-file', file], {
        env: { LAB_DATA_URL: lab.baseUrl },
      });
      assert.equal(open.code, 2, said(open));
      assert.match(
        open.stderr,
        /can be read by other users \(mode 644\); make it private first: chmod 600/,
      );
      assert.ok(
        !open.stderr.includes(file),
        'the file is not named: a token given there by mistake is never printed',
      );
      await fs.chmod(file, 0o600);
      const ok = await tool.run(['pull', folder, '--token-file', file], {
        env: { LAB_DATA_URL: lab.baseUrl },
      });
      assert.equal(ok.code, 0, said(ok));
    });

    it('401 and 403 exit 3; a report gone (404) exits 1; 429 beyond waiting and a lab that is down exit 4', async () => {
      const folder = await manifestOnly('statuses');
      lab.server.takeRequests();
      const wrong = await tool.run(['pull', folder], {
        env: { LAB_DATA_TOKEN: 'not-a-known-token', LAB_DATA_URL: lab.baseUrl },
      });
      assert.equal(wrong.code, 3, said(wrong));
      assert.ok(
        lab.server.takeRequests().length <= 4,
        'after the lab refused the token, its other files fail without asking again',
      );
      assert.match(wrong.stderr, /sign in again|rejected|401/i);
      lab.server.setFaults({ status: { status: 403, times: Infinity } });
      const forbidden = await tool.run(['reports', '--lab', lab.baseUrl], { env });
      assert.equal(forbidden.code, 3, said(forbidden));
      assert.match(forbidden.stderr, /outside the scope/);
      lab.server.setFaults({ rateLimit: { times: 100, retryAfter: '3600' } });
      const limited = await tool.run(['reports', '--lab', lab.baseUrl], { env });
      assert.equal(limited.code, 4, said(limited));
      assert.match(limited.stderr, /try again after \d{2}:\d{2}/);
      lab.server.setFaults({});
      const gone = await tool.run(['report', 'RPT-0000-NOPE', '--lab', lab.baseUrl], { env });
      assert.equal(gone.code, 1, said(gone));
      const down = await manifestOnly('down');
      const downUrl = `http://127.0.0.1:${await closedPort()}`;
      const text = (await fs.readFile(path.join(down, MANIFEST_FILE_NAME), 'utf8'))
        .split(lab.baseUrl)
        .join(downUrl);
      await fs.writeFile(path.join(down, MANIFEST_FILE_NAME), text);
      const unreachable = await tool.run(['pull', down], {
        env: { ...env, LAB_DATA_URL: downUrl },
      });
      assert.equal(unreachable.code, 4, said(unreachable));
      assert.match(unreachable.stderr, /Cannot reach the lab/);
      assert.deepEqual(await pdfsIn(down), []);
    });

    it("a manifest never decides alone where the token goes: the lab's address must be given too, and be the same", async () => {
      const attacker = await startMockLab({ reports: 3 });
      try {
        const folder = await manifestOnly('redirected');
        const unconfirmed = await tool.run(['pull', folder], {
          env: { LAB_DATA_TOKEN: SECRET_TOKEN },
        });
        assert.equal(unconfirmed.code, 3, said(unconfirmed));
        assert.match(
          unconfirmed.stderr,
          new RegExp(
            `set LAB_DATA_URL=${lab.baseUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(or --lab `,
          ),
        );
        // A change to the committed manifest points the lab elsewhere: the token does not follow it.
        const text = (await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8'))
          .split(lab.baseUrl)
          .join(attacker.baseUrl);
        await fs.writeFile(path.join(folder, MANIFEST_FILE_NAME), text);
        attacker.server.takeRequests();
        const moved = await tool.run(['pull', folder, '--json'], { env });
        assert.equal(moved.code, 3, said(moved));
        assert.match(moved.stderr, /the token is not sent to an address you did not give/);
        const verified = await tool.run(['verify', folder, '--remote'], { env });
        assert.equal(verified.code, 3, said(verified));
        assert.deepEqual(attacker.server.takeRequests(), [], 'the other address received nothing');
        assert.deepEqual(await pdfsIn(folder), []);
      } finally {
        await attacker.close();
      }
    });

    it('a folder that cannot be written: no partial file, the folder named, exit 1', async () => {
      const folder = await manifestOnly('in-the-way');
      const manifest = JSON.parse(
        await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8'),
      ) as { labs: Record<string, { reports: Record<string, { file: string }> }> };
      const files = Object.values(manifest.labs)[0]!.reports;
      const [id] = Object.keys(files);
      files[id!]!.file = `blocked/${files[id!]!.file}`;
      await fs.writeFile(path.join(folder, MANIFEST_FILE_NAME), JSON.stringify(manifest));
      await fs.writeFile(path.join(folder, 'blocked'), 'a file where a folder should be');
      const result = await tool.run(['pull', folder], { env });
      assert.equal(result.code, 1, said(result));
      assert.match(result.stderr, /A file stands where a folder should be/);
      assert.deepEqual(
        (await fs.readdir(folder)).filter((name) => name.endsWith('.part')),
        [],
      );
    });

    it('Ctrl+C stops a pull at once and leaves no partial file', async () => {
      const folder = await manifestOnly('interrupted');
      lab.server.setFaults({ stallFileAt: { fraction: 0.5, times: 1000 } });
      lab.server.takeRequests();
      let interrupted = false;
      const result = await tool.run(['pull', folder], {
        env,
        started: (child) => {
          // Interrupt once the first file is under way (the stalled body is half there).
          const timer = setInterval(() => {
            if (lab.server.takeRequests().some((request) => request.path.endsWith('/file'))) {
              clearInterval(timer);
              interrupted = child.kill('SIGINT');
            }
          }, 20);
        },
      });
      assert.ok(interrupted);
      assert.equal(result.code, 130, said(result));
      assert.match(result.stderr, /Cancelled; no partial file was left/);
      assert.deepEqual(
        (await fs.readdir(folder)).filter(
          (name) => name !== MANIFEST_FILE_NAME && name !== '.lab-data',
        ),
        [],
      );
      assert.deepEqual(
        await fs.readdir(path.join(folder, '.lab-data')),
        ['.gitignore'],
        'the folder lock is released',
      );
    });
  });

  it('reaches an HTTPS lab through HTTPS_PROXY (CONNECT), trusting a CA from --ca-file or NODE_EXTRA_CA_CERTS, and says what to do without it', async () => {
    const certs = makeTestCertificates();
    const server = new MockLabServer({
      reports: 12,
      tls: { key: certs.key, cert: certs.cert },
      tokens: { [SECRET_TOKEN]: { label: 'leak check' } },
    });
    const proxy = await startForwardProxy();
    try {
      await server.start();
      // lab.test resolves only at the proxy: a request that went direct could not find it.
      const url = `https://lab.test:${new URL(server.baseUrl).port}`;
      // LAB_DATA_TOKEN goes only to the address LAB_DATA_URL gives: here, this lab's.
      const through = { ...env, LAB_DATA_URL: url, HTTPS_PROXY: proxy.url };
      const untrusted = await tool.run(['reports', '--lab', url, '--jsonl'], { env: through });
      assert.equal(untrusted.code, 4, said(untrusted));
      assert.match(untrusted.stderr, /--ca-file FILE \(PEM\) or NODE_EXTRA_CA_CERTS/);
      const trusted = await tool.run(
        ['reports', '--lab', url, '--jsonl', '--ca-file', certs.caFile],
        { env: through },
      );
      assert.equal(trusted.code, 0, said(trusted));
      assert.equal(
        trusted.stdout.trim().split('\n').length,
        server.reportsFor('demo-full-access').length,
      );
      assert.ok(
        proxy.lines().some((line) => line.startsWith(`CONNECT lab.test:${new URL(url).port} `)),
        proxy.lines().join('\n'),
      );
      assert.ok(!proxy.lines().join('\n').includes(SECRET_TOKEN), 'the proxy never sees the token');
      const fromEnv = await tool.run(['clients', '--lab', url, '--json'], {
        env: { ...through, NODE_EXTRA_CA_CERTS: certs.caFile },
      });
      assert.equal(fromEnv.code, 0, said(fromEnv));
      const bypassed = await tool.run(['clients', '--lab', url, '--ca-file', certs.caFile], {
        env: { ...through, NO_PROXY: 'lab.test' },
      });
      assert.equal(
        bypassed.code,
        4,
        `NO_PROXY sends it direct, where lab.test does not resolve\n${said(bypassed)}`,
      );
    } finally {
      await proxy.stop();
      await server.stop();
      certs.remove();
    }
  });

  it('a proxy password in HTTPS_PROXY never shows, not with --verbose; a wrong one is named as the user info in HTTPS_PROXY', async () => {
    const certs = makeTestCertificates();
    const server = new MockLabServer({
      reports: 3,
      tls: { key: certs.key, cert: certs.cert },
      tokens: { [SECRET_TOKEN]: { label: 'leak check' } },
    });
    const proxy = await startForwardProxy({ auth: 'alice:Pr0xy-Pa55word' });
    try {
      await server.start();
      const url = `https://lab.test:${new URL(server.baseUrl).port}`;
      const withPassword = (password: string): Record<string, string> => ({
        ...env,
        LAB_DATA_URL: url,
        HTTPS_PROXY: proxy.url.replace('http://', `http://alice:${password}@`),
      });
      const right = await tool.run(
        ['clients', '--lab', url, '--json', '--ca-file', certs.caFile, '--verbose'],
        { env: withPassword('Pr0xy-Pa55word') },
      );
      assert.equal(right.code, 0, said(right));
      assert.match(
        right.stderr,
        new RegExp(`proxy for https: ${proxy.url.replace(/\./g, '\\.')} \\(from HTTPS_PROXY\\)`),
      );
      const wrong = await tool.run(
        ['clients', '--lab', url, '--json', '--ca-file', certs.caFile, '--verbose'],
        { env: withPassword('Wr0ng-Pa55word') },
      );
      assert.equal(wrong.code, 4, said(wrong));
      assert.match(
        wrong.stderr,
        new RegExp(
          `The proxy at ${proxy.url.replace(/\./g, '\\.')} rejected the user name and password in its address in HTTPS_PROXY \\(HTTP 407\\)`,
        ),
      );
      const none = await tool.run(['clients', '--lab', url, '--json', '--ca-file', certs.caFile], {
        env: { ...env, LAB_DATA_URL: url, HTTPS_PROXY: proxy.url },
      });
      assert.equal(none.code, 4, said(none));
      assert.match(
        none.stderr,
        /asks for credentials \(HTTP 407\)[^\n]*\n.*HTTPS_PROXY=http:\/\/user:password@host:port/,
      );
      for (const result of [right, wrong, none]) {
        for (const secret of ['Pr0xy-Pa55word', 'Wr0ng-Pa55word', 'alice:']) {
          assert.ok(
            !`${result.stdout}\n${result.stderr}`.includes(secret),
            `${secret} shows:\n${said(result)}`,
          );
        }
      }
    } finally {
      await proxy.stop();
      await server.stop();
      certs.remove();
    }
  });

  it('no output of any run holds the token', () => {
    assert.ok(transcript.length > 40, `runs: ${transcript.length / 2}`);
    for (const text of transcript) {
      assert.ok(!text.includes(SECRET_TOKEN), text);
    }
  });
});
