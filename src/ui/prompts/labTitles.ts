import * as vscode from 'vscode';

/** What a picker or prompt that acts on one lab does; {@link titleFor} names the lab in its title. */
export type LabAction =
  | 'filterReports'
  | 'searchReports'
  | 'findReport'
  | 'previewReport'
  | 'saveReportPdf'
  | 'syncReports'
  | 'exportList'
  | 'filterSamples'
  | 'listSamples'
  | 'samples'
  | 'saveFilterAsSearch'
  | 'signIn';

/**
 * The title of a picker or prompt that acts on `lab` (or on the labs named, joined): the one place
 * where a dialog's title names its lab, each title whole for translators. The lab is named even
 * when it is the only one: the title does not change when a second lab is added, and it says
 * which lab's data the answer goes to (a person with one lab at work and another at home).
 */
export function titleFor(lab: string, action: LabAction): string {
  switch (action) {
    case 'filterReports':
      return vscode.l10n.t('Lab Data: Filter Reports — {0}', lab);
    case 'searchReports':
      return vscode.l10n.t('Lab Data: Search Reports in {0}', lab);
    case 'findReport':
      return vscode.l10n.t('Lab Data: Find Report in {0}', lab);
    case 'previewReport':
      return vscode.l10n.t('Lab Data: Preview Report — {0}', lab);
    case 'saveReportPdf':
      return vscode.l10n.t('Lab Data: Save Report PDF — {0}', lab);
    case 'syncReports':
      return vscode.l10n.t('Lab Data: Sync Reports of {0} to Folder…', lab);
    case 'exportList':
      return vscode.l10n.t('Lab Data: Export List of {0}', lab);
    case 'filterSamples':
      return vscode.l10n.t('Lab Data: Filter Samples — {0}', lab);
    case 'listSamples':
      return vscode.l10n.t('Lab Data: List Samples — {0}', lab);
    case 'samples':
      return vscode.l10n.t('Lab Data: Samples of {0}', lab);
    case 'saveFilterAsSearch':
      return vscode.l10n.t('Lab Data: Save Current Filter as Search — {0}', lab);
    case 'signIn':
      return vscode.l10n.t('Lab Data: Sign In (2/2) — {0}', lab);
  }
}
