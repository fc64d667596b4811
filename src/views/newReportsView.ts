import * as vscode from 'vscode';
import { ContextKeys } from '../constants';
import type { LabNode } from './nodes';
import { DEFAULT_LOOK_MS, type NewReports } from '../news/newReports';

/**
 * Shows new reports on the Reports view (a count badge) and decides when the user has looked:
 * the view visible in a focused window for a few seconds. A look moves the marks and clears the
 * badge; the rows keep their "new" marker until the list is next drawn, so what the user is
 * reading does not change under them.
 */
export class NewReportsView implements vscode.Disposable {
  private timer?: ReturnType<typeof setTimeout>;
  private readonly subscriptions: vscode.Disposable[];
  /** How long a look takes (shortened by tests through the extension's test API). */
  lookMs = DEFAULT_LOOK_MS;
  /** Looks so far (diagnostics for tests). */
  looks = 0;

  constructor(
    private readonly news: NewReports,
    private readonly view: vscode.TreeView<LabNode>,
  ) {
    this.subscriptions = [
      news.onDidChange(() => {
        this.showBadge();
        this.scheduleLook();
      }),
      view.onDidChangeVisibility(() => this.scheduleLook()),
      vscode.window.onDidChangeWindowState(() => this.scheduleLook()),
    ];
    this.showBadge();
  }

  /** The badge number shown now (0 when none). */
  get badge(): number {
    return this.view.badge?.value ?? 0;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.subscriptions.forEach((subscription) => subscription.dispose());
  }

  private showBadge(): void {
    const total = this.news.total;
    this.view.badge =
      total > 0
        ? { value: total, tooltip: vscode.l10n.t('{0} new report(s) since you last looked', total) }
        : undefined;
    void vscode.commands.executeCommand('setContext', ContextKeys.hasNewReports, total > 0);
  }

  /** (Re)starts the look timer while the view is visible, there is something new and the window has focus. */
  private scheduleLook(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.view.visible || !vscode.window.state.focused || this.news.total === 0) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.view.visible && vscode.window.state.focused) {
        this.looks++;
        void this.news.markSeen();
      }
    }, this.lookMs);
  }
}
