import * as vscode from 'vscode';

/** A yes-or-no question before something big starts; false means do not start. */
export async function confirm(message: string, detail: string, action: string): Promise<boolean> {
  return (
    (await vscode.window.showInformationMessage(message, { modal: true, detail }, action)) ===
    action
  );
}

/** The team cache server's token, hidden as typed (empty: remove it); undefined means cancel. */
export async function askCacheToken(): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: vscode.l10n.t('Team cache token'),
    prompt: vscode.l10n.t(
      "The token of the team cache server in labData.cacheFolder (not a lab's token). Leave empty to remove it.",
    ),
    password: true,
    ignoreFocusOut: true,
  });
}

/** The password of a protected PDF (`incorrect` after a wrong one); undefined means cancel. */
export async function askPassword(name: string, incorrect: boolean): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: vscode.l10n.t('{0} is protected', name),
    prompt: incorrect
      ? vscode.l10n.t('That password is not right; try again.')
      : vscode.l10n.t('Enter the password to open this PDF.'),
    password: true,
    ignoreFocusOut: true,
  });
}

/** A line of text (a name), trimmed; undefined means cancel. */
export async function askText(
  title: string,
  prompt: string,
  value: string,
  validate: (value: string) => string | undefined,
): Promise<string | undefined> {
  const typed = await vscode.window.showInputBox({
    title,
    prompt,
    value,
    validateInput: validate,
    ignoreFocusOut: true,
  });
  return typed?.trim();
}

/** Where to save a new file: a save dialog; undefined means cancel. */
export async function askSaveFile(
  title: string,
  defaultUri: vscode.Uri,
  filters: Readonly<Record<string, string[]>>,
): Promise<vscode.Uri | undefined> {
  return vscode.window.showSaveDialog({
    title,
    defaultUri,
    filters: { ...filters },
    saveLabel: vscode.l10n.t('Export'),
  });
}
