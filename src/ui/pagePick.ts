import * as vscode from 'vscode';
import { errorText } from '../../core/errors/errorText';
import type { Choice } from './prompts';

/** Some results for a streamed picker (a page of one lab's list). */
export interface PickItems<T> {
  readonly items: readonly T[];
  /** The list's whole length, when one list is streamed and its lab said it. */
  readonly totalCount?: number;
}

/**
 * A line about one source of a streamed picker (a lab not answering, a lab failing), said in its
 * title while the rest stream on; a later note of the same source replaces it, an empty one
 * takes it back.
 */
export interface PickNote {
  readonly source: string;
  readonly note: string;
}

/** What a streamed picker receives: results, or a note about one of its sources. */
export type PickPart<T> = PickItems<T> | PickNote;

export function isPickNote<T>(part: PickPart<T>): part is PickNote {
  return 'note' in part;
}

/**
 * Streams results into a quick pick as they arrive, busy until the stream ends. Lab Data filters
 * the list itself (a case-insensitive part of the label, description or detail), so the count in
 * the title ("3 of 11 match") is exactly what is on screen; selections hidden by the filter are
 * kept. Notes (a lab that did not answer) are said in the title, so a missing lab is never silent.
 */
export function pickFromStream<T>(
  title: string,
  parts: AsyncIterable<PickPart<T>>,
  toChoice: (item: T) => Choice,
  canPickMany: boolean,
): Promise<T[] | undefined> {
  type Entry = vscode.QuickPickItem & { item: T };
  const pick = vscode.window.createQuickPick<Entry>();
  pick.title = title;
  pick.canSelectMany = canPickMany;
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.ignoreFocusOut = true;
  pick.busy = true;
  pick.placeholder = vscode.l10n.t('Loading… type to filter');
  const stop = new AbortController();
  const all: Entry[] = [];
  const selected = new Set<Entry>();
  const notes = new Map<string, string>();
  let total: number | undefined;
  let shown: Entry[] = [];
  const matches = (entry: Entry, typed: string): boolean =>
    [entry.label, entry.description, entry.detail].some((text) =>
      text?.toLowerCase().includes(typed),
    );
  const render = (): void => {
    const typed = pick.value.trim().toLowerCase();
    shown = typed ? all.filter((entry) => matches(entry, typed)) : [...all];
    pick.items = shown;
    if (canPickMany) {
      pick.selectedItems = shown.filter((entry) => selected.has(entry));
    }
    const count = typed
      ? vscode.l10n.t('{0} of {1} match', shown.length, all.length)
      : total !== undefined && total !== all.length
        ? vscode.l10n.t('{0} of {1}', all.length, total)
        : String(all.length);
    pick.title = [`${title} (${count})`, ...notes.values()].join(' · ');
  };
  pick.onDidChangeSelection((chosen) => {
    // Only the rows on screen can change; a choice hidden by the filter stays chosen.
    shown.forEach((entry) =>
      chosen.includes(entry) ? selected.add(entry) : selected.delete(entry),
    );
  });
  pick.onDidChangeValue(render);
  const done = new Promise<T[] | undefined>((resolve) => {
    pick.onDidAccept(() => {
      const chosen = canPickMany
        ? all.filter((entry) => selected.has(entry))
        : pick.activeItems.slice(0, 1);
      resolve(chosen.map((entry) => entry.item));
      pick.hide();
    });
    pick.onDidHide(() => {
      stop.abort();
      resolve(undefined);
      pick.dispose();
    });
  });
  pick.show();
  void (async () => {
    try {
      for await (const part of parts) {
        if (stop.signal.aborted) {
          return;
        }
        if (isPickNote(part) && part.note) {
          notes.set(part.source, part.note);
        } else if (isPickNote(part)) {
          notes.delete(part.source);
        } else {
          all.push(...part.items.map((item) => ({ ...toChoice(item), item })));
          total = part.totalCount;
        }
        render();
      }
      pick.placeholder =
        all.length === 0
          ? vscode.l10n.t('Nothing found')
          : canPickMany
            ? vscode.l10n.t('Type to filter; select with Space, confirm with Enter')
            : vscode.l10n.t('Type to filter');
    } catch (error) {
      pick.placeholder = vscode.l10n.t('Stopped: {0}', errorText(error));
    } finally {
      pick.busy = false;
    }
  })();
  return done;
}
