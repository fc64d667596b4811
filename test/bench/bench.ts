import { spawn, fork, type ChildProcess } from 'node:child_process';
import { createWriteStream, promises as fs, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';
import { saveReports } from '../../core/sync/bulkSave';
import { listAllReports, syncFolder } from '../../core/sync/folderSync';
import { LabApi } from '../../core/api/labApi';
import { FetchTransport, type FetchFunction } from '../../core/connection/fetchTransport';
import { rootCertificates as tlsRoots } from 'node:tls';
import { RateLimitGate } from '../../core/connection/timing';
import type { MockFaults, MockServerOptions } from '../mock/server';
import type { LabRequest } from './labProcess';
import { checkCacheCase, cliCases } from './cliBench';
import { readerCases } from './readerBench';
import { usesScan } from './usesBench';
import { isLeakWarning } from '../support/processGuard';
import {
  curlFourAtATime,
  inCheckedFolder,
  median,
  removeRunFolders,
  type CaseResult,
} from './measure';

/**
 * `npm run bench`: the commands' own code paths (core bulk save, download, listing and sync, the
 * same functions the commands call) against the mock lab in a child process on loopback, each
 * beside a baseline measured in the same run. Medians of several runs in alternating order. Prints
 * one table and writes test-results/bench.json. It reports; it never fails on speed.
 */

const TOKEN = 'demo-full-access';
const RUNS = Math.max(1, Number(process.env.LABDATA_BENCH_RUNS ?? 5));
const root = path.resolve(__dirname, '..', '..', '..');
const resultsDir = path.join(root, 'test-results');

function say(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mibPerSecond = (bytes: number, ms: number): string =>
  `${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(0)} MiB/s`;

/** A mock lab in its own process. */
class LabProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, (value: unknown) => void>();

  private constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
    readonly reports: number,
    readonly downloadable: readonly string[],
  ) {
    child.on('message', (message: { id?: number; value?: unknown }) => {
      if (message.id !== undefined) {
        this.waiting.get(message.id)?.(message.value);
        this.waiting.delete(message.id);
      }
    });
  }

  static start(options: MockServerOptions): Promise<LabProcess> {
    const child = fork(path.join(__dirname, 'labProcess.js'), [JSON.stringify(options)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the mock lab exited (${code})`)));
      child.once(
        'message',
        (message: { ready: { baseUrl: string; reports: number; downloadable: string[] } }) =>
          resolve(
            new LabProcess(
              child,
              message.ready.baseUrl,
              message.ready.reports,
              message.ready.downloadable,
            ),
          ),
      );
    });
  }

  private ask<T>(command: LabRequest): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (value: unknown) => void);
      this.child.send({ ...command, id });
    });
  }

  requests(): Promise<{ count: number; files: number; statuses: number[] }> {
    return this.ask({ cmd: 'requests' });
  }

  publish(count: number): Promise<string[]> {
    return this.ask({ cmd: 'publish', count });
  }

  faults(faults: MockFaults): Promise<void> {
    return this.ask({ cmd: 'faults', faults });
  }

  async stop(): Promise<void> {
    this.child.removeAllListeners('exit');
    await this.ask({ cmd: 'stop' });
  }
}

function api(lab: LabProcess, options: { concurrency?: number } = {}): LabApi {
  return LabApi.forBaseUrl(lab.baseUrl, {
    token: TOKEN,
    rateLimitGate: new RateLimitGate(),
    maxConcurrentRequests: options.concurrency ?? 4,
    userAgent: 'lab-data-bench',
  });
}

async function freshFolder(name: string): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), `lab-bench-${name}-`));
}

async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

/** Runs each contender `RUNS` times, rotating which goes first, and returns the median milliseconds of each. */
async function alternate(
  contenders: Record<string, () => Promise<number>>,
): Promise<Record<string, number>> {
  const names = Object.keys(contenders);
  const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let run = 0; run < RUNS; run++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(run + i) % names.length]!;
      times[name]!.push(await contenders[name]!());
    }
  }
  say(
    `  ${names.map((name) => `${name}: ${times[name]!.map((ms) => ms.toFixed(0)).join(', ')} ms`).join('; ')}`,
  );
  return Object.fromEntries(names.map((name) => [name, median(times[name]!)]));
}

function run(command: string, args: readonly string[], input?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`)),
    );
    if (input !== undefined) {
      child.stdin!.end(input);
    }
  });
}

/** Whether a command is installed (it answers `versionArgument`). */
async function hasCommand(command: string, versionArgument: string): Promise<boolean> {
  return run(command, [versionArgument]).then(
    () => true,
    () => false,
  );
}

/** Case 1: 500 files of 256 KiB into an empty folder, against `xargs -P4 curl` and a minimal undici loop. */
async function bulkSave(curl: boolean): Promise<CaseResult> {
  say('bulk save: 500 × 256 KiB');
  const lab = await LabProcess.start({ reports: 600, pdfBytes: 256 * 1024 });
  const ids = lab.downloadable.slice(0, 500);
  const client = api(lab);
  const reports = (await listAllReports(client, { pageSize: 200 })).filter((report) =>
    ids.includes(report.report_id),
  );
  const fileUrl = (id: string): string =>
    `${lab.baseUrl}/api/v1/reports/${encodeURIComponent(id)}/file`;
  const agent = new Agent({ connections: 4 });
  const inFolder = async (
    name: string,
    task: (folder: string) => Promise<void>,
  ): Promise<number> => {
    return inCheckedFolder(name, await freshFolder(name), 500, (folder) =>
      timed(() => task(folder)),
    );
  };
  try {
    const contenders: Record<string, () => Promise<number>> = {
      ours: () =>
        inFolder('ours', async (folder) => {
          const result = await saveReports(reports, {
            api: client,
            target: { root: folder, folder, template: '${report_id}.pdf' },
            concurrency: 4,
            signal: new AbortController().signal,
            onProgress: () => undefined,
          });
          if (result.failed.length > 0) {
            throw new Error(`${result.failed.length} failed`);
          }
        }),
      minimal: () =>
        inFolder('minimal', async (folder) => {
          let next = 0;
          const worker = async (): Promise<void> => {
            while (next < ids.length) {
              const id = ids[next++]!;
              const response = await request(fileUrl(id), {
                dispatcher: agent,
                headers: { authorization: `Bearer ${TOKEN}` },
              });
              await pipeline(response.body, createWriteStream(path.join(folder, `${id}.pdf`)));
            }
          };
          await Promise.all([worker(), worker(), worker(), worker()]);
        }),
    };
    if (curl) {
      contenders.curl = () =>
        inFolder('curl', (folder) =>
          run('sh', curlFourAtATime(folder, lab.baseUrl, TOKEN), ids.join('\n')),
        );
    }
    const medians = await alternate(contenders);
    const vsCurl = medians.curl !== undefined ? medians.curl / medians.ours! : undefined;
    const vsMinimal = medians.minimal! / medians.ours!;
    return {
      case: 'bulk save 500 × 256 KiB',
      ours: seconds(medians.ours!),
      baseline: `curl ${medians.curl !== undefined ? seconds(medians.curl) : 'n/a'}; minimal loop ${seconds(medians.minimal!)}`,
      ratio: `${vsCurl?.toFixed(2) ?? 'n/a'}× curl; ${vsMinimal.toFixed(2)}× minimal`,
      target: '≥ 2× curl; ≥ 0.9× minimal',
      met: (vsCurl === undefined || vsCurl >= 2) && vsMinimal >= 0.9,
      details: { medianMs: medians, files: 500, bytesEach: 256 * 1024 },
    };
  } finally {
    await agent.close();
    await client.close();
    await lab.stop();
    await removeRunFolders();
  }
}

/** Case 2: one 1 GiB PDF against `curl -o`, with the client's peak memory growth. */
async function hugeFile(curl: boolean): Promise<CaseResult> {
  say('one 1 GiB PDF');
  const size = 1024 * 1024 * 1024;
  const lab = await LabProcess.start({ reports: 6, pdfBytes: size });
  const id = lab.downloadable[0]!;
  const client = api(lab);
  let peakGrowth = 0;
  let bytes = 0;
  const folder = await freshFolder('huge');
  const target = path.join(folder, 'huge.pdf');
  try {
    const contenders: Record<string, () => Promise<number>> = {
      ours: async () => {
        global.gc?.();
        const before = process.memoryUsage().rss;
        let peak = before;
        const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
        try {
          const ms = await timed(async () => {
            bytes = (
              await client.downloadReportFile(id, {
                folder,
                fileName: 'huge.pdf',
                onProgress: () => undefined,
              })
            ).bytes;
          });
          peakGrowth = Math.max(peakGrowth, Math.max(peak, process.memoryUsage().rss) - before);
          return ms;
        } finally {
          clearInterval(sampler);
          await fs.rm(target, { force: true });
        }
      },
    };
    const curlArgs = [
      '-sSf',
      '-o',
      target,
      '-H',
      `Authorization: Bearer ${TOKEN}`,
      `${lab.baseUrl}/api/v1/reports/${id}/file`,
    ];
    if (curl) {
      contenders.curl = async () => {
        try {
          return await timed(() => run('curl', curlArgs));
        } finally {
          await fs.rm(target, { force: true });
        }
      };
      if (await hasCommand('openssl', 'version')) {
        // What a C tool pays for the same promise (the file and its SHA-256): curl, then OpenSSL's SHA-256 (the hash we use).
        contenders['curl+sha256'] = async () => {
          try {
            return await timed(async () => {
              await run('curl', curlArgs);
              await run('openssl', ['dgst', '-sha256', target]);
            });
          } finally {
            await fs.rm(target, { force: true });
          }
        };
      }
    }
    const medians = await alternate(contenders);
    const ratio = medians.curl !== undefined ? medians.curl / medians.ours! : undefined;
    const hashed = medians['curl+sha256'];
    const growthMiB = peakGrowth / 1024 / 1024;
    return {
      case: 'one 1 GiB PDF',
      ours: `${mibPerSecond(bytes, medians.ours!)}, RSS +${growthMiB.toFixed(0)} MiB`,
      baseline:
        medians.curl !== undefined
          ? `curl ${mibPerSecond(bytes, medians.curl)}${hashed !== undefined ? `; curl then openssl sha256 ${mibPerSecond(bytes, hashed)}` : ''}`
          : 'curl n/a',
      ratio:
        ratio !== undefined
          ? `${ratio.toFixed(2)}× curl${hashed !== undefined ? `; ${(hashed / medians.ours!).toFixed(2)}× curl+sha256` : ''}`
          : 'n/a',
      target: '≥ 0.9× curl; RSS growth ≤ 64 MiB',
      met: (ratio === undefined || ratio >= 0.9) && growthMiB <= 64,
      details: { medianMs: medians, bytes, peakRssGrowthMiB: Math.round(growthMiB) },
    };
  } finally {
    await client.close();
    await lab.stop();
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/** Case 3: 20,000 reports at page size 100 and 20 ms server latency, against a sequential page loop. */
async function listing(): Promise<CaseResult> {
  say('list 20,000 reports, page size 100, 20 ms latency');
  const lab = await LabProcess.start({ reports: 21_779, faults: { latencyMs: 20 } });
  const client = api(lab);
  const agent = new Agent({ connections: 1 });
  let listed = 0;
  try {
    const medians = await alternate({
      ours: () =>
        timed(async () => {
          listed = (await listAllReports(client, { pageSize: 100 })).length;
        }),
      sequential: () =>
        timed(async () => {
          let count = 0;
          for (let page = 1; ; page++) {
            const response = await request(
              `${lab.baseUrl}/api/v1/reports?page=${page}&page_size=100`,
              {
                dispatcher: agent,
                headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
              },
            );
            const body = (await response.body.json()) as {
              data: unknown[];
              meta?: { total_pages?: number };
            };
            count += body.data.length;
            if (
              body.data.length < 100 ||
              (body.meta?.total_pages !== undefined && page >= body.meta.total_pages)
            ) {
              break;
            }
          }
          if (count !== lab.reports) {
            throw new Error(`the sequential loop listed ${count} of ${lab.reports}`);
          }
        }),
    });
    if (listed !== lab.reports) {
      throw new Error(`listed ${listed} of ${lab.reports}`);
    }
    const ratio = medians.sequential! / medians.ours!;
    return {
      case: `list ${lab.reports.toLocaleString('en')} reports (100 a page, 20 ms latency)`,
      ours: seconds(medians.ours!),
      baseline: `sequential ${seconds(medians.sequential!)}`,
      ratio: `${ratio.toFixed(2)}× faster`,
      target: '≥ 3× faster at concurrency 4',
      met: ratio >= 3,
      details: { medianMs: medians, reports: lab.reports, pages: Math.ceil(lab.reports / 100) },
    };
  } finally {
    await agent.close();
    await client.close();
    await lab.stop();
    await removeRunFolders();
  }
}

/** Bytes and modification times of everything in a folder, to tell whether anything was written. */
async function folderState(folder: string): Promise<string> {
  const files = (await fs.readdir(folder)).sort();
  return files
    .map((file) => {
      const stat = statSync(path.join(folder, file));
      return `${file}:${stat.size}:${stat.mtimeMs}`;
    })
    .join('\n');
}

/** Case 4: a sync after a full sync of 500 (nothing new), then with 10 new reports. */
async function sync(): Promise<CaseResult> {
  say('sync after a full sync of 500');
  const lab = await LabProcess.start({ reports: 588 });
  const client = api(lab);
  const folder = await freshFolder('sync');
  const target = { root: folder, folder, template: '${report_id}.pdf' };
  const once = () =>
    syncFolder(client, target, {
      list: (query) => listAllReports(client, { ...query, pageSize: 100 }),
      save: (reports, decide) =>
        saveReports(reports, {
          api: client,
          target,
          decide,
          concurrency: 4,
          signal: new AbortController().signal,
        }),
    });
  try {
    const full = await once();
    await lab.requests();
    const before = await folderState(folder);
    const idleMs = await timed(once);
    const idle = await lab.requests();
    const untouched = (await folderState(folder)) === before;
    await lab.publish(10);
    const fresh = await once();
    const after = await lab.requests();
    const met =
      full.run.saved.length === 500 &&
      idle.count === 1 &&
      untouched &&
      fresh.run.saved.length === 10 &&
      after.count - after.files === 1 &&
      after.files === 10;
    return {
      case: 'sync after a full sync of 500',
      ours: `nothing new: ${idle.count} request, ${untouched ? '0 bytes written' : 'files written'} (${idleMs.toFixed(0)} ms); 10 new: ${after.count - after.files} list request + ${after.files} files`,
      baseline: '—',
      ratio: '—',
      target: '1 request, 0 bytes; then 1 list request + 10 files',
      met,
      details: {
        fullSync: full.run.saved.length,
        idleRequests: idle.count,
        idleWroteNothing: untouched,
        newRequests: after.count,
        newFiles: after.files,
      },
    };
  } finally {
    await client.close();
    await lab.stop();
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/**
 * A full sync of N small reports into an empty folder, at 1,000 and at 8,000: the work must grow
 * with N, not with N² (the manifest, the local state and the metadata written once, each in one pass).
 */
async function syncScaling(): Promise<CaseResult> {
  say('sync of 1,000 and of 8,000 small reports');
  const once = async (reports: number): Promise<{ ms: number; saved: number }> => {
    const lab = await LabProcess.start({ reports });
    const client = api(lab);
    const folder = await freshFolder(`scaling-${reports}`);
    const target = { root: folder, folder, template: '${report_id}.pdf' };
    try {
      let saved = 0;
      const ms = await timed(async () => {
        const result = await syncFolder(client, target, {
          list: (query) => listAllReports(client, { ...query, pageSize: 100 }),
          save: (items, decide) =>
            saveReports(items, {
              api: client,
              target,
              decide,
              concurrency: 4,
              signal: new AbortController().signal,
            }),
        });
        saved = result.run.saved.length;
      });
      return { ms, saved };
    } finally {
      await client.close();
      await lab.stop();
      await fs.rm(folder, { recursive: true, force: true });
    }
  };
  const small: number[] = [];
  const big: number[] = [];
  let saved = { small: 0, big: 0 };
  for (let run = 0; run < Math.min(RUNS, 3); run += 1) {
    const a = await once(1000);
    const b = await once(8000);
    small.push(a.ms);
    big.push(b.ms);
    saved = { small: a.saved, big: b.saved };
  }
  const ratio = median(big) / median(small);
  return {
    case: 'sync of 8,000 small reports vs 1,000',
    ours: `${(median(big) / 1000).toFixed(1)} s for ${saved.big} files`,
    baseline: `${(median(small) / 1000).toFixed(1)} s for ${saved.small} files`,
    ratio: `${ratio.toFixed(1)}×`,
    target: '≤ 9× (linear: 8× the files)',
    met: ratio <= 9,
    details: { smallMs: small, bigMs: big, saved },
  };
}

/** Case 6: 100 files from a lab that allows 10 requests a second and answers 429 + Retry-After beyond. */
async function rateLimited(): Promise<CaseResult> {
  say('rate-limited bulk save: 100 files at 10 requests/s');
  const lab = await LabProcess.start({ reports: 200 });
  const client = api(lab);
  const folder = await freshFolder('rate');
  try {
    const reports = (await listAllReports(client, { pageSize: 200 }))
      .filter((report) => report.download_available)
      .slice(0, 100);
    await lab.faults({ requestsPerSecond: 10 });
    await lab.requests();
    let saved = 0;
    let failed = 0;
    const ms = await timed(async () => {
      const result = await saveReports(reports, {
        api: client,
        target: { root: folder, folder, template: '${report_id}.pdf' },
        concurrency: 4,
        signal: new AbortController().signal,
      });
      saved = result.saved.length;
      failed = result.failed.length;
    });
    const requests = await lab.requests();
    const ratio = ms / 10_000;
    return {
      case: 'rate-limited bulk: 100 files at 10 requests/s',
      ours: `${seconds(ms)}; ${saved} saved, ${failed} failed`,
      baseline: 'ideal 10.00 s',
      ratio: `${ratio.toFixed(2)}× ideal`,
      target: 'all saved, none failed, ≤ 1.15× ideal',
      met: saved === 100 && failed === 0 && ratio <= 1.15,
      details: {
        ms: Math.round(ms),
        saved,
        failed,
        requests: requests.count,
        answered429: requests.statuses.filter((status) => status === 429).length,
      },
    };
  } finally {
    await client.close();
    await lab.stop();
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/** Case 7a: the production bundle's size. */
async function bundle(): Promise<CaseResult> {
  say('bundle size (production build)');
  await run(process.execPath, [path.join(root, 'esbuild.js'), '--production']);
  const bytes = statSync(path.join(root, 'dist', 'extension.js')).size;
  const kb = bytes / 1000;
  return {
    case: 'bundle size (dist/extension.js)',
    ours: `${kb.toFixed(0)} KB`,
    baseline: '—',
    ratio: '—',
    target: '≤ 700 KB',
    met: kb <= 700,
    details: { bytes },
  };
}

/**
 * Where VS Code's transport loses time against undici, outside VS Code: the same 500 × 256 KiB saved
 * through undici, through Node's own `fetch` (the FetchTransport and web streams), and through `fetch`
 * given a new undici Agent for every request, which is what VS Code's fetch patch does when it adds
 * the OS certificates (so no connection is reused). The extension-host pair is in the `host` case.
 */
async function transports(): Promise<CaseResult> {
  say(
    "transports: 500 × 256 KiB through undici, Node's fetch, and fetch with a new Agent per request (as VS Code's patch)",
  );
  const lab = await LabProcess.start({ reports: 600, pdfBytes: 256 * 1024 });
  const ids = new Set(lab.downloadable.slice(0, 500));
  const clientOf = (fetchFunction?: FetchFunction): LabApi =>
    LabApi.forBaseUrl(lab.baseUrl, {
      token: TOKEN,
      rateLimitGate: new RateLimitGate(),
      maxConcurrentRequests: 4,
      userAgent: 'lab-data-bench',
      ...(fetchFunction
        ? {
            transport: (settings) =>
              new FetchTransport({ ...settings, name: 'fetch', fetch: fetchFunction }),
          }
        : {}),
    });
  try {
    const reports = (await listAllReports(clientOf(), { pageSize: 200 })).filter((report) =>
      ids.has(report.report_id),
    );
    const save = (fetchFunction?: FetchFunction) => async (): Promise<number> => {
      const folder = await freshFolder('transport');
      const client = clientOf(fetchFunction);
      try {
        return await timed(async () => {
          const result = await saveReports(reports, {
            api: client,
            target: { root: folder, folder, template: '${report_id}.pdf' },
            concurrency: 4,
            signal: new AbortController().signal,
          });
          if (result.saved.length !== 500) {
            throw new Error(`${result.failed.length} failed`);
          }
        });
      } finally {
        await client.close();
        await fs.rm(folder, { recursive: true, force: true });
      }
    };
    const medians = await alternate({
      undici: save(),
      nodeFetch: save((input, init) => fetch(input, init)),
      agentPerRequest: save((input, init) =>
        fetch(input, {
          ...init,
          dispatcher: new Agent({ connect: { ca: [...tlsRoots] } }),
        } as unknown as RequestInit),
      ),
    });
    const ratio = medians.undici! / medians.nodeFetch!;
    return {
      case: "500 × 256 KiB outside VS Code: Node's fetch (and a new Agent per request, as VS Code's patch) vs undici",
      ours: `fetch ${medians.nodeFetch!.toFixed(0)} ms; new Agent each ${medians.agentPerRequest!.toFixed(0)} ms`,
      baseline: `undici ${medians.undici!.toFixed(0)} ms`,
      ratio: `${ratio.toFixed(2)}×; ${(medians.undici! / medians.agentPerRequest!).toFixed(2)}×`,
      target: '(explains the host case)',
      met: true,
      details: medians,
    };
  } finally {
    await lab.stop();
  }
}

/**
 * Cases measured inside VS Code (activation, the tree, VS Code's transport against undici), written by
 * the extension-host bench suite in each test host (scripts/run-integration.mjs runs every host that
 * LABDATA_TEST_HOSTS selects, all by default, each writing test-results/bench-host-<host>.json).
 */
async function hostCases(): Promise<CaseResult[]> {
  say('inside VS Code: activate(), the tree and the transports, in each test host (code-server)');
  const hostFile = /^bench-host-(.+)\.json$/;
  const earlier = await fs.readdir(resultsDir).catch(() => [] as string[]);
  await Promise.all(
    earlier
      .filter((name) => hostFile.test(name))
      .map((name) => fs.rm(path.join(resultsDir, name), { force: true })),
  );
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'run-integration.mjs')], {
      env: { ...process.env, LABDATA_TEST_PHASE: 'bench' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  const files = (await fs.readdir(resultsDir).catch(() => [] as string[])).filter((name) =>
    hostFile.test(name),
  );
  const cases: CaseResult[] = [];
  for (const file of files.sort()) {
    const host = hostFile.exec(file)![1]!;
    const measured = JSON.parse(
      await fs.readFile(path.join(resultsDir, file), 'utf8'),
    ) as CaseResult[];
    cases.push(...measured.map((result) => ({ ...result, case: `${host} host: ${result.case}` })));
  }
  if (cases.length === 0 || code !== 0) {
    cases.push({
      case: 'activate(), the tree and the transports in VS Code',
      ours: 'not measured',
      baseline: '—',
      ratio: '—',
      target: '≤ 50 ms; same request count; ≥ 0.8× undici',
      met: false,
      details: {
        error: `the extension-host bench exited with ${code} and wrote ${files.length} host file(s)`,
      },
    });
  }
  return cases;
}

function table(results: readonly CaseResult[]): string {
  const header = ['case', 'ours', 'baseline', 'ratio', 'target', 'met'];
  const rows = results.map((result) => [
    result.case,
    result.ours,
    result.baseline,
    result.ratio,
    result.target,
    result.met ? 'yes' : 'NO',
  ]);
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  // A leak the tests would fail on (listeners piling up, a handle closed by the collector) fails the bench too.
  const leaks: string[] = [];
  process.on(
    'warning',
    (warning) => void (isLeakWarning(warning) && leaks.push(`${warning.name}: ${warning.message}`)),
  );
  const curl = await hasCommand('curl', '--version');
  if (!curl) {
    say('curl is not installed: its baselines are left out');
  }
  const only = process.env.LABDATA_BENCH_ONLY?.split(',');
  const cases: Array<[string, () => Promise<CaseResult | CaseResult[]>]> = [
    ['bulk', () => bulkSave(curl)],
    ['huge', () => hugeFile(curl)],
    ['list', listing],
    ['sync', sync],
    ['scaling', syncScaling],
    ['rate', rateLimited],
    ['bundle', bundle],
    [
      'cli',
      () =>
        cliCases(
          {
            root,
            token: TOKEN,
            runs: RUNS,
            startLab: (options) => LabProcess.start(options),
            alternate,
            say,
          },
          curl,
        ),
    ],
    ['check-cache', () => checkCacheCase({ root, runs: RUNS, say })],
    ['uses', () => usesScan(RUNS, say)],
    ['transports', transports],
    ['readers', () => readerCases(root, RUNS)],
    ['host', hostCases],
  ];
  const results: CaseResult[] = [];
  for (const [name, measure] of cases) {
    // `check-cache` is one figure of `cli`, measured alone only when named.
    if (only ? only.includes(name) : name !== 'check-cache') {
      results.push(...[await measure()].flat());
    }
  }
  const machine = {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  };
  const report = {
    date: new Date().toISOString(),
    machine,
    runs: RUNS,
    durationSeconds: Math.round((Date.now() - started) / 1000),
    cases: results,
  };
  await fs.mkdir(resultsDir, { recursive: true });
  await fs.writeFile(path.join(resultsDir, 'bench.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(
    `\nLab Data benchmarks, ${report.date.slice(0, 10)}: ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.cpu ?? 'unknown CPU'}, Node ${machine.node}; medians of ${RUNS} runs\n\n`,
  );
  process.stdout.write(`${table(results)}\n\n`);
  process.stdout.write(
    `${results.filter((result) => result.met).length} of ${results.length} targets met in ${report.durationSeconds} s; JSON: test-results/bench.json\n`,
  );
  await new Promise((resolve) => setImmediate(resolve));
  process.stdout.write(
    `leak warnings: ${leaks.length}${leaks.map((leak) => `\n  ${leak}`).join('')}\n`,
  );
  if (leaks.length > 0) {
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
