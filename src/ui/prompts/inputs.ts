import * as vscode from 'vscode';
import type { ConfirmOptions } from './types';

/**
 * The buttons of a confirmation, in order: VS Code's modal makes the first its default (Enter) and
 * adds Cancel itself, so a `decline` choice (doing nothing) goes first when the act must be chosen.
 */
export function confirmButtons(action: string, options: ConfirmOptions = {}): vscode.MessageItem[] {
  return [
    ...(options.decline !== undefined ? [{ title: options.decline }] : []),
    { title: action },
  ];
}

/** A yes-or-no question in a modal (before something big starts); false means do not start. */
export async function confirm(
  message: string,
  detail: string,
  action: string,
  options: ConfirmOptions = {},
): Promise<boolean> {
  const choice = await vscode.window.showInformationMessage(
    message,
    { modal: true, detail },
    ...confirmButtons(action, options),
  );
  return choice?.title === action;
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
