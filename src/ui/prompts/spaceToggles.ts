import type * as vscode from 'vscode';

/**
 * Space typed into the empty box of a multi-select picker checks or unchecks the highlighted row,
 * as Space does once the keyboard is in the list: VS Code keeps the keyboard in the box, where
 * Space would type a space and filter the list down to nothing. The row is the one highlighted
 * before the space was typed (the space itself may have filtered the highlight away), and it stays
 * highlighted. `onToggle` hears the row's new state.
 */
export function spaceToggles<T extends vscode.QuickPickItem>(
  pick: vscode.QuickPick<T>,
  onToggle?: (item: T, checked: boolean) => void,
): vscode.Disposable[] {
  let highlighted: T | undefined = pick.activeItems[0];
  return [
    pick.onDidChangeActive((items) => {
      if (items[0] !== undefined && pick.value.trim() === '') {
        highlighted = items[0];
      }
    }),
    pick.onDidChangeValue((value) => {
      if (value !== ' ') {
        return;
      }
      pick.value = '';
      const row = highlighted ?? pick.activeItems[0] ?? pick.items[0];
      if (row === undefined) {
        return;
      }
      const checked = !pick.selectedItems.includes(row);
      pick.selectedItems = checked
        ? [...pick.selectedItems, row]
        : pick.selectedItems.filter((item) => item !== row);
      pick.activeItems = [row];
      onToggle?.(row, checked);
    }),
  ];
}
