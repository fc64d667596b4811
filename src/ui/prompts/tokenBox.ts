import * as vscode from 'vscode';
import { DEFAULT_TIMEOUTS } from '../../../core/connection/httpClient';
import type { TokenBoxText } from './types';

/**
 * The token box: a hidden input whose Enter runs `attempt` while the box stays open (busy, and
 * cancelled by closing it); see {@link Prompts.token}.
 */
export function askToken<T>(
  text: TokenBoxText,
  attempt: (token: string, signal: AbortSignal) => Promise<T>,
): Promise<T | undefined> {
  const box = vscode.window.createInputBox();
  box.title = text.title;
  box.prompt = text.prompt;
  box.password = true;
  box.ignoreFocusOut = true;
  const check: vscode.QuickInputButton = {
    iconPath: new vscode.ThemeIcon('debug-disconnect'),
    tooltip: vscode.l10n.t('Check Connection'),
  };
  const checkConnection = text.checkConnection;
  const stop = new AbortController();
  /** Runs the check with the box open (the token kept) and says its verdict under the token. */
  const runCheck = async (): Promise<void> => {
    if (checkConnection === undefined || box.busy) {
      return;
    }
    box.busy = true;
    box.validationMessage = vscode.l10n.t('Checking the connection…');
    try {
      const verdict = await checkConnection();
      box.validationMessage = verdict && {
        message: verdict,
        severity: vscode.InputBoxValidationSeverity.Info,
      };
    } finally {
      box.busy = false;
    }
  };
  if (checkConnection !== undefined) {
    box.buttons = [check];
    box.onDidTriggerButton(() => void runCheck());
  }
  let settled = false;
  return new Promise<T | undefined>((resolve, reject) => {
    const finish = (settle: () => void): void => {
      settled = true;
      settle();
      box.hide();
    };
    box.onDidChangeValue(() => (box.validationMessage = undefined));
    box.onDidAccept(async () => {
      const token = box.value.trim();
      if (box.busy) {
        return;
      }
      if (!token && !text.acceptsEmpty) {
        if (checkConnection !== undefined && box.validationMessage !== undefined) {
          // Enter again on an empty box: the keyboard's way to Check Connection.
          await runCheck();
          return;
        }
        box.validationMessage =
          checkConnection !== undefined
            ? vscode.l10n.t(
                'Enter the access token your lab provided, or press Enter again to check the connection.',
              )
            : vscode.l10n.t('Enter the access token your lab provided.');
        return;
      }
      box.busy = true;
      box.enabled = false;
      box.prompt = vscode.l10n.t(
        '{0} (at most {1} s; Escape stops)',
        text.checking,
        DEFAULT_TIMEOUTS.headersMs / 1000,
      );
      try {
        const result = await attempt(token, stop.signal);
        finish(() => resolve(result));
      } catch (error) {
        if (stop.signal.aborted) {
          return;
        }
        const problem = text.problemOf(error);
        if (problem !== undefined) {
          box.validationMessage = {
            message: problem,
            severity: vscode.InputBoxValidationSeverity.Error,
          };
        } else {
          finish(() => reject(error));
        }
      } finally {
        box.busy = false;
        box.enabled = true;
        box.prompt = text.prompt;
      }
    });
    box.onDidHide(() => {
      if (!settled) {
        settled = true;
        stop.abort();
        resolve(undefined);
      }
      box.dispose();
    });
    box.show();
  });
}
