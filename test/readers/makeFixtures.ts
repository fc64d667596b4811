import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Report } from '../../core/api/records';
import { MANIFEST_FILE_NAME, manifestEntry, writeManifest } from '../../core/sync/manifest';
import type { ManifestEntry } from '../../core/sync/manifestModel';
import { generateMockData, type MockReport } from '../mock/data';
import { nginxBinary, startNginxCache, type NginxCache } from '../cli/nginxCache';
import { packAndInstall, type PackedTool, type RunResult } from '../cli/packedTool';
import { lockfileSchemaErrors, LOCKFILE_SCHEMA_FILE } from '../support/lockfileSchema';
import { FIXED_NOW, FULL, SECRET_TOKEN, startMockLab, type MockLab } from '../unit/helpers';
import { namedLabApi, syncWithCore, updateWithCore } from './coreWriter';
import { selectionCases, type SelectionCase } from './selectionCases';

/**
 * The report folders the readers' tests (Python's pytest, R's testthat) read: real repositories
 * written from the mock lab by the packed `lab-data` tool and by the core the extension uses, a
 * folder cache and an nginx team cache holding their files, and `index.json` saying where
 * everything is, so the tests in every language read facts from it instead of hard-coding them.
 *
 * `node out/test/readers/makeFixtures.js DIR` writes them, prints `ready DIR/index.json` and keeps
 * the team cache up until its standard input closes (the runner closes it when its tests end); the
 * labs are stopped before `ready`: every restore a reader does runs with no lab at all.
 */

/** The team cache's bearer token: a test's own, never a real one. */
export const TEAM_CACHE_TOKEN = 'reader-team-cache-token-7f3e9c';

/** One report folder the fixtures hold. */
export interface FixtureCase {
  /** Who wrote it: `packed lab-data` or `core` (the extension's), from the mock lab. */
  readonly writer: string;
  /** The repository (it holds `.git`): the root a consumer's path is relative to. */
  readonly repo: string;
  /** The report folder: where the manifest is. */
  readonly folder: string;
  readonly manifest: string;
  /** Origin → the name the manifest gives the lab. */
  readonly labs: Record<string, string>;
  /** How many reports the manifest records, over all labs. */
  readonly reports: number;
  /** Report ids two labs of this folder share (a read needs `lab=`). */
  readonly shared_ids: string[];
  /** A report recorded at revision 2 (amended at the lab after the first sync), when the case has one. */
  readonly amended?: { lab: string; report_id: string; revision: string; status: string };
  /** Whether some recorded file sits in a subfolder (a nested file-name template). */
  readonly nested: boolean;
  /** The folder cache (`LAB_DATA_CACHE=DIR`) that holds every recorded file, when the case has one. */
  readonly folder_cache?: string;
  /** Whether every recorded file is in the team cache too. */
  readonly in_team_cache: boolean;
  /** Criteria and the reports the command line's selection keeps: reports() must keep the same. */
  readonly selections?: SelectionCase[];
}

export interface Fixtures {
  readonly dir: string;
  readonly schema: string;
  readonly cases: Record<string, FixtureCase>;
  /** The nginx team cache (`LAB_DATA_CACHE=url`), up while the generator runs; absent without nginx. */
  readonly team_cache?: {
    /** Needs `LAB_DATA_CACHE_TOKEN=token` (Bearer). */
    readonly url: string;
    readonly token: string;
    /** The same files for Basic credentials only: a `.netrc` with machine 127.0.0.1, this login and password. */
    readonly netrc_url: string;
    readonly netrc_login: string;
    readonly netrc_password: string;
    /** Where nginx keeps the files (`sha256/ab/abcd…`). */
    readonly files: string;
    /** Redirects every request to the token's address on another host name (localhost): never followed. */
    readonly redirect_url: string;
  };
  stop(): Promise<void>;
}

function said(what: string, result: RunResult): string {
  return `${what}: exit ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

type Written = {
  labs: Record<string, { name?: string; reports: Record<string, Record<string, unknown>> }>;
};

/** What a case's manifest says, checked against the published schema (a generator of bad fixtures stops). */
async function describeCase(
  base: Omit<FixtureCase, 'labs' | 'reports' | 'shared_ids' | 'nested' | 'manifest'>,
): Promise<FixtureCase> {
  const manifest = path.join(base.folder, MANIFEST_FILE_NAME);
  const text = await fs.readFile(manifest, 'utf8');
  const errors = lockfileSchemaErrors(text);
  if (errors.length > 0) {
    throw new Error(`${manifest} does not match docs/lockfile.schema.json: ${errors.join('; ')}`);
  }
  const parsed = JSON.parse(text) as Written;
  const labs: Record<string, string> = {};
  const seen = new Map<string, number>();
  let reports = 0;
  let nested = false;
  for (const [origin, section] of Object.entries(parsed.labs)) {
    labs[origin] = section.name ?? origin;
    for (const [id, entry] of Object.entries(section.reports)) {
      reports++;
      seen.set(id, (seen.get(id) ?? 0) + 1);
      nested ||= String(entry.file).includes('/');
    }
  }
  const shared_ids = [...seen].filter(([, count]) => count > 1).map(([id]) => id);
  return { ...base, manifest, labs, reports, shared_ids: shared_ids.sort(), nested };
}

function gitInit(repo: string): void {
  execFileSync('git', ['init', '--quiet', repo], { stdio: 'ignore' });
}

/** The packed tool: two labs (nested names, shared ids), an amendment taken, a folder cache, pushed to the team cache. */
async function packedCase(
  dir: string,
  tool: PackedTool,
  labA: MockLab,
  labB: MockLab,
  nginx: NginxCache | undefined,
): Promise<FixtureCase> {
  const repo = path.join(dir, 'packed');
  gitInit(repo);
  const folder = path.join(repo, 'lab-reports');
  const folderCache = path.join(dir, 'folder-cache');
  const run = async (what: string, args: string[], env: Record<string, string>) => {
    const result = await tool.run(args, { env: { LAB_DATA_CACHE: folderCache, ...env } });
    if (result.code !== 0) {
      throw new Error(said(what, result));
    }
  };
  const envA = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: labA.baseUrl };
  const envB = { LAB_DATA_TOKEN: SECRET_TOKEN, LAB_DATA_URL: labB.baseUrl };
  await run('sync lab A', ['sync', folder, '--template', '${project_id}/${report_id}.pdf'], envA);
  await run('sync lab B', ['sync', folder, '--template', 'second-lab/${report_id}.pdf'], envB);
  const recorded = JSON.parse(
    await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8'),
  ) as Written;
  const originA = new URL(labA.baseUrl).origin;
  const amendedId = Object.keys(recorded.labs[originA]!.reports).sort()[0]!;
  labA.server.amendReport(amendedId);
  await run('pull --update', ['pull', folder, '--update', '--lab', labA.baseUrl], envA);
  const after = JSON.parse(
    await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8'),
  ) as Written;
  const amendedEntry = after.labs[originA]!.reports[amendedId]!;
  if (nginx) {
    const push = await tool.run(['cache', 'push', folder], {
      env: {
        LAB_DATA_CACHE: nginx.tokenUrl,
        LAB_DATA_CACHE_TOKEN: TEAM_CACHE_TOKEN,
        NETRC: path.join(dir, 'no-netrc'),
      },
    });
    if (push.code !== 0) {
      throw new Error(said('cache push', push));
    }
  }
  return describeCase({
    writer: 'packed lab-data',
    repo,
    folder,
    amended: {
      lab: originA,
      report_id: amendedId,
      revision: String(amendedEntry.revision),
      status: String(amendedEntry.status),
    },
    folder_cache: folderCache,
    in_team_cache: nginx !== undefined,
  });
}

/** The extension's core: two labs, deeper nested names, an amendment taken; no cache. */
async function coreCase(dir: string, labA: MockLab, labB: MockLab): Promise<FixtureCase> {
  const repo = path.join(dir, 'core');
  gitInit(repo);
  const folder = path.join(repo, 'analysis', 'lab-reports');
  const a = namedLabApi(labA.baseUrl, 'Meridian Analytical', FULL);
  const b = namedLabApi(labB.baseUrl, 'Northwind Labs', FULL);
  try {
    await syncWithCore(a, folder, '${client_id}/${project_id}/${report_id}.pdf');
    await syncWithCore(b, folder, '${lab}/${report_id}.pdf');
    const recorded = JSON.parse(
      await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8'),
    ) as Written;
    // Another report than the packed case's: its revision goes from 1 to 2 here.
    const amendedId = Object.keys(recorded.labs[a.origin]!.reports).sort()[1]!;
    labA.server.amendReport(amendedId);
    await updateWithCore(a, folder);
    const after = JSON.parse(
      await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8'),
    ) as Written;
    const entry = after.labs[a.origin]!.reports[amendedId]!;
    return describeCase({
      writer: 'core',
      repo,
      folder,
      amended: {
        lab: a.origin,
        report_id: amendedId,
        revision: String(entry.revision),
        status: String(entry.status),
      },
      in_team_cache: false,
    });
  } finally {
    await a.close();
    await b.close();
  }
}

/** One small file of a mock report in `folder`, and its entry as the core records a save. */
async function smallFile(
  folder: string,
  mock: MockReport,
  savedAt: string,
): Promise<ManifestEntry> {
  const body = Buffer.from(`%PDF-1.4\n% ${mock.report_id}\n${'x'.repeat(1024)}\n%%EOF\n`);
  const fileName = `${mock.report_id}.pdf`;
  const file = path.join(folder, fileName);
  await fs.writeFile(file, body);
  const stats = await fs.stat(file);
  const report = {
    report_id: mock.report_id,
    report_type: mock.report_type,
    client_id: mock.client_id,
    project_id: mock.project_id,
    sample_ids: mock.sample_ids,
    published_at: mock.published_at,
    status: mock.status,
    download_available: true,
    raw: { ...mock },
  } as Report;
  return manifestEntry(
    report,
    {
      path: file,
      fileName,
      bytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
      mtimeMs: stats.mtimeMs,
    },
    savedAt,
    `/api/v1/reports/${encodeURIComponent(mock.report_id)}/file`,
  );
}

/**
 * 10,000 reports of the mock lab's data, each a small file, recorded through the core's own
 * manifest entry and writer (as a save records them; 10,000 downloads would only slow the tests).
 */
export async function largeCase(dir: string): Promise<FixtureCase> {
  const repo = path.join(dir, 'large');
  gitInit(repo);
  const folder = path.join(repo, 'lab-reports');
  await fs.mkdir(folder, { recursive: true });
  const data = generateMockData({ reports: 10_000, now: FIXED_NOW });
  const files: Record<string, ManifestEntry> = {};
  const savedAt = new Date().toISOString();
  const reports = data.reports.slice(0, 10_000);
  // A hundred files at a time: ten thousand writes one after another take a minute on a busy machine.
  for (let start = 0; start < reports.length; start += 100) {
    await Promise.all(
      reports.slice(start, start + 100).map(async (mock) => {
        files[mock.report_id] = await smallFile(folder, mock, savedAt);
      }),
    );
  }
  await writeManifest(folder, {
    version: 3,
    labs: { 'Meridian Analytical': { origin: 'https://lab.example.com', files } },
  });
  return describeCase({ writer: 'core', repo, folder, in_team_cache: false });
}

/** Writes every case into `dir` (made if missing) and `dir/index.json`; the team cache stays up until `stop`. */
export async function makeFixtures(dir: string): Promise<Fixtures> {
  await fs.mkdir(dir, { recursive: true });
  const tool = packAndInstall();
  const labA = await startMockLab({ reports: 12 });
  // The same seed: the second lab has the same report ids, as two labs' numbering may.
  const labB = await startMockLab({ reports: 6 });
  const nginx = nginxBinary() ? await startNginxCache(TEAM_CACHE_TOKEN) : undefined;
  try {
    const cases: Record<string, FixtureCase> = {};
    for (const [name, written] of [
      ['packed', await packedCase(dir, tool, labA, labB, nginx)],
      ['core', await coreCase(dir, labA, labB)],
    ] as const) {
      const selections = await selectionCases(written.folder, (origin) => `${origin}/api/v1/`);
      cases[name] = { ...written, selections };
    }
    cases.large = await largeCase(dir);
    const fixtures = {
      dir,
      schema: LOCKFILE_SCHEMA_FILE,
      cases,
      team_cache: nginx && {
        url: nginx.tokenUrl,
        token: TEAM_CACHE_TOKEN,
        netrc_url: nginx.basicUrl,
        netrc_login: 'ci',
        netrc_password: nginx.basicPassword,
        files: nginx.files,
        redirect_url: nginx.redirectUrl,
      },
    };
    await fs.writeFile(path.join(dir, 'index.json'), `${JSON.stringify(fixtures, null, 2)}\n`);
    return {
      ...fixtures,
      async stop() {
        await nginx?.stop();
      },
    };
  } catch (error) {
    await nginx?.stop();
    throw error;
  } finally {
    // No lab runs while the readers are tested: whatever they restore comes from a cache.
    await labA.close();
    await labB.close();
    tool.remove();
  }
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: node out/test/readers/makeFixtures.js DIR\n');
    process.exit(2);
  }
  const fixtures = await makeFixtures(path.resolve(dir));
  process.stdout.write(`ready ${path.join(fixtures.dir, 'index.json')}\n`);
  // Up until the runner closes our standard input (or ends us): its tests use the team cache.
  await new Promise<void>((resolve) => {
    process.stdin.on('end', resolve).on('close', resolve).resume();
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await fixtures.stop();
  process.exit(0);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
