import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import type { Report } from '../core/records';
import { saveReports, type SaveOptions, type SaveRun } from './reportSaver';

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/** Runs {@link saveReports} under a cancellable notification that counts files and bytes. */
export function saveWithProgress(title: string, reports: readonly Report[], options: Omit<SaveOptions, 'signal' | 'onProgress'>): Thenable<SaveRun> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => {
    let reported = 0;
    return saveReports(reports, {
      ...options,
      signal: toAbortSignal(token),
      onProgress: (run, done, total) => {
        const percent = total > 0 ? (done / total) * 100 : 0;
        progress.report({ message: `${done} of ${total} files, ${formatBytes(run.bytes)}`, increment: percent - reported });
        reported = percent;
      },
    });
  });
}

/** One sentence that sums a run up: saved, skipped, failed. */
export function summarize(run: SaveRun): string {
  const parts = [`${run.saved.length} saved (${formatBytes(run.bytes)})`];
  if (run.skipped.length > 0) {
    parts.push(`${run.skipped.length} skipped`);
  }
  if (run.failed.length > 0) {
    parts.push(`${run.failed.length} failed (see the log)`);
  }
  return `${parts.join(', ')}${run.cancelled ? '; cancelled' : ''}.`;
}
