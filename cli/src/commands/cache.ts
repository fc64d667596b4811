import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { formatBytes } from '../../../core/files/sizes';
import { MANIFEST_FILE_NAME, readManifestStrictly } from '../../../core/sync/manifest';
import type { CliContext } from '../context';
import { CliError, Exit, type ExitCode } from '../exitCodes';
import { out } from '../output';
import { cachePush } from './cachePush';
import { ContentCache } from '../../../core/files/contentCache';
import type { FileCache } from '../../../core/files/fileCache';
import { checkCacheFiles, type CheckedFile } from '../../../core/sync/cacheVerify';
import { serverText } from '../../../core/errors/serverText';
import { readManifestOrFail } from './folder';
import { pushAdvice } from './cachePush';

/** A hash no file has: asking for it tells whether the server answers, and accepts the credentials. */
const NO_FILE = '0'.repeat(64);

/**
 * `lab-data cache` of a team server: whether it answers and accepts the credentials;
 * `status --check-cache` tells which recorded files it lacks (from the server's folder listings
 * where it gives them). Pruning is the server's own business.
 */
async function serverCache(
  context: CliContext,
  cache: FileCache,
  action: string | undefined,
): Promise<ExitCode> {
  if (action !== undefined) {
    throw new CliError(
      `lab-data cache ${action.slice(0, 20)} works on a cache folder; ${cache.location} is a server, whose files are removed on the server itself.`,
      Exit.usage,
    );
  }
  // A 404 is the answer hoped for; a server not used is told on stderr by the cache itself.
  await cache.has(NO_FILE);
  const answers = cache.readProblem === undefined;
  if (context.flag('json')) {
    await out(`${JSON.stringify({ server: cache.location, answers }, null, 2)}\n`);
  } else {
    await out(
      `${cache.location}: a team cache on a server${answers ? ' that answers' : ', not usable now'}; lab-data status --check-cache tells which recorded files it lacks.\n`,
    );
  }
  return answers ? Exit.ok : Exit.mismatch;
}

/** `30d`, `12h`, `2w` → milliseconds; a usage error otherwise. */
function age(text: string): number {
  const match = /^(\d+)\s*([hdw])$/.exec(text.trim());
  if (!match) {
    throw new CliError(
      `--older-than takes an age such as 30d, 12h or 2w, not "${text.slice(0, 20)}".`,
      Exit.usage,
    );
  }
  const unit = { h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 'h' | 'd' | 'w'];
  return Number(match[1]) * unit;
}

/** The SHA-256s a manifest (a file, or a folder holding one) records. */
async function neededBy(given: string): Promise<string[]> {
  const resolved = path.resolve(given);
  const stats = await fs.stat(resolved).catch(() => undefined);
  const folder =
    stats?.isFile() && path.basename(resolved) === MANIFEST_FILE_NAME
      ? path.dirname(resolved)
      : resolved;
  const { manifest, problems } = await readManifestStrictly(folder);
  if (!manifest) {
    throw new CliError(
      `The manifest of ${folder} cannot be used to decide what to keep (${problems[0]?.kind}); nothing was removed.`,
      Exit.usage,
    );
  }
  return Object.values(manifest.labs).flatMap((section) =>
    Object.values(section.files).map((entry) => entry.sha256),
  );
}

/**
 * `lab-data cache`: what the content cache holds (count, bytes, where); `lab-data cache prune`
 * removes what none of the manifests given needs (`--keep-manifest`, repeatable, or folders as
 * positionals), or what was not used for a given age (`--older-than 30d`), or both;
 * `lab-data cache push [FOLDER…]` fills it from folders ({@link cachePush}).
 */
export async function cache(context: CliContext): Promise<ExitCode> {
  const [action, ...folders] = context.command.positionals;
  if (action === 'push') {
    return cachePush(context, folders);
  }
  if (action === 'verify') {
    return cacheVerify(context, folders);
  }
  const chosen = context.cache();
  if (!(chosen instanceof ContentCache)) {
    return serverCache(context, chosen, action);
  }
  const contentCache = chosen;
  const held = await contentCache.list();
  const total = held.reduce((sum, file) => sum + file.bytes, 0);
  if (action === undefined) {
    if (context.flag('json')) {
      await out(
        `${JSON.stringify({ folder: contentCache.folder, files: held.length, bytes: total }, null, 2)}\n`,
      );
    } else {
      await out(`${contentCache.folder}: ${held.length} files, ${formatBytes(total)}\n`);
    }
    return Exit.ok;
  }
  if (action !== 'prune') {
    throw new CliError(
      `"${action.slice(0, 20)}" is not a cache action: lab-data cache [prune|push|verify].`,
      Exit.usage,
    );
  }
  const keepOption = context.command.values['keep-manifest'];
  const manifests = [
    ...(Array.isArray(keepOption) ? keepOption.filter((item) => typeof item === 'string') : []),
    ...folders,
  ];
  const olderThan = context.text('older-than');
  if (manifests.length === 0 && olderThan === undefined) {
    throw new CliError(
      'Say what to keep: lab-data cache prune --keep-manifest FILE… (or folders), and/or --older-than 30d.',
      Exit.usage,
    );
  }
  const needed = new Set<string>();
  for (const manifest of manifests) {
    (await neededBy(manifest)).forEach((sha) => needed.add(sha));
  }
  const cutoff = olderThan === undefined ? undefined : Date.now() - age(olderThan);
  let removed = 0;
  let bytes = 0;
  let refused = 0;
  for (const file of held) {
    const unneeded = manifests.length === 0 || !needed.has(file.sha256);
    const old = cutoff === undefined || file.usedMs < cutoff;
    if (unneeded && old) {
      if (await contentCache.remove(file.sha256)) {
        removed++;
        bytes += file.bytes;
      } else {
        refused++;
      }
    }
  }
  const summary = `Pruned ${contentCache.folder}: removed ${removed} files (${formatBytes(bytes)}), kept ${held.length - removed}${refused > 0 ? `; ${refused} could not be removed (a read-only cache?)` : ''}.`;
  if (context.flag('json')) {
    await out(
      `${JSON.stringify({ folder: contentCache.folder, removed, bytes, kept: held.length - removed, refused }, null, 2)}\n`,
    );
  } else {
    context.progress.line(summary);
  }
  return refused > 0 ? Exit.mismatch : Exit.ok;
}

const STATE_WORDS: Readonly<Record<CheckedFile['state'], string>> = {
  good: 'good',
  missing: 'missing',
  corrupt: 'corrupt',
  repaired: 'repaired',
  notChecked: 'not checked',
};

/**
 * `lab-data cache verify [FOLDER…] [--repair]`: reads back every file the folders' manifests record
 * from the cache and checks its SHA-256 (core: checkCacheFiles); `--repair` replaces a corrupt
 * copy with the folder's file. Exit 0 every copy good (or repaired), 1 one corrupt or missing, 4
 * the cache could not be asked (3 it refused the credentials).
 */
async function cacheVerify(context: CliContext, given: readonly string[]): Promise<ExitCode> {
  const folders = (given.length > 0 ? given : ['lab-reports']).map((folder) =>
    path.resolve(folder),
  );
  const manifests = [];
  for (const folder of folders) {
    manifests.push({ folder, manifest: await readManifestOrFail(folder) });
  }
  const cache = context.cache();
  const repair = context.flag('repair');
  const files: CheckedFile[] = [];
  let repairProblem: Error | undefined;
  for (const { folder, manifest } of manifests) {
    const result = await checkCacheFiles(folder, manifest, cache, {
      repair,
      signal: context.signal,
    });
    files.push(...result.files);
    repairProblem ??= result.repairProblem;
  }
  const count = (state: CheckedFile['state']): number =>
    files.filter((file) => file.state === state).length;
  const bad = count('corrupt') + count('missing');
  const exitCode: ExitCode =
    cache.readProblem !== undefined
      ? cache.readRefused
        ? Exit.auth
        : Exit.network
      : bad > 0
        ? Exit.mismatch
        : Exit.ok;
  const checked = files.length - count('notChecked');
  if (context.flag('json')) {
    await out(
      `${JSON.stringify(
        {
          cache: cache.location,
          files: files.map((file) => ({
            lab: file.lab,
            report_id: file.reportId,
            file: file.file,
            sha256: file.sha256,
            state: file.state,
            why: file.why,
          })),
          checked,
          good: count('good'),
          corrupt: count('corrupt'),
          missing: count('missing'),
          repaired: count('repaired'),
          not_checked: count('notChecked'),
          cache_problem: cache.readProblem,
          exit_code: exitCode,
        },
        null,
        2,
      )}\n`,
    );
    return exitCode;
  }
  const lines = files
    .filter((file) => file.state !== 'good' && file.state !== 'notChecked')
    .map((file) =>
      serverText(
        `  ${file.file}  (${file.reportId}): ${STATE_WORDS[file.state]}${file.state === 'corrupt' ? ' (its bytes are not the recorded SHA-256)' : ''}${file.why ? `; ${file.why}` : ''}`,
        1000,
      ),
    );
  if (repairProblem) {
    context.progress.problem(
      `${repairProblem.message} ${pushAdvice(cache.writeStatus, repairProblem)}`,
    );
  }
  if (cache.readProblem !== undefined) {
    context.progress.problem(
      `The cache ${cache.location} could not be asked: ${cache.readProblem}; ${count('notChecked')} not checked.`,
    );
  }
  const parts = [
    `${count('good')} good`,
    ...(['corrupt', 'missing', 'repaired', 'notChecked'] as const)
      .filter((state) => count(state) > 0)
      .map((state) => `${count(state)} ${STATE_WORDS[state]}`),
  ];
  await out(
    `${lines.length > 0 ? `${lines.join('\n')}\n` : ''}The cache ${cache.location}: checked ${checked}: ${parts.join(', ')}.${
      count('corrupt') > 0 && !repair
        ? " lab-data cache verify --repair replaces a corrupt copy with the folder's file."
        : ''
    }${count('missing') > 0 ? ' lab-data cache push fills in what it lacks.' : ''}\n`,
  );
  return exitCode;
}
