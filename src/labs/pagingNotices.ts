import * as vscode from 'vscode';
import type { PagingAnomaly } from '../../core/api/pagination';
import type { Logger } from '../log';

/** How long one lab's "the list may be incomplete" warning keeps quiet after it was shown. */
const QUIET_MS = 10 * 60 * 1000;

/**
 * Tells the user when a lab's list could not be walked with certainty (every walk, whoever asked:
 * save-all, sync, search, export, overview, chat). Every anomaly goes to the log; those that mean
 * records may be missing also show a warning, at most once per lab in ten minutes.
 */
export class PagingNotices {
  private readonly lastShown = new Map<string, number>();

  constructor(private readonly log: Logger) {}

  report(labName: string, anomaly: PagingAnomaly): void {
    const sentence = PagingNotices.sentence(labName, anomaly);
    if (
      anomaly.kind === 'sequential' ||
      anomaly.kind === 'duplicates' ||
      anomaly.kind === 'foreignLink'
    ) {
      this.log.info('List', sentence);
      return;
    }
    this.log.warn('List', sentence);
    const now = Date.now();
    if (now - (this.lastShown.get(labName) ?? 0) >= QUIET_MS) {
      this.lastShown.set(labName, now);
      void vscode.window.showWarningMessage(sentence);
    }
  }

  static sentence(labName: string, anomaly: PagingAnomaly): string {
    switch (anomaly.kind) {
      case 'fewerThanCounted':
        return vscode.l10n.t(
          '{0}: the list may be incomplete: the lab counted {1} records but its pages held {2}.',
          labName,
          anomaly.counted,
          anomaly.received,
        );
      case 'repeatedPage':
        return vscode.l10n.t(
          '{0}: the list may be incomplete: from page {1} the lab sent only records it had already sent.',
          labName,
          anomaly.page,
        );
      case 'pageCap':
        return vscode.l10n.t(
          '{0}: the list may be incomplete: stopped before page {1}, the most pages Lab Data reads of one list.',
          labName,
          anomaly.page,
        );
      case 'duplicates':
        return vscode.l10n.t(
          '{0}: page {1} repeated {2} records already listed; each is shown once.',
          labName,
          anomaly.page,
          anomaly.count,
        );
      case 'foreignLink':
        return vscode.l10n.t(
          "{0}: the lab's link to the page after page {1} points to another server; pages are asked for by number instead.",
          labName,
          anomaly.page,
        );
      case 'sequential':
        return vscode.l10n.t(
          "{0}: the lab's paging did not hold at page {1}; the rest is listed one page at a time.",
          labName,
          anomaly.page,
        );
    }
  }
}
