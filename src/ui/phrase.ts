import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import { MESSAGES, type MessageId } from '../../core/errors/messages';

/**
 * The one sentence a person reads for an error, in their language: core errors carry a message id
 * and arguments from the core's catalogue, phrased here through `vscode.l10n`.
 */
export function phrase(error: unknown): string {
  if (error instanceof LabApiError) {
    const text = error.text;
    if (text && Object.hasOwn(MESSAGES, text.id)) {
      const sentence = vscode.l10n.t(
        MESSAGES[text.id as MessageId],
        text.args as Record<string, string | number>,
      );
      return error.reason
        ? `${sentence} ${vscode.l10n.t(MESSAGES.serverReason, { reason: error.reason })}`
        : sentence;
    }
    return error.message;
  }
  if (error instanceof Error && error.name === 'SecretStoreError') {
    return error.message;
  }
  return vscode.l10n.t('Something went wrong in Lab Data; the log has the details.');
}

/** The error notifications commands showed lately (newest last, at most 20), for the extension's API to tests. */
export const errorsShown: Array<{ readonly message: string; readonly actions: readonly string[] }> =
  [];

/** The warning notifications shown lately through {@link showWarning} (newest last, at most 20), for the extension's API to tests. */
export const warningsShown: Array<{
  readonly message: string;
  readonly actions: readonly string[];
}> = [];

/** `vscode.window.showWarningMessage`, remembered in {@link warningsShown}: what a person was told, and the buttons beside it. */
export function showWarning(message: string, ...actions: string[]): Thenable<string | undefined> {
  warningsShown.push({ message, actions });
  warningsShown.splice(0, Math.max(0, warningsShown.length - 20));
  return vscode.window.showWarningMessage(message, ...actions);
}
