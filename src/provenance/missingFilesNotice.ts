import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import { errorText } from '../../core/errors/errorText';
import { missingFiles } from '../../core/sync/folderLayout';
import { MANIFEST_FILE_NAME, readManifest } from '../../core/sync/manifest';
import { Commands } from '../constants';
import { shownFolder } from '../downloads/targetFolder';
import type { Logger } from '../log';

/** Folders whose missing files are never told of again (workspace state: a choice for this workspace). */
const NEVER_ASK = 'labData.missingFiles.neverAsk';
/** What was told last per folder (a digest of its missing entries), so the same state is told once. */
const TOLD = 'labData.missingFiles.told';

/** A folder whose manifest lists files that are not there. */
export interface MissingInFolder {
  readonly folder: string;
  readonly missing: number;
}

/** What one check found and did: the folders told of, the message, and the person's answer. */
export interface MissingFilesOutcome {
  readonly folders: readonly MissingInFolder[];
  /** Folders whose manifest a merge left unfinished (unmerged, or conflict markers), told of with Resolve. */
  readonly conflicted?: readonly string[];
  readonly message?: string;
  readonly choice?: 'restore' | 'neverAsk';
}

/** Shows the notice and resolves with the action chosen (undefined when dismissed). */
export type NoticeAnswer = (
  message: string,
  actions: readonly string[],
) => Thenable<string | undefined>;

const showNotice: NoticeAnswer = (message, actions) =>
  vscode.window.showInformationMessage(message, ...actions);

const showWarning: NoticeAnswer = (message, actions) =>
  vscode.window.showWarningMessage(message, ...actions);

/** What {@link TOLD} keeps for a folder told of as unfinished by a merge. */
const CONFLICT_TOLD = 'merge-unfinished';

/** One digest of a folder's missing entries: the same files missing give the same digest. */
function digestOf(ids: readonly string[]): string {
  return createHash('sha256')
    .update([...ids].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
}

/**
 * Tells, once, that a workspace's manifests list files that are not there, with **Restore** and a
 * way to stop asking for a folder. Cheap enough for every activation: one listing per folder a
 * manifest names, no file hashed, no lab asked. The same missing files are told of once; a folder
 * whose files are back (or missing anew) is told of again when it next lacks some.
 */
export class MissingFilesNotice {
  /** Checks run so far (activation runs one). */
  checks = 0;

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: Logger,
  ) {}

  /**
   * Finds the folders to tell of (every folder with a manifest in the workspace, or `folders`),
   * shows one notification for them all, and runs what the person chose.
   */
  async check(
    options: { readonly folders?: readonly string[]; readonly answer?: NoticeAnswer } = {},
  ): Promise<MissingFilesOutcome> {
    this.checks += 1;
    const conflicted: string[] = [];
    const found = await this.foldersToTell(
      options.folders ?? (await manifestFolders()),
      conflicted,
    );
    if (conflicted.length > 0) {
      await this.tellConflicted(conflicted, options.answer ?? showWarning);
    }
    const more = conflicted.length > 0 ? { conflicted } : {};
    if (found.length === 0) {
      return { folders: [], ...more };
    }
    const missing = found.reduce((sum, item) => sum + item.missing, 0);
    const one = found.length === 1;
    const message = one
      ? vscode.l10n.t(
          '{0} report file(s) recorded in {1} are missing from the folder.',
          missing,
          `${shownFolder(found[0]!.folder)}/${MANIFEST_FILE_NAME}`,
        )
      : vscode.l10n.t(
          '{0} report file(s) recorded in the manifests of {1} folders are missing.',
          missing,
          found.length,
        );
    const restore = vscode.l10n.t('Restore');
    const never = one
      ? vscode.l10n.t('Don’t Ask for This Folder')
      : vscode.l10n.t('Don’t Ask for These Folders');
    const folders = found.map((item) => item.folder);
    await this.remember(TOLD, (told: Record<string, string>) => ({
      ...told,
      ...Object.fromEntries(found.map((item) => [item.folder, item.digest])),
    }));
    const choice = await (options.answer ?? showNotice)(message, [restore, never]);
    const outcome = {
      folders: found.map(({ folder, missing: count }) => ({ folder, missing: count })),
      message,
      ...more,
    };
    if (choice === restore) {
      for (const folder of folders) {
        await vscode.commands.executeCommand(Commands.restoreReports, { folder });
      }
      return { ...outcome, choice: 'restore' };
    }
    if (choice === never) {
      await this.remember(NEVER_ASK, (list: string[]) => [...new Set([...list, ...folders])]);
      return { ...outcome, choice: 'neverAsk' };
    }
    return outcome;
  }

  /**
   * Tells, on opening, of manifests a merge left unfinished (once per folder until it is readable
   * again), with Resolve: nothing else can use them until then.
   */
  private async tellConflicted(folders: readonly string[], answer: NoticeAnswer): Promise<void> {
    await this.remember(TOLD, (told: Record<string, string>) => ({
      ...told,
      ...Object.fromEntries(folders.map((folder) => [folder, CONFLICT_TOLD])),
    }));
    const resolve = vscode.l10n.t('Resolve');
    const message =
      folders.length === 1
        ? vscode.l10n.t(
            'A git merge left {0} unfinished (unmerged, or with conflict markers): nothing can save to or restore that folder until it is resolved. Resolve merges both sides entry by entry.',
            `${shownFolder(folders[0]!)}/${MANIFEST_FILE_NAME}`,
          )
        : vscode.l10n.t(
            'A git merge left the manifests of {0} folders unfinished (unmerged, or with conflict markers): nothing can save to or restore them until they are resolved. Resolve merges both sides entry by entry.',
            folders.length,
          );
    if ((await answer(message, [resolve])) === resolve) {
      for (const folder of folders) {
        await vscode.commands.executeCommand(Commands.resolveManifest, { folder });
      }
    }
  }

  /**
   * The folders with missing files not told of yet in this state, and not set aside by "Don't
   * Ask"; a folder whose manifest a merge left unfinished goes to `conflicted` (not told yet).
   */
  private async foldersToTell(
    folders: readonly string[],
    conflicted: string[],
  ): Promise<Array<MissingInFolder & { readonly digest: string }>> {
    const never = new Set(this.state.get<string[]>(NEVER_ASK, []));
    const told = this.state.get<Record<string, string>>(TOLD, {});
    const result: Array<MissingInFolder & { readonly digest: string }> = [];
    const forget: string[] = [];
    for (const folder of folders.map((candidate) => path.resolve(candidate))) {
      if (never.has(folder)) {
        continue;
      }
      let missing: string[];
      try {
        const entries = await missingFiles(folder, await readManifest(folder));
        missing = entries.map((item) => `${item.origin}\n${item.entry.report_id}`);
      } catch (error) {
        const id = error instanceof LabApiError ? error.text?.id : undefined;
        if (
          (id === 'manifestUnmerged' || id === 'manifestConflict') &&
          told[folder] !== CONFLICT_TOLD
        ) {
          conflicted.push(folder);
        }
        // Any other manifest that cannot be read is for Verify and Restore to explain.
        this.log.info('Saved', `Not checked for missing files: ${folder}: ${errorText(error)}`);
        continue;
      }
      if (missing.length === 0) {
        forget.push(folder);
        continue;
      }
      const digest = digestOf(missing);
      if (told[folder] !== digest) {
        result.push({ folder, missing: missing.length, digest });
      }
    }
    if (forget.some((folder) => folder in told)) {
      await this.remember(TOLD, (all: Record<string, string>) =>
        Object.fromEntries(Object.entries(all).filter(([folder]) => !forget.includes(folder))),
      );
    }
    return result;
  }

  private remember<T extends object>(key: string, change: (value: T) => T): Thenable<void> {
    const empty = (key === NEVER_ASK ? [] : {}) as T;
    return this.state.update(key, change(this.state.get<T>(key, empty)));
  }
}

/** Every folder in the workspace holding a manifest (as Restore finds them). */
async function manifestFolders(): Promise<string[]> {
  const manifests = await vscode.workspace.findFiles(
    `**/${MANIFEST_FILE_NAME}`,
    '**/node_modules/**',
    1000,
  );
  return [...new Set(manifests.map((uri) => path.dirname(uri.fsPath)))].sort();
}
