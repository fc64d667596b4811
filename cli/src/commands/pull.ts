import * as path from 'node:path';
import { serverText } from '../../../core/errors/serverText';
import { pullFolder, type PulledFile } from '../../../core/sync/pull';
import type { CliContext } from '../context';
import { CliError, Exit, exitCodeOf, worst, type ExitCode } from '../exitCodes';
import type { LabApi } from '../../../core/api/labApi';
import { formatBytes } from '../../../core/files/sizes';
import { out } from '../output';
import { folderArgument, readManifestOrFail } from './folder';
import { selectionOf } from '../selection';

const WORDS: Readonly<Record<PulledFile['state'], string>> = {
  present: 'present',
  restored: 'restored',
  updated: 'updated',
  changedAtLab: 'changed at the lab',
  changedLocally: 'changed locally',
  notAtLab: 'not at the lab',
  failed: 'failed',
};

/** One line for one file; everything in it from the manifest or the lab is made safe to print. */
function describe(file: PulledFile): string {
  const versions =
    file.recorded || file.atLab
      ? ` (recorded: ${file.recorded ?? 'unknown'}; at the lab: ${file.atLab ?? 'unknown'})`
      : '';
  const changes = file.changes && file.changes.length > 0 ? `: ${file.changes.join(', ')}` : '';
  const error = file.error ? `: ${file.error.message}` : '';
  return `${WORDS[file.state].padEnd(18)} ${serverText(`${file.reportId}  ${file.file}${versions}${changes}${error}`, 1000)}`;
}

/** One line for a report amended at the lab whose recorded bytes exist nowhere here. */
function amendedLine(file: PulledFile, folder: string): string {
  return serverText(
    `amended at the lab  ${file.reportId}  ${file.file}: recorded ${file.recorded ?? 'unknown'}, at the lab ${file.atLab ?? 'unknown'}; no cache has the recorded file. To take the lab's current file and record it: lab-data pull --update ${JSON.stringify(folder)}`,
    1000,
  );
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
      onFile: (file) => {
        if (dryRun) {
          return;
        }
        if (file.state === 'changedAtLab' && file.missing) {
          context.progress.problem(amendedLine(file, folder));
          return;
        }
        if (
          file.state !== 'present' &&
          (file.state !== 'restored' || (!process.stderr.isTTY && !context.flag('quiet')))
        ) {
          (file.state === 'restored' || file.state === 'updated'
            ? context.progress.line.bind(context.progress)
            : context.progress.problem.bind(context.progress))(describe(file));
        }
      },
    });
  const result = dryRun ? await run() : await context.withFolderLock(folder, run);
  context.progress.clear();
  const count = (state: PulledFile['state']): number =>
    result.files.filter((file) => file.state === state).length;
  const codes: ExitCode[] = result.files.map((file) =>
    file.state === 'failed'
      ? problems.has(file.lab)
        ? problems.get(file.lab)!.exitCode
        : exitCodeOf(file.error)
      : file.state === 'changedAtLab' ||
          file.state === 'changedLocally' ||
          file.state === 'notAtLab'
        ? Exit.mismatch
        : Exit.ok,
  );
  for (const problem of problems.values()) {
    context.progress.problem(problem.message);
  }
  const exitCode = worst(codes);
  const sum = (from: 'cache' | 'lab'): { files: number; bytes: number } => {
    const restored = result.files.filter((file) => file.from === from);
    return {
      files: restored.length,
      bytes: restored.reduce((total, file) => total + (file.bytes ?? 0), 0),
    };
  };
  if (context.flag('json')) {
    await out(
      `${JSON.stringify(
        {
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
            error: problems.get(file.lab)?.message ?? file.error?.message,
          })),
          dry_run: dryRun || undefined,
          from_cache: sum('cache'),
          from_lab: sum('lab'),
          bytes: result.bytes,
          manifest_written: result.manifestWritten,
          selection: selected.json,
          exit_code: exitCode,
        },
        null,
        2,
      )}\n`,
    );
  } else {
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
      .filter((from) => sum(from).files > 0)
      .map((from) => `${sum(from).files} from the ${from} (${formatBytes(sum(from).bytes)})`);
    context.progress.line(
      dryRun
        ? `Would pull ${folder}: ${result.files.length} files${parts.length > 0 ? `: ${parts.join(', ').replace('restored', 'to restore')}` : ''}${sources.length > 0 ? `; ${sources.join(', ')}` : ''}${selected.words}; nothing was written.`
        : `Pulled ${folder}: ${result.files.length} files${parts.length > 0 ? `: ${parts.join(', ')}` : ''}${sources.length > 0 ? ` (${sources.join(', ')})` : ''}${selected.words}; ${formatBytes(result.bytes)} in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
    );
    const kept = result.files.filter((file) => file.state === 'changedAtLab' && !file.missing);
    if (kept.length > 0 && !context.flag('update')) {
      context.progress.problem(
        `The lab has amended ${kept.length} report${kept.length === 1 ? '' : 's'} since ${kept.length === 1 ? 'it was' : 'they were'} recorded; the recorded file${kept.length === 1 ? ' in the folder was' : 's in the folder were'} kept. Run lab-data pull --update to take the lab's files and record them.`,
      );
    }
    if (count('changedLocally') > 0) {
      context.progress.problem(
        'Some files differ from their record and were left alone; lab-data pull --force replaces them with the recorded files.',
      );
    }
  }
  return exitCode;
}
