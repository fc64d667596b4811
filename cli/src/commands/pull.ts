import * as path from 'node:path';
import {
  failedLocally,
  lackedByCache,
  pullFolder,
  type PulledFile,
  type PullResult,
} from '../../../core/sync/pull';
import type { CliContext } from '../context';
import { CliError, Exit, exitCodeOf, type ExitCode } from '../exitCodes';
import type { LabApi } from '../../../core/api/labApi';
import { formatBytes } from '../../../core/files/sizes';
import { out, RunReport, type Outcome } from '../output';
import { folderArgument, readManifestOrFail } from './folder';
import { selectionOf } from '../selection';
import { LayeredCache } from '../../../core/files/layeredCache';
import { serverText } from '../../../core/errors/serverText';

const WORDS: Readonly<Record<PulledFile['state'], string>> = {
  present: 'present',
  restored: 'restored',
  updated: 'updated',
  changedAtLab: 'changed at the lab',
  changedLocally: 'changed locally',
  notAtLab: 'not at the lab',
  failed: 'failed',
};

/** Both versions of a report and what changed, when the lab's differs from the record. */
function versionsOf(file: PulledFile): string | undefined {
  const versions =
    file.recorded || file.atLab
      ? `recorded ${file.recorded ?? 'unknown'}, at the lab ${file.atLab ?? 'unknown'}`
      : undefined;
  const changes = file.changes && file.changes.length > 0 ? file.changes.join(', ') : undefined;
  return [versions, changes].filter((part) => part !== undefined).join('; ') || undefined;
}

/**
 * What became of one file, as one cause among the run's. A file that failed for want of a lab
 * client (no token, an address not confirmed: `problems`) is said under that reason, never under
 * the error the core put in its place; any other failure under its own sentence.
 */
function outcomeOf(
  file: PulledFile,
  folder: string,
  problems: ReadonlyMap<string, CliError>,
  dryRun: boolean,
): Outcome {
  if ((file.state === 'present' || file.state === 'restored') && file.error) {
    // --update: the file is as recorded, but the lab could not be asked about it.
    const problem = problems.get(file.lab);
    return {
      what:
        file.state === 'present'
          ? 'present, not checked at the lab'
          : 'restored from the cache, not checked at the lab',
      why: problem?.message ?? file.error.message,
      exitCode: problem?.exitCode ?? exitCodeOf(file.error),
    };
  }
  switch (file.state) {
    case 'present':
      return { what: 'present', exitCode: Exit.ok };
    case 'restored':
      return {
        what: `${dryRun ? 'to restore' : 'restored'} from the ${file.from ?? 'cache'}`,
        exitCode: Exit.ok,
      };
    case 'updated':
      return { what: 'updated from the lab', exitCode: Exit.ok };
    case 'changedAtLab':
      return file.missing
        ? {
            what: 'not restored',
            why: 'amended at the lab since recorded, and no cache has the recorded file',
            exitCode: Exit.mismatch,
            hint: `To take the lab's current files and record them: lab-data pull --update ${JSON.stringify(folder)}`,
          }
        : {
            what: 'kept at their recorded revision',
            why: 'amended at the lab since recorded',
            exitCode: Exit.mismatch,
            hint: "lab-data pull --update takes the lab's files and records them.",
          };
    case 'changedLocally':
      return {
        what: 'changed locally and left alone',
        exitCode: Exit.mismatch,
        hint: 'lab-data pull --force replaces them with the recorded files.',
      };
    case 'notAtLab':
      return { what: 'not restored', why: 'no longer at the lab', exitCode: Exit.mismatch };
    case 'failed': {
      const problem = problems.get(file.lab);
      if (problem && !failedLocally(file)) {
        return { what: 'not restored', why: problem.message, exitCode: problem.exitCode };
      }
      return {
        what: 'not restored',
        why: file.error?.message ?? 'an unknown failure',
        exitCode: file.error ? exitCodeOf(file.error) : Exit.mismatch,
      };
    }
  }
}

/** `lab-data pull [FOLDER]`: restores a folder from its manifest (core: pullFolder), from the cache first. */
export async function pull(context: CliContext): Promise<ExitCode> {
  const folder = folderArgument(context);
  const selected = await selectionOf(context, folder, await readManifestOrFail(folder));
  const manifest = selected.manifest;
  const labs = Object.keys(manifest.labs);
  const several = labs.length > 1;
  // A lab is only needed for what is neither in the folder nor in the cache: its token and address are checked when it is.
  const problems = new Map<string, CliError>();
  const apiFor = (lab: string, origin: string): LabApi | undefined => {
    const problem = context.manifestLabProblem(lab, origin, several);
    if (problem) {
      problems.set(lab, problem);
      return undefined;
    }
    return context.manifestLabApi(lab, origin);
  };
  const dryRun = context.flag('dry-run');
  const started = Date.now();
  const run = (): ReturnType<typeof pullFolder> =>
    pullFolder(folder, manifest, {
      apiFor,
      cache: context.cache(),
      dryRun,
      update: context.flag('update'),
      force: context.flag('force'),
      rehash: context.flag('rehash'),
      signal: context.signal,
      onProgress: ({ done, total, bytes }) =>
        context.progress.update(
          `pull ${path.basename(folder)}: ${done}/${total} files, ${formatBytes(bytes)}`,
        ),
    });
  const result = dryRun ? await run() : await context.withFolderLock(folder, run);
  context.progress.clear();
  const lacked = teamCacheLacked(context, result, problems);
  if (lacked) {
    // What the team cache lacks is the first cause: a lab's refusal is only why they could not come from there.
    context.progress.problem(lacked);
  }
  const report = new RunReport(context.flag('verbose'));
  for (const file of result.files) {
    report.add(outcomeOf(file, folder, problems, dryRun), {
      reportId: file.reportId,
      file: file.file,
      detail: file.state === 'failed' ? undefined : versionsOf(file),
    });
  }
  if (context.flag('json')) {
    // The causes are still said on stderr; stdout holds the JSON alone.
    report.lines().forEach((line) => context.progress.problem(line));
    await out(
      `${JSON.stringify(
        {
          ...jsonOf(folder, result, dryRun, report.exitCode, (file) =>
            outcomeOf(file, folder, problems, dryRun),
          ),
          selection: selected.json,
        },
        null,
        2,
      )}\n`,
    );
    return report.exitCode;
  }
  const summary = summaryOf(folder, result, dryRun, Date.now() - started, selected.words);
  // A green run is its summary alone (nothing with --quiet); a cause of failure is said even then.
  const say =
    report.exitCode === Exit.ok
      ? context.progress.line.bind(context.progress)
      : context.progress.problem.bind(context.progress);
  report.lines(summary).forEach((line) => say(line));
  return report.exitCode;
}

/**
 * Files a team cache (a server) was asked for and lacked, which the lab then could not give: said
 * before the lab's words, which are only why the files did not come from there instead.
 */
function teamCacheLacked(
  context: CliContext,
  result: PullResult,
  problems: ReadonlyMap<string, CliError>,
): string | undefined {
  const cache = context.cache();
  if (!(cache instanceof LayeredCache) || cache.readProblem !== undefined) {
    return undefined;
  }
  const lacked = lackedByCache(result.files, (lab) => problems.has(lab));
  if (lacked.length === 0) {
    return undefined;
  }
  return `The team cache ${cache.location} lacks these ${lacked.length} (someone's \`lab-data cache push\` did not run), so they were asked of the lab: ${lacked
    .slice(0, 5)
    .map((file) => serverText(file.file, 200))
    .join(', ')}${lacked.length > 5 ? `, and ${lacked.length - 5} more` : ''}.`;
}

/** The files from one source, and their bytes. */
function fromSource(result: PullResult, from: 'cache' | 'lab'): { files: number; bytes: number } {
  const restored = result.files.filter((file) => file.from === from);
  return {
    files: restored.length,
    bytes: restored.reduce((total, file) => total + (file.bytes ?? 0), 0),
  };
}

/** The one line a pull ends with: how many files came to what, from where, how many bytes in how long. */
function summaryOf(
  folder: string,
  result: PullResult,
  dryRun: boolean,
  ms: number,
  notSelected: string,
): string {
  const count = (state: PulledFile['state']): number =>
    result.files.filter((file) => file.state === state).length;
  const parts = (
    [
      'restored',
      'updated',
      'present',
      'changedAtLab',
      'changedLocally',
      'notAtLab',
      'failed',
    ] as const
  )
    .filter((state) => count(state) > 0)
    .map((state) => `${count(state)} ${WORDS[state]}`);
  const sources = (['cache', 'lab'] as const)
    .map((from) => ({ from, ...fromSource(result, from) }))
    .filter((source) => source.files > 0)
    .map(({ from, files, bytes }) => `${files} from the ${from} (${formatBytes(bytes)})`);
  return dryRun
    ? `Would pull ${folder}: ${result.files.length} files${parts.length > 0 ? `: ${parts.join(', ').replace('restored', 'to restore')}` : ''}${sources.length > 0 ? `; ${sources.join(', ')}` : ''}${notSelected}; nothing was written.`
    : `Pulled ${folder}: ${result.files.length} files${parts.length > 0 ? `: ${parts.join(', ')}` : ''}${sources.length > 0 ? ` (${sources.join(', ')})` : ''}${notSelected}; ${formatBytes(result.bytes)} in ${(ms / 1000).toFixed(1)} s.`;
}

/** `pull --json`: every file, where the restored ones came from, and the exit status. */
function jsonOf(
  folder: string,
  result: PullResult,
  dryRun: boolean,
  exitCode: ExitCode,
  outcome: (file: PulledFile) => Outcome,
): Record<string, unknown> {
  return {
    folder,
    files: result.files.map((file) => ({
      lab: file.lab,
      report_id: file.reportId,
      file: file.file,
      state: file.state,
      recorded: file.recorded,
      at_lab: file.atLab,
      changes: file.changes,
      bytes: file.bytes,
      from: file.from,
      missing: file.missing,
      error: file.state === 'failed' || file.error ? outcome(file).why : undefined,
    })),
    dry_run: dryRun || undefined,
    from_cache: fromSource(result, 'cache'),
    from_lab: fromSource(result, 'lab'),
    bytes: result.bytes,
    manifest_written: result.manifestWritten,
    exit_code: exitCode,
  };
}
