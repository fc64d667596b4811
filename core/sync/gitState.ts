import { execFile } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * What git knows of a folder's manifest: whether a merge left it unmerged (its index holds the
 * three versions, stages 1 to 3, whatever the file itself holds), those versions, and whether the
 * merge driver a repository names can be run. Every question is asked only inside a git work tree
 * (a `.git` found above the folder), and git not installed means "not unmerged": a folder outside
 * git costs a few `stat`s, one inside it one `git` run per change of its index.
 */

/** A work tree: its top folder and the index file git keeps for it. */
interface WorkTree {
  readonly root: string;
  readonly index: string;
}

/** One version git keeps of an unmerged file: 1 the common ancestor, 2 ours, 3 theirs. */
export interface UnmergedStage {
  readonly stage: 1 | 2 | 3;
  readonly object: string;
}

const GIT_TIMEOUT_MS = 30_000;

/**
 * The environment git runs in: without the variables that point git at another repository (a
 * hook exports GIT_DIR relative to its own folder), and with paths taken literally.
 */
function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_LITERAL_PATHSPECS: '1' };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR']) {
    delete env[name];
  }
  return env;
}

/** Runs git in a folder; its standard output, or undefined when git is missing or fails. */
function git(cwd: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      [...args],
      {
        cwd,
        env: gitEnvironment(),
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 256 * 1024 * 1024,
        windowsHide: true,
      },
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
}

/** The index file a `.git` entry names: `.git/index`, or a linked work tree's own (`gitdir: …`). */
async function indexOf(root: string, dotGit: string): Promise<string | undefined> {
  const stats = await fs.stat(dotGit).catch(() => undefined);
  if (stats?.isDirectory()) {
    return path.join(dotGit, 'index');
  }
  if (!stats?.isFile()) {
    return undefined;
  }
  const text = await fs.readFile(dotGit, 'utf8').catch(() => '');
  const gitDir = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  return gitDir === undefined ? undefined : path.join(path.resolve(root, gitDir), 'index');
}

/** The git work tree a folder is in (a `.git` found walking up), or undefined. */
async function workTreeOf(folder: string): Promise<WorkTree | undefined> {
  let current = await fs.realpath(folder).catch(() => path.resolve(folder));
  for (;;) {
    const index = await indexOf(current, path.join(current, '.git'));
    if (index !== undefined) {
      return { root: current, index };
    }
    const parent = path.dirname(current);
    if (parent === current) {
      return undefined;
    }
    current = parent;
  }
}

/** A file's path in its work tree, with `/` as git writes it. */
function pathIn(tree: WorkTree, file: string): string {
  return path.relative(tree.root, file).split(path.sep).join('/');
}

async function realFile(file: string): Promise<string> {
  const folder = await fs.realpath(path.dirname(file)).catch(() => path.dirname(file));
  return path.join(folder, path.basename(file));
}

/** Parses `git ls-files -u -z`: `<mode> <object> <stage>\t<path>\0` per version. */
function stagesFrom(output: string): UnmergedStage[] {
  const stages: UnmergedStage[] = [];
  for (const record of output.split('\0')) {
    const match = /^\d+ ([0-9a-f]+) ([123])\t/.exec(record);
    if (match) {
      stages.push({ stage: Number(match[2]) as 1 | 2 | 3, object: match[1]! });
    }
  }
  return stages.sort((a, b) => a.stage - b.stage);
}

/**
 * The versions git holds of a file a merge left unmerged, ancestor first; empty when the file is
 * merged, not in a git work tree, or git cannot be run.
 */
export async function unmergedStages(file: string): Promise<readonly UnmergedStage[]> {
  const real = await realFile(file);
  const tree = await workTreeOf(path.dirname(real));
  return tree === undefined ? [] : stagesIn(tree, real);
}

async function stagesIn(tree: WorkTree, file: string): Promise<UnmergedStage[]> {
  const output = await git(tree.root, ['ls-files', '-u', '-z', '--', pathIn(tree, file)]);
  return output === undefined ? [] : stagesFrom(output);
}

/** The answers already had, per file, with the state of the index they were read from. */
const unmergedCache = new Map<string, { readonly index: string; readonly unmerged: boolean }>();

/**
 * Whether git holds a file as unmerged (see {@link unmergedStages}). Asked often (the extension
 * reads a manifest at every change), so git runs only when the work tree's index has changed
 * since the last answer for that file: a merge, `git add` and a checkout all rewrite the index.
 */
export async function isUnmerged(file: string): Promise<boolean> {
  const real = await realFile(file);
  const tree = await workTreeOf(path.dirname(real));
  if (tree === undefined) {
    return false;
  }
  const stats = await fs.stat(tree.index).catch(() => undefined);
  if (stats === undefined) {
    // No index yet (a repository without a commit): nothing can be unmerged.
    return false;
  }
  const index = `${tree.index}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.size}:${stats.ino}`;
  const known = unmergedCache.get(real);
  if (known?.index === index) {
    return known.unmerged;
  }
  const unmerged = (await stagesIn(tree, real)).length > 0;
  unmergedCache.set(real, { index, unmerged });
  return unmerged;
}

/** Whether git tracks a file (a report's PDF committed beside the manifest); false outside git. */
export async function isTracked(file: string): Promise<boolean> {
  const real = await realFile(file);
  const tree = await workTreeOf(path.dirname(real));
  if (tree === undefined) {
    return false;
  }
  const output = await git(tree.root, ['ls-files', '-z', '--', pathIn(tree, real)]);
  return output !== undefined && output !== '';
}

/** The text of one version git holds (an object of {@link unmergedStages}); undefined when unreadable. */
export async function stageText(file: string, object: string): Promise<string | undefined> {
  const tree = await workTreeOf(path.dirname(await realFile(file)));
  return tree === undefined ? undefined : git(tree.root, ['cat-file', 'blob', object]);
}

/** Quotes one word for `sh`, which git runs merge drivers with (also Git for Windows' own). */
export function shellQuoted(word: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The words of a simple `sh` command line (quotes and backslashes as sh reads them, nothing else). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i += 1) {
    const character = command[i]!;
    if (quote === "'") {
      if (character === "'") {
        quote = undefined;
      } else {
        word += character;
      }
    } else if (character === '\\' && i + 1 < command.length) {
      i += 1;
      word = (word ?? '') + command[i]!;
    } else if (quote === '"') {
      if (character === '"') {
        quote = undefined;
      } else {
        word += character;
      }
    } else if (character === "'" || character === '"') {
      quote = character;
      word ??= '';
    } else if (/\s/.test(character)) {
      if (word !== undefined) {
        words.push(word);
        word = undefined;
      }
    } else {
      word = (word ?? '') + character;
    }
  }
  if (word !== undefined) {
    words.push(word);
  }
  return words;
}

/** Whether a program can be run: an absolute path that is an executable file, or a name found on PATH. */
async function runnable(program: string, cwd: string): Promise<boolean> {
  const executable = async (candidate: string): Promise<boolean> => {
    const stats = await fs.stat(candidate).catch(() => undefined);
    if (!stats?.isFile()) {
      return false;
    }
    return process.platform === 'win32'
      ? true
      : fs.access(candidate, constants.X_OK).then(
          () => true,
          () => false,
        );
  };
  if (program.includes('/') || program.includes('\\')) {
    return executable(path.resolve(cwd, program));
  }
  const extensions =
    process.platform === 'win32' ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD').split(';')] : [''];
  for (const folder of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const extension of extensions) {
      if (await executable(path.join(folder, `${program}${extension}`))) {
        return true;
      }
    }
  }
  return false;
}

/**
 * Why git could not run the merge driver that a folder's manifest is given in `.gitattributes`
 * (`merge=<driver>`), or undefined when it can, or none is named, or the folder is not in git: the
 * driver is not configured in this clone, or its program (or an absolute script it names) is not
 * there. Git would then leave the manifest unmerged at the next merge. PATH is this process's,
 * which a GUI's or a hook's git may not share: a program named without a path is said too, since
 * an absolute path is the sure way.
 */
export async function mergeDriverProblem(manifest: string): Promise<string | undefined> {
  const real = await realFile(manifest);
  const tree = await workTreeOf(path.dirname(real));
  if (tree === undefined) {
    return undefined;
  }
  const attribute = await git(tree.root, ['check-attr', '-z', 'merge', '--', pathIn(tree, real)]);
  const driver = attribute?.split('\0')[2];
  if (
    driver === undefined ||
    ['unspecified', 'set', 'unset', 'text', 'binary', 'union'].includes(driver)
  ) {
    return undefined;
  }
  const command = (await git(tree.root, ['config', `merge.${driver}.driver`]))?.trim();
  if (!command) {
    return `.gitattributes gives ${path.basename(real)} the merge driver "${driver}", but this clone's git config has no merge.${driver}.driver: git will merge it as text.`;
  }
  const [program, script] = shellWords(command);
  if (program === undefined || !(await runnable(program, tree.root))) {
    return `git cannot run the merge driver "${driver}" (${program ?? 'empty'} is not found or cannot be run): a merge would leave ${path.basename(real)} unmerged.`;
  }
  if (script !== undefined && path.isAbsolute(script)) {
    const there = await fs.stat(script).catch(() => undefined);
    if (!there?.isFile()) {
      return `git cannot run the merge driver "${driver}" (${script} is not there): a merge would leave ${path.basename(real)} unmerged.`;
    }
  }
  if (!program.includes('/') && !program.includes('\\')) {
    // Found on this process's PATH, which is not git's own everywhere: a git started by an
    // editor, a GUI or a hook keeps "ours" without markers when it cannot find the program.
    return `git runs the merge driver "${driver}" by the name ${program}, which this PATH has but a git started by an editor, a GUI or a hook may not: such a merge keeps one side of ${path.basename(real)}.`;
  }
  return undefined;
}

/**
 * Whether the `.gitattributes` of a manifest's work tree name a merge driver for it (any driver:
 * `merge=lab-data` or one a team configured under its own name); undefined outside a git work
 * tree or when git cannot be run, where there is nothing to offer.
 */
export async function namesMergeDriver(manifest: string): Promise<boolean | undefined> {
  const real = await realFile(manifest);
  const tree = await workTreeOf(path.dirname(real));
  if (tree === undefined) {
    return undefined;
  }
  const attribute = await git(tree.root, ['check-attr', '-z', 'merge', '--', pathIn(tree, real)]);
  if (attribute === undefined) {
    return undefined;
  }
  const driver = attribute.split('\0')[2];
  return (
    driver !== undefined &&
    !['unspecified', 'set', 'unset', 'text', 'binary', 'union'].includes(driver)
  );
}

/** The absolute path of a program found on this process's PATH, or undefined. */
export async function foundOnPath(program: string): Promise<string | undefined> {
  const extensions =
    process.platform === 'win32' ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD').split(';')] : [''];
  for (const folder of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const extension of extensions) {
      const candidate = path.join(folder, `${program}${extension}`);
      if (path.isAbsolute(candidate) && (await runnable(candidate, folder))) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** Stages a file (`git add`), as a person does once a conflict is resolved; false when git could not. */
export async function stageFile(file: string): Promise<boolean> {
  const real = await realFile(file);
  const tree = await workTreeOf(path.dirname(real));
  return (
    tree !== undefined && (await git(tree.root, ['add', '--', pathIn(tree, real)])) !== undefined
  );
}

/** A merge commit git records, with its parents (ours first). */
export interface MergeCommit {
  readonly commit: string;
  readonly parents: readonly string[];
}

/**
 * The merges of HEAD's history that touched a file, newest first, at most `limit`; empty outside
 * git or without a commit. `--full-history` keeps a merge whose file equals one parent's, the merge
 * a driver that never ran leaves (git kept "ours"), which git's default history would skip.
 */
export async function mergesTouching(file: string, limit: number): Promise<MergeCommit[]> {
  const real = await realFile(file);
  const tree = await workTreeOf(path.dirname(real));
  if (tree === undefined) {
    return [];
  }
  const output = await git(tree.root, [
    'rev-list',
    '--full-history',
    '--merges',
    '--parents',
    `--max-count=${limit}`,
    'HEAD',
    '--',
    pathIn(tree, real),
  ]);
  return (output ?? '')
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter((words) => words.length >= 3 && words.every((word) => /^[0-9a-f]{40,64}$/.test(word)))
    .map(([commit, ...parents]) => ({ commit: commit!, parents }));
}

/** The commit HEAD names, or undefined outside git or without a commit. */
export async function headCommit(file: string): Promise<string | undefined> {
  const tree = await workTreeOf(path.dirname(await realFile(file)));
  const output =
    tree === undefined ? undefined : await git(tree.root, ['rev-parse', '--verify', '-q', 'HEAD']);
  return output?.trim() || undefined;
}

/** The best common ancestor of two commits, or undefined when they have none. */
export async function mergeBase(file: string, a: string, b: string): Promise<string | undefined> {
  const tree = await workTreeOf(path.dirname(await realFile(file)));
  const output = tree === undefined ? undefined : await git(tree.root, ['merge-base', a, b]);
  return output?.trim() || undefined;
}

/** A file's text as a commit records it; undefined when the commit has no such file. */
export async function textAtCommit(file: string, commit: string): Promise<string | undefined> {
  const real = await realFile(file);
  const tree = await workTreeOf(path.dirname(real));
  return tree === undefined
    ? undefined
    : git(tree.root, ['cat-file', 'blob', `${commit}:${pathIn(tree, real)}`]);
}
