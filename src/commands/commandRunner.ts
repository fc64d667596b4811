import * as vscode from 'vscode';
import { LabApiError, isCancellation, isNetworkFailure } from '../../core/errors/errors';
import type { Logger } from '../log';
import { Commands } from '../constants';
import { NeedsDiskFolder } from '../downloads/diskFolders';
import { errorsShown, phrase, showWarning } from '../ui/phrase';
import { commandTargets } from '../ui/commandTargets';

export type CommandHandler = (...args: unknown[]) => Promise<unknown> | unknown;

/** The name of the lab at an address, when one is defined there (for a message that names it). */
export type LabNameOf = (origin: string) => string | undefined;

/** What the runner asks of the labs: a lab's name by its address, and to forget that it failed (before a Retry). */
export interface LabLookup {
  readonly nameOf: LabNameOf;
  readonly forgetFailure: (origin: string) => void;
}

/** The origin a lab error names, when it names one. */
function originOf(error: unknown): string | undefined {
  const origin = error instanceof LabApiError ? error.text?.args.origin : undefined;
  return typeof origin === 'string' && origin !== '' ? origin : undefined;
}

/**
 * The sentence for `error`, led by the lab's name when it names a lab's address and the sentence
 * does not already say the name: with several labs, "the lab at https://10.0.0.7" alone is not
 * enough to know which one it was.
 */
export function labMessage(error: unknown, labNameOf?: LabNameOf): string {
  const sentence = phrase(error);
  const origin = originOf(error);
  const name = origin ? labNameOf?.(origin) : undefined;
  return name && !sentence.includes(name) ? `${name}: ${sentence}` : sentence;
}

/**
 * The manifest folder a refusal names when the refusal is a merge git left unfinished (the file
 * unmerged, or conflict markers in it): Resolve finishes it there, in the Saved Reports view's way.
 */
function conflictedFolderOf(error: unknown): { folder: string; sentence: string } | undefined {
  const text = error instanceof LabApiError ? error.text : undefined;
  const [file, folder] = [text?.args.file, text?.args.folder];
  if (typeof file !== 'string' || typeof folder !== 'string') {
    return undefined;
  }
  if (text?.id === 'manifestUnmerged') {
    return {
      folder,
      sentence: vscode.l10n.t(
        'git left the manifest {0} unmerged: a merge did not finish (its merge driver may not have run), and the file may hold only one side; nothing was written. Resolve merges both sides entry by entry.',
        file,
      ),
    };
  }
  if (text?.id === 'manifestConflict') {
    return {
      folder,
      sentence: vscode.l10n.t(
        'The manifest {0} still holds git conflict markers; nothing was written. Resolve merges both sides entry by entry.',
        file,
      ),
    };
  }
  return undefined;
}

/**
 * Shows one error notification with the actions that help: try again (when the lab could not be
 * reached and the action can be repeated), check the connection, sign in again, resolve a
 * manifest a merge left unfinished, show the log.
 */
export async function showError(
  error: unknown,
  log: Logger,
  options: { readonly retry?: () => unknown; readonly labNameOf?: LabNameOf } = {},
): Promise<void> {
  const retry = vscode.l10n.t('Retry');
  const showLog = vscode.l10n.t('Show Log');
  const signIn = vscode.l10n.t('Sign In');
  const copyReport = vscode.l10n.t('Copy Support Report');
  const checkConnection = vscode.l10n.t('Check Connection');
  const resolve = vscode.l10n.t('Resolve');
  const conflicted = conflictedFolderOf(error);
  const actions = conflicted ? [resolve, showLog] : [showLog];
  if (error instanceof LabApiError && error.code === 'unauthorized') {
    actions.unshift(signIn);
  }
  if (isNetworkFailure(error)) {
    actions.unshift(checkConnection);
    if (options.retry) {
      actions.unshift(retry);
    }
  }
  if (error instanceof LabApiError && error.path !== undefined) {
    actions.push(copyReport);
  }
  const message = conflicted?.sentence ?? labMessage(error, options.labNameOf);
  errorsShown.push({ message, actions });
  errorsShown.splice(0, Math.max(0, errorsShown.length - 20));
  const choice = await vscode.window.showErrorMessage(message, ...actions);
  if (choice === retry) {
    await options.retry?.();
  } else if (choice === showLog) {
    log.show();
  } else if (choice === signIn) {
    await vscode.commands.executeCommand(Commands.signIn);
  } else if (choice === copyReport) {
    await vscode.commands.executeCommand(Commands.copySupportReport);
  } else if (choice === resolve && conflicted) {
    await vscode.commands.executeCommand(Commands.resolveManifest, { folder: conflicted.folder });
  } else if (choice === checkConnection) {
    await vscode.commands.executeCommand(Commands.checkConnection, ...checkTargetOf(error));
  }
}

/** What Check Connection offered beside `error` checks: the address that failed (its lab, when one is defined there), never every lab. */
function checkTargetOf(error: unknown): unknown[] {
  const origin = originOf(error);
  return origin ? [{ baseUrl: origin }] : [];
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
 * silent, and the user sees one short message naming the lab and the cause, with "Retry" (the same
 * command with the same arguments) when the lab could not be reached, and "Show Log". The
 * handler's result is returned so other extensions and tasks can chain commands.
 */
export function runCommand(
  id: string,
  handler: CommandHandler,
  log: Logger,
  ready: () => Promise<void> = () => Promise.resolve(),
  labs?: LabLookup,
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
      if (error instanceof NeedsDiskFolder) {
        // Not a failure: the workspace is virtual, and this command's work needs a folder on disk.
        log.info('Command', `${id} was refused: ${error.message}`);
        void showWarning(error.message);
        return undefined;
      }
      log.error(
        'Command',
        `${id} failed: ${error instanceof LabApiError ? error.describe() : error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      );
      void showError(error, log, {
        retry: () => {
          // Retry asks the lab again, even one known a moment ago not to answer.
          const origin = originOf(error);
          if (origin) {
            labs?.forgetFailure(origin);
          }
          return vscode.commands.executeCommand(id, ...args);
        },
        labNameOf: labs?.nameOf,
      });
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
  labs?: LabLookup,
): vscode.Disposable[] {
  return Object.entries(table).map(([id, handler]) =>
    vscode.commands.registerCommand(id, runCommand(id, handler, log, ready, labs)),
  );
}
