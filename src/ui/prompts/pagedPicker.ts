import * as vscode from 'vscode';
import { errorText } from '../../../core/errors/errorText';
import { spaceToggles } from './spaceToggles';
import { isPickNote, type Choice, type PickPart } from './types';

/**
 * Streams results into a quick pick as they arrive, busy until the stream ends. Lab Data filters
 * the list itself (a case-insensitive part of the label, description or detail), so the count in
 * the title ("3 of 11 match") is exactly what is on screen; selections hidden by the filter are
 * kept. Notes (a lab that did not answer) are said in the title, so a missing lab is never silent.
 */
export function pickFromPages<T>(
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
    // The first row highlighted as soon as there is one, so Space and Enter act on it at once.
    if (pick.activeItems.length === 0 && shown.length > 0) {
      pick.activeItems = shown.slice(0, 1);
    }
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
  if (canPickMany) {
    spaceToggles(pick, (entry, checked) =>
      checked ? selected.add(entry) : selected.delete(entry),
    );
  }
  pick.onDidChangeValue(render);
  const done = new Promise<T[] | undefined>((resolve) => {
    pick.onDidAccept(() => {
      // Nothing checked: the highlighted row, as a list of one choice takes it (never nothing, silently).
      const checked = canPickMany ? all.filter((entry) => selected.has(entry)) : [];
      const chosen = checked.length > 0 ? checked : pick.activeItems.slice(0, 1);
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
