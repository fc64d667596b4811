import { verifiedState, verifyFolder, type VerifiedFile } from '../../../core/sync/provenance';
import type { CliContext } from '../context';
import { Exit, exitCodeOf, type ExitCode } from '../exitCodes';
import { MISSING, out, RunReport, type Outcome } from '../output';
import { folderArgument, readManifestOrFail } from './folder';
import { selectionOf } from '../selection';

/** What one file's check came to, as one cause among the run's. */
function outcomeOf(file: VerifiedFile): Outcome {
  switch (verifiedState(file)) {
    case 'ok':
      return { what: 'as recorded', exitCode: Exit.ok };
    case 'missing':
      return MISSING;
    case 'changed':
      return {
        what: 'changed: not the recorded SHA-256',
        exitCode: Exit.mismatch,
        hint: 'lab-data pull --force replaces them with the recorded files.',
      };
    case 'unchecked at lab':
      return {
        what: 'not checked at the lab',
        why: file.unavailable,
        exitCode: file.error ? exitCodeOf(file.error) : Exit.network,
      };
    default:
      return {
        what: 'changed at the lab',
        exitCode: Exit.mismatch,
        hint: "lab-data pull --update takes the lab's files and records them.",
      };
  }
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
  const report = new RunReport(context.flag('verbose'));
  for (const file of result.files) {
    report.add(outcomeOf(file), {
      reportId: file.reportId,
      file: file.file,
      detail: file.atLab.length > 0 ? file.atLab.join('; ') : undefined,
    });
  }
  const exitCode = report.exitCode;
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
            state: verifiedState(file),
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
    return exitCode;
  }
  const bad = result.files.length - result.ok.length;
  // The result on stdout, one line when every file is as recorded; each cause of a failure once.
  await out(
    `${report
      .lines(
        bad === 0
          ? `All ${result.files.length} files in ${folder} are as recorded${remote ? ', and their labs have nothing newer' : ''}${selected.words}.`
          : `${bad} of ${result.files.length} files in ${folder} are not as recorded${selected.words} (exit ${exitCode}).`,
      )
      .join('\n')}\n`,
  );
  return exitCode;
}
