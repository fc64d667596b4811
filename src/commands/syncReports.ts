import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import { laterTimestamp, fileSha256, pathExists, readManifest, reportFileName, writeManifest, type ManifestEntry, type SyncManifest } from '../core/reportFiles';
import type { Report } from '../core/records';
import { POLICY, type SaveDecision, type ExistingFileQuestion } from '../downloads/reportSaver';
import { saveWithProgress, summarize } from '../downloads/saveWithProgress';
import type { DownloadTarget } from '../downloads/targetFolder';
import type { Logger } from '../log';
import type { PromptsHolder } from '../ui/prompts';
import { listAllReports } from './saveAllReports';
import { signedInDownload } from './signedInApi';

export interface SyncSummary {
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

/** Decides what a sync does with one report, from the manifest and the file on disk. */
async function decide(report: Report, manifest: SyncManifest, target: DownloadTarget, ask: ExistingFileQuestion): Promise<SaveDecision> {
  if (report.download_available === false) {
    return { action: 'skip', reason: 'no file is available for this report' };
  }
  const entry = manifest.files[report.report_id];
  const fileName = entry?.file ?? reportFileName(report, target.template);
  const sha = await fileSha256(path.join(target.folder, fileName));
  if (sha === undefined) {
    return { action: 'download', fileName, ifExists: 'fail' };
  }
  if (entry && sha === entry.sha256) {
    return entry.published_at === report.published_at ? { action: 'skip', reason: 'up to date' } : { action: 'download', fileName, ifExists: 'overwrite' };
  }
  if (entry && entry.published_at === report.published_at) {
    return { action: 'skip', reason: 'changed locally; the lab has no newer version, so the local file is kept' };
  }
  const choice = await ask(fileName, entry ? 'changedLocally' : 'exists');
  return choice === 'skip' ? { action: 'skip', reason: entry ? 'changed locally; kept' : `${fileName} already exists` } : { action: 'download', fileName, ifExists: POLICY[choice] };
}

/**
 * `labData.syncReports`: keeps the download folder up to date. A manifest in the folder records each
 * file (report id, published time, size, SHA-256, save time, source path) and a watermark; the next
 * sync lists only reports published since then, re-fetches files deleted locally, and never
 * overwrites a locally changed file without asking.
 */
export async function syncReports(session: LabSession, prompts: PromptsHolder, log: Logger): Promise<SyncSummary | undefined> {
  const context = await signedInDownload(session, prompts);
  if (!context) {
    return undefined;
  }
  const { api, target } = context;
  const lab = `${api.http.baseUrl.origin}${api.http.baseUrl.apiPath}`;
  const manifest = await readManifest(target.folder, lab);
  const since = manifest.watermark;
  const listed = await listAllReports(api, since ? { publishedSince: since } : {}, since ? 'Checking for new reports…' : 'Listing reports…', log);
  const listedIds = new Set(listed.map((report) => report.report_id));
  // Files saved by an earlier sync and deleted locally since: fetch them again, by id, without listing.
  const missing: Report[] = [];
  for (const entry of Object.values(manifest.files)) {
    if (!listedIds.has(entry.report_id) && !(await pathExists(path.join(target.folder, entry.file)))) {
      missing.push({ report_id: entry.report_id, published_at: entry.published_at, download_available: true, raw: { report_id: entry.report_id } });
    }
  }
  const candidates = [...listed, ...missing];
  const run = await saveWithProgress('Syncing reports…', candidates, {
    api,
    target,
    prompts: prompts.current,
    log,
    decide: (report, ask) => decide(report, manifest, target, ask),
  });
  const files: Record<string, ManifestEntry> = { ...manifest.files };
  const savedAt = new Date().toISOString();
  for (const { report, file } of run.saved) {
    files[report.report_id] = {
      report_id: report.report_id,
      file: file.fileName,
      published_at: report.published_at ?? files[report.report_id]?.published_at,
      bytes: file.bytes,
      sha256: file.sha256,
      saved_at: savedAt,
      source: `${api.http.baseUrl.apiPath}/reports/${encodeURIComponent(report.report_id)}/file`,
    };
  }
  // Advance the watermark only when nothing failed, so a failed report is listed again next time.
  const watermark = run.failed.length === 0 && !run.cancelled ? listed.reduce<string | undefined>((latest, report) => laterTimestamp(latest, report.published_at), since) : since;
  const manifestWritten = run.saved.length > 0 || watermark !== since;
  if (manifestWritten) {
    await writeManifest(target.folder, { version: 1, lab, watermark, files });
  }
  const summary = `Sync: ${listed.length} report(s) listed${since ? ` since ${since}` : ''}; ${summarize(run)}`;
  log.info('Sync', `${summary} Folder: ${target.folder}`);
  run.skipped.filter((skip) => skip.reason !== 'up to date').forEach((skip) => log.info('Sync', `Skipped ${skip.reportId}: ${skip.reason}.`));
  void (run.failed.length > 0 ? vscode.window.showWarningMessage(summary, vscode.l10n.t('Show Log')).then((choice) => choice && log.show()) : vscode.window.showInformationMessage(summary));
  return { folder: target.folder, since, listed: listed.length, saved: run.saved.length, skipped: run.skipped.length, failed: run.failed.length, bytes: run.bytes, watermark, manifestWritten };
}
