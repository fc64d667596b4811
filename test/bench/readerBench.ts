import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { largeCase } from '../readers/makeFixtures';
import type { CaseResult } from './measure';

/** What readerBench.py prints: medians, each with its spread (the fastest and slowest run). */
interface Figures {
  readonly runs: number;
  readonly reports_s: number;
  readonly reports_spread: [number, number];
  readonly baseline_s: number;
  readonly baseline_spread: [number, number];
  /** The median of each run's reports()/baseline: both timed one after the other, under one load. */
  readonly reports_ratio: number;
  readonly reports_ratio_spread: [number, number];
  readonly path_ms: number;
  readonly path_spread: [number, number];
  readonly verify_s: number;
  readonly verify_spread: [number, number];
  readonly sha256sum_s: number;
  readonly sha256sum_spread: [number, number];
  readonly verify_ratio: number;
  readonly verify_ratio_spread: [number, number];
  readonly entries: number;
}

const ms = (seconds: number): string => `${(seconds * 1000).toFixed(0)} ms`;
const range = ([low, high]: [number, number], say: (value: number) => string): string =>
  `${say(low)}–${say(high)}`;
const times = (ratio: number): string => `${ratio.toFixed(2)}×`;

/**
 * The Python reader (python/, labdata) on 10,000 small files the core recorded: reports() ≤ 0.5 s
 * and ≤ 2× json.load + pandas.DataFrame; path() of a present, stamped file ≤ 0.2 ms a call; the
 * first verify() ≤ 1.5× sha256sum -c. Run with Debian's python3, labdata from the checkout.
 */
export async function readerCases(root: string, runs: number): Promise<CaseResult[]> {
  const python = '/usr/bin/python3';
  if (!existsSync(python)) {
    return [];
  }
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-data-reader-bench-'));
  try {
    const large = await largeCase(work);
    const result = spawnSync(
      python,
      [path.join(root, 'test', 'bench', 'readerBench.py'), large.folder, String(runs)],
      { encoding: 'utf8', env: { ...process.env, PYTHONPATH: path.join(root, 'python') } },
    );
    if (result.status !== 0) {
      throw new Error(`readerBench.py failed: ${result.stderr}`);
    }
    const figures = JSON.parse(result.stdout) as Figures;
    const details = { ...figures };
    return [
      {
        case: 'labdata.reports() of 10,000 entries (Python)',
        ours: `${ms(figures.reports_s)} (${range(figures.reports_spread, ms)})`,
        baseline: `json.load + DataFrame ${ms(figures.baseline_s)} (${range(figures.baseline_spread, ms)})`,
        ratio: `${times(figures.reports_ratio)} (${range(figures.reports_ratio_spread, times)})`,
        target: '≤ 0.5 s and ≤ 2×',
        met: figures.reports_s <= 0.5 && figures.reports_ratio <= 2,
        details,
      },
      {
        case: 'labdata.path() of a present, stamped file (Python)',
        ours: `${figures.path_ms.toFixed(3)} ms a call (${range(figures.path_spread, (value) => value.toFixed(3))})`,
        baseline: '—',
        ratio: '—',
        target: '≤ 0.2 ms a call',
        met: figures.path_ms <= 0.2,
        details,
      },
      {
        case: 'labdata.verify() first run, 10,000 small files (Python)',
        ours: `${ms(figures.verify_s)} (${range(figures.verify_spread, ms)})`,
        baseline: `sha256sum -c ${ms(figures.sha256sum_s)} (${range(figures.sha256sum_spread, ms)})`,
        ratio: `${times(figures.verify_ratio)} (${range(figures.verify_ratio_spread, times)})`,
        target: '≤ 1.5× sha256sum -c',
        met: figures.verify_ratio <= 1.5,
        details,
      },
    ];
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
