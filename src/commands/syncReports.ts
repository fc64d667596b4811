import * as vscode from 'vscode';
import type { SaveRun } from '../core/sync/bulkSave';
import { SKIP_REASONS, syncFolder } from '../core/sync/folderSync';
import type { Report } from '../core/api/records';
import { formatBytes } from '../core/files/sizes';
import { outcome, saveWithProgress, upToDateCount } from '../downloads/saveWithProgress';
import { resolveDownloadTarget, shownFolder } from '../downloads/targetFolder';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import type { Activity } from '../ui/activity';
import type { PromptsHolder } from '../ui/prompts';
import { labForCommand } from './labTarget';
import { listAllReports } from './saveAllReports';
import { commandTargets } from '../ui/commandTargets';

export interface SyncSummary {
  readonly lab: string;
  readonly folder: string;
  readonly since?: string;
  readonly listed: number;
  readonly saved: number;
  /** Files left alone because they are the lab's files already. */
  readonly upToDate: number;
  readonly skipped: number;
  readonly failed: number;
  readonly bytes: number;
  readonly watermark?: string;
  readonly manifestWritten: boolean;
  /** Reports the folder holds for this lab after the sync. */
  readonly files: number;
  /** The sentence shown. */
  readonly message: string;
}

/** The sync's outcome in plain words: "Up to date (380 reports in lab-reports)." or what was saved, kept, skipped (why) and failed. */
export function syncSentence(lab: string, folder: string, run: SaveRun, files: number): string {
  if (run.saved.length === 0 && run.skipped.every((skip) => skip.upToDate) && run.failed.length === 0 && !run.cancelled) {
    return vscode.l10n.t('{0} is up to date ({1} reports in {2}).', lab, files, folder);
  }
  const saved = run.saved.length > 0 ? vscode.l10n.t('{0} new or changed saved ({1})', run.saved.length, formatBytes(run.bytes)) : vscode.l10n.t('nothing new saved');
  return vscode.l10n.t('Sync of {0} into {1}: {2}', lab, folder, outcome(saved, run));
}

/**
 * `labData.syncReports` (`{ lab? }`): keeps the download folder up to date with one lab, through the
 * core's {@link syncFolder}; this layer adds the first sync's question (how many files, where), the
 * progress notifications, the status bar's "syncing" and a plain summary with a Reveal button.
 */
export async function syncReports(labs: Labs, prompts: PromptsHolder, log: Logger, activity: Activity, ...args: unknown[]): Promise<SyncSummary | undefined> {
  const targets = commandTargets(args);
  const connection = await labForCommand(labs, prompts.current, targets.lab);
  const api = connection?.api;
  const target = api && (await resolveDownloadTarget(prompts.current));
  if (!api || !target) {
    return undefined;
  }
  const lab = { name: api.lab.name, origin: api.origin };
  const folder = shownFolder(target.folder);
  const confirmFirst = async (reports: readonly Report[]): Promise<boolean> => {
    const withFile = reports.filter((report) => report.download_available !== false).length;
    return prompts.current.confirm(
      vscode.l10n.t('Save {0} reports of {1} into {2}?', withFile, lab.name, folder),
      vscode.l10n.t('This is the first sync of {0} with {1}: {2} of its {3} reports have a file, and each is saved there. Later syncs fetch only what is new or changed.', folder, lab.name, withFile, reports.length),
      vscode.l10n.t('Sync'),
    );
  };
  const result = await activity.run(vscode.l10n.t('Syncing {0}', lab.name), () =>
    syncFolder(api, target, {
      list: (query, from) => listAllReports(api, query, from ? vscode.l10n.t('Checking {0} for new reports…', lab.name) : vscode.l10n.t('Listing reports of {0}…', lab.name)),
      save: (reports, decide) => saveWithProgress(vscode.l10n.t('Syncing reports of {0}…', lab.name), reports, { api, target, prompts: prompts.current, log, decide }),
      // Automation (`{ lab }` from a task or another extension) asked for the sync already.
      confirmFirst: targets.automated ? undefined : confirmFirst,
    }),
  );
  const { since, listed, run, watermark, manifestWritten, files } = result;
  if (result.declined) {
    log.info('Sync', `The first sync of ${target.folder} with ${lab.name} was not started.`);
    return undefined;
  }
  const message = syncSentence(lab.name, folder, run, files);
  log.info('Sync', `${message} Listed ${listed.length}${since ? ` published since ${since}` : ''}. Folder: ${target.folder}`);
  run.skipped.filter((skip) => skip.reason !== SKIP_REASONS.upToDate).forEach((skip) => log.info('Sync', `Skipped ${skip.reportId}: ${skip.reason}.`));
  void showOutcome(message, run, vscode.Uri.file(target.folder), log);
  return {
    lab: lab.name,
    folder: target.folder,
    since,
    listed: listed.length,
    saved: run.saved.length,
    upToDate: upToDateCount(run),
    skipped: run.skipped.length,
    failed: run.failed.length,
    bytes: run.bytes,
    watermark,
    manifestWritten,
    files,
    message,
  };
}

/** The summary with Reveal in Explorer (and Show Log after a failure); never awaited by the command. */
async function showOutcome(message: string, run: SaveRun, folder: vscode.Uri, log: Logger): Promise<void> {
  const reveal = vscode.l10n.t('Reveal in Explorer');
  const showLog = vscode.l10n.t('Show Log');
  const choice = run.failed.length > 0 ? await vscode.window.showWarningMessage(message, reveal, showLog) : await vscode.window.showInformationMessage(message, reveal);
  if (choice === reveal) {
    await vscode.commands.executeCommand('revealInExplorer', run.saved[0] ? vscode.Uri.file(run.saved[0].file.path) : folder);
  } else if (choice === showLog) {
    log.show();
  }
}
