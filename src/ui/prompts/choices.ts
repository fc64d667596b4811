import * as vscode from 'vscode';
import { spaceToggles } from './spaceToggles';
import type { Choice } from './types';

/** One of `choices`, or "Any" (`null`), with `current` highlighted so Enter keeps it; undefined means cancel. */
export async function pickOne(
  title: string,
  placeHolder: string,
  choices: readonly Choice[],
  allowAny: boolean,
  current?: string,
): Promise<string | null | undefined> {
  const items: Array<vscode.QuickPickItem & { id: string | null }> = [
    ...(allowAny ? [{ label: vscode.l10n.t('Any'), id: null }] : []),
    ...choices.map((choice) => ({ ...choice })),
  ];
  const pick = vscode.window.createQuickPick<(typeof items)[number]>();
  pick.title = title;
  pick.placeholder = placeHolder;
  pick.ignoreFocusOut = true;
  pick.matchOnDescription = true;
  pick.items = items;
  // The value in force is highlighted, so Enter keeps it.
  const active = items.find((item) => item.id === current && current !== undefined);
  if (active) {
    pick.activeItems = [active];
  }
  return new Promise<string | null | undefined>((resolve) => {
    pick.onDidAccept(() => {
      const chosen = pick.activeItems[0];
      resolve(chosen === undefined ? undefined : chosen.id);
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}

/**
 * Streams pages into a quick pick. Lab Data filters the list itself (a case-insensitive part of
 * the label, description or detail), so the count in the title ("3 of 11 match") is exactly what
 * is on screen; selections hidden by the filter are kept.

/**
 * Which of `criteria` to set (several at once; those `picked` are checked at first); undefined
 * means cancel. It opens with the first criterion highlighted, so Space checks it at once (Space
 * typed a space into an empty list before), and says what Space and Enter do. Enter with nothing
 * checked is not taken silently: the picker says what it would mean (no criterion: every report)
 * and takes a second Enter as that.
 */
export function pickCriteria(
  title: string,
  criteria: ReadonlyArray<Choice & { readonly picked: boolean }>,
): Promise<string[] | undefined> {
  type Row = vscode.QuickPickItem & { readonly id: string };
  const rows: Row[] = criteria.map(({ id, label, description, detail }) => ({
    id,
    label,
    description,
    detail,
  }));
  const pick = vscode.window.createQuickPick<Row>();
  const keys = vscode.l10n.t(
    'Space checks or unchecks the highlighted criterion; Enter goes on with those checked (an unchecked criterion is cleared)',
  );
  pick.title = title;
  pick.placeholder = keys;
  pick.canSelectMany = true;
  pick.ignoreFocusOut = true;
  pick.matchOnDescription = true;
  pick.items = rows;
  pick.selectedItems = rows.filter((_, index) => criteria[index]!.picked);
  pick.activeItems = rows.slice(0, 1);
  spaceToggles(pick);
  /** Enter was pressed once with nothing checked, and the picker said what a second one means. */
  let warned = false;
  // Said again only after something was checked (VS Code may report an unchanged, empty selection on Enter).
  pick.onDidChangeSelection((checked) => {
    if (checked.length > 0) {
      warned = false;
      pick.placeholder = keys;
    }
  });
  return new Promise<string[] | undefined>((resolve) => {
    pick.onDidAccept(() => {
      if (pick.selectedItems.length === 0 && !warned) {
        warned = true;
        pick.value = '';
        pick.placeholder = vscode.l10n.t(
          'Nothing is checked: press Enter again to filter by nothing (every report), or Space to check the highlighted criterion',
        );
        return;
      }
      resolve(pick.selectedItems.map((row) => row.id));
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}
