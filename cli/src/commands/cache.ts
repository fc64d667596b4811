import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { formatBytes } from '../../../core/files/sizes';
import { MANIFEST_FILE_NAME, readManifestStrictly } from '../../../core/sync/manifest';
import type { CliContext } from '../context';
import { CliError, Exit, type ExitCode } from '../exitCodes';
import { out } from '../output';
import { cachePush } from './cachePush';
import { ContentCache } from '../../../core/files/contentCache';
import type { HttpCache } from '../../../core/files/httpCache';

/** A hash no file has: asking for it tells whether the server answers, and accepts the credentials. */
const NO_FILE = '0'.repeat(64);

/**
 * `lab-data cache` of a team server: what can be told without a listing (servers offer none over
 * plain HTTP) — whether it answers and accepts the credentials; `status --check-cache` tells which
 * recorded files it lacks. Pruning is the server's own business.
 */
async function serverCache(
  context: CliContext,
  cache: HttpCache,
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
      `${cache.location}: a team cache on a server${answers ? ' that answers' : ', not usable now'}; it offers no listing: lab-data status --check-cache tells which recorded files it lacks.\n`,
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
  const chosen = context.cache();
  if (!(chosen instanceof ContentCache)) {
    return serverCache(context, chosen as HttpCache, action);
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
      `"${action.slice(0, 20)}" is not a cache action: lab-data cache [prune|push].`,
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
