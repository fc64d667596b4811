import * as path from 'node:path';
import { serverText } from '../../../core/errors/serverText';
import { pullFolder, type PulledFile } from '../../../core/sync/pull';
import type { CliContext } from '../context';
import { Exit, exitCodeOf, worst, type ExitCode } from '../exitCodes';
import { formatBytes } from '../../../core/files/sizes';
import { out } from '../output';
import { folderArgument, readManifestOrFail } from './folder';

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

/** `lab-data pull [FOLDER]`: restores a folder from its manifest (core: pullFolder). */
export async function pull(context: CliContext): Promise<ExitCode> {
  const folder = folderArgument(context);
  const manifest = await readManifestOrFail(folder);
  const labs = Object.keys(manifest.labs);
  const several = labs.length > 1;
  const problems = labs
    .map((lab) => context.manifestLabProblem(lab, manifest.labs[lab]!.origin, several))
    .filter((problem) => problem !== undefined);
  if (problems.length === labs.length && labs.length > 0) {
    throw problems[0]!;
  }
  const started = Date.now();
  const result = await pullFolder(folder, manifest, {
    apiFor: (lab, origin) => context.manifestLabApi(lab, origin),
    update: context.flag('update'),
    force: context.flag('force'),
    rehash: context.flag('rehash'),
    signal: context.signal,
    onProgress: ({ done, total, bytes }) =>
      context.progress.update(
        `pull ${path.basename(folder)}: ${done}/${total} files, ${formatBytes(bytes)}`,
      ),
    onFile: (file) => {
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
  context.progress.clear();
  const count = (state: PulledFile['state']): number =>
    result.files.filter((file) => file.state === state).length;
  const codes: ExitCode[] = result.files.map((file) =>
    file.state === 'failed'
      ? exitCodeOf(file.error)
      : file.state === 'changedAtLab' ||
          file.state === 'changedLocally' ||
          file.state === 'notAtLab'
        ? Exit.mismatch
        : Exit.ok,
  );
  for (const problem of problems) {
    context.progress.problem(problem.message);
  }
  const exitCode = worst(codes);
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
            error: file.error?.message,
          })),
          bytes: result.bytes,
          manifest_written: result.manifestWritten,
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
    context.progress.line(
      `Pulled ${folder}: ${result.files.length} files${parts.length > 0 ? `: ${parts.join(', ')}` : ''}; ${formatBytes(result.bytes)} in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
    );
    if (count('changedAtLab') > 0 && !context.flag('update')) {
      context.progress.problem(
        "The lab has changed some reports since they were recorded; the recorded files were kept. Run lab-data pull --update to take the lab's files.",
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
