import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatBytes } from '../../core/files/sizes';
import { MANIFEST_FILE_NAME, readManifestStrictly } from '../../core/sync/manifest';
import { manifestProblemText } from '../../core/sync/manifestProblems';
import { labOffer } from '../../core/sync/manifestLabs';
import type { SyncManifest } from '../../core/sync/manifestModel';
import { lackedByCache, pullFolder, type PulledFile } from '../../core/sync/pull';
import { serverText } from '../../core/errors/serverText';
import { toAbortSignal } from '../cancellation';
import { Commands, SETTINGS_SECTION, Settings } from '../constants';
import {
  readableTeamCache,
  sayTeamCacheTrouble,
  teamCacheCause,
  withContentCache,
  type TeamCacheCause,
} from '../downloads/teamCache';
import { requireDiskFolder } from '../downloads/diskFolders';
import { downloadTargetIn } from '../downloads/targetFolder';
import type { Labs } from '../labs/labs';
import { apiServing, machineLabs, rememberedManifestLabs } from '../labs/manifestLabs';
import type { Logger } from '../log';
import { commandTargets } from '../ui/commandTargets';
import { withNotificationProgress } from '../ui/progress';
import { oneAtATime } from './folderRuns';
import type { SavedReportFindings } from './savedReports';

/** What `labData.restoreReports` returns: files by outcome, every folder together. */
export interface RestoreSummary {
  readonly folders: string[];
  /** Files written now with their recorded bytes (from the cache or the lab). */
  readonly restored: number;
  /** Files left alone: already as recorded, or changed locally (never replaced by a restore). */
  readonly kept: number;
  /** Files that could not be restored (the lab unavailable, no cache has them, amended at the lab). */
  readonly failed: number;
  readonly fromCache: number;
  readonly fromLab: number;
  /** Files changed locally, kept as they are. */
  readonly changedLocally: number;
  /**
   * Labs a manifest names that no lab of this machine serves, whose files could not be restored:
   * `offered` when the summary offers to add the lab (a trusted workspace, an address a lab can have).
   */
  readonly missingLabs: MissingLab[];
}

/** A lab a manifest names that this machine lacks, in Restore's summary. */
export interface MissingLab {
  readonly name: string;
  readonly origin: string;
  readonly folder: string;
  readonly offered: boolean;
}

/** The labs of `manifest` that no lab of this machine serves and whose files failed to restore. */
function missingLabsOf(
  labs: Labs,
  folder: string,
  manifest: SyncManifest,
  files: readonly PulledFile[],
): MissingLab[] {
  const failedAt = new Set(
    files.filter((file) => file.state === 'failed').map((file) => file.origin),
  );
  const context = {
    labs: machineLabs(labs),
    remembered: rememberedManifestLabs(),
    trusted: vscode.workspace.isTrusted,
  };
  return Object.entries(manifest.labs).flatMap(([name, section]) => {
    const offer = failedAt.has(section.origin) ? labOffer(name, section, context) : undefined;
    return offer && offer.kind !== 'served'
      ? [{ name, origin: section.origin, folder, offered: offer.kind === 'offer' }]
      : [];
  });
}

/**
 * The folders to restore: `{ folder }` (a Uri, an absolute path or one relative to each workspace
 * folder), else every folder in the workspace holding a manifest, else each workspace folder's
 * download folder.
 */
export async function foldersToRestore(args: readonly unknown[]): Promise<string[]> {
  const options = commandTargets(args).options;
  const given = args.find((arg): arg is vscode.Uri => arg instanceof vscode.Uri) ?? options.folder;
  if (given instanceof vscode.Uri) {
    requireDiskFolder('restore', given);
    return [given.fsPath];
  }
  if (typeof given !== 'string' || !path.isAbsolute(given)) {
    requireDiskFolder('restore');
  }
  const roots = (vscode.workspace.workspaceFolders ?? []).filter(
    (root) => root.uri.scheme === 'file',
  );
  if (typeof given === 'string' && given.trim()) {
    return path.isAbsolute(given)
      ? [given]
      : roots.map((root) => path.resolve(root.uri.fsPath, given));
  }
  const manifests = await vscode.workspace.findFiles(
    `**/${MANIFEST_FILE_NAME}`,
    '**/node_modules/**',
    1000,
  );
  const found = [...new Set(manifests.map((uri) => path.dirname(uri.fsPath)))].sort();
  return found.length > 0 ? found : roots.map((root) => downloadTargetIn(root.uri).folder);
}

/** Failed files grouped by cause, each cause once with its count: "3 failed: the lab at … is down". */
function failureCauses(files: readonly PulledFile[]): string[] {
  const causes = new Map<string, number>();
  for (const file of files) {
    const cause =
      file.state === 'changedAtLab'
        ? vscode.l10n.t('amended at the lab, and no cache has the recorded revision')
        : file.state === 'notAtLab'
          ? vscode.l10n.t('no longer at the lab')
          : (file.error?.message ?? vscode.l10n.t('unknown'));
    causes.set(cause, (causes.get(cause) ?? 0) + 1);
  }
  return [...causes].map(([cause, count]) => `${count}: ${serverText(cause, 300)}`);
}

/**
 * `labData.restoreReports` (`{ folder? }`): restores the files a folder's manifest lists, exactly
 * as `lab-data pull` does (the same core run, {@link pullFolder}): from the content cache first,
 * then the lab, under the recorded names, each checked against its SHA-256; a file changed
 * locally is never replaced, and the manifest is not written. Resolves to the counts.
 */
export async function restoreReports(
  labs: Labs,
  findings: SavedReportFindings,
  log: Logger,
  ...args: unknown[]
): Promise<RestoreSummary> {
  const folders = await foldersToRestore(args);
  const concurrency = vscode.workspace
    .getConfiguration(SETTINGS_SECTION)
    .get<number>(Settings.maxConcurrentRequests, 4);
  const files: PulledFile[] = [];
  const problems: string[] = [];
  const missingLabs: MissingLab[] = [];
  let bytes = 0;
  /** Why the team server could not be read, when it could not: said before the lab's words. */
  let teamCause: TeamCacheCause | undefined;
  /** The team server's address when it was read without trouble: what it lacked is then said first. */
  let teamAddress: string | undefined;
  await withNotificationProgress(
    vscode.l10n.t('Restoring saved reports…'),
    async (progress, token) => {
      for (const folder of folders) {
        if (token.isCancellationRequested) {
          break;
        }
        await oneAtATime(folder, async () => {
          const { manifest, problems: found } = await readManifestStrictly(folder);
          if (!manifest) {
            problems.push(...found.map(manifestProblemText));
            return;
          }
          let reported = 0;
          // Each file as it is done: a run cancelled part-way still counts what it restored.
          const done: PulledFile[] = [];
          const result = await withContentCache(log, (cache) =>
            pullFolder(folder, manifest, {
              apiFor: (name, origin) => apiServing(labs, { name, origin }),
              cache,
              concurrency,
              signal: toAbortSignal(token),
              onFile: (file) => done.push(file),
              onProgress: ({ done: finished, total, bytes: so }) => {
                const percent = total > 0 ? (finished / total) * 100 : 100;
                progress.report({
                  message: vscode.l10n.t('{0} of {1} files, {2}', finished, total, formatBytes(so)),
                  increment: (percent - reported) / folders.length,
                });
                reported = percent;
              },
            }).finally(() => {
              teamCause ??= teamCacheCause(cache);
              teamAddress ??= readableTeamCache(cache);
            }),
          ).catch((error: unknown) => {
            if (token.isCancellationRequested) {
              return undefined;
            }
            throw error;
          });
          const outcome = result?.files ?? done;
          files.push(...outcome);
          bytes += result?.bytes ?? outcome.reduce((sum, file) => sum + (file.bytes ?? 0), 0);
          missingLabs.push(...missingLabsOf(labs, folder, manifest, outcome));
          for (const file of outcome) {
            if (file.state === 'restored' || file.state === 'present') {
              findings.resolve(folder, file.reportId);
            }
          }
        });
      }
    },
  );
  const count = (...states: Array<PulledFile['state']>): number =>
    files.filter((file) => states.includes(file.state)).length;
  const summary: RestoreSummary = {
    folders,
    restored: count('restored'),
    kept: count('present', 'changedLocally'),
    failed: count('failed', 'changedAtLab', 'notAtLab'),
    fromCache: files.filter((file) => file.state === 'restored' && file.from === 'cache').length,
    fromLab: files.filter((file) => file.state === 'restored' && file.from === 'lab').length,
    changedLocally: count('changedLocally'),
    missingLabs,
  };
  say(summary, bytes, files, problems, log, teamCause, teamAddress);
  return summary;
}

/** One summary, said once: a notification with the counts, and each cause of failure in the log. */
function say(
  summary: RestoreSummary,
  bytes: number,
  files: readonly PulledFile[],
  problems: readonly string[],
  log: Logger,
  teamCause?: TeamCacheCause,
  teamAddress?: string,
): void {
  const failed = files.filter(
    (file) => file.state === 'failed' || file.state === 'changedAtLab' || file.state === 'notAtLab',
  );
  const lacked = teamCause === undefined && teamAddress !== undefined ? lackedByCache(failed) : [];
  // What the team cache lacks is the first cause: the lab's words only say why those files did not come from there instead.
  const lackedText =
    lacked.length > 0
      ? vscode.l10n.t(
          "The team cache at {0} lacks these {1} (someone's Push to Team Cache did not run), so they were asked of the lab: {2}.",
          teamAddress!,
          lacked.length,
          `${lacked
            .slice(0, 5)
            .map((file) => serverText(file.file, 200))
            .join(
              ', ',
            )}${lacked.length > 5 ? vscode.l10n.t(', and {0} more', lacked.length - 5) : ''}`,
        )
      : undefined;
  const text = vscode.l10n.t(
    'Restored {0} file(s) ({1} from the cache, {2} from the lab, {3}); {4} already as recorded; {5} changed locally, kept; {6} could not be restored.',
    summary.restored,
    summary.fromCache,
    summary.fromLab,
    formatBytes(bytes),
    summary.kept - summary.changedLocally,
    summary.changedLocally,
    summary.failed,
  );
  log.info('Restore', `${text} Folders: ${summary.folders.join(', ')}`);
  for (const cause of failureCauses(failed)) {
    log.warn('Restore', vscode.l10n.t('Not restored, {0}', cause));
  }
  for (const problem of problems) {
    log.warn('Restore', problem);
  }
  if (problems.length > 0) {
    void vscode.window.showErrorMessage(problems.join(' '));
  }
  if (teamCause) {
    // The team cache's cause first: what the lab said is only why the files did not come from there instead.
    log.warn('Restore', teamCause.sentence);
  }
  if (lackedText) {
    log.warn('Restore', lackedText);
  }
  if (failed.length > 0) {
    const details = failureCauses(failed).join('; ');
    const missing = summary.missingLabs.map((lab) => missingLabText(lab));
    missing.forEach((line) => log.warn('Restore', line));
    const offered = summary.missingLabs.filter((lab) => lab.offered);
    if ((teamCause || lackedText) && offered.length === 0) {
      void sayTeamCacheTrouble(
        [teamCause?.sentence ?? lackedText, text, details, ...missing].join(' '),
        teamCause,
        log,
      );
      return;
    }
    void offerMissingLabs(
      [
        ...(teamCause ? [teamCause.sentence] : []),
        ...(lackedText ? [lackedText] : []),
        text,
        details,
        ...missing,
      ].join(' '),
      offered,
    );
  } else if (teamCause) {
    void sayTeamCacheTrouble(`${teamCause.sentence} ${text}`, teamCause, log);
  } else if (problems.length === 0) {
    void vscode.window.showInformationMessage(text);
  }
}

/** A lab a manifest names that this machine lacks, in a sentence: offered, or why not. */
function missingLabText(lab: MissingLab): string {
  const named = `${serverText(lab.name, 60)} (${serverText(lab.origin, 200)})`;
  return lab.offered
    ? vscode.l10n.t('The manifest names the lab {0}, which this machine does not have.', named)
    : vscode.workspace.isTrusted
      ? vscode.l10n.t(
          'The manifest names the lab {0}, which this machine does not have, at an address a lab cannot have.',
          named,
        )
      : vscode.l10n.t(
          'The manifest names the lab {0}, which this machine does not have; adding it is not offered in Restricted Mode, as its address comes from the repository.',
          named,
        );
}

/**
 * The summary of a restore that failed, with "Add Lab <name> (<origin>)…" for each lab it offers
 * (at most two buttons); adding one restores the folder again, now from that lab.
 */
async function offerMissingLabs(text: string, offered: readonly MissingLab[]): Promise<void> {
  const buttons = offered.slice(0, 2).map((lab) => ({
    lab,
    title: vscode.l10n.t(
      'Add Lab {0} ({1})…',
      serverText(lab.name, 60),
      serverText(lab.origin, 200),
    ),
  }));
  const choice = await vscode.window.showWarningMessage(
    text,
    ...buttons.map((button) => button.title),
  );
  const picked = buttons.find((button) => button.title === choice)?.lab;
  if (!picked) {
    return;
  }
  const added = await vscode.commands.executeCommand<{ lab: string } | undefined>(
    Commands.addLabFromManifest,
    { folder: picked.folder, lab: picked.name },
  );
  if (added) {
    await vscode.commands.executeCommand(Commands.restoreReports, { folder: picked.folder });
  }
}

/**
 * Quick action "Download again" on one finding: the recorded file restored in place, exactly as
 * {@link restoreReports} restores it (cache first, then the lab, at the recorded name and
 * revision, checked by SHA-256), replacing a locally changed copy, the manifest untouched. When
 * the lab has amended the report and no cache has the recorded revision, the lab's revision is
 * taken only once the person confirms it, and then that entry alone is updated.
 */
export async function restoreOneReport(
  labs: Labs,
  findings: SavedReportFindings,
  log: Logger,
  args: { folder: string; lab: string; id: string },
): Promise<vscode.Uri | undefined> {
  const { manifest, problems } = await readManifestStrictly(args.folder);
  const section = manifest?.labs[args.lab];
  const entry = section?.files[args.id];
  if (!manifest || !section || !entry) {
    const why =
      problems.map(manifestProblemText).join(' ') ||
      vscode.l10n.t('{0} is no longer recorded in {1}.', args.id, MANIFEST_FILE_NAME);
    void vscode.window.showErrorMessage(why);
    return undefined;
  }
  const one = { ...manifest, labs: { [args.lab]: { ...section, files: { [args.id]: entry } } } };
  const pull = (update: boolean): Promise<PulledFile | undefined> =>
    withNotificationProgress(vscode.l10n.t('Restoring {0}…', args.id), (_progress, token) =>
      oneAtATime(args.folder, () =>
        withContentCache(log, (cache) =>
          pullFolder(args.folder, one, {
            apiFor: (name, origin) => apiServing(labs, { name, origin }),
            cache,
            force: true,
            update,
            signal: toAbortSignal(token),
          }),
        ),
      ),
    ).then((result) => result.files[0]);
  let file = await pull(false);
  if (file?.state === 'changedAtLab') {
    const take = vscode.l10n.t("Update to the Lab's Revision");
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t(
        '{0} was amended at the lab ({1}; recorded: {2}, at the lab: {3}) and no cache has the recorded file. Take the lab’s revision and record it in {4}?',
        args.id,
        (file.changes ?? []).join(', '),
        file.recorded ?? '?',
        file.atLab ?? '?',
        MANIFEST_FILE_NAME,
      ),
      take,
    );
    if (choice !== take) {
      return undefined;
    }
    file = await pull(true);
  }
  const uri = vscode.Uri.file(path.join(args.folder, ...entry.file.split('/')));
  if (file && ['restored', 'present', 'updated'].includes(file.state)) {
    findings.resolve(args.folder, args.id);
    log.info('Restore', `${args.id}: ${file.state} at ${entry.file}`);
    return uri;
  }
  const cause = file ? failureCauses([file]).join('; ') : vscode.l10n.t('cancelled');
  void vscode.window.showWarningMessage(vscode.l10n.t('{0} was not restored: {1}', args.id, cause));
  return undefined;
}
