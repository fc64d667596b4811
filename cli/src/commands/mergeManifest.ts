import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { LabApiError } from '../../../core/errors/errors';
import { errorText } from '../../../core/errors/errorText';
import { conflictSides, hasConflictMarkers, lockfileText } from '../../../core/sync/lockfile';
import { MANIFEST_FILE_NAME, parseManifest } from '../../../core/sync/manifest';
import { mergeManifests } from '../../../core/sync/mergeManifest';
import type { CliContext } from '../context';
import { CliError, Exit, type ExitCode } from '../exitCodes';

/** The line `.gitattributes` needs, and the driver `git config` names. */
export const GITATTRIBUTES_LINE = `${MANIFEST_FILE_NAME} merge=lab-data`;
export const DRIVER = 'lab-data merge-manifest %O %A %B';

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

function reportConflicts(context: CliContext, conflicts: readonly string[]): ExitCode {
  for (const conflict of conflicts) {
    context.progress.problem(`conflict  ${conflict}`);
  }
  return conflicts.length > 0 ? Exit.mismatch : Exit.ok;
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
  await git('git', ['config', 'merge.lab-data.driver', DRIVER], { cwd: top });
  const attributes = path.join(top, '.gitattributes');
  const existing = await fs.readFile(attributes, 'utf8').catch(() => '');
  if (!existing.split(/\r?\n/).some((line) => line.trim() === GITATTRIBUTES_LINE)) {
    await fs.writeFile(
      attributes,
      `${existing}${existing === '' || existing.endsWith('\n') ? '' : '\n'}${GITATTRIBUTES_LINE}\n`,
    );
  }
  context.progress.line(
    `Installed the merge driver in ${top}: git config merge.lab-data.driver "${DRIVER}", and "${GITATTRIBUTES_LINE}" in .gitattributes (commit it, so everyone's clone uses it once they run this too).`,
  );
  return Exit.ok;
}

/** Merges both sides of a manifest that still holds conflict markers, in place (`--resolve FOLDER`). */
async function resolve(context: CliContext): Promise<ExitCode> {
  const given = path.resolve(context.command.positionals[0] ?? 'lab-reports');
  const file =
    path.basename(given) === MANIFEST_FILE_NAME ? given : path.join(given, MANIFEST_FILE_NAME);
  const text = await fs.readFile(file, 'utf8').catch(() => {
    throw new CliError(`There is no manifest at ${file}.`, Exit.usage);
  });
  if (!hasConflictMarkers(text)) {
    context.progress.line(`${file} holds no conflict markers; nothing to resolve.`);
    return Exit.ok;
  }
  const sides = conflictSides(text);
  const parse = (side: string, what: string): ReturnType<typeof parseManifest> => {
    try {
      return parseManifest(side, path.dirname(file));
    } catch (error) {
      throw new CliError(
        `${what} of the conflict in ${file} cannot be read (${errorText(error)}); resolve it by hand, or take one side (git checkout --ours ${MANIFEST_FILE_NAME}) and run lab-data sync again.`,
        Exit.usage,
      );
    }
  };
  const merged = mergeManifests(
    { version: 3, labs: {} },
    parse(sides.ours, 'Our side'),
    parse(sides.theirs, 'Their side'),
  );
  await writeText(file, lockfileText(merged.manifest));
  context.progress.line(
    `Merged both sides of ${file} entry by entry${merged.conflicts.length > 0 ? `, with ${merged.conflicts.length} conflict(s) kept from our side` : ''}.`,
  );
  return reportConflicts(context, merged.conflicts);
}

/**
 * `lab-data merge-manifest %O %A %B`: git's merge driver for `lab-data-sync.json`. Writes the
 * merge of the ancestor %O, ours %A and theirs %B into %A; exits 0 when it merged, 1 on a
 * conflict (git then marks the file conflicted; %A holds our side of each conflicting entry).
 */
export async function mergeManifest(context: CliContext): Promise<ExitCode> {
  if (context.flag('install')) {
    return install(context);
  }
  if (context.flag('resolve')) {
    return resolve(context);
  }
  const [base, ours, theirs] = context.command.positionals;
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
  return reportConflicts(context, merged.conflicts);
}
