import * as vscode from 'vscode';
import { serverText } from '../../core/errors/serverText';
import type { Labs } from '../labs/labs';
import type { SavedReportFindings } from './savedReports';
import type { SavedFile, SavedReportStates } from './savedStates';
import { CHANGED_LOCALLY_COLOR, SAVED_BADGES } from './savedBadges';

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
  ) {
    this.subscriptions = [
      states.onDidChange(() => this.changed.fire(undefined)),
      findings.onDidChangeFileDecorations((uris) => this.changed.fire(uris)),
    ];
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== 'file') {
      return undefined;
    }
    const saved = this.states.fileAt(uri.fsPath);
    const finding = this.findings.provideFileDecoration(uri);
    if (finding) {
      const tooltip = [saved && savedFrom(saved, this.labs), finding.tooltip]
        .filter(Boolean)
        .join(' · ');
      return new vscode.FileDecoration(finding.badge, tooltip, finding.color);
    }
    if (!saved) {
      return undefined;
    }
    return saved.changed
      ? new vscode.FileDecoration(
          SAVED_BADGES.changedLocally,
          `${savedFrom(saved, this.labs)} · ${vscode.l10n.t('changed locally since it was saved')}`,
          new vscode.ThemeColor(CHANGED_LOCALLY_COLOR),
        )
      : new vscode.FileDecoration(
          SAVED_BADGES.inStep,
          `${savedFrom(saved, this.labs)} · ${vscode.l10n.t('in step')}`,
        );
  }

  dispose(): void {
    this.subscriptions.forEach((subscription) => subscription.dispose());
    this.changed.dispose();
  }
}
