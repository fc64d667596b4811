import * as path from 'node:path';
import { LabApiError, isCancellation } from '../core/errors';
import { cancelledError } from '../core/messages';
import type { LabApi } from '../core/labApi';
import type { Report } from '../core/records';
import { pathExists, reportFileName } from '../core/reportFiles';
import type { ExistingFilePolicy, SavedFile } from '../core/safeWriter';
import type { Logger } from '../log';
import type { ExistingFileChoice, Prompts } from '../ui/prompts';
import type { DownloadTarget } from './targetFolder';

/** What to do with one report: download it (into this name, with this policy) or leave it. */
export type SaveDecision = { readonly action: 'download'; readonly fileName: string; readonly ifExists: ExistingFilePolicy } | { readonly action: 'skip'; readonly reason: string };

export interface SavedReport {
  readonly report: Report;
  readonly file: SavedFile;
}

export interface SaveRun {
  readonly saved: SavedReport[];
  readonly skipped: Array<{ readonly reportId: string; readonly reason: string }>;
  readonly failed: Array<{ readonly reportId: string; readonly error: unknown }>;
  bytes: number;
  cancelled: boolean;
}

export interface SaveOptions {
  readonly api: LabApi;
  readonly target: DownloadTarget;
  readonly prompts: Prompts;
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly concurrency: number;
  /** A standing answer for files that already exist (from command arguments). */
  readonly ifExists?: ExistingFileChoice;
  /** Decides per report; the default asks before touching an existing file. */
  readonly decide?: (report: Report, ask: ExistingFileQuestion) => Promise<SaveDecision>;
  readonly onProgress?: (run: SaveRun, done: number, total: number) => void;
}

/** Asks "overwrite, keep both or skip?" one dialog at a time, remembering "for all" answers. */
export type ExistingFileQuestion = (fileName: string, reason: 'exists' | 'changedLocally') => Promise<ExistingFileChoice>;

/** The safe writer's policy for each answer that writes. */
export const POLICY: Record<Exclude<ExistingFileChoice, 'skip'>, ExistingFilePolicy> = { overwrite: 'overwrite', keepBoth: 'keepBoth' };

/** The default decision: files without a download are skipped; an existing file is asked about. */
export async function decideByExistingFile(report: Report, target: DownloadTarget, lab: string, ask: ExistingFileQuestion): Promise<SaveDecision> {
  if (report.download_available === false) {
    return { action: 'skip', reason: 'no file is available for this report' };
  }
  const fileName = reportFileName(report, target.template, lab);
  if (!(await pathExists(path.join(target.folder, fileName)))) {
    return { action: 'download', fileName, ifExists: 'fail' };
  }
  const choice = await ask(fileName, 'exists');
  return choice === 'skip' ? { action: 'skip', reason: `${fileName} already exists` } : { action: 'download', fileName, ifExists: POLICY[choice] };
}

/**
 * Saves report files into the target folder, at most `concurrency` at a time (the HTTP layer
 * shares one back-off for 429s). One failure never stops the others; cancelling stops them all
 * and leaves no partial file.
 */
export async function saveReports(reports: readonly Report[], options: SaveOptions): Promise<SaveRun> {
  const run: SaveRun = { saved: [], skipped: [], failed: [], bytes: 0, cancelled: false };
  const cancel = new AbortController();
  const signal = AbortSignal.any([options.signal, cancel.signal]);
  let standing = options.ifExists;
  let dialog: Promise<unknown> = Promise.resolve();
  const ask: ExistingFileQuestion = (fileName, reason) => {
    const next = dialog.then(async () => {
      if (standing !== undefined && reason === 'exists') {
        return standing;
      }
      if (signal.aborted) {
        throw cancelledError();
      }
      const answer = await options.prompts.existingFile(fileName, reason, reports.length > 1);
      if (!answer) {
        cancel.abort();
        throw cancelledError();
      }
      if (answer.forAll && reason === 'exists') {
        standing = answer.choice;
      }
      return answer.choice;
    });
    dialog = next.catch(() => undefined);
    return next;
  };
  const decide = options.decide ?? ((report: Report, question: ExistingFileQuestion) => decideByExistingFile(report, options.target, options.api.lab.name, question));
  const inFlightBytes = new Map<string, number>();
  let done = 0;
  const report = (): void => options.onProgress?.({ ...run, bytes: run.bytes + [...inFlightBytes.values()].reduce((a, b) => a + b, 0) }, done, reports.length);

  const saveOne = async (item: Report): Promise<void> => {
    try {
      const decision = await decide(item, ask);
      if (decision.action === 'skip') {
        run.skipped.push({ reportId: item.report_id, reason: decision.reason });
        return;
      }
      const file = await options.api.downloadReportFile(item.report_id, {
        folder: options.target.folder,
        root: options.target.root,
        fileName: decision.fileName,
        ifExists: decision.ifExists,
        signal,
        onProgress: (bytes) => {
          inFlightBytes.set(item.report_id, bytes);
          report();
        },
      });
      run.saved.push({ report: item, file });
      run.bytes += file.bytes;
    } catch (error) {
      if (isCancellation(error) || signal.aborted) {
        run.cancelled = true;
        return;
      }
      run.failed.push({ reportId: item.report_id, error });
      options.log.warn('Save', `Report ${item.report_id} was not saved: ${error instanceof LabApiError ? error.describe() : String(error)}`);
    } finally {
      inFlightBytes.delete(item.report_id);
      done++;
      report();
    }
  };

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < reports.length && !signal.aborted) {
      await saveOne(reports[next++]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, reports.length)) }, worker));
  run.cancelled ||= signal.aborted;
  return run;
}
