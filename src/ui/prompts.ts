import * as vscode from 'vscode';

/** What to do with a file that is already there. */
export type ExistingFileChoice = 'overwrite' | 'keepBoth' | 'skip';

export interface ExistingFileAnswer {
  readonly choice: ExistingFileChoice;
  /** Apply the same answer to every later file of this run. */
  readonly forAll: boolean;
}

/**
 * Every question the extension asks a person, behind one interface, so automation and tests can
 * answer without a dialog (see `LabDataExtensionApi.setPrompts`).
 */
export interface Prompts {
  /** Undefined means cancel the whole operation. */
  existingFile(fileName: string, reason: 'exists' | 'changedLocally', more: boolean): Promise<ExistingFileAnswer | undefined>;
  pickWorkspaceFolder(folders: readonly vscode.WorkspaceFolder[]): Promise<vscode.WorkspaceFolder | undefined>;
  /** No folder is open: offer to choose one on disk. */
  pickFolderOnDisk(): Promise<vscode.Uri | undefined>;
  reportId(): Promise<string | undefined>;
}

export class VsCodePrompts implements Prompts {
  async existingFile(fileName: string, reason: 'exists' | 'changedLocally', more: boolean): Promise<ExistingFileAnswer | undefined> {
    const detail = reason === 'changedLocally' ? `${fileName} was changed since Lab Data saved it. Overwrite your changes with the lab's file?` : `${fileName} already exists in the download folder.`;
    const buttons = more ? ['Overwrite', 'Keep Both', 'Skip', 'Overwrite All', 'Keep Both for All', 'Skip All'] : ['Overwrite', 'Keep Both', 'Skip'];
    const answer = await vscode.window.showWarningMessage(reason === 'changedLocally' ? 'A saved report was changed locally' : 'The file already exists', { modal: true, detail }, ...buttons);
    switch (answer) {
      case 'Overwrite':
        return { choice: 'overwrite', forAll: false };
      case 'Keep Both':
        return { choice: 'keepBoth', forAll: false };
      case 'Skip':
        return { choice: 'skip', forAll: false };
      case 'Overwrite All':
        return { choice: 'overwrite', forAll: true };
      case 'Keep Both for All':
        return { choice: 'keepBoth', forAll: true };
      case 'Skip All':
        return { choice: 'skip', forAll: true };
      default:
        return undefined;
    }
  }

  async pickWorkspaceFolder(folders: readonly vscode.WorkspaceFolder[]): Promise<vscode.WorkspaceFolder | undefined> {
    return vscode.window.showWorkspaceFolderPick({ placeHolder: 'Save reports into which workspace folder?', ignoreFocusOut: true }) ?? folders[0];
  }

  async pickFolderOnDisk(): Promise<vscode.Uri | undefined> {
    const choice = await vscode.window.showInformationMessage('No folder is open. Choose a folder to save reports into?', 'Choose Folder…');
    if (choice !== 'Choose Folder…') {
      return undefined;
    }
    const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Save Reports Here' });
    return picked?.[0];
  }

  async reportId(): Promise<string | undefined> {
    const id = await vscode.window.showInputBox({ title: 'Lab Data', prompt: 'Report id', placeHolder: 'RPT-2024-000123', ignoreFocusOut: true, validateInput: (value) => (value.trim() ? undefined : 'Enter a report id.') });
    return id?.trim();
  }
}

/** The prompts in use; replaceable through the extension API. */
export class PromptsHolder {
  current: Prompts = new VsCodePrompts();
}
