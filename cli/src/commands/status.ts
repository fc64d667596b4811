import { serverText } from '../../../core/errors/serverText';
import { readLocalState } from '../../../core/sync/localState';
import { folderStatus, type EntryStatus } from '../../../core/sync/status';
import type { CliContext } from '../context';
import { Exit, exitCodeOf, worst, type ExitCode } from '../exitCodes';
import { out } from '../output';
import { folderArgument, readManifestOrFail } from './folder';

/** The words of one entry that is out of step; undefined when it is not. */
function words(entry: EntryStatus): string | undefined {
  const parts: string[] = [];
  if (entry.local === 'missing') {
    parts.push(entry.cached ? 'missing (restorable from the cache)' : 'missing');
  } else if (entry.local === 'changed') {
    parts.push(entry.cached ? 'changed locally (recorded file in the cache)' : 'changed locally');
  }
  if (entry.remote === 'amended') {
    parts.push(
      `amended at the lab (recorded revision ${entry.recordedRevision ?? 'unknown'}, at the lab ${entry.labRevision ?? 'unknown'})`,
    );
  } else if (entry.remote === 'notListed') {
    parts.push('not listed by the lab');
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * `lab-data status [FOLDER] [--remote]`: where a folder stands against its manifest, like
 * `git status`. Without --remote it needs no lab and no token.
 */
export async function status(context: CliContext): Promise<ExitCode> {
  const folder = folderArgument(context);
  const manifest = await readManifestOrFail(folder);
  const remote = context.flag('remote');
  const several = Object.keys(manifest.labs).length > 1;
  const problems: string[] = [];
  const state = await readLocalState(folder);
  const result = await folderStatus(folder, manifest, {
    cache: context.cache(),
    rehash: context.flag('rehash'),
    signal: context.signal,
    synced: (lab) => typeof state.labs[manifest.labs[lab]!.origin]?.watermark === 'string',
    apiFor: remote
      ? (lab, origin) => {
          const problem = context.manifestLabProblem(lab, origin, several);
          if (problem) {
            problems.push(problem.message);
            return undefined;
          }
          return context.manifestLabApi(lab, origin);
        }
      : undefined,
  });
  // A lab that could not be asked exits as its failure does (4 for a lab down or not answering).
  const exitCode = worst([
    result.inStep ? Exit.ok : Exit.mismatch,
    ...result.unavailable.flatMap((lab) => (lab.error ? [exitCodeOf(lab.error)] : [])),
  ]);
  if (context.flag('json')) {
    await out(
      `${JSON.stringify(
        {
          folder,
          in_step: result.inStep,
          remote,
          entries: result.entries.map((entry) => ({
            lab: entry.lab,
            origin: entry.origin,
            report_id: entry.reportId,
            file: entry.file,
            local: entry.local,
            cached: entry.cached,
            remote: entry.remote,
            recorded_revision: entry.recordedRevision,
            lab_revision: entry.labRevision,
            changes: entry.changes,
          })),
          new_at_lab: result.newAtLab.map((report) => ({
            lab: report.lab,
            report_id: report.reportId,
            published_at: report.publishedAt,
          })),
          unavailable: result.unavailable.map(({ lab, reason }) => ({ lab, reason })),
          exit_code: exitCode,
        },
        null,
        2,
      )}\n`,
    );
    return exitCode;
  }
  const lines: string[] = [];
  for (const entry of result.entries) {
    const said = words(entry);
    if (said !== undefined) {
      lines.push(serverText(`  ${entry.file}  (${entry.reportId}): ${said}`, 1000));
    }
  }
  for (const report of result.newAtLab) {
    lines.push(serverText(`  ${report.reportId}: new at the lab ${report.lab}`, 500));
  }
  for (const lab of result.unavailable) {
    context.progress.problem(
      serverText(`The lab ${lab.lab} could not be asked: ${lab.reason}`, 1000),
    );
  }
  problems.forEach((problem) => context.progress.problem(problem));
  const ok = result.entries.filter((entry) => entry.local === 'ok').length;
  await out(
    `${folder}: ${result.entries.length} recorded, ${ok} as recorded${remote ? '' : ' (the lab was not asked; --remote asks it)'}${lines.length > 0 ? `\n${lines.join('\n')}` : ''}\n${
      result.inStep
        ? 'Nothing is out of step.'
        : result.entries.some((entry) => entry.local !== 'ok' && entry.cached)
          ? 'lab-data pull restores what the cache has without the lab.'
          : ''
    }\n`,
  );
  return exitCode;
}
