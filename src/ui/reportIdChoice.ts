/** An item of the report-id picker, as the extension knows it. */
export interface OfferedId {
  readonly id: string;
  readonly label?: string;
  readonly description?: string;
  readonly detail?: string;
}

/** Whether the picker, filtering on `typed`, can have highlighted `item`: its words hold the text (VS Code's filter also matches looser, so this errs towards the text itself). */
function shownFor(typed: string, item: OfferedId): boolean {
  const wanted = typed.toLowerCase();
  return [item.id, item.label, item.description, item.detail].some((words) =>
    words?.toLowerCase().includes(wanted),
  );
}

/**
 * The id Enter takes in the report-id picker: the suggestion whose id is the typed text; else the
 * highlighted item when VS Code reported it for this very text (`current`), or when the typed text
 * can have led to it (a row offering typed text as itself only when it is that text); else the one
 * suggestion whose id holds the text; else the text as typed (empty: nothing).
 *
 * The highlighted item is checked because it can be stale: VS Code tells the extension which item
 * is highlighted after filtering, so Enter pressed at once after typing (or deleting) can arrive
 * while the extension still holds the item highlighted for the earlier text (an id typed over
 * "Harbor" took Harbor's first report instead of the id).
 */
export function acceptedReportId(
  typed: string,
  active: OfferedId | undefined,
  suggestions: readonly OfferedId[],
  current = false,
): string {
  const text = typed.trim();
  const exact = suggestions.find((choice) => choice.id.toLowerCase() === text.toLowerCase());
  if (exact) {
    return exact.id;
  }
  if (active?.id) {
    const suggested = suggestions.some((choice) => choice.id === active.id);
    if (
      current ||
      text === '' ||
      (suggested ? shownFor(text, active) : active.id.toLowerCase() === text.toLowerCase())
    ) {
      return active.id;
    }
  }
  const holding = suggestions.filter((choice) =>
    choice.id.toLowerCase().includes(text.toLowerCase()),
  );
  return text !== '' && holding.length === 1 ? holding[0]!.id : text;
}
