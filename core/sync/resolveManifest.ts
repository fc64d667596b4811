import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { errorText } from '../errors/errorText';
import { isTracked, stageText, unmergedStages } from './gitState';
import { conflictSides, hasConflictMarkers, lockfileText } from './lockfile';
import { rebuildLostMerge, type LostMerge } from './lostMerge';
import { MANIFEST_FILE_NAME, parseManifest, type SyncManifest } from './manifest';
import { mergeManifests, separateFileNames, type SecondName } from './mergeManifest';
import { fileSha256 } from './reportFiles';

/**
 * A manifest git left in conflict, resolved in place, and the merge driver installed: the one
 * implementation of `lab-data merge-manifest --resolve`/`--install` and of the extension's Resolve
 * and its offer to install the driver.
 */

/** The line `.gitattributes` needs for git to merge a manifest with the driver. */
export const GITATTRIBUTES_LINE = `${MANIFEST_FILE_NAME} merge=lab-data`;

/**
 * The line that has the same driver merge the committed record of uses (`lab-data-uses.json`,
 * core/uses/usesRecord.ts): the driver tells the two files apart by their content.
 */
export const USES_GITATTRIBUTES_LINE = 'lab-data-uses.json merge=lab-data';

/**
 * Why a manifest could not be resolved, or the driver installed: `unreadable` (a side or the file
 * cannot be read, the folder is not in git: the person must act), `unwritable` (the result could
 * not be written). The message says what to do.
 */
export class ManifestGitError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreadable' | 'unwritable',
  ) {
    super(message);
    this.name = 'ManifestGitError';
  }
}

/** What resolving a manifest came to. */
export interface ManifestResolution {
  readonly file: string;
  /**
   * `merged`: both sides merged entry by entry; `restored`: a committed merge that lost entries
   * rebuilt from its parents (see {@link restored}); `separated`: a merged manifest whose reports
   * claimed one file name got second names; `nothing`: nothing to resolve.
   */
  readonly outcome: 'merged' | 'restored' | 'separated' | 'nothing';
  /** With `restored`: the merge that lost entries, and the entries put back. */
  readonly restored?: LostMerge;
  /** Merged from the versions git keeps in its index (git holds the file unmerged until `git add`). */
  readonly fromGit: boolean;
  /** Conflicts the merge could not decide (our side kept for each). */
  readonly conflicts: readonly string[];
  readonly renamed: readonly SecondName[];
}

/**
 * Replaces a file's text whole (a temporary file beside it, then a rename): git's %A is a file of
 * its own naming (`.merge_file_…`), so its name is kept exactly, not made safe as a report's is.
 */
export async function replaceText(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await fs.writeFile(temporary, text);
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw new ManifestGitError(`Could not write ${file}: ${errorText(error)}`, 'unwritable');
  }
}

/** Parses one side of a manifest to resolve; a side that cannot be read stops with the way out. */
function parseSide(file: string, side: string | undefined, what: string): SyncManifest {
  try {
    return parseManifest(side?.trim() === '' ? undefined : side, path.dirname(file));
  } catch (error) {
    throw new ManifestGitError(
      `${what} of the conflict in ${file} cannot be read (${errorText(error)}); resolve it by hand, or take one side (git checkout --ours ${MANIFEST_FILE_NAME}) and run lab-data sync again.`,
      'unreadable',
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
      throw new ManifestGitError(`git could not give version ${stage} of ${file}.`, 'unreadable');
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
export async function moveRenamedFiles(
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

/** The manifest file of a folder, or the file itself when given. */
export function manifestFileOf(given: string): string {
  const resolved = path.resolve(given);
  return path.basename(resolved) === MANIFEST_FILE_NAME
    ? resolved
    : path.join(resolved, MANIFEST_FILE_NAME);
}

/**
 * Resolves a folder's manifest in place: merges one git left unmerged (from its index when the
 * driver never ran, from the markers when it holds them), or one with conflict markers outside a
 * merge; or gives a second name to a report that claims another's file name in a manifest already
 * merged. Staging the result is left to the person (git add), who may check it first.
 */
export async function resolveManifest(folderOrFile: string): Promise<ManifestResolution> {
  const file = manifestFileOf(folderOrFile);
  const text = await fs.readFile(file, 'utf8').catch(() => {
    throw new ManifestGitError(`There is no manifest at ${file}.`, 'unreadable');
  });
  const unmerged = await unmergedSides(file, text);
  if (unmerged === undefined && !hasConflictMarkers(text)) {
    return separateNames(file, text);
  }
  const [base, ours, theirs] = unmerged ?? [
    parseSide(file, undefined, 'The common ancestor'),
    parseSide(file, conflictSides(text).ours, 'Our side'),
    parseSide(file, conflictSides(text).theirs, 'Their side'),
  ];
  const merged = mergeManifests(base, ours, theirs);
  await replaceText(file, lockfileText(merged.manifest));
  await moveRenamedFiles(path.dirname(file), merged.manifest, merged.renamed);
  return {
    file,
    outcome: 'merged',
    fromGit: unmerged !== undefined,
    conflicts: merged.conflicts,
    renamed: merged.renamed,
  };
}

/**
 * A manifest git holds as merged: a committed merge that lost entries is rebuilt from its
 * parents; else only file names claimed twice are left to fix.
 */
async function separateNames(file: string, text: string): Promise<ManifestResolution> {
  let manifest: SyncManifest;
  try {
    manifest = parseManifest(text, path.dirname(file));
  } catch (error) {
    throw new ManifestGitError(errorText(error), 'unreadable');
  }
  const rebuilt = await rebuildLostMerge(file, manifest, parseManifest);
  if (rebuilt !== undefined) {
    const merged = separateFileNames(rebuilt.manifest);
    await replaceText(file, lockfileText(merged.manifest));
    await moveRenamedFiles(path.dirname(file), merged.manifest, merged.renamed);
    return {
      file,
      outcome: 'restored',
      restored: rebuilt.merge,
      fromGit: false,
      conflicts: rebuilt.conflicts,
      renamed: merged.renamed,
    };
  }
  const separated = separateFileNames(manifest);
  const outcome = { file, fromGit: false, conflicts: [], renamed: separated.renamed };
  if (separated.renamed.length === 0) {
    return { ...outcome, outcome: 'nothing' };
  }
  await replaceText(file, lockfileText(separated.manifest));
  await moveRenamedFiles(path.dirname(file), separated.manifest, separated.renamed);
  return { ...outcome, outcome: 'separated' };
}

/** What installing the driver wrote. */
export interface DriverInstall {
  /** The work tree's top folder, where `.gitattributes` is. */
  readonly top: string;
  /** Whether `.gitattributes` was written (false: it named the driver already). */
  readonly attributesWritten: boolean;
  /** The command written to `merge.lab-data.driver`, when one was given. */
  readonly driver?: string;
}

/**
 * Names the merge driver for the manifest in the work tree's `.gitattributes` (once), and, given
 * the command that runs it (`… merge-manifest %O %A %B %P`), configures it in this clone's git
 * config. Without a command only the attribute is written: git then merges the manifest as text
 * until a clone configures the driver, and a conflict is still resolved by {@link resolveManifest}.
 */
export async function installMergeDriver(folder: string, driver?: string): Promise<DriverInstall> {
  const run = promisify(execFile);
  const cwd = path.resolve(folder);
  let top: string;
  try {
    top = (await run('git', ['rev-parse', '--show-toplevel'], { cwd })).stdout.trim();
  } catch {
    throw new ManifestGitError(`${cwd} is not inside a git repository.`, 'unreadable');
  }
  if (driver !== undefined) {
    await run('git', ['config', 'merge.lab-data.name', 'Lab Data manifest (lab-data-sync.json)'], {
      cwd: top,
    });
    await run('git', ['config', 'merge.lab-data.driver', driver], { cwd: top });
  }
  const attributes = path.join(top, '.gitattributes');
  const existing = await fs.readFile(attributes, 'utf8').catch(() => '');
  const present = new Set(existing.split(/\r?\n/).map((line) => line.trim()));
  const missing = [GITATTRIBUTES_LINE, USES_GITATTRIBUTES_LINE].filter(
    (line) => !present.has(line),
  );
  if (missing.length > 0) {
    await fs.writeFile(
      attributes,
      `${existing}${existing === '' || existing.endsWith('\n') ? '' : '\n'}${missing.join('\n')}\n`,
    );
  }
  return {
    top,
    attributesWritten: missing.length > 0,
    ...(driver !== undefined ? { driver } : {}),
  };
}
