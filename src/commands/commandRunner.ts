import * as vscode from 'vscode';
import { LabApiError, isCancellation, isNetworkFailure } from '../../core/errors/errors';
import type { Logger } from '../log';
import { Commands } from '../constants';
import { phrase } from '../ui/phrase';
import { commandTargets } from '../ui/commandTargets';

export type CommandHandler = (...args: unknown[]) => Promise<unknown> | unknown;

/** Turns any failure into one short sentence for a person. */
export function userMessage(error: unknown): string {
  return phrase(error);
}

/** Shows one error notification with the actions that help: sign in again, check the connection, show the log. */
export async function showError(error: unknown, log: Logger): Promise<void> {
  const showLog = vscode.l10n.t('Show Log');
  const signIn = vscode.l10n.t('Sign In');
  const copyReport = vscode.l10n.t('Copy Support Report');
  const checkConnection = vscode.l10n.t('Check Connection');
  const actions = [showLog];
  if (error instanceof LabApiError && error.code === 'unauthorized') {
    actions.unshift(signIn);
  }
  if (isNetworkFailure(error)) {
    actions.unshift(checkConnection);
  }
  if (error instanceof LabApiError && error.path !== undefined) {
    actions.push(copyReport);
  }
  const choice = await vscode.window.showErrorMessage(userMessage(error), ...actions);
  if (choice === showLog) {
    log.show();
  } else if (choice === signIn) {
    await vscode.commands.executeCommand(Commands.signIn);
  } else if (choice === copyReport) {
    await vscode.commands.executeCommand(Commands.copySupportReport);
  } else if (choice === checkConnection) {
    await vscode.commands.executeCommand(Commands.checkConnection, ...checkTargetOf(error));
  }
}

/** What Check Connection offered beside `error` checks: the address that failed (its lab, when one is defined there), never every lab. */
function checkTargetOf(error: unknown): unknown[] {
  const origin = error instanceof LabApiError ? error.text?.args.origin : undefined;
  return typeof origin === 'string' && origin !== '' ? [{ baseUrl: origin }] : [];
}

/**
 * Commands whose contract is to reject with the reason when they fail (after the notification), so
 * a caller can tell "shown" from "could not be shown"; the others resolve with undefined. Only a
 * caller's own arguments get the rejection: a click on a row, a button or the palette would have
 * VS Code show it again, a second notification saying the same.
 */
const REJECTING_COMMANDS: ReadonlySet<string> = new Set([Commands.previewReport]);

/**
 * Every command runs through here: failures are logged with their details, cancellation is
 * silent, and the user sees one short message with a "Show Log" button. The handler's result is
 * returned so other extensions and tasks can chain commands.
 */
export function runCommand(
  id: string,
  handler: CommandHandler,
  log: Logger,
  ready: () => Promise<void> = () => Promise.resolve(),
): (...args: unknown[]) => Promise<unknown> {
  return async (...args: unknown[]) => {
    try {
      await ready();
      return await handler(...args);
    } catch (error) {
      if (isCancellation(error)) {
        log.info('Command', `${id} was cancelled.`);
        return undefined;
      }
      log.error(
        'Command',
        `${id} failed: ${error instanceof LabApiError ? error.describe() : error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      );
      void showError(error, log);
      if (REJECTING_COMMANDS.has(id) && args.length > 0 && !commandTargets(args).fromUi) {
        throw error instanceof LabApiError ? new Error(phrase(error)) : error;
      }
      return undefined;
    }
  };
}

/** Registers a table of command ids and handlers through {@link runCommand}; each waits for `ready` (the labs' first read) first. */
export function registerCommands(
  table: Readonly<Record<string, CommandHandler>>,
  log: Logger,
  ready?: () => Promise<void>,
): vscode.Disposable[] {
  return Object.entries(table).map(([id, handler]) =>
    vscode.commands.registerCommand(id, runCommand(id, handler, log, ready)),
  );
}
