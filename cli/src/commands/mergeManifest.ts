import { execFile } from 'node:child_process';
import { promises as fs, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { LabApiError } from '../../../core/errors/errors';
import { errorText } from '../../../core/errors/errorText';
import { serverText } from '../../../core/errors/serverText';
import { fileSha256 } from '../../../core/sync/reportFiles';
import { isTracked, shellQuoted, stageText, unmergedStages } from '../../../core/sync/gitState';
import { conflictSides, hasConflictMarkers, lockfileText } from '../../../core/sync/lockfile';
import { MANIFEST_FILE_NAME, parseManifest, type SyncManifest } from '../../../core/sync/manifest';
import {
  mergeManifests,
  separateFileNames,
  type SecondName,
} from '../../../core/sync/mergeManifest';
import type { CliContext } from '../context';
import { CliError, Exit, type ExitCode } from '../exitCodes';

/** The line `.gitattributes` needs. */
export const GITATTRIBUTES_LINE = `${MANIFEST_FILE_NAME} merge=lab-data`;

/**
 * The driver `git config` names: this Node and this script by absolute path, so that any git finds
 * it (a GUI's, an editor's, a hook's, whose PATH may lack lab-data, or a tool run through npx).
 * Git runs it with sh, hence the quoting.
 */
function driverCommand(): string {
  const script = process.argv[1] ?? 'lab-data';
  let real = script;
  try {
    real = realpathSync(script);
  } catch {
    // The script as Node was given it.
  }
  return `${shellQuoted(process.execPath)} ${shellQuoted(real)} merge-manifest %O %A %B %P`;
}

async function readSide(file: string, what: string): Promise<ReturnType<typeof parseManifest>> {
  const text = await fs.readFile(file, 'utf8').catch(() => {
    throw new CliError(`Cannot read ${what} ${file}.`, Exit.usage);
  });
  try {
    // Git gives an empty ancestor when both sides added the file.
    return parseManifest(text.trim() === '' ? undefined : text, path.dirname(file));
  } catch (error) {
    throw new CliError(
      `${what} ${file}: ${error instanceof LabApiError ? error.message : String(error)}`,
      Exit.usage,
    );
  }
}

/**
 * Replaces a file's text whole (a temporary file beside it, then a rename): git's %A is a file of
 * its own naming (`.merge_file_…`), so its name is kept exactly, not made safe as a report's is.
 */
async function writeText(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await fs.writeFile(temporary, text);
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw new CliError(`Could not write ${file}: ${errorText(error)}`, Exit.mismatch);
  }
}

/** The sentence that tells a report's second name (see `separateFileNames`). */
function secondNameSentence(change: SecondName): string {
  return serverText(
    `${change.keptBy} and ${change.reportId} both claimed ${change.from}; ${change.reportId}'s file is now ${change.to}; lab-data pull restores it.`,
    1000,
  );
}

function reportConflicts(
  context: CliContext,
  merged: { readonly conflicts: readonly string[]; readonly renamed: readonly SecondName[] },
): ExitCode {
  for (const change of merged.renamed) {
    context.progress.problem(secondNameSentence(change));
  }
  for (const conflict of merged.conflicts) {
    context.progress.problem(serverText(`conflict  ${conflict}`, 1000));
  }
  return merged.conflicts.length > 0 ? Exit.mismatch : Exit.ok;
}

/** Writes the driver into a repository's config and `.gitattributes` (on request: `--install`). */
async function install(context: CliContext): Promise<ExitCode> {
  const cwd = path.resolve(context.command.positionals[0] ?? '.');
  const git = promisify(execFile);
  let top: string;
  try {
    top = (await git('git', ['rev-parse', '--show-toplevel'], { cwd })).stdout.trim();
  } catch {
    throw new CliError(`${cwd} is not inside a git repository.`, Exit.usage);
  }
  await git('git', ['config', 'merge.lab-data.name', 'Lab Data manifest (lab-data-sync.json)'], {
    cwd: top,
  });
  const driver = driverCommand();
  await git('git', ['config', 'merge.lab-data.driver', driver], { cwd: top });
  const attributes = path.join(top, '.gitattributes');
  const existing = await fs.readFile(attributes, 'utf8').catch(() => '');
  if (!existing.split(/\r?\n/).some((line) => line.trim() === GITATTRIBUTES_LINE)) {
    await fs.writeFile(
      attributes,
      `${existing}${existing === '' || existing.endsWith('\n') ? '' : '\n'}${GITATTRIBUTES_LINE}\n`,
    );
  }
  context.progress.line(
    `Installed the merge driver in ${top}: git config merge.lab-data.driver "${driver}" (this Node and this lab-data by absolute path, so any git finds them: run this again if either moves), and "${GITATTRIBUTES_LINE}" in .gitattributes (commit it, so everyone's clone uses it once they run this too).`,
  );
  return Exit.ok;
}

/** Parses one side of a manifest to resolve; a side that cannot be read stops with the way out. */
function parseSide(file: string, side: string | undefined, what: string): SyncManifest {
  try {
    return parseManifest(side?.trim() === '' ? undefined : side, path.dirname(file));
  } catch (error) {
    throw new CliError(
      `${what} of the conflict in ${file} cannot be read (${errorText(error)}); resolve it by hand, or take one side (git checkout --ours ${MANIFEST_FILE_NAME}) and run lab-data sync again.`,
      Exit.usage,
    );
  }
}

/**
 * The three sides of a manifest git holds as unmerged, from its index (a missing ancestor: both
 * added it; a missing side: that side deleted it); with conflict markers in the file, ours and
 * theirs are the marked sides (a person may have edited them), the ancestor still git's.
 */
async function unmergedSides(
  file: string,
  text: string,
): Promise<readonly [SyncManifest, SyncManifest, SyncManifest] | undefined> {
  const stages = await unmergedStages(file);
  if (stages.length === 0) {
    return undefined;
  }
  const version = async (stage: 1 | 2 | 3): Promise<string | undefined> => {
    const object = stages.find((each) => each.stage === stage)?.object;
    const read = object === undefined ? undefined : await stageText(file, object);
    if (object !== undefined && read === undefined) {
      throw new CliError(`git could not give version ${stage} of ${file}.`, Exit.usage);
    }
    return read;
  };
  const base = parseSide(file, await version(1), 'The common ancestor');
  if (hasConflictMarkers(text)) {
    const sides = conflictSides(text);
    return [
      base,
      parseSide(file, sides.ours, 'Our side'),
      parseSide(file, sides.theirs, 'Their side'),
    ];
  }
  return [
    base,
    parseSide(file, await version(2), 'Our side'),
    parseSide(file, await version(3), 'Their side'),
  ];
}

/**
 * Moves a renamed report's file to its second name when the file under the old name is that
 * report's (its SHA-256) and git does not track it, so that a pull restores the other report's
 * file under the old name instead of calling it changed.
 */
async function moveRenamedFiles(
  folder: string,
  manifest: SyncManifest,
  renamed: readonly SecondName[],
): Promise<void> {
  for (const change of renamed) {
    const entry = manifest.labs[change.lab]?.files[change.reportId];
    const [from, to] = [path.join(folder, change.from), path.join(folder, change.to)];
    const there = await fs.stat(to).catch(() => undefined);
    if (
      entry &&
      there === undefined &&
      (await fileSha256(from).catch(() => '')) === entry.sha256 &&
      !(await isTracked(from))
    ) {
      await fs.rename(from, to).catch(() => undefined);
    }
  }
}

/**
 * `--resolve [FOLDER]`: merges a manifest git left unmerged (from its index when the driver never
 * ran, from the markers when it holds them), or one with conflict markers outside a merge, in
 * place; or gives a second name to a report that claims another's file name in a manifest
 * already committed. Staging the result is left to the person (git add), who may check it first.
 */
async function resolve(context: CliContext): Promise<ExitCode> {
  const given = path.resolve(context.command.positionals[0] ?? 'lab-reports');
  const file =
    path.basename(given) === MANIFEST_FILE_NAME ? given : path.join(given, MANIFEST_FILE_NAME);
  const text = await fs.readFile(file, 'utf8').catch(() => {
    throw new CliError(`There is no manifest at ${file}.`, Exit.usage);
  });
  const unmerged = await unmergedSides(file, text);
  if (unmerged === undefined && !hasConflictMarkers(text)) {
    return separateNames(context, file, text);
  }
  const [base, ours, theirs] = unmerged ?? [
    parseSide(file, undefined, 'The common ancestor'),
    parseSide(file, conflictSides(text).ours, 'Our side'),
    parseSide(file, conflictSides(text).theirs, 'Their side'),
  ];
  const merged = mergeManifests(base, ours, theirs);
  await writeText(file, lockfileText(merged.manifest));
  await moveRenamedFiles(path.dirname(file), merged.manifest, merged.renamed);
  context.progress.line(
    `Merged both sides of ${file} entry by entry${unmerged ? " from git's versions" : ''}${merged.conflicts.length > 0 ? `, with ${merged.conflicts.length} conflict(s) kept from our side` : ''}.${unmerged ? ` Now git add ${path.relative(process.cwd(), file) || file} (git holds it unmerged until then) and commit the merge.` : ''}`,
  );
  return reportConflicts(context, merged);
}

/** `--resolve` on a manifest git holds as merged: only file names claimed twice are left to fix. */
async function separateNames(context: CliContext, file: string, text: string): Promise<ExitCode> {
  let manifest: SyncManifest;
  try {
    manifest = parseManifest(text, path.dirname(file));
  } catch (error) {
    throw new CliError(errorText(error), Exit.usage);
  }
  const separated = separateFileNames(manifest);
  if (separated.renamed.length === 0) {
    context.progress.line(
      `${file} is merged, holds no conflict markers and no file name claimed twice; nothing to resolve.`,
    );
    return Exit.ok;
  }
  await writeText(file, lockfileText(separated.manifest));
  await moveRenamedFiles(path.dirname(file), separated.manifest, separated.renamed);
  context.progress.line(
    `Gave ${separated.renamed.length} report(s) a file name of their own in ${file}.`,
  );
  return reportConflicts(context, { conflicts: [], renamed: separated.renamed });
}

/**
 * `lab-data merge-manifest %O %A %B [%P]`: git's merge driver for `lab-data-sync.json`. Writes the
 * merge of the ancestor %O, ours %A and theirs %B into %A (and, given %P, the manifest's path,
 * moves a file given a second name there); exits 0 when it merged, 1 on a
 * conflict (git then marks the file conflicted; %A holds our side of each conflicting entry).
 */
export async function mergeManifest(context: CliContext): Promise<ExitCode> {
  if (context.flag('install')) {
    return install(context);
  }
  if (context.flag('resolve')) {
    return resolve(context);
  }
  const [base, ours, theirs, pathname] = context.command.positionals;
  if (base === undefined || ours === undefined || theirs === undefined) {
    throw new CliError(
      'Usage: lab-data merge-manifest BASE OURS THEIRS (git gives %O %A %B), or --install, or --resolve FOLDER.',
      Exit.usage,
    );
  }
  const merged = mergeManifests(
    await readSide(base, 'The common ancestor'),
    await readSide(ours, 'Our manifest'),
    await readSide(theirs, 'Their manifest'),
  );
  await writeText(ours, lockfileText(merged.manifest));
  if (pathname !== undefined) {
    // %P: where the manifest lives, relative to the work tree's top, where git runs the driver.
    await moveRenamedFiles(path.resolve(path.dirname(pathname)), merged.manifest, merged.renamed);
  }
  return reportConflicts(context, merged);
}
