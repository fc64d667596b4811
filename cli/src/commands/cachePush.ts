import * as path from 'node:path';
import { serverText } from '../../../core/errors/serverText';
import { formatBytes } from '../../../core/files/sizes';
import type { SyncManifest } from '../../../core/sync/manifest';
import { pushFolder, type PushedFile, type PushResult } from '../../../core/sync/push';
import type { CliContext } from '../context';
import { Exit, type ExitCode } from '../exitCodes';
import { out } from '../output';
import { readManifestOrFail } from './folder';

/** Why a file was not pushed, in words. */
const WHY: Readonly<Record<string, string>> = {
  changed: 'changed since it was recorded (its bytes are not the recorded SHA-256)',
  missing: 'not in the folder, and not in the cache',
  cacheUnwritable: 'the cache lacks it and refused the write',
};

/** Files the cache was asked about and lacks after the push. */
const NOT_PUSHED: ReadonlySet<PushedFile['state']> = new Set([
  'changed',
  'missing',
  'cacheUnwritable',
]);

/** `12 changed, 1 missing`: the causes of the files not pushed. */
function causes(files: readonly PushedFile[]): string {
  const counts = new Map<string, number>();
  for (const file of files) {
    counts.set(file.state, (counts.get(file.state) ?? 0) + 1);
  }
  return [...counts]
    .map(
      ([state, count]) =>
        `${count} ${state === 'cacheUnwritable' ? 'refused by the cache' : state}`,
    )
    .join(', ');
}

/**
 * What to do about a cache that refused a write, by what it answered: credentials (401/403), space
 * (507, a full disk), a server that takes no PUT there (405/501), a folder closed to writes.
 */
export function pushAdvice(
  status: number | undefined,
  problem: { readonly message: string },
): string {
  const text = problem.message;
  if (status === 401 || status === 403) {
    return 'Use credentials that may write there: LAB_DATA_CACHE_TOKEN, or the host in ~/.netrc (a read-only token or address refuses writes).';
  }
  if (status === 507 || /ENOSPC|EDQUOT|no space|disk is full/i.test(text)) {
    return 'Free space there (the cache is full), then push again.';
  }
  if (status === 405 || status === 501) {
    return 'That address takes no writes (PUT): push to the address that does (--cache URL or LAB_DATA_CACHE).';
  }
  return 'Push to a cache you can write (--cache DIR|URL or LAB_DATA_CACHE, with LAB_DATA_CACHE_TOKEN for a server).';
}

/**
 * `lab-data cache push [FOLDER…]`: publishes each folder's recorded files, those whose bytes are
 * the recorded SHA-256, to the cache (core: pushFolder), so a teammate's or CI's pull restores them
 * without the lab. Every manifest is read before anything is copied: one that cannot be used stops
 * the run with nothing written. Exit 4 (3: credentials refused) when the cache stopped answering; 0 when the cache now holds every recorded file, 1 when a file
 * was not pushed (changed, missing) or the cache cannot be written (read-only, full).
 */
export async function cachePush(context: CliContext, given: readonly string[]): Promise<ExitCode> {
  const folders = (given.length > 0 ? given : ['lab-reports']).map((folder) =>
    path.resolve(folder),
  );
  const manifests: Array<{ folder: string; manifest: SyncManifest }> = [];
  for (const folder of folders) {
    manifests.push({ folder, manifest: await readManifestOrFail(folder) });
  }
  const cache = context.cache();
  const results: Array<{ folder: string; result: PushResult }> = [];
  for (const { folder, manifest } of manifests) {
    const result = await pushFolder(folder, manifest, cache, {
      signal: context.signal,
      onProgress: ({ done, total, bytes }) =>
        context.progress.update(
          `push ${path.basename(folder)}: ${done}/${total} files, ${formatBytes(bytes)} copied`,
        ),
    });
    results.push({ folder, result });
    if (result.cacheProblem) {
      break;
    }
  }
  context.progress.clear();
  const files = results.flatMap(({ result }) => result.files);
  const problem = results.find(({ result }) => result.cacheProblem)?.result.cacheProblem;
  const notPushed = files.filter((file) => NOT_PUSHED.has(file.state));
  const pushed = files.filter((file) => file.state === 'pushed');
  const bytes = results.reduce((sum, { result }) => sum + result.bytes, 0);
  const notChecked = files.filter((file) => file.state === 'notChecked');
  const untried = folders.length - results.length;
  // A cache that could not be asked is not one that lacks files: 4 (3 when it refused the credentials).
  const exitCode =
    cache.readProblem !== undefined
      ? cache.readRefused
        ? Exit.auth
        : Exit.network
      : notPushed.length > 0 || problem || untried > 0
        ? Exit.mismatch
        : Exit.ok;
  if (context.flag('json')) {
    await out(
      `${JSON.stringify(
        {
          cache: cache.location,
          folders: results.map(({ folder, result }) => ({
            folder,
            files: result.files.map((file) => ({
              lab: file.lab,
              report_id: file.reportId,
              file: file.file,
              sha256: file.sha256,
              bytes: file.bytes,
              state: file.state,
            })),
          })),
          not_tried: folders.slice(results.length),
          pushed: pushed.length,
          pushed_bytes: bytes,
          already_there: files.filter((file) => file.state === 'alreadyThere').length,
          not_pushed: notPushed.length,
          not_checked: notChecked.length,
          cache_problem: problem?.message,
          exit_code: exitCode,
        },
        null,
        2,
      )}\n`,
    );
    return exitCode;
  }
  for (const file of files) {
    if (NOT_PUSHED.has(file.state) && file.state !== 'cacheUnwritable') {
      context.progress.problem(
        serverText(`not pushed  ${file.reportId}  ${file.file}: ${WHY[file.state]}`, 1000),
      );
    } else if (file.state === 'pushed') {
      context.verbose(serverText(`pushed  ${file.reportId}  ${file.file}`, 1000));
    }
  }
  if (problem) {
    const refused = files.filter((file) => file.state === 'cacheUnwritable').length;
    const advice =
      cache.readProblem !== undefined
        ? 'Run it again when the cache answers.'
        : pushAdvice(cache.writeStatus, problem);
    context.progress.problem(
      `${problem.message.startsWith('The team cache') ? problem.message : `The cache ${cache.location} cannot be written: ${problem.message}`} No write was tried after it: ${refused} file${refused === 1 ? '' : 's'} the cache lacks ${refused === 1 ? 'was' : 'were'} not pushed${notChecked.length > 0 ? `; ${notChecked.length} could not be checked (the cache stopped answering)` : ''}${untried > 0 ? `; ${untried} more folder${untried === 1 ? ' was' : 's were'} not tried` : ''}; nothing half-written is left in the cache. ${advice}`,
    );
  }
  const where = folders.length === 1 ? folders[0]! : `${folders.length} folders`;
  context.progress.line(
    `Pushed ${where} to ${cache.location}: pushed ${pushed.length} (${formatBytes(bytes)}), already there ${files.filter((file) => file.state === 'alreadyThere').length}, not pushed ${notPushed.length}${notPushed.length > 0 ? ` (${causes(notPushed)})` : ''}${notChecked.length > 0 ? `, not checked ${notChecked.length}` : ''}.`,
  );
  return exitCode;
}
