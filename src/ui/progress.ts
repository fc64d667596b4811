import * as vscode from 'vscode';

type Report = { message?: string; increment?: number };

/** A progress notification of late (for the extension's API to tests): its title, when it started, the delay it was scheduled at, when it showed, what it said. */
export interface ProgressShown {
  readonly title: string;
  readonly startedAt: number;
  /** How long after `startedAt` the notification was scheduled to appear (a busy machine's timer fires later). */
  readonly delayMs: number;
  shownAt?: number;
  readonly messages: string[];
}

/** The progress of the work started lately (newest last, at most 20). */
export const progressShown: ProgressShown[] = [];

/**
 * How long work runs before its progress notification appears: quick work shows none. Well under
 * the half second within which a person waiting must see something, since a busy machine's timers
 * fire late (400 ms showed after 600 ms in a loaded test host).
 */
export const PROGRESS_DELAY_MS = 250;

/**
 * `vscode.window.withProgress` in a notification with a Cancel button, shown only when the work
 * lasts longer than {@link PROGRESS_DELAY_MS}: a save of one small file or a sync with nothing new
 * flashes nothing, and never leaves a "0 of 1 files" notification beside its result. The task gets
 * the same progress and cancellation token either way; what it reported before the notification
 * appeared is shown at once.
 */
export function withNotificationProgress<T>(
  title: string,
  task: (progress: vscode.Progress<Report>, token: vscode.CancellationToken) => Thenable<T>,
  delayMs = PROGRESS_DELAY_MS,
): Promise<T> {
  const cancellation = new vscode.CancellationTokenSource();
  let shown: vscode.Progress<Report> | undefined;
  let message: string | undefined;
  let increment = 0;
  const record: ProgressShown = { title, startedAt: Date.now(), delayMs, messages: [] };
  progressShown.push(record);
  progressShown.splice(0, Math.max(0, progressShown.length - 20));
  const progress: vscode.Progress<Report> = {
    report: (value) => {
      if (value.message !== undefined) {
        record.messages.push(value.message);
      }
      message = value.message ?? message;
      increment += value.increment ?? 0;
      shown?.report(value);
    },
  };
  const running = Promise.resolve(task(progress, cancellation.token));
  const timer = setTimeout(() => {
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (notification, token) => {
        token.onCancellationRequested(() => cancellation.cancel());
        shown = notification;
        record.shownAt = Date.now();
        if (message !== undefined || increment > 0) {
          notification.report({ message, increment });
        }
        return running.then(
          () => undefined,
          () => undefined,
        );
      },
    );
  }, delayMs);
  return running.finally(() => {
    clearTimeout(timer);
    cancellation.dispose();
  });
}
