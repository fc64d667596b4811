import { verifyFolder, type VerifiedFile } from '../../../core/sync/provenance';
import type { CliContext } from '../context';
import { Exit, exitCodeOf, worst, type ExitCode } from '../exitCodes';
import { out, table } from '../output';
import { folderArgument, readManifestOrFail } from './folder';
import { selectionOf } from '../selection';

function stateOf(file: VerifiedFile): string {
  if (file.local === 'missing') {
    return 'missing';
  }
  if (file.local === 'changed') {
    return 'changed';
  }
  if (file.unavailable !== undefined) {
    return 'unchecked at lab';
  }
  return file.atLab.length > 0 ? 'changed at lab' : 'ok';
}

/** `lab-data verify [FOLDER]`: every listed file present with its SHA-256; `--remote` asks the lab too (core: verifyFolder). */
export async function verify(context: CliContext): Promise<ExitCode> {
  const folder = folderArgument(context);
  const selected = await selectionOf(context, folder, await readManifestOrFail(folder));
  const manifest = selected.manifest;
  const remote = context.flag('remote');
  const labs = Object.keys(manifest.labs);
  if (remote) {
    const problem = labs
      .map((lab) => context.manifestLabProblem(lab, manifest.labs[lab]!.origin, labs.length > 1))
      .find((each) => each !== undefined);
    if (problem) {
      throw problem;
    }
  }
  const result = await verifyFolder(folder, {
    manifest,
    apiFor: remote ? (lab, origin) => context.manifestLabApi(lab, origin) : undefined,
    rehash: context.flag('rehash'),
    signal: context.signal,
    onProgress: (done, total) => context.progress.update(`verify: ${done}/${total} files`),
  });
  context.progress.clear();
  const codes: ExitCode[] = result.files.map((file) => {
    const state = stateOf(file);
    if (state === 'ok') {
      return Exit.ok;
    }
    if (state === 'unchecked at lab') {
      return file.error ? exitCodeOf(file.error) : Exit.network;
    }
    return Exit.mismatch;
  });
  const exitCode = worst(codes);
  if (context.flag('json')) {
    await out(
      `${JSON.stringify(
        {
          folder,
          remote,
          files: result.files.map((file) => ({
            lab: file.lab,
            report_id: file.reportId,
            file: file.file,
            state: stateOf(file),
            local: file.local,
            at_lab: file.atLab,
            unavailable: file.unavailable,
          })),
          ok: result.ok.length,
          missing: result.missing.length,
          changed: result.changedLocally.length,
          changed_at_lab: result.changedAtLab.length,
          not_selected: selected.json?.not_selected,
          selection: selected.json,
          exit_code: exitCode,
        },
        null,
        2,
      )}\n`,
    );
  } else {
    const rows = result.files.map((file) => [
      stateOf(file),
      file.reportId,
      file.file,
      [...file.atLab, ...(file.unavailable ? [file.unavailable] : [])].join('; '),
    ]);
    await out(`${table(['STATE', 'REPORT', 'FILE', 'DETAIL'], rows)}\n`);
    const bad = result.files.length - result.ok.length;
    context.progress.line(
      bad === 0
        ? `All ${result.files.length} files in ${folder} are as recorded${remote ? ', and their labs have nothing newer' : ''}${selected.words}.`
        : `${bad} of ${result.files.length} files in ${folder} are not as recorded${selected.words} (exit ${exitCode}).`,
    );
  }
  return exitCode;
}
