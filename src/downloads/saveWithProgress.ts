import * as vscode from 'vscode';
import { withNotificationProgress } from '../ui/progress';
import { toAbortSignal } from '../cancellation';
import type { Report } from '../../core/api/records';
import { SETTINGS_SECTION, Settings } from '../constants';
import {
  NO_FILE,
  saveReports,
  type SaveOptions,
  type SaveRun,
  type SkippedReport,
} from '../../core/sync/bulkSave';
import type { Logger } from '../log';
import type { Prompts } from '../ui/prompts';
import { formatBytes } from '../../core/files/sizes';
import { withContentCache } from './teamCache';
import { shownFolder } from './targetFolder';
import { sayingRetries } from './retryProgress';

export interface SaveWithProgressOptions extends Omit<
  SaveOptions,
  'signal' | 'onProgress' | 'concurrency' | 'ask' | 'warn'
> {
  readonly prompts: Prompts;
  readonly log: Logger;
}

/**
 * Runs {@link saveReports} under a cancellable notification that counts files and bytes, as many
 * at a time as the lab allows. Existing files are asked about with the prompts; failures go to the log.
 */
export function saveWithProgress(
  title: string,
  reports: readonly Report[],
  options: SaveWithProgressOptions,
): Thenable<SaveRun> {
  const { prompts, log, ...rest } = options;
  const concurrency =
    options.api.lab.maxConcurrentRequests ??
    vscode.workspace
      .getConfiguration(SETTINGS_SECTION)
      .get<number>(Settings.maxConcurrentRequests, 4);
  return withNotificationProgress(title, (progress, token) => {
    let reported = 0;
    // Every saved file is also kept in the content cache (a folder, or the team's server); a retry is said.
    return sayingRetries(options.api, progress, () =>
      withContentCache(log, (cache) =>
        saveReports(reports, {
          cache,
          ...rest,
          concurrency,
          signal: toAbortSignal(token),
          ask: (fileName, reason, more) => prompts.existingFile(fileName, reason, more),
          warn: (message) => log.warn('Save', message),
          onProgress: ({ done, total, bytes }) => {
            const percent = total > 0 ? (done / total) * 100 : 0;
            progress.report({
              message: vscode.l10n.t('{0} of {1} files, {2}', done, total, formatBytes(bytes)),
              increment: percent - reported,
            });
            reported = percent;
          },
        }),
      ),
    );
  });
}

/** Why reports were skipped, counted by reason: "2 without a file, 1 changed locally, kept". */
export function skipReasons(skipped: readonly SkippedReport[]): string {
  const counts = new Map<string, number>();
  for (const skip of skipped) {
    const reason = / already exists$/.test(skip.reason)
      ? vscode.l10n.t('already there, kept')
      : skip.reason === NO_FILE
        ? vscode.l10n.t('without a file')
        : skip.reason;
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts].map(([reason, count]) => `${count} ${reason}`).join(', ');
}

/** Files of a run left alone because they are the lab's files already. */
export function upToDateCount(run: SaveRun): number {
  return run.skipped.filter((skip) => skip.upToDate).length;
}

/**
 * A run's outcome after its first part (what was saved, in the caller's words): already up to
 * date, skipped (why), failed, cancelled, as one sentence ending in a full stop.
 */
export function outcome(first: string, run: SaveRun): string {
  const upToDate = upToDateCount(run);
  const others = run.skipped.filter((skip) => !skip.upToDate);
  const parts = [
    first,
    upToDate > 0 ? vscode.l10n.t('{0} already up to date', upToDate) : undefined,
    others.length > 0
      ? vscode.l10n.t('{0} skipped ({1})', others.length, skipReasons(others))
      : undefined,
    run.failed.length > 0
      ? vscode.l10n.t('{0} failed (see the log)', run.failed.length)
      : undefined,
  ].filter(Boolean);
  return `${parts.join(', ')}${run.cancelled ? vscode.l10n.t('; cancelled') : ''}.`;
}

/** One sentence that sums a run into `folder` up: saved where, already up to date, skipped (why), failed. */
export function summarize(run: SaveRun, folder: string): string {
  return outcome(
    vscode.l10n.t(
      '{0} saved to {1} ({2})',
      run.saved.length,
      `${shownFolder(folder)}/`,
      formatBytes(run.bytes),
    ),
    run,
  );
}
