import * as vscode from 'vscode';
import { acceptedReportId } from '../reportIdChoice';
import type { Choice, ReportIdOptions } from './types';

/**
 * A report id: typed, or chosen from `suggestions` that narrow while typing; a typed part of one
 * suggestion (and of no other) means that one; `options.check` is run before the picker closes.
 */
export async function askReportId(
  suggestions: readonly Choice[] = [],
  options: ReportIdOptions = {},
): Promise<string | undefined> {
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
  pick.title = options.title ?? vscode.l10n.t('Lab Data: Find Report');
  // The label: a suggestion's id may carry more than the report id (its lab, in several labs).
  const example = suggestions[0]?.label ?? 'RPT-2024-000123';
  pick.placeholder =
    suggestions.length > 0
      ? vscode.l10n.t('Type a report id or part of one (such as {0}), or choose one', example)
      : vscode.l10n.t('Type a report id, such as {0}', example);
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.ignoreFocusOut = true;
  const offered = suggestions.map((choice) => ({
    id: choice.id,
    label: choice.label,
    description: choice.description,
    detail: choice.detail,
  }));
  pick.items = offered;
  // The text VS Code had filtered on when it last said which item is highlighted.
  let activeFor: string | undefined;
  pick.onDidChangeActive(() => (activeFor = pick.value));
  // Text that is part of no suggestion is offered as itself, first, so Enter never takes a loose (fuzzy) match instead.
  pick.onDidChangeValue((value) => {
    const typed = value.trim();
    const partOfOne =
      typed !== '' &&
      offered.some((choice) => choice.id.toLowerCase().includes(typed.toLowerCase()));
    pick.items =
      typed === '' || partOfOne
        ? offered
        : [{ id: typed, label: typed, description: vscode.l10n.t('find this id') }, ...offered];
  });
  return new Promise<string | undefined>((resolve) => {
    pick.onDidAccept(async () => {
      // The suggestion typed in full, else the highlighted one, else the text as typed.
      const chosen = acceptedReportId(
        pick.value,
        pick.activeItems[0],
        suggestions,
        activeFor === pick.value,
      );
      if (pick.busy) {
        return;
      }
      if (!chosen) {
        resolve(undefined);
        pick.hide();
        return;
      }
      if (options.check) {
        // Checked before the picker closes: an id the lab does not know is said here, and another can be typed.
        pick.busy = true;
        const problem = await options.check(chosen).finally(() => (pick.busy = false));
        if (problem !== undefined) {
          pick.items = [
            { id: '', label: `$(error) ${problem}`, alwaysShow: true },
            ...offered.filter((choice) => choice.id !== chosen),
          ];
          return;
        }
      }
      resolve(chosen);
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}
