import type * as vscode from 'vscode';

/**
 * What the folders of saved reports say of one report, for its rows: a file of it is saved, and
 * whether the last verification found it as saved and the lab's report unchanged (`verified`), or
 * its bytes differ from what was saved (`changed`, locally, since it was saved).
 */
export interface SavedReportState {
  readonly verified: boolean;
  readonly changed: boolean;
}

/**
 * Where rows learn whether their report is saved. The views sit below the saved-file checks
 * (`provenance/`), so they name only this; `extension.ts` hands them the checks' own.
 */
export interface SavedReportLookup {
  /** The state of report `reportId` of lab `lab`; undefined when no file of it is saved. */
  stateOf(lab: string, reportId: string): SavedReportState | undefined;
  /** Fires when any report's state may have changed (a save, a verification, a file edited). */
  readonly onDidChange: vscode.Event<void>;
}

/** Whether two states (either maybe absent) say the same. */
export function sameSavedState(
  a: SavedReportState | undefined,
  b: SavedReportState | undefined,
): boolean {
  return a === b || (a?.verified === b?.verified && a?.changed === b?.changed && !a === !b);
}
