import * as vscode from 'vscode';
import type { LabApi } from '../../core/api/labApi';
import { retryCause, type RetryNotice } from '../../core/connection/retryNotices';

/** A retry in words for a progress line: "Main lab did not answer; trying again (2 of 3)…". */
export function retryWords(notice: RetryNotice): string {
  const { lab, attempt, of } = notice;
  switch (retryCause(notice)) {
    case 'noAnswer':
      return vscode.l10n.t('{0} did not answer; trying again ({1} of {2})…', lab, attempt, of);
    case 'rateLimited':
      return vscode.l10n.t(
        '{0} asks to wait {1} s; trying again ({2} of {3})…',
        lab,
        Math.ceil(notice.delayMs / 1000),
        attempt,
        of,
      );
    case 'status':
      return vscode.l10n.t(
        '{0} answered HTTP {1}; trying again ({2} of {3})…',
        lab,
        notice.error.status ?? '',
        attempt,
        of,
      );
    case 'unreachable':
      return vscode.l10n.t(
        '{0} could not be reached; trying again ({1} of {2})…',
        lab,
        attempt,
        of,
      );
  }
}

/**
 * Says each retry `api` makes in `progress` while `work` runs, so bulk work on a lab that does
 * not answer says what it is doing instead of seeming to hang.
 */
export async function sayingRetries<T>(
  api: LabApi,
  progress: vscode.Progress<{ message?: string }>,
  work: () => Thenable<T> | Promise<T>,
): Promise<T> {
  const stop = api.onRetry((notice) => progress.report({ message: retryWords(notice) }));
  try {
    return await work();
  } finally {
    stop();
  }
}
