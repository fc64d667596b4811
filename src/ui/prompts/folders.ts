import * as vscode from 'vscode';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../../../core/files/safeWriter';

/** Which workspace folder to save reports into (the first, when the picker gives none). */
export async function pickWorkspaceFolder(
  folders: readonly vscode.WorkspaceFolder[],
): Promise<vscode.WorkspaceFolder | undefined> {
  return (
    vscode.window.showWorkspaceFolderPick({
      placeHolder: vscode.l10n.t('Save reports into which workspace folder?'),
      ignoreFocusOut: true,
    }) ?? folders[0]
  );
}

/** No folder is open: offers to choose one on disk. */
export async function pickFolderOnDisk(): Promise<vscode.Uri | undefined> {
  const chooseFolder = vscode.l10n.t('Choose Folder…');
  const choice = await vscode.window.showInformationMessage(
    vscode.l10n.t('No folder is open. Choose a folder to save reports into?'),
    chooseFolder,
  );
  if (choice !== chooseFolder) {
    return undefined;
  }
  const picked = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
    openLabel: vscode.l10n.t('Save Reports Here'),
  });
  return picked?.[0];
}

/**
 * A folder: typed (relative to `root`, the workspace folder, or a full path), a new one inside
 * `root` included; or one chosen in the system's folder dialog ("Browse…"), starting at `near`.
 */
export async function chooseFolder(
  openLabel: string,
  near: vscode.Uri,
  root?: vscode.Uri,
): Promise<vscode.Uri | undefined> {
  const browse = (): Thenable<vscode.Uri | undefined> =>
    vscode.window
      .showOpenDialog({
        canSelectFolders: true,
        canSelectFiles: false,
        canSelectMany: false,
        openLabel,
        defaultUri: near,
      })
      .then((picked) => picked?.[0]);
  if (!root || root.scheme !== 'file') {
    return browse();
  }
  // VS Code's own folder dialog takes only a folder that exists; a typed one may be new (inside the workspace).
  type Row = vscode.QuickPickItem & { readonly folder?: string; readonly browse?: true };
  const pick = vscode.window.createQuickPick<Row>();
  pick.title = openLabel;
  pick.placeholder = vscode.l10n.t(
    'A folder in the workspace, such as data/reports (made if it is not there), or a full path',
  );
  pick.ignoreFocusOut = true;
  const browseRow: Row = {
    label: `$(folder-opened) ${vscode.l10n.t('Browse…')}`,
    description: vscode.l10n.t('choose a folder on disk'),
    browse: true,
    alwaysShow: true,
  };
  const rowsFor = (typed: string): Row[] => {
    const text = typed.trim();
    if (!text) {
      return [browseRow];
    }
    const folder = path.resolve(root.fsPath, text);
    const shown = vscode.workspace.asRelativePath(folder, false);
    let row: Row;
    try {
      row = statSync(folder).isDirectory()
        ? { label: `$(folder) ${shown}`, description: vscode.l10n.t('this folder'), folder }
        : {
            label: `$(error) ${vscode.l10n.t('{0} is a file, not a folder', shown)}`,
          };
    } catch {
      row = isInside(folder, root.fsPath)
        ? {
            label: `$(new-folder) ${shown}`,
            description: vscode.l10n.t('a new folder, made now'),
            folder,
          }
        : {
            label: `$(error) ${vscode.l10n.t('A new folder must be inside the workspace folder; an existing one can be anywhere.')}`,
          };
    }
    return [{ ...row, alwaysShow: true }, browseRow];
  };
  const start = isInside(near.fsPath, root.fsPath)
    ? vscode.workspace.asRelativePath(near.fsPath, false)
    : near.fsPath;
  pick.value = start === near.fsPath || start === '' ? '' : start;
  pick.items = rowsFor(pick.value);
  pick.onDidChangeValue((value) => (pick.items = rowsFor(value)));
  // The text VS Code had filtered on when it last said which row is highlighted.
  let activeFor: string | undefined;
  pick.onDidChangeActive(() => (activeFor = pick.value));
  const chosen = await new Promise<Row | undefined>((resolve) => {
    pick.onDidAccept(() => {
      // The typed folder's row is made again from the text: the highlighted one may be for the
      // text before the last keys (VS Code says which row is highlighted after filtering).
      // Browse when it was highlighted for this very text (or nothing is typed): with text
      // typed at once after the picker opened, the highlight can still be the empty text's.
      const browsing =
        pick.activeItems[0]?.browse === true &&
        (activeFor === pick.value || pick.value.trim() === '');
      const row = browsing ? browseRow : rowsFor(pick.value)[0];
      if (row && (row.browse || row.folder)) {
        resolve(row);
        pick.hide();
      }
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
  if (chosen?.browse) {
    return browse();
  }
  return chosen?.folder ? vscode.Uri.file(chosen.folder) : undefined;
}
