import * as path from 'node:path';
import * as vscode from 'vscode';
import { fileSha256, pathExists, reportFileName } from '../core/reportFiles';
import type { Report } from '../core/records';
import { afterSync, decideSync, deletedSinceLastSync, plannedFileName, readManifest, sectionFor, updateManifest, type SyncDecision } from '../core/syncPlan';
import { POLICY, type SaveDecision, type ExistingFileQuestion } from '../downloads/reportSaver';
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

const SKIP_REASONS: Readonly<Record<Extract<SyncDecision, { action: 'skip' }>['reason'], string>> = {
  noFile: 'no file is available for this report',
  upToDate: 'up to date',
  changedLocallyKept: 'changed locally; the lab has no newer version, so the local file is kept',
};

/** Turns the core's plan for one report into what the saver does, asking a person when the plan says so. */
async function toSaveDecision(decision: SyncDecision, ask: ExistingFileQuestion): Promise<SaveDecision> {
  switch (decision.action) {
    case 'skip':
      return { action: 'skip', reason: SKIP_REASONS[decision.reason] };
    case 'download':
      return decision;
    case 'ask': {
      const choice = await ask(decision.fileName, decision.reason);
      return choice === 'skip' ? { action: 'skip', reason: decision.reason === 'changedLocally' ? 'changed locally; kept' : `${decision.fileName} already exists` } : { action: 'download', fileName: decision.fileName, ifExists: POLICY[choice] };
    }
  }
}

/**
 * `labData.syncReports` (`{ lab? }`): keeps the download folder up to date with one lab. The
 * folder's manifest keeps a section per lab recording each file (report id, published time, size,
 * SHA-256, save time, source path) and the lab's watermark; the next sync lists only reports
 * published since then, re-fetches files deleted locally, and never overwrites a locally changed
 * file without asking. The planning itself lives in the core (`syncPlan`).
 */
export async function syncReports(labs: Labs, prompts: PromptsHolder, log: Logger, ...args: unknown[]): Promise<SyncSummary | undefined> {
  const connection = await labForCommand(labs, prompts.current, commandTargets(args).lab);
  const api = connection?.api;
  const target = api && (await resolveDownloadTarget(prompts.current));
  if (!api || !target) {
    return undefined;
  }
  const lab = { name: api.lab.name, origin: api.origin };
  const manifest = await readManifest(target.folder);
  const section = sectionFor(manifest, lab);
  const since = section.watermark;
  const listed = await listAllReports(api, since ? { publishedSince: since } : {}, since ? vscode.l10n.t('Checking {0} for new reports…', lab.name) : vscode.l10n.t('Listing reports of {0}…', lab.name), log);
  const missing = await deletedSinceLastSync(section, new Set(listed.map((report) => report.report_id)), (file) => pathExists(path.join(target.folder, file)));
  const fileNameOf = (report: Report): string => plannedFileName(report, section, (candidate) => reportFileName(candidate, target.template, lab.name));
  const run = await saveWithProgress(vscode.l10n.t('Syncing reports of {0}…', lab.name), [...listed, ...missing], {
    api,
    target,
    prompts: prompts.current,
    log,
    decide: async (report, ask) => {
      const fileName = fileNameOf(report);
      const sha = report.download_available === false ? undefined : await fileSha256(path.join(target.folder, fileName));
      return toSaveDecision(decideSync(report, section.files[report.report_id], fileName, sha), ask);
    },
  });
  let watermark = section.watermark;
  const manifestWritten = await updateManifest(target.folder, lab, (current) => {
    const next = afterSync(current, listed, run.saved, { complete: run.failed.length === 0 && !run.cancelled, savedAt: new Date().toISOString(), sourceOf: (id) => api.paths.reportFile(id) });
    watermark = next.section.watermark;
    return next.changed ? next.section : undefined;
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
