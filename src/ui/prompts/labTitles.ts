import * as vscode from 'vscode';

/** What a picker or prompt that acts on one lab does; {@link titleFor} names the lab in its title. */
export type LabAction = 'findReport' | 'searchReports' | 'syncReports';

/**
 * The title of a picker or prompt that acts on `lab` (or on the labs named, joined): the one place
 * where a dialog's title names its lab, each title whole for translators.
 */
export function titleFor(lab: string, action: LabAction): string {
  switch (action) {
    case 'findReport':
      return vscode.l10n.t('Lab Data: Find Report in {0}', lab);
    case 'searchReports':
      return vscode.l10n.t('Lab Data: Search Reports in {0}', lab);
    case 'syncReports':
      return vscode.l10n.t('Lab Data: Sync Reports of {0} to Folder…', lab);
  }
}
