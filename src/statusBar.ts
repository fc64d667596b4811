import * as vscode from 'vscode';
import type { LabSession } from './auth/labSession';
import { Commands, Views } from './constants';

/** Shows the connection to the lab: host, signed in or out, offline, or rate-limited with the time left. */
export class ConnectionStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('labData.connection', vscode.StatusBarAlignment.Left, 10);
  private readonly subscriptions: vscode.Disposable[];
  private countdown?: ReturnType<typeof setInterval>;

  constructor(private readonly session: LabSession) {
    this.item.name = 'Lab Data Connection';
    this.subscriptions = [session.onDidChangeState(() => this.update()), session.onDidChangeConnection(() => this.update())];
    this.update();
  }

  /** The text shown now, for tests and screen readers. */
  get text(): string {
    return this.item.text;
  }

  update(): void {
    const state = this.session.current;
    const connection = this.session.connection;
    this.stopCountdown();
    if (!state.lab) {
      this.item.hide();
      return;
    }
    const host = state.lab.host;
    if (!state.signedIn) {
      this.set(`$(account) ${vscode.l10n.t('Lab Data: signed out')}`, vscode.l10n.t('Not signed in to {0}. Click to sign in.', state.lab.origin), Commands.signIn);
    } else if (connection.kind === 'offline') {
      this.set(`$(debug-disconnect) ${vscode.l10n.t('{0}: offline', host)}`, vscode.l10n.t('Cannot reach {0}: {1}', state.lab.origin, connection.reason), `workbench.view.extension.${Views.container}`);
    } else if (connection.kind === 'rateLimited' && connection.until > Date.now()) {
      const render = (): void => {
        const seconds = Math.max(0, Math.ceil((connection.until - Date.now()) / 1000));
        this.set(
          `$(watch) ${vscode.l10n.t('{0}: rate-limited {1}', host, `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`)}`,
          vscode.l10n.t('The lab is limiting requests; Lab Data waits until {0}.', new Date(connection.until).toLocaleTimeString()),
          undefined,
        );
        if (seconds === 0) {
          this.update();
        }
      };
      render();
      this.countdown = setInterval(render, 1000);
    } else {
      this.set(`$(beaker) ${host}`, vscode.l10n.t('Lab Data: signed in to {0}', state.lab.origin), `workbench.view.extension.${Views.container}`);
    }
    this.item.show();
  }

  dispose(): void {
    this.stopCountdown();
    this.subscriptions.forEach((subscription) => subscription.dispose());
    this.item.dispose();
  }

  private set(text: string, tooltip: string, command: string | undefined): void {
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.command = command;
    this.item.accessibilityInformation = { label: text.replace(/\$\([^)]+\)\s*/g, '') };
  }

  private stopCountdown(): void {
    if (this.countdown) {
      clearInterval(this.countdown);
      this.countdown = undefined;
    }
  }
}
