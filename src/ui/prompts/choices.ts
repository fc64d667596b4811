import * as vscode from 'vscode';
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

/** Which of `criteria` to set (several at once; those `picked` are checked at first); undefined means cancel. */
export async function pickCriteria(
  title: string,
  criteria: ReadonlyArray<Choice & { readonly picked: boolean }>,
): Promise<string[] | undefined> {
  const picked = await vscode.window.showQuickPick(
    criteria.map((criterion) => ({ ...criterion })),
    {
      title,
      placeHolder: vscode.l10n.t(
        'Check what to filter by (Space), then press Enter; an unchecked criterion is cleared',
      ),
      canPickMany: true,
      ignoreFocusOut: true,
      matchOnDescription: true,
    },
  );
  return picked?.map((criterion) => criterion.id);
}
