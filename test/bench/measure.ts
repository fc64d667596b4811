import { promises as fs } from 'node:fs';

/** One row of the bench table. */
export interface CaseResult {
  readonly case: string;
  readonly ours: string;
  readonly baseline: string;
  readonly ratio: string;
  readonly target: string;
  readonly met: boolean;
  readonly details: Record<string, unknown>;
}

/** The middle of the measurements (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The curl baseline: `sh -c` arguments that fetch the ids given on standard input, four at a time, into `folder`. */
export function curlFourAtATime(folder: string, baseUrl: string, token: string): string[] {
  return [
    '-c',
    `xargs -P4 -I{} curl -sSf -o '${folder}/{}.pdf' -H 'Authorization: Bearer ${token}' '${baseUrl}/api/v1/reports/{}/file'`,
  ];
}

/**
 * Folders the runs of a case wrote, removed when the case ends ({@link removeRunFolders}), never
 * between two runs: on ext4, files deleted in the last few seconds make every file creation scan
 * past their inodes (`recently_deleted`; perf showed a third of a 500-file pull's CPU there when
 * the previous run's 1,000 files had just been removed), a cost no real pull or cp meets.
 */
const runFolders: string[] = [];

/** Remembers a folder a run wrote, for {@link removeRunFolders}. */
export function leaveUntilCaseEnds(folder: string): void {
  runFolders.push(folder);
}

/** Removes the folders the case's runs wrote. */
export async function removeRunFolders(): Promise<void> {
  for (const folder of runFolders.splice(0)) {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/** Runs `task` (resolving to its milliseconds) on `folder` and checks it left `expected` PDFs there; the folder stays until the case ends. */
export async function inCheckedFolder(
  name: string,
  folder: string,
  expected: number,
  task: (folder: string) => Promise<number>,
): Promise<number> {
  leaveUntilCaseEnds(folder);
  const ms = await task(folder);
  const files = (await fs.readdir(folder)).filter((file) => file.endsWith('.pdf'));
  if (files.length !== expected) {
    throw new Error(`${name} left ${files.length} files, not ${expected}`);
  }
  return ms;
}
