import * as vscode from 'vscode';
import { PeriodicCheck, type Timers } from '../../core/derived/newReports';
import { Commands, SETTINGS_SECTION, Settings, Views } from '../constants';
import type { LabConnection } from '../labs/labConnection';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import { phrase } from '../ui/phrase';
import type { NewReports } from './newReports';

/** The shortest interval the setting allows (spec §4.9: no aggressive polling). */
export const MIN_CHECK_MINUTES = 15;

/** The interval in minutes the setting asks for: 0 (off), or at least {@link MIN_CHECK_MINUTES}. */
export function checkMinutes(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    return 0;
  }
  return Math.max(MIN_CHECK_MINUTES, Math.round(value));
}

/** Whether a lab may be asked now: signed in, not known to be unreachable, not inside a rate-limit pause. */
function ready(connection: LabConnection): boolean {
  const state = connection.connection;
  return (
    connection.signedIn &&
    state.kind !== 'offline' &&
    !(state.kind === 'rateLimited' && state.until > Date.now())
  );
}

/**
 * `labData.checkForNewReportsMinutes` (off by default): one request per signed-in lab per
 * interval, never two in flight for one lab, none while a lab is signed out, unreachable or
 * rate-limited. When a lab has more new reports than at the previous check, the Reports view is
 * reloaded (so the rows appear with their marker) and one notification per lab offers Show and Sync.
 */
export class NewReportsChecker implements vscode.Disposable {
  private check?: PeriodicCheck;
  private readonly subscription: vscode.Disposable;
  /** Replaces the clock in tests (they say when an interval has passed); the setting still rules. */
  clockOverride?: Timers;

  constructor(
    private readonly labs: Labs,
    private readonly news: NewReports,
    private readonly reloadReports: () => Promise<void>,
    private readonly log: Logger,
  ) {
    this.subscription = vscode.workspace.onDidChangeConfiguration(
      (event) =>
        event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.checkForNewReportsMinutes}`) &&
        this.restart(),
    );
    this.restart();
  }

  private earlierTicks = 0;
  /** Checks of a lab begun and not yet ended, across restarts. */
  private readonly inFlight = new Set<Promise<void>>();

  /** Settles when every check already begun has ended (for tests: what a round did is then known). */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** Rounds of checks so far, across restarts (diagnostics for tests). */
  get ticks(): number {
    return this.earlierTicks + (this.check?.ticks ?? 0);
  }

  /** Applies the setting (and the test override): stops, and starts again when checking is on. */
  restart(): void {
    this.check?.stop();
    this.earlierTicks += this.check?.ticks ?? 0;
    this.check = undefined;
    const minutes = checkMinutes(
      vscode.workspace.getConfiguration(SETTINGS_SECTION).get(Settings.checkForNewReportsMinutes),
    );
    if (minutes === 0) {
      return;
    }
    this.check = new PeriodicCheck({
      intervalMs: minutes * 60_000,
      ...(this.clockOverride ? { timers: this.clockOverride } : {}),
      targets: () =>
        this.labs.signedIn.map((connection) => ({
          name: connection.lab.name,
          ready: () => ready(connection),
        })),
      check: (name) => this.tracked(this.checkLab(name)),
      onError: (name, error) =>
        this.log.info('New', `Checking ${name} for new reports failed: ${phrase(error)}`),
    });
    this.check.start();
    this.log.info('New', `Checking for new reports every ${minutes} minutes.`);
  }

  dispose(): void {
    this.check?.stop();
    this.subscription.dispose();
  }

  private tracked(check: Promise<void>): Promise<void> {
    const settled = check.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return check;
  }

  private async checkLab(name: string): Promise<void> {
    const connection = this.labs.get(name);
    if (!connection) {
      return;
    }
    const result = await this.news.check(connection);
    if (!result.grew) {
      return;
    }
    await this.reloadReports();
    const show = vscode.l10n.t('Show');
    const sync = vscode.l10n.t('Sync');
    const message =
      result.count === 1
        ? vscode.l10n.t('1 new report from {0}', name)
        : vscode.l10n.t('{0} new reports from {1}', result.count, name);
    void vscode.window.showInformationMessage(message, show, sync).then((choice) => {
      if (choice === show) {
        void vscode.commands.executeCommand(`${Views.reports}.focus`);
      } else if (choice === sync) {
        void vscode.commands.executeCommand(Commands.syncReports, { lab: name });
      }
    });
  }
}
