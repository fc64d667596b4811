/** An item of the report-id picker, as the extension knows it. */
export interface OfferedId {
  readonly id: string;
  readonly label?: string;
  readonly description?: string;
  readonly detail?: string;
}

/** Whether the picker, filtering on `typed`, can have highlighted `item` (its words hold the text). */
function shownFor(typed: string, item: OfferedId): boolean {
  const wanted = typed.toLowerCase();
  return [item.id, item.label, item.description, item.detail].some((words) =>
    words?.toLowerCase().includes(wanted),
  );
}

/**
 * The id Enter takes in the report-id picker: the suggestion whose id is the typed text; else the
 * highlighted item, when the typed text can have led to it; else the one suggestion whose id holds
 * the text; else the text as typed (empty: nothing).
 *
 * The highlighted item is checked against the text because it can be stale: VS Code tells the
 * extension which item is highlighted after filtering, so Enter pressed at once after typing can
 * arrive while the extension still holds the item highlighted for the earlier text (an id typed
 * over "Harbor" took Harbor's first report instead of the id).
 */
export function acceptedReportId(
  typed: string,
  active: OfferedId | undefined,
  suggestions: readonly OfferedId[],
): string {
  const text = typed.trim();
  const exact = suggestions.find((choice) => choice.id.toLowerCase() === text.toLowerCase());
  if (exact) {
    return exact.id;
  }
  if (active?.id && (text === '' || shownFor(text, active))) {
    return active.id;
  }
  const holding = suggestions.filter((choice) =>
    choice.id.toLowerCase().includes(text.toLowerCase()),
  );
  return text !== '' && holding.length === 1 ? holding[0]!.id : text;
}
