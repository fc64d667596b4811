import * as vscode from 'vscode';
import { Commands } from './constants';
import type { LabConnection } from './labs/labConnection';
import type { Labs } from './labs/labs';
import type { NewReports } from './news/newReports';
import type { Activity } from './ui/activity';
import { displayFormat } from './ui/displayLocale';

/** One lab's state in a few words, for the status bar's tooltip and menu. */
function describe(connection: LabConnection): string {
  const state = connection.connection;
  if (!connection.signedIn) {
    return vscode.l10n.t('signed out');
  }
  if (state.kind === 'offline') {
    return vscode.l10n.t('unreachable: {0}', state.reason);
  }
  if (state.kind === 'rateLimited' && state.until > Date.now()) {
    return vscode.l10n.t('rate-limited until {0}', displayFormat().time(new Date(state.until)));
  }
  return vscode.l10n.t('signed in');
}

/**
 * Several labs in a few words that say what of them: "2 of 4 labs signed in", "1 of 4 labs
 * unreachable" (signed in, not answering), "Lab Data: signed out".
 */
function labsInWords(signedIn: number, answering: number, total: number): string {
  if (signedIn === 0) {
    return `$(account) ${vscode.l10n.t('Lab Data: signed out')}`;
  }
  const unreachable = signedIn - answering;
  return unreachable > 0
    ? `$(warning) ${vscode.l10n.t('{0} of {1} labs unreachable', unreachable, total)}`
    : `$(beaker) ${vscode.l10n.t('{0} of {1} labs signed in', signedIn, total)}`;
}

/**
 * Says what matters about the labs in a few words (signed out, unreachable, rate-limited until
 * when, syncing, how many new reports) and opens the Lab Data menu on click.
 */
export class ConnectionStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'labData.connection',
    vscode.StatusBarAlignment.Left,
    10,
  );
  private readonly subscriptions: vscode.Disposable[];
  private limitEnds?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly labs: Labs,
    private readonly news?: NewReports,
    private readonly activity?: Activity,
  ) {
    this.item.name = 'Lab Data';
    this.item.command = Commands.statusMenu;
    this.subscriptions = [
      labs.onDidChange(() => this.update()),
      labs.onDidChangeConnection(() => this.update()),
    ];
    if (news) {
      this.subscriptions.push(news.onDidChange(() => this.update()));
    }
    if (activity) {
      this.subscriptions.push(activity.onDidChange(() => this.update()));
    }
    this.update();
  }

  /** The text shown now, for tests and screen readers. */
  get text(): string {
    return this.item.text;
  }

  /** The tooltip shown now. */
  get tooltip(): string {
    return typeof this.item.tooltip === 'string'
      ? this.item.tooltip
      : (this.item.tooltip?.value ?? '');
  }

  update(): void {
    this.clearTimer();
    const click = vscode.l10n.t('Click for the Lab Data menu.');
    const entries = this.labs.entries;
    const busy = this.activity?.current;
    const fresh = this.news?.total ?? 0;
    const newText = fresh > 0 ? ` · ${vscode.l10n.t('{0} new', fresh)}` : '';
    if (entries.length === 0) {
      this.set(
        `$(account) ${vscode.l10n.t('Lab Data: signed out')}`,
        `${vscode.l10n.t('No lab is set up yet.')}\n${click}`,
      );
      return;
    }
    if (busy) {
      this.set(`$(sync~spin) ${vscode.l10n.t('{0}…', busy)}`, `${busy}\n${click}`);
      return;
    }
    if (entries.length > 1) {
      const lines = entries.map((entry) =>
        entry.kind === 'invalid'
          ? `${entry.lab.name}: ${vscode.l10n.t('misconfigured')}`
          : `${entry.connection.lab.name} (${entry.connection.lab.url.host}): ${describe(entry.connection)}`,
      );
      const signedIn = this.labs.signedIn.length;
      // The labs that answer: signed in and reachable (a lab limiting requests still answers).
      const answering = this.labs.signedIn.filter(
        (connection) => connection.connection.kind !== 'offline',
      ).length;
      this.set(
        `${labsInWords(signedIn, answering, entries.length)}${newText}`,
        `${vscode.l10n.t('Lab Data: {0} of {1} labs signed in, {2} answering', signedIn, entries.length, answering)}\n${lines.join('\n')}\n${click}`,
      );
      return;
    }
    const [entry] = entries;
    if (entry!.kind === 'invalid') {
      this.set(
        `$(warning) ${vscode.l10n.t('Lab Data: misconfigured')}`,
        `${entry!.lab.error.message}\n${click}`,
      );
      return;
    }
    const connection = entry!.connection;
    // Named as every title names it; its address is in the tooltip.
    const { name } = connection.lab;
    const { origin } = connection.lab.url;
    const state = connection.connection;
    if (!connection.signedIn) {
      this.set(
        `$(account) ${vscode.l10n.t('Lab Data: signed out')}`,
        `${vscode.l10n.t('Not signed in to {0}.', origin)}\n${click}`,
      );
    } else if (state.kind === 'offline') {
      this.set(
        `$(debug-disconnect) ${vscode.l10n.t('{0}: unreachable', name)}`,
        // The reason is the whole sentence ("Cannot reach the lab at … (…)."); said once.
        `${state.reason}\n${click}`,
      );
    } else if (state.kind === 'rateLimited' && state.until > Date.now()) {
      const until = displayFormat().time(new Date(state.until));
      this.set(
        `$(watch) ${vscode.l10n.t('{0}: rate-limited until {1}', name, until)}`,
        `${vscode.l10n.t('The lab is limiting requests; Lab Data waits until {0}.', until)}\n${click}`,
      );
      this.limitEnds = setTimeout(() => this.update(), state.until - Date.now() + 50);
    } else {
      this.set(
        `$(beaker) ${name}${newText}`,
        `${vscode.l10n.t('Lab Data: signed in to {0} ({1})', name, origin)}${fresh > 0 ? `\n${vscode.l10n.t('{0} new reports since you last looked', fresh)}` : ''}\n${click}`,
      );
    }
  }

  dispose(): void {
    this.clearTimer();
    this.subscriptions.forEach((subscription) => subscription.dispose());
    this.item.dispose();
  }

  private set(text: string, tooltip: string): void {
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: text.replace(/\$\([^)]+\)\s*/g, '') };
    this.item.show();
  }

  private clearTimer(): void {
    if (this.limitEnds) {
      clearTimeout(this.limitEnds);
      this.limitEnds = undefined;
    }
  }
}
