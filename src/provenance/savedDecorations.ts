import * as vscode from 'vscode';
import { serverText } from '../../core/errors/serverText';
import type { Labs } from '../labs/labs';
import type { SavedReportFindings } from './savedReports';
import type { SavedFile, SavedReportStates } from './savedStates';
import { AMENDED_SINCE_USED_COLOR, CHANGED_LOCALLY_COLOR, SAVED_BADGES } from './savedBadges';

/**
 * What the uses of reports say of a file (the impact, `impact/impactState.ts`): for a script or
 * notebook, the reports amended since it used them; for a saved report, how many consumers used
 * an older revision of it.
 */
export interface AmendedUses {
  readonly onDidChange: vscode.Event<void>;
  /** "RPT-… revision 1 → 2" for each report a consumer (its absolute path) used an older revision of. */
  amendedSince(file: string): readonly string[];
  /** How many scripts and notebooks used another revision of a lab's report than the one recorded. */
  olderUsers(origin: string, reportId: string): number;
}

/**
 * "Saved from Meridian Analytical Laboratories · revision 2": where a file came from, the lab named
 * as this machine knows the lab at its origin, else as the manifest names it.
 */
function savedFrom(file: SavedFile, labs: Labs): string {
  const known = labs.all.find((connection) => connection.lab.url.origin === file.origin);
  const lab = known?.lab.name ?? serverText(file.section, 120);
  return file.revision === undefined
    ? vscode.l10n.t('Saved from {0}', lab)
    : vscode.l10n.t('Saved from {0} · revision {1}', lab, serverText(file.revision, 40));
}

/**
 * The Explorer's decoration of each saved report file: where it came from (the lab and revision,
 * since two labs' files of one id may sit in one folder) and its state. A subtle badge when it is
 * as saved, Lab Data's own badge and color when it was changed locally, and the last verification's
 * finding when there is one (missing, changed at the lab, not checked).
 */
export class SavedFileDecorations implements vscode.FileDecorationProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri | vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly labs: Labs,
    private readonly states: SavedReportStates,
    private readonly findings: SavedReportFindings,
    private readonly amended?: AmendedUses,
  ) {
    this.subscriptions = [
      states.onDidChangeFiles(() => this.changed.fire(undefined)),
      findings.onDidChangeFileDecorations((uris) => this.changed.fire(uris)),
      ...(amended ? [amended.onDidChange(() => this.changed.fire(undefined))] : []),
    ];
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== 'file') {
      return undefined;
    }
    const saved = this.states.fileAt(uri.fsPath);
    if (!saved) {
      return this.consumerDecoration(uri) ?? this.findings.provideFileDecoration(uri);
    }
    const olderUsers = this.amended?.olderUsers(saved.origin, saved.reportId) ?? 0;
    const used =
      olderUsers > 0
        ? [vscode.l10n.t('{0} script(s) or notebook(s) used an older revision', olderUsers)]
        : [];
    const finding = this.findings.provideFileDecoration(uri);
    if (finding) {
      const tooltip = [savedFrom(saved, this.labs), finding.tooltip, ...used].join(' · ');
      return new vscode.FileDecoration(finding.badge, tooltip, finding.color);
    }
    return saved.changed
      ? new vscode.FileDecoration(
          SAVED_BADGES.changedLocally,
          [
            savedFrom(saved, this.labs),
            vscode.l10n.t('changed locally since it was saved'),
            ...used,
          ].join(' · '),
          new vscode.ThemeColor(CHANGED_LOCALLY_COLOR),
        )
      : new vscode.FileDecoration(
          SAVED_BADGES.inStep,
          [savedFrom(saved, this.labs), vscode.l10n.t('in step'), ...used].join(' · '),
        );
  }

  /** A script or notebook that used a report amended since: Lab Data's badge, and which reports. */
  private consumerDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    const amended = this.amended?.amendedSince(uri.fsPath) ?? [];
    if (amended.length === 0) {
      return undefined;
    }
    return new vscode.FileDecoration(
      SAVED_BADGES.amendedSinceUsed,
      vscode.l10n.t('Amended since used: {0}', amended.join(', ')),
      new vscode.ThemeColor(AMENDED_SINCE_USED_COLOR),
    );
  }

  dispose(): void {
    this.subscriptions.forEach((subscription) => subscription.dispose());
    this.changed.dispose();
  }
}
