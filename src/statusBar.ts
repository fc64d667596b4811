import * as vscode from 'vscode';
import { Commands, Views } from './constants';
import type { LabConnection } from './labs/labConnection';
import type { Labs } from './labs/labs';

/** One lab's state in a few words, for the status bar and its tooltip. */
function describe(connection: LabConnection): string {
  const state = connection.connection;
  if (!connection.signedIn) {
    return vscode.l10n.t('signed out');
  }
  if (state.kind === 'offline') {
    return vscode.l10n.t('unreachable: {0}', state.reason);
  }
  if (state.kind === 'rateLimited' && state.until > Date.now()) {
    return vscode.l10n.t('rate-limited until {0}', new Date(state.until).toLocaleTimeString());
  }
  return vscode.l10n.t('signed in');
}

/**
 * Summarises the labs: with one, its host and whether it is signed in, offline or rate-limited
 * (with the time left); with several, "N labs", and each lab's state in the tooltip.
 */
export class ConnectionStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('labData.connection', vscode.StatusBarAlignment.Left, 10);
  private readonly subscriptions: vscode.Disposable[];
  private countdown?: ReturnType<typeof setInterval>;

  constructor(private readonly labs: Labs) {
    this.item.name = 'Lab Data Connection';
    this.subscriptions = [labs.onDidChange(() => this.update()), labs.onDidChangeConnection(() => this.update())];
    this.update();
  }

  /** The text shown now, for tests and screen readers. */
  get text(): string {
    return this.item.text;
  }

  /** The tooltip shown now. */
  get tooltip(): string {
    return typeof this.item.tooltip === 'string' ? this.item.tooltip : (this.item.tooltip?.value ?? '');
  }

  update(): void {
    this.stopCountdown();
    const entries = this.labs.entries;
    if (entries.length === 0) {
      this.item.hide();
      return;
    }
    const showView = `workbench.view.extension.${Views.container}`;
    if (entries.length > 1) {
      const lines = entries.map((entry) => (entry.kind === 'invalid' ? `${entry.lab.name}: ${vscode.l10n.t('misconfigured')}` : `${entry.connection.lab.name} (${entry.connection.lab.url.host}): ${describe(entry.connection)}`));
      const signedIn = this.labs.signedIn.length;
      this.set(`$(beaker) ${vscode.l10n.t('{0} labs', entries.length)}`, `${vscode.l10n.t('Lab Data: {0} of {1} labs signed in', signedIn, entries.length)}\n${lines.join('\n')}`, signedIn > 0 ? showView : Commands.signIn);
      this.item.show();
      return;
    }
    const [entry] = entries;
    if (entry!.kind === 'invalid') {
      this.set(`$(warning) ${vscode.l10n.t('Lab Data: misconfigured')}`, entry!.lab.error.message, 'workbench.action.openSettings');
      this.item.show();
      return;
    }
    const connection = entry!.connection;
    const { host, origin } = connection.lab.url;
    const state = connection.connection;
    if (!connection.signedIn) {
      this.set(`$(account) ${vscode.l10n.t('Lab Data: signed out')}`, vscode.l10n.t('Not signed in to {0}. Click to sign in.', origin), Commands.signIn);
    } else if (state.kind === 'offline') {
      this.set(`$(debug-disconnect) ${vscode.l10n.t('{0}: offline', host)}`, vscode.l10n.t('Cannot reach {0}: {1}', origin, state.reason), showView);
    } else if (state.kind === 'rateLimited' && state.until > Date.now()) {
      const render = (): void => {
        const seconds = Math.max(0, Math.ceil((state.until - Date.now()) / 1000));
        this.set(
          `$(watch) ${vscode.l10n.t('{0}: rate-limited {1}', host, `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`)}`,
          vscode.l10n.t('The lab is limiting requests; Lab Data waits until {0}.', new Date(state.until).toLocaleTimeString()),
          undefined,
        );
        if (seconds === 0) {
          this.update();
        }
      };
      render();
      this.countdown = setInterval(render, 1000);
    } else {
      this.set(`$(beaker) ${host}`, vscode.l10n.t('Lab Data: signed in to {0}', origin), showView);
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
