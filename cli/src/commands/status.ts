import * as path from 'node:path';
import { serverText } from '../../../core/errors/serverText';
import { mergeDriverProblem } from '../../../core/sync/gitState';
import { MANIFEST_FILE_NAME } from '../../../core/sync/manifest';
import { readLocalState } from '../../../core/sync/localState';
import { folderStatus, type EntryStatus } from '../../../core/sync/status';
import type { CliContext } from '../context';
import { CliError, Exit, exitCodeOf, worst, type ExitCode } from '../exitCodes';
import { MISSING, out, RunReport } from '../output';
import { folderArgument, readManifestOrFail } from './folder';
import { selectionOf } from '../selection';
import { affectedConsumers, currentUses, hasUses, impactOf } from '../../../core/uses/uses';
import type { SyncManifest } from '../../../core/sync/manifest';

/**
 * The one line status says of uses (see lab-data impact), when the folder has any to tell: how
 * many consumers used another revision than the one recorded. A record that cannot be read is
 * said, not fatal: status is about files.
 */
async function usesLine(folder: string, manifest: SyncManifest): Promise<string | undefined> {
  if (!(await hasUses(folder))) {
    return undefined;
  }
  try {
    const found = await currentUses(folder, manifest, { acknowledgeNamed: false });
    const affected = affectedConsumers(impactOf(found.record, manifest));
    return affected.length === 0
      ? `Uses: no script or notebook used another revision than the one recorded.`
      : `Uses: ${affected.length} script(s) or notebook(s) used another revision than the one recorded; lab-data impact names them.`;
  } catch (error) {
    return `Uses: cannot be told (${serverText(error instanceof Error ? error.message : String(error), 300)}).`;
  }
}

/**
 * The words of one entry that is out of step, but for being missing (said with the other missing
 * files, as verify says them); undefined when there are none.
 */
function words(entry: EntryStatus): string | undefined {
  const parts: string[] = [];
  if (entry.local === 'changed') {
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

/** What `--check-cache` says: each recorded file the cache lacks, or that it lacks none. */
function cacheLines(cache: string, lacking: readonly EntryStatus[]): string {
  if (lacking.length === 0) {
    return `The cache ${cache} holds every recorded file.\n`;
  }
  const named = lacking.map((entry) =>
    serverText(`  ${entry.file}  (${entry.reportId}): not in the cache`, 1000),
  );
  return `The cache ${cache} lacks ${lacking.length} recorded file${lacking.length === 1 ? '' : 's'}:\n${named.join('\n')}\nlab-data cache push fills it from a folder that has them.\n`;
}

/**
 * `lab-data status [FOLDER] [--remote]`: where a folder stands against its manifest, like
 * `git status`. Without --remote it needs no lab and no token.
 */
export async function status(context: CliContext): Promise<ExitCode> {
  const folder = folderArgument(context);
  const driver = await mergeDriverProblem(path.join(folder, MANIFEST_FILE_NAME));
  if (driver !== undefined) {
    context.progress.problem(
      `warning: ${serverText(driver, 600)} lab-data merge-manifest --install sets it up.`,
    );
  }
  const selected = await selectionOf(context, folder, await readManifestOrFail(folder));
  const manifest = selected.manifest;
  const remote = context.flag('remote');
  const several = Object.keys(manifest.labs).length > 1;
  // Labs --remote could not ask for want of a token or a confirmed address: each said once, exit 3.
  const problems = new Map<string, CliError>();
  // Which labs were synced here matters only to --remote (what is new at the lab): read only then.
  const state = remote ? await readLocalState(folder) : undefined;
  const result = await folderStatus(folder, manifest, {
    cache: context.cache(),
    rehash: context.flag('rehash'),
    signal: context.signal,
    synced: (lab) => typeof state?.labs[manifest.labs[lab]!.origin]?.watermark === 'string',
    countsAsNew: selected.countsAsNew,
    apiFor: remote
      ? (lab, origin) => {
          const problem = context.manifestLabProblem(lab, origin, several);
          if (problem) {
            problems.set(lab, problem);
            return undefined;
          }
          return context.manifestLabApi(lab, origin);
        }
      : undefined,
  });
  const checkCache = context.flag('check-cache');
  // A cache that could not be asked (down, silent, refusing us) is not an empty one: its cause, exit 4 (3).
  const cacheProblem = checkCache ? context.cache().readProblem : undefined;
  const lacking = cacheProblem === undefined ? result.entries.filter((entry) => !entry.cached) : [];
  const exitCode = worst([
    result.inStep && !(checkCache && lacking.length > 0) ? Exit.ok : Exit.mismatch,
    ...(cacheProblem !== undefined ? [context.cache().readRefused ? Exit.auth : Exit.network] : []),
    ...[...problems.values()].map((problem) => problem.exitCode),
    ...result.unavailable
      .filter((lab) => !problems.has(lab.lab))
      .map((lab) => (lab.error !== undefined ? exitCodeOf(lab.error) : Exit.network)),
  ]);
  const tokens = context.whoami(manifest.labs, several, remote);
  const uses = context.flag('json') ? undefined : await usesLine(folder, manifest);
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
          unavailable: result.unavailable.map((lab) => ({
            lab: lab.lab,
            reason: problems.get(lab.lab)?.message ?? lab.reason,
          })),
          cache_lacks: checkCache && cacheProblem !== undefined ? undefined : lacking.length,
          cache_problem: cacheProblem,
          not_selected: selected.json?.not_selected,
          selection: selected.json,
          tokens: tokens.map((token) => ({
            lab: token.lab,
            origin: token.origin,
            variable: token.variable,
            confirmed_by: token.confirmed_by,
            problem: token.problem,
          })),
          exit_code: exitCode,
        },
        null,
        2,
      )}\n`,
    );
    return exitCode;
  }
  // Missing files as verify tells them: one count line, the files in the manifest's order, what to do.
  const missing = new RunReport(context.flag('verbose'));
  const lines: string[] = [];
  for (const entry of result.entries) {
    if (entry.local === 'missing') {
      missing.add(MISSING, { reportId: entry.reportId, file: entry.file });
    }
    const said = words(entry);
    if (said !== undefined) {
      lines.push(serverText(`  ${entry.file}  (${entry.reportId}): ${said}`, 1000));
    }
  }
  for (const report of result.newAtLab) {
    lines.push(serverText(`  ${report.reportId}: new at the lab ${report.lab}`, 500));
  }
  for (const lab of result.unavailable.filter((each) => !problems.has(each.lab))) {
    context.progress.problem(
      serverText(`The lab ${lab.lab} could not be asked: ${lab.reason}`, 1000),
    );
  }
  problems.forEach((problem) => context.progress.problem(problem.message));
  tokens.forEach((token) => context.progress.line(token.line));
  const ok = result.entries.filter((entry) => entry.local === 'ok').length;
  await out(
    `${folder}: ${result.entries.length} recorded${selected.notSelected > 0 ? ` (${selected.notSelected} not selected)` : ''}, ${ok} as recorded${remote ? '' : ' (the lab was not asked; --remote asks it)'}${[...missing.lines(), ...lines].map((line) => `\n${line}`).join('')}\n${
      result.inStep
        ? 'Nothing is out of step.'
        : result.entries.some((entry) => entry.local !== 'ok' && entry.cached)
          ? 'lab-data pull restores what the cache has without the lab.'
          : ''
    }\n${
      checkCache
        ? cacheProblem !== undefined
          ? `The cache ${context.cache().location} could not be asked, so which recorded files it holds is not known: ${cacheProblem}.\n`
          : cacheLines(context.cache().location, lacking)
        : ''
    }${uses !== undefined ? `${uses}\n` : ''}`,
  );
  return exitCode;
}
