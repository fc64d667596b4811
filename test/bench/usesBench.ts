import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { ManifestEntry, SyncManifest } from '../../core/sync/manifestModel';
import { currentUses } from '../../core/uses/uses';
import { median, type CaseResult } from './measure';

const FILES = 2000;
const REPORTS = 500;
const KINDS = ['.py', '.R', '.Rmd', '.qmd', '.ipynb', '.md'];

function id(n: number): string {
  return `RPT-2026-${String(n).padStart(6, '0')}`;
}

/** About 3 KB of one kind of file, naming two report ids (a notebook in a cell's source and output). */
function content(kind: string, n: number): string {
  const lines = Array.from(
    { length: 60 },
    (_, line) => `value_${line} = compute(${line}, "sample S-${n}-${line}")  # step ${line}`,
  );
  const [a, b] = [id((n * 7) % REPORTS), id((n * 13) % REPORTS)];
  if (kind === '.ipynb') {
    return JSON.stringify({
      cells: [
        {
          cell_type: 'code',
          source: [...lines.map((line) => `${line}\n`), `labdata.path("${a}")`],
          outputs: [{ output_type: 'stream', text: [`${b}.pdf\n`] }],
        },
      ],
      nbformat: 4,
    });
  }
  return `${lines.join('\n')}\nreport = labdata.path("${a}")\n# compare with ${b}\n`;
}

/**
 * The scan behind `lab-data uses` and `impact` on a repository of 2,000 scripts, notebooks and
 * documents (git ls-files, every file read, ids matched against a 500-report manifest): the first
 * scan, the next one with nothing changed (the cache), and one after 20 files changed; beside
 * `git grep` of the ids' shape over the same files.
 */
export async function usesScan(runs: number, say: (message: string) => void): Promise<CaseResult> {
  say(`uses: scanning ${FILES} scripts, notebooks and documents for report ids`);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-data-bench-uses-'));
  const run = promisify(execFile);
  try {
    await run('git', ['init', '--quiet'], { cwd: root });
    for (let n = 0; n < FILES; n += 1) {
      const kind = KINDS[n % KINDS.length]!;
      const folder = path.join(root, `part${n % 20}`);
      await fs.mkdir(folder, { recursive: true });
      await fs.writeFile(path.join(folder, `file${n}${kind}`), content(kind, n));
    }
    const files: Record<string, ManifestEntry> = {};
    for (let n = 0; n < REPORTS; n += 1) {
      files[id(n)] = {
        report_id: id(n),
        file: `${id(n)}.pdf`,
        revision: '1',
        bytes: 1000,
        sha256: 'a'.repeat(64),
        source: `/api/v1/reports/${id(n)}/file`,
      };
    }
    const manifest: SyncManifest = {
      version: 3,
      labs: { Lab: { origin: 'https://lab.example.com', files } },
    };
    const folder = path.join(root, 'lab-reports');
    await fs.mkdir(folder);
    const cache = path.join(folder, '.lab-data', 'uses-scan.json');
    const timed = async (work: () => Promise<unknown>): Promise<number> => {
      const start = process.hrtime.bigint();
      await work();
      return Number(process.hrtime.bigint() - start) / 1e9;
    };
    const scan = (): Promise<unknown> => currentUses(folder, manifest, { acknowledgeNamed: true });
    const [cold, warm, changed, grep] = [[], [], [], []] as number[][];
    let uses = 0;
    for (let index = 0; index < runs; index += 1) {
      await fs.rm(cache, { force: true });
      cold.push(await timed(scan));
      warm.push(await timed(scan));
      for (let n = 0; n < 20; n += 1) {
        const kind = KINDS[n % KINDS.length]!;
        await fs.appendFile(
          path.join(root, `part${n % 20}`, `file${n}${kind}`),
          `\n# run ${index}\n`,
        );
      }
      changed.push(await timed(scan));
      grep.push(
        await timed(() =>
          run('git', ['grep', '--untracked', '-c', '-E', 'RPT-[0-9]{4}-[0-9]{6}'], {
            cwd: root,
            maxBuffer: 64 * 1024 * 1024,
          }),
        ),
      );
      uses = (await currentUses(folder, manifest, { acknowledgeNamed: true })).record.uses.length;
    }
    const [first, next, some, baseline] = [
      median(cold),
      median(warm),
      median(changed),
      median(grep),
    ];
    return {
      case: `uses: scan of ${FILES} scripts, notebooks and documents (first; nothing changed; 20 changed)`,
      ours: `${first.toFixed(2)} s; ${next.toFixed(2)} s; ${some.toFixed(2)} s`,
      baseline: `git grep ${baseline.toFixed(2)} s`,
      ratio: `${(first / baseline).toFixed(2)}×`,
      target: '≤ 2 s',
      met: first <= 2,
      details: { files: FILES, reports: REPORTS, uses, cold, warm, changed, grep },
    };
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}
