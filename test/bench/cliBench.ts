import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs, readdirSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LabApi } from '../../core/api/labApi';
import { RateLimitGate } from '../../core/connection/timing';
import { saveReports } from '../../core/sync/bulkSave';
import { listAllReports, syncFolder } from '../../core/sync/folderSync';
import {
  MANIFEST_FILE_NAME,
  readManifest,
  writeManifest,
  type ManifestEntry,
} from '../../core/sync/manifest';
import { ContentCache } from '../../core/files/contentCache';
import { MockLabServer } from '../mock/server';
import { nginxBinary, startNginxCache } from '../cli/nginxCache';
import {
  curlFourAtATime,
  inCheckedFolder,
  leaveUntilCaseEnds,
  median,
  removeRunFolders,
  type CaseResult,
} from './measure';

/** What the main bench gives each case: how to start a lab, run contenders, and the table row's shape. */
export interface CliBenchKit {
  readonly root: string;
  readonly token: string;
  readonly runs: number;
  startLab(options: {
    reports: number;
    pdfBytes: number;
  }): Promise<{ baseUrl: string; downloadable: readonly string[]; stop(): Promise<void> }>;
  alternate(contenders: Record<string, () => Promise<number>>): Promise<Record<string, number>>;
  say(message: string): void;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** Runs a command to its end and resolves to the milliseconds it took; rejects on a non-zero exit. */
function timedRun(
  command: string,
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(
            new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr.slice(-400)}`),
          ),
    );
    if (options.input !== undefined) {
      child.stdin!.end(options.input);
    }
  });
}

/** Runs a command to its end and resolves to what it printed (stdout and stderr) and its exit status. */
function printedBy(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // No TTY, as in CI: stdout and stderr are pipes.
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** The `sha256sum -c` list of a folder's manifest (`<sha256>  <file>` a line), written to `listFile`. */
async function writeSha256Sums(folder: string, listFile: string): Promise<void> {
  const manifest = await readManifest(folder);
  const lines = Object.values(manifest.labs).flatMap((section) =>
    Object.values(section.files).map((entry) => `${entry.sha256}  ${entry.file}\n`),
  );
  await fs.writeFile(listFile, lines.join(''));
}

/** `sha256sum -c --quiet LIST` run in `folder` (the baseline of verify and of a checked restore). */
function sha256sumCheck(folder: string, listFile: string): Promise<number> {
  return timedRun('sha256sum', ['-c', '--quiet', listFile], { cwd: folder });
}

/**
 * A time against `sha256sum -c`'s for the same files: the target is a ceiling on the tool's time
 * as a multiple of the baseline's.
 */
function againstSha256sum(
  name: string,
  ours: number,
  baseline: number,
  most: number,
  details: Record<string, unknown>,
): CaseResult {
  const ratio = ours / baseline;
  return {
    case: name,
    ours: seconds(ours),
    baseline: `sha256sum -c ${seconds(baseline)}`,
    ratio: `${ratio.toFixed(2)}× sha256sum's time`,
    target: `≤ ${most}× sha256sum -c`,
    met: ratio <= most,
    details: { medianMs: { ours, sha256sum: baseline }, ...details, processStartIncluded: true },
  };
}

/** The tool as `npm pack` builds it (production bundle); returns the tarball's size and the bundle's path. */
function packCli(root: string): { bundle: string; tarballBytes: number; tarballName: string } {
  const scratch = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim();
  try {
    execFileSync('npm', ['pack', '--pack-destination', scratch, '--silent'], {
      cwd: path.join(root, 'cli'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tarballName = readdirSync(scratch).find((name) => name.endsWith('.tgz'))!;
    return {
      bundle: path.join(root, 'cli', 'dist', 'lab-data.js'),
      tarballBytes: statSync(path.join(scratch, tarballName)).size,
      tarballName,
    };
  } finally {
    execFileSync('rm', ['-rf', scratch]);
  }
}

/**
 * The command-line tool's figures (issue "lab-data"): `pull` of 500 × 256 KiB from a manifest
 * against `xargs -P4 curl`, and from the content cache against `cp` then `sha256sum -c` (the same
 * promise); `verify` of those 500 and of 10,000 small files, trusting size and time and with
 * `--rehash`, against `sha256sum -c`; the lines a green `pull && verify` prints in CI; `--help`
 * from a cold start; the packed tarball's size. The tool runs as a user runs it:
 * `node lab-data.js …` from the production bundle, process start included.
 */
export async function cliCases(kit: CliBenchKit, curl: boolean): Promise<CaseResult[]> {
  kit.say(
    'lab-data: pack, pull 500 × 256 KiB, restore and verify them, CI lines, --help, verify 10,000 files',
  );
  const { bundle, tarballBytes, tarballName } = packCli(kit.root);
  const env = { ...process.env, LAB_DATA_TOKEN: kit.token };
  const results: CaseResult[] = [];

  // pull 500 × 256 KiB into a folder holding only its manifest.
  const lab = await kit.startLab({ reports: 600, pdfBytes: 256 * 1024 });
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-bench-cli-'));
  try {
    const ids = lab.downloadable.slice(0, 500);
    const api = LabApi.forBaseUrl(lab.baseUrl, {
      token: kit.token,
      rateLimitGate: new RateLimitGate(),
    });
    const source = path.join(work, 'source');
    const reports = (await listAllReports(api, { pageSize: 200 })).filter((report) =>
      ids.includes(report.report_id),
    );
    const target = { folder: source, template: '${report_id}.pdf' };
    await syncFolder(api, target, {
      list: () => Promise.resolve(reports),
      save: (all, decide) =>
        saveReports(all, {
          api,
          target,
          decide,
          signal: new AbortController().signal,
          concurrency: 4,
        }),
    });
    await api.close();
    const manifest = await fs.readFile(path.join(source, MANIFEST_FILE_NAME));
    let round = 0;
    const inFresh = async (
      name: string,
      task: (folder: string) => Promise<number>,
    ): Promise<number> => {
      const folder = path.join(work, `${name}-${round++}`);
      await fs.mkdir(folder);
      await fs.writeFile(path.join(folder, MANIFEST_FILE_NAME), manifest);
      return inCheckedFolder(name, folder, 500, task);
    };
    // From the lab: each run with an empty cache of its own (it fills it as it goes).
    const contenders: Record<string, () => Promise<number>> = {
      pull: () =>
        inFresh('pull', (folder) =>
          timedRun(process.execPath, [bundle, 'pull', folder, '--quiet'], {
            env: { ...env, LAB_DATA_URL: lab.baseUrl, LAB_DATA_CACHE: `${folder}-cache` },
          }).finally(() => leaveUntilCaseEnds(`${folder}-cache`)),
        ),
    };
    if (curl) {
      contenders.curl = () =>
        inFresh('curl', (folder) =>
          timedRun('sh', curlFourAtATime(folder, lab.baseUrl, kit.token), {
            input: ids.join('\n'),
          }),
        );
    }
    const medians = await kit.alternate(contenders);
    const ratio = medians.curl !== undefined ? medians.curl / medians.pull! : undefined;
    results.push({
      case: 'lab-data pull 500 × 256 KiB (from a manifest)',
      ours: seconds(medians.pull!),
      baseline: `curl -P4 ${medians.curl !== undefined ? seconds(medians.curl) : 'n/a'}`,
      ratio: ratio !== undefined ? `${ratio.toFixed(2)}× curl` : 'n/a',
      target: '≥ 2× curl',
      met: ratio === undefined || ratio >= 2,
      details: { medianMs: medians, files: 500, bytesEach: 256 * 1024, processStartIncluded: true },
    });

    results.push({
      case: 'lab-data-sync.json bytes a report (version 3)',
      ours: `${(manifest.length / 500).toFixed(0)} B`,
      baseline: 'version 2: ~1.2 KB',
      ratio: '—',
      target: '≤ 400 B',
      met: manifest.length / 500 <= 400,
      details: { bytes: manifest.length, reports: 500 },
    });

    // From the cache, no lab and no token, against cp of the same files.
    const cacheFolder = path.join(work, 'cache');
    const cache = new ContentCache(cacheFolder);
    for (const name of (await fs.readdir(source)).filter((file) => file.endsWith('.pdf'))) {
      const bytes = await fs.readFile(path.join(source, name));
      await cache.keep(
        path.join(source, name),
        createHash('sha256').update(bytes).digest('hex'),
        bytes.length,
      );
    }
    // The same promise from coreutils: copy, then check every file against its SHA-256.
    const sums = path.join(work, 'SHA256SUMS');
    await writeSha256Sums(source, sums);
    const fromCache = await kit.alternate({
      pull: () =>
        inFresh('pull-cache', (folder) =>
          timedRun(process.execPath, [bundle, 'pull', folder, '--quiet'], {
            env: { PATH: process.env.PATH, LAB_DATA_CACHE: cacheFolder },
          }),
        ),
      cpCheck: () =>
        inFresh('cp', (folder) =>
          timedRun('sh', [
            '-c',
            `cp "${source}"/*.pdf "${folder}"/ && cd "${folder}" && sha256sum -c --quiet "${sums}"`,
          ]),
        ),
    });
    const cacheRatio = fromCache.cpCheck! / fromCache.pull!;
    results.push({
      case: 'lab-data pull 500 × 256 KiB from the content cache (no lab)',
      ours: seconds(fromCache.pull!),
      baseline: `cp, then sha256sum -c ${seconds(fromCache.cpCheck!)}`,
      ratio: `${cacheRatio.toFixed(2)}× as fast`,
      target: '≥ 1× cp then sha256sum -c',
      met: cacheRatio >= 1,
      details: { medianMs: fromCache, files: 500, processStartIncluded: true },
    });

    if (nginxBinary()) {
      results.push(await fromTeamServer(kit, bundle, work, cacheFolder, inFresh, curl));
    }

    // verify of the 500 files pulled: trusting size and time, reading every byte, and sha256sum.
    const bigVerify = await kit.alternate({
      trusting: () => timedRun(process.execPath, [bundle, 'verify', source]),
      rehash: () => timedRun(process.execPath, [bundle, 'verify', source, '--rehash']),
      sha256sum: () => sha256sumCheck(source, sums),
    });
    const bigDetails = { files: 500, bytesEach: 256 * 1024 };
    results.push(
      againstSha256sum(
        'lab-data verify --rehash 500 × 256 KiB',
        bigVerify.rehash!,
        bigVerify.sha256sum!,
        1.2,
        bigDetails,
      ),
      againstSha256sum(
        'lab-data verify 500 × 256 KiB (size and time as recorded)',
        bigVerify.trusting!,
        bigVerify.sha256sum!,
        1,
        bigDetails,
      ),
    );

    results.push(await greenCiLines(bundle, source, cacheFolder));
  } finally {
    await lab.stop();
    await removeRunFolders();
  }

  // --help from a cold start: a new Node process each time.
  const helps: number[] = [];
  for (let i = 0; i < Math.max(11, kit.runs * 3); i++) {
    helps.push(await timedRun(process.execPath, [bundle, '--help']));
  }
  const bare: number[] = [];
  for (let i = 0; i < Math.max(11, kit.runs * 3); i++) {
    bare.push(await timedRun(process.execPath, ['-e', '0']));
  }
  kit.say(
    `  --help: ${helps.map((ms) => ms.toFixed(0)).join(', ')} ms; node -e 0: ${bare.map((ms) => ms.toFixed(0)).join(', ')} ms`,
  );
  results.push({
    case: 'lab-data --help, cold start',
    ours: `${median(helps).toFixed(0)} ms`,
    baseline: `node -e 0: ${median(bare).toFixed(0)} ms`,
    ratio: '—',
    target: '≤ 150 ms',
    met: median(helps) <= 150,
    details: { helpMs: helps, nodeMs: bare },
  });

  // verify 10,000 unchanged files: trusting size and time, then reading every one.
  const { folder: many, files, sums: manySums } = await manyFiles(work);
  const manySumsFile = path.join(work, 'many.SHA256SUMS');
  await fs.writeFile(manySumsFile, manySums);
  // As a user runs each (the tool's table, or one line once the output is quiet, goes nowhere here).
  const verifyMedians = await kit.alternate({
    trusting: () => timedRun(process.execPath, [bundle, 'verify', many]),
    rehash: () => timedRun(process.execPath, [bundle, 'verify', many, '--rehash']),
    sha256sum: () => sha256sumCheck(many, manySumsFile),
  });
  const manyDetails = { files: 10_000, bytesEach: files['R-00000']!.bytes };
  results.push(
    againstSha256sum(
      'lab-data verify --rehash 10,000 small files',
      verifyMedians.rehash!,
      verifyMedians.sha256sum!,
      2,
      manyDetails,
    ),
    againstSha256sum(
      'lab-data verify 10,000 small files (size and time as recorded)',
      verifyMedians.trusting!,
      verifyMedians.sha256sum!,
      1,
      manyDetails,
    ),
    {
      case: 'lab-data verify 10,000 unchanged files',
      ours: `${seconds(verifyMedians.trusting!)} (size and time as recorded)`,
      baseline: `--rehash ${seconds(verifyMedians.rehash!)}`,
      ratio: `${(verifyMedians.rehash! / verifyMedians.trusting!).toFixed(1)}× faster than rehashing`,
      target: '≤ 0.5 s without re-hashing',
      met: verifyMedians.trusting! <= 500,
      details: { medianMs: verifyMedians, files: 10_000 },
    },
  );
  if (nginxBinary()) {
    results.push(await statusAgainstTeamServer(kit, bundle, many, files));
  }
  await fs.rm(work, { recursive: true, force: true });

  results.push(await statusRemoteRequests(bundle, kit.token));

  results.push({
    case: 'lab-data tarball (npm pack in cli/)',
    ours: `${(tarballBytes / 1000).toFixed(0)} KB`,
    baseline: '—',
    ratio: '—',
    target: 'Node alone, one file',
    met: true,
    details: { bytes: tarballBytes, tarball: tarballName },
  });
  return results;
}

/**
 * 10,000 small recorded files in `<work>/many` with their version-3 manifest (the committed file,
 * and the times in the folder's local state); `sums` is their `sha256sum -c` list.
 */
async function manyFiles(
  work: string,
): Promise<{ folder: string; files: Record<string, ManifestEntry>; sums: string }> {
  const many = path.join(work, 'many');
  await fs.mkdir(many);
  const files: Record<string, ManifestEntry> = {};
  const sums: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const id = `R-${String(i).padStart(5, '0')}`;
    const body = Buffer.from(`%PDF-1.4\n% report ${id}\n${'x'.repeat(2000)}\n%%EOF\n`);
    const file = path.join(many, `${id}.pdf`);
    await fs.writeFile(file, body);
    const stats = await fs.stat(file);
    const sha256 = createHash('sha256').update(body).digest('hex');
    sums.push(`${sha256}  ${id}.pdf\n`);
    files[id] = {
      report_id: id,
      file: `${id}.pdf`,
      bytes: body.length,
      sha256,
      mtime_ms: stats.mtimeMs,
      saved_at: new Date().toISOString(),
      source: `/api/v1/reports/${id}/file`,
    };
  }
  await writeManifest(many, {
    version: 3,
    labs: { 'bench lab': { origin: 'https://lab.example.com', files } },
  });
  return { folder: many, files, sums: sums.join('') };
}

/**
 * `LABDATA_BENCH_ONLY=check-cache`: the one figure of `status --check-cache` of 10,000 files
 * against nginx ({@link statusAgainstTeamServer}), without the rest of the tool's cases.
 */
export async function checkCacheCase(
  kit: Pick<CliBenchKit, 'root' | 'runs' | 'say'>,
): Promise<CaseResult[]> {
  if (!nginxBinary()) {
    kit.say('nginx is not installed: status --check-cache against a server is left out');
    return [];
  }
  kit.say('lab-data: pack, status --check-cache of 10,000 files against nginx');
  const { bundle } = packCli(kit.root);
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-bench-check-cache-'));
  try {
    const { folder, files } = await manyFiles(work);
    return [await statusAgainstTeamServer(kit, bundle, folder, files)];
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

/**
 * The lines a green `pull && verify` of 500 files prints in CI (no TTY, no flag): the pull from a
 * full cache into a folder holding only its manifest, then the verify of that folder.
 */
async function greenCiLines(bundle: string, source: string, cache: string): Promise<CaseResult> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-bench-ci-'));
  try {
    await fs.copyFile(path.join(source, MANIFEST_FILE_NAME), path.join(folder, MANIFEST_FILE_NAME));
    const env = { PATH: process.env.PATH, LAB_DATA_CACHE: cache, CI: 'true' };
    const pull = await printedBy(process.execPath, [bundle, 'pull', folder], env);
    const verify = await printedBy(process.execPath, [bundle, 'verify', folder], env);
    if (pull.code !== 0 || verify.code !== 0) {
      throw new Error(
        `a green pull && verify exited with ${pull.code} and ${verify.code}: ${(pull.output + verify.output).slice(-400)}`,
      );
    }
    const lines = (text: string): number => text.split('\n').filter((line) => line !== '').length;
    const printed = lines(pull.output) + lines(verify.output);
    return {
      case: 'lines a green pull && verify of 500 files prints in CI',
      ours: `${printed} lines`,
      baseline: 'git lfs pull: 1',
      ratio: '—',
      target: '≤ 2 lines',
      met: printed <= 2,
      details: { pullLines: lines(pull.output), verifyLines: lines(verify.output), files: 500 },
    };
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/** `status --remote` of a folder of 1,000 reports: the requests it makes (list pages, never one a report). */
async function statusRemoteRequests(bundle: string, token: string): Promise<CaseResult> {
  const server = new MockLabServer({ reports: 1000, tokens: { [token]: { label: 'bench' } } });
  const baseUrl = await server.start();
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-bench-status-'));
  try {
    const api = LabApi.forBaseUrl(baseUrl, { token, rateLimitGate: new RateLimitGate() });
    const reports = (await listAllReports(api, { pageSize: 200 })).filter(
      (report) => report.download_available !== false,
    );
    const folder = path.join(work, 'reports');
    await saveReports(reports, {
      api,
      target: { folder, template: '${report_id}.pdf' },
      signal: new AbortController().signal,
      concurrency: 8,
    });
    await api.close();
    server.takeRequests();
    await timedRun(process.execPath, [bundle, 'status', folder, '--remote', '--json'], {
      env: { PATH: process.env.PATH, LAB_DATA_TOKEN: token, LAB_DATA_URL: baseUrl },
    }).catch(() => 0); // exit 1 is fine: some reports are amended at the mock lab
    const requests = server.takeRequests().length;
    return {
      case: `lab-data status --remote, ${reports.length} reports`,
      ours: `${requests} requests`,
      baseline: `${reports.length} (one a report)`,
      ratio: '—',
      target: '≤ pages + 1',
      met: requests <= Math.ceil(reports.length / 50) + 1 + 1,
      details: { requests, reports: reports.length },
    };
  } finally {
    await server.stop();
    await fs.rm(work, { recursive: true, force: true });
  }
}
/** The team cache server's token in the bench (nginx's configuration checks it). */
const SERVER_TOKEN = 'bench-team-cache-token-0123456789';

/** Copies a folder cache's files into a server's folder: the same `sha256/ab/…` layout. */
async function serveCacheFolder(cacheFolder: string, files: string): Promise<void> {
  await fs.cp(path.join(cacheFolder, 'sha256'), path.join(files, 'sha256'), { recursive: true });
  execFileSync('chmod', ['-R', 'a+rwX', files]);
}

/**
 * `lab-data pull` of 500 × 256 KiB from a team cache on nginx (loopback, bearer token), against
 * `xargs -P4 curl` of the same files then `sha256sum -c` (what the tool does: fetch and check).
 */
async function fromTeamServer(
  kit: CliBenchKit,
  bundle: string,
  work: string,
  cacheFolder: string,
  inFresh: (name: string, task: (folder: string) => Promise<number>) => Promise<number>,
  curl: boolean,
): Promise<CaseResult> {
  const nginx = await startNginxCache(SERVER_TOKEN);
  try {
    await serveCacheFolder(cacheFolder, nginx.files);
    const recorded = await readManifest(path.join(work, 'source'));
    const entries = Object.values(recorded.labs).flatMap((section) => Object.values(section.files));
    const sums = path.join(work, 'server-sums');
    await fs.writeFile(sums, entries.map((entry) => `${entry.sha256}  ${entry.file}\n`).join(''));
    const contenders: Record<string, () => Promise<number>> = {
      pull: () =>
        inFresh('pull-server', (folder) =>
          timedRun(process.execPath, [bundle, 'pull', folder, '--quiet'], {
            env: {
              PATH: process.env.PATH,
              LAB_DATA_CACHE: nginx.tokenUrl,
              LAB_DATA_CACHE_TOKEN: SERVER_TOKEN,
              NETRC: path.join(work, 'no-netrc'),
            },
          }),
        ),
    };
    if (curl) {
      contenders.curl = () =>
        inFresh('curl-server', (folder) =>
          timedRun('sh', [
            '-c',
            `cd '${folder}' && xargs -P4 -n2 sh -c 'curl -sSf -H "Authorization: Bearer ${SERVER_TOKEN}" -o "$1" "${nginx.tokenUrl}/sha256/$(printf %s "$0" | cut -c1-2)/$0"' < '${sums}' && sha256sum -c --quiet '${sums}'`,
          ]),
        );
    }
    const medians = await kit.alternate(contenders);
    const ratio = medians.curl !== undefined ? medians.curl / medians.pull! : undefined;
    return {
      case: 'lab-data pull 500 × 256 KiB from a team cache server (nginx, loopback)',
      ours: seconds(medians.pull!),
      baseline: `curl -P4 + sha256sum -c ${medians.curl !== undefined ? seconds(medians.curl) : 'n/a'}`,
      ratio: ratio !== undefined ? `${ratio.toFixed(2)}× curl` : 'n/a',
      target: '≥ 1× curl',
      met: ratio === undefined || ratio >= 1,
      details: { medianMs: medians, files: 500, processStartIncluded: true },
    };
  } finally {
    await nginx.stop();
  }
}

/**
 * `status --check-cache` of 10,000 recorded files against a team cache server (nginx on loopback):
 * one that lists its folders (`autoindex_format json`: one request a folder) against one that
 * does not (one HEAD a file, on kept-alive connections); seconds with the process's start.
 */
export async function statusAgainstTeamServer(
  kit: Pick<CliBenchKit, 'say' | 'runs'>,
  bundle: string,
  folder: string,
  files: Record<string, ManifestEntry>,
): Promise<CaseResult> {
  const nginx = await startNginxCache(SERVER_TOKEN);
  try {
    for (const entry of Object.values(files)) {
      const target = path.join(nginx.files, 'sha256', entry.sha256.slice(0, 2));
      await fs.mkdir(target, { recursive: true });
      await fs.copyFile(path.join(folder, entry.file), path.join(target, entry.sha256));
    }
    execFileSync('chmod', ['-R', 'a+rwX', nginx.files]);
    const against = async (url: string): Promise<{ ms: number; requests: number }> => {
      const before = (await nginx.accessLog()).length;
      const ms = await timedRun(process.execPath, [bundle, 'status', folder, '--check-cache'], {
        env: {
          PATH: process.env.PATH,
          LAB_DATA_CACHE: url,
          LAB_DATA_CACHE_TOKEN: SERVER_TOKEN,
          NETRC: path.join(folder, 'no-netrc'),
        },
      });
      return { ms, requests: (await nginx.accessLog()).length - before };
    };
    // The listing server several times (the figure is their median); the HEADs once (seconds each).
    const runs: Array<{ ms: number; requests: number }> = [];
    for (let run = 0; run < Math.max(3, kit.runs); run++) {
      runs.push(await against(nginx.listingUrl));
    }
    const listed = { ms: median(runs.map((each) => each.ms)), requests: runs[0]!.requests };
    const headed = await against(nginx.tokenUrl);
    kit.say(
      `  status --check-cache of 10,000 files against nginx: listed ${listed.requests} requests, ${runs.map((each) => each.ms.toFixed(0)).join(', ')} ms; one HEAD a file ${headed.requests} requests, ${seconds(headed.ms)}`,
    );
    return {
      case: 'lab-data status --check-cache, 10,000 files against a team cache server',
      ours: `${seconds(listed.ms)}, ${listed.requests} requests (folders listed)`,
      baseline: `one HEAD a file: ${seconds(headed.ms)}, ${headed.requests} requests`,
      ratio: `${(headed.ms / listed.ms).toFixed(1)}× faster`,
      target: '≤ 0.5 s (a listing server)',
      met: listed.ms <= 500,
      details: {
        listed,
        listedMs: runs.map((each) => each.ms),
        headed,
        files: 10_000,
        processStartIncluded: true,
      },
    };
  } finally {
    await nginx.stop();
  }
}
