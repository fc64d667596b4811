/** Badges Lab Data gives saved files: none of them is a letter git's decorations use (M, A, U, D…). */
export const SAVED_BADGES = {
  /** The file is as it was saved. */
  inStep: '✓',
  /** Its bytes are no longer what was saved. */
  changedLocally: '≠',
  /** A script or notebook used a revision of a report older than the one now recorded. */
  amendedSinceUsed: '↻',
} as const;

/** Lab Data's own theme color for a saved file changed locally (`contributes.colors`). */
export const CHANGED_LOCALLY_COLOR = 'labData.savedFile.changedLocallyForeground';

/** Lab Data's own theme color for a script or notebook that used a report amended since (`contributes.colors`). */
export const AMENDED_SINCE_USED_COLOR = 'labData.consumer.amendedSinceUsedForeground';
