import * as vscode from 'vscode';
import { parseBaseUrl } from '../core/baseUrl';
import type { LabSession } from '../auth/labSession';
import { toAbortSignal } from '../cancellation';

/** Arguments for a sign-in without prompts, from tests, tasks or other extensions. */
export interface SignInArgs {
  readonly baseUrl?: string;
  readonly token?: string;
}

export interface SignInResult {
  readonly baseUrl: string;
  readonly host: string;
}

function isSignInArgs(value: unknown): value is SignInArgs {
  return typeof value === 'object' && value !== null && ('baseUrl' in value || 'token' in value);
}

/**
 * `labData.signIn`: asks for the lab's address (validated as you type, pre-filled) and the token
 * (hidden), checks them with one request, then stores the token for that origin only. Called with
 * `{ baseUrl, token }` it asks nothing.
 */
export async function signIn(session: LabSession, args?: unknown): Promise<SignInResult | undefined> {
  const given = isSignInArgs(args) ? args : {};
  const baseUrl =
    given.baseUrl ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Lab Data: Sign In (1/2)'),
      prompt: vscode.l10n.t('Address of your lab’s API, for example https://lab.example.com'),
      value: session.current.lab?.baseUrl ?? 'https://',
      ignoreFocusOut: true,
      validateInput: (value) => {
        try {
          parseBaseUrl(value);
          return undefined;
        } catch (error) {
          return error instanceof Error ? error.message : String(error);
        }
      },
    }));
  if (baseUrl === undefined) {
    return undefined;
  }
  const lab = parseBaseUrl(baseUrl);
  const token =
    given.token ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Lab Data: Sign In (2/2)'),
      prompt: vscode.l10n.t("Access token for {0} (stored in VS Code's secret storage, sent only to {1})", lab.host, lab.origin),
      password: true,
      ignoreFocusOut: true,
      validateInput: (value) => (value.trim() ? undefined : vscode.l10n.t('Enter the access token your lab provided.')),
    }));
  if (token === undefined) {
    return undefined;
  }
  const signedIn = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking access to {0}…', lab.host), cancellable: true },
    (_progress, cancellation) => session.signIn(baseUrl, token, toAbortSignal(cancellation)),
  );
  void vscode.window.showInformationMessage(vscode.l10n.t('Signed in to {0}.', signedIn.host));
  return { baseUrl: signedIn.baseUrl, host: signedIn.host };
}
