import * as vscode from 'vscode';
import { SKIP_REASONS, syncFolder } from '../core/folderSync';
import { saveWithProgress, summarize } from '../downloads/saveWithProgress';
import { resolveDownloadTarget } from '../downloads/targetFolder';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import type { PromptsHolder } from '../ui/prompts';
import { labForCommand } from './labTarget';
import { listAllReports } from './saveAllReports';
import { commandTargets } from './targets';

export interface SyncSummary {
  readonly lab: string;
  readonly folder: string;
  readonly since?: string;
  readonly listed: number;
  readonly saved: number;
  readonly skipped: number;
  readonly failed: number;
  readonly bytes: number;
  readonly watermark?: string;
  readonly manifestWritten: boolean;
}

/**
 * `labData.syncReports` (`{ lab? }`): keeps the download folder up to date with one lab, through the
 * core's {@link syncFolder}; this layer adds the progress notifications, the questions and the summary.
 */
export async function syncReports(labs: Labs, prompts: PromptsHolder, log: Logger, ...args: unknown[]): Promise<SyncSummary | undefined> {
  const connection = await labForCommand(labs, prompts.current, commandTargets(args).lab);
  const api = connection?.api;
  const target = api && (await resolveDownloadTarget(prompts.current));
  if (!api || !target) {
    return undefined;
  }
  const lab = { name: api.lab.name, origin: api.origin };
  const { since, listed, run, watermark, manifestWritten } = await syncFolder(api, target, {
    list: (query, from) => listAllReports(api, query, from ? vscode.l10n.t('Checking {0} for new reports…', lab.name) : vscode.l10n.t('Listing reports of {0}…', lab.name)),
    save: (reports, decide) => saveWithProgress(vscode.l10n.t('Syncing reports of {0}…', lab.name), reports, { api, target, prompts: prompts.current, log, decide }),
  });
  const summary = since ? vscode.l10n.t('Sync of {0}: {1} report(s) listed since {2}; {3}', lab.name, listed.length, since, summarize(run)) : vscode.l10n.t('Sync of {0}: {1} report(s) listed; {2}', lab.name, listed.length, summarize(run));
  log.info('Sync', `${summary} Folder: ${target.folder}`);
  run.skipped.filter((skip) => skip.reason !== SKIP_REASONS.upToDate).forEach((skip) => log.info('Sync', `Skipped ${skip.reportId}: ${skip.reason}.`));
  void (run.failed.length > 0 ? vscode.window.showWarningMessage(summary, vscode.l10n.t('Show Log')).then((choice) => choice && log.show()) : vscode.window.showInformationMessage(summary));
  return {
    lab: lab.name,
    folder: target.folder,
    since,
    listed: listed.length,
    saved: run.saved.length,
    skipped: run.skipped.length,
    failed: run.failed.length,
    bytes: run.bytes,
    watermark,
    manifestWritten,
  };
}
