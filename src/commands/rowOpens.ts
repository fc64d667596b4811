/** How soon a second open of one row must follow the first to be a double-click (the usual system setting). */
export const DOUBLE_CLICK_MS = 500;

/**
 * Tells a double-click on a tree row from a click. VS Code runs a row's command once per click and
 * tells an extension nothing of a double-click (the Explorer keeps a file's tab on one): a second
 * open of the same row that soon after the one before is it.
 */
export class RowOpens<T> {
  private last?: { readonly key: string; at: number; readonly opening: Promise<T> };

  constructor(private readonly withinMs = DOUBLE_CLICK_MS) {}

  /** The opening under way for `key` when this open repeats it (a double-click), else undefined. */
  repeatOf(key: string, now = Date.now()): Promise<T> | undefined {
    const last = this.last;
    if (last?.key !== key || now - last.at > this.withinMs) {
      return undefined;
    }
    last.at = now;
    return last.opening;
  }

  /** Remembers `opening` as the open of `key` a repeat may follow. */
  track(key: string, opening: Promise<T>, now = Date.now()): Promise<T> {
    this.last = { key, at: now, opening };
    return opening;
  }
}
