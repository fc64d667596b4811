import { promises as fs, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { LabApiError } from '../../../core/errors/errors';
import { errorText } from '../../../core/errors/errorText';
import { serverText } from '../../../core/errors/serverText';
import { shellQuoted } from '../../../core/sync/gitState';
import { lockfileText } from '../../../core/sync/lockfile';
import { parseManifest } from '../../../core/sync/manifest';
import { mergeManifests, type SecondName } from '../../../core/sync/mergeManifest';
import {
  GITATTRIBUTES_LINE,
  ManifestGitError,
  installMergeDriver,
  moveRenamedFiles,
  replaceText,
  resolveManifest,
} from '../../../core/sync/resolveManifest';
import {
  isUsesText,
  mergeUses,
  parseUses,
  usesText,
  type UsesRecord,
} from '../../../core/uses/usesRecord';
import type { CliContext } from '../context';
import { CliError, Exit, type ExitCode } from '../exitCodes';

export { GITATTRIBUTES_LINE };

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
  // git expands %O %A %B %P in the driver and reads %% as one %: a path holding % is written so.
  const quoted = (text: string): string => shellQuoted(text).replaceAll('%', '%%');
  return `${quoted(process.execPath)} ${quoted(real)} merge-manifest %O %A %B %P`;
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

/** One side of a record of uses; an empty ancestor (both sides added the file) is no uses. */
async function readUsesSide(file: string, what: string): Promise<UsesRecord> {
  const text = await fs.readFile(file, 'utf8').catch(() => {
    throw new CliError(`Cannot read ${what} ${file}.`, Exit.usage);
  });
  try {
    return parseUses(text);
  } catch (error) {
    throw new CliError(`${what} ${file}: ${errorText(error)}`, Exit.usage);
  }
}

/**
 * Whether git handed the driver the record of uses (`lab-data-uses.json`, the same driver's
 * second file) rather than a manifest: by %P's name when given, else by the sides' content.
 */
async function isUsesMerge(sides: readonly string[], pathname?: string): Promise<boolean> {
  if (pathname !== undefined) {
    return path.basename(pathname) === 'lab-data-uses.json';
  }
  for (const side of sides) {
    const text = await fs.readFile(side, 'utf8').catch(() => '');
    if (text.trim() !== '') {
      return isUsesText(text);
    }
  }
  return false;
}

/** Runs a core step of the driver, turning its failure into the tool's exit code. */
async function step<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ManifestGitError) {
      throw new CliError(error.message, error.kind === 'unwritable' ? Exit.mismatch : Exit.usage);
    }
    throw error;
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
  const driver = driverCommand();
  const { top } = await step(() => installMergeDriver(cwd, driver));
  context.progress.line(
    `Installed the merge driver in ${top}: git config merge.lab-data.driver "${driver}" (this Node and this lab-data by absolute path, so any git finds them: run this again if either moves), and "${GITATTRIBUTES_LINE}" in .gitattributes (commit it, so everyone's clone uses it once they run this too).`,
  );
  return Exit.ok;
}

/**
 * `--resolve [FOLDER]`: resolves the folder's manifest in place (core: resolveManifest): merges
 * one git left unmerged or with conflict markers, or gives a second name to a report that claims
 * another's file name. Staging the result is left to the person (git add), who may check it first.
 */
async function resolve(context: CliContext): Promise<ExitCode> {
  const given = context.command.positionals[0] ?? 'lab-reports';
  const resolved = await step(() => resolveManifest(given));
  const { file } = resolved;
  if (resolved.outcome === 'nothing') {
    context.progress.line(
      `${file} is merged, holds no conflict markers and no file name claimed twice; nothing to resolve.`,
    );
    return Exit.ok;
  }
  if (resolved.outcome === 'separated') {
    context.progress.line(
      `Gave ${resolved.renamed.length} report(s) a file name of their own in ${file}.`,
    );
    return reportConflicts(context, { conflicts: [], renamed: resolved.renamed });
  }
  if (resolved.outcome === 'restored' && resolved.restored) {
    const { commit, lost } = resolved.restored;
    context.progress.line(
      `Restored ${lost.length} report(s) the merge ${commit.slice(0, 12)} left out of ${file}, rebuilt from its parents${resolved.conflicts.length > 0 ? `, with ${resolved.conflicts.length} conflict(s) kept from our side` : ''}. Now commit it (git add ${path.relative(process.cwd(), file) || file}, git commit); lab-data pull restores their files.`,
    );
    return reportConflicts(context, resolved);
  }
  const fromGit = resolved.fromGit;
  context.progress.line(
    `Merged both sides of ${file} entry by entry${fromGit ? " from git's versions" : ''}${resolved.conflicts.length > 0 ? `, with ${resolved.conflicts.length} conflict(s) kept from our side` : ''}.${fromGit ? ` Now git add ${path.relative(process.cwd(), file) || file} (git holds it unmerged until then) and commit the merge.` : ''}`,
  );
  return reportConflicts(context, resolved);
}

/**
 * `lab-data merge-manifest %O %A %B [%P]`: git's merge driver for `lab-data-sync.json` (and
 * for `lab-data-uses.json`, merged use by use, never a conflict). Writes the
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
  if (await isUsesMerge([ours, theirs, base], pathname)) {
    // Uses merge use by use and never conflict (core: mergeUses says which use wins).
    const uses = mergeUses(
      await readUsesSide(base, 'The common ancestor'),
      await readUsesSide(ours, 'Our record of uses'),
      await readUsesSide(theirs, 'Their record of uses'),
    );
    await step(() => replaceText(ours, usesText(uses)));
    return Exit.ok;
  }
  const merged = mergeManifests(
    await readSide(base, 'The common ancestor'),
    await readSide(ours, 'Our manifest'),
    await readSide(theirs, 'Their manifest'),
  );
  await step(() => replaceText(ours, lockfileText(merged.manifest)));
  if (pathname !== undefined) {
    // %P: where the manifest lives, relative to the work tree's top, where git runs the driver.
    await moveRenamedFiles(path.resolve(path.dirname(pathname)), merged.manifest, merged.renamed);
  }
  return reportConflicts(context, merged);
}
