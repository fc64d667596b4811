import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import { isInside } from '../../core/files/safeWriter';
import type { Prompts } from '../ui/prompts';
import { downloadTargetIn, shownFolder, type DownloadTarget } from './targetFolder';

const REMEMBERED = 'labData.syncFolder';

/**
 * The folder a workspace's syncs go to: the one picked last in this workspace (kept in its
 * workspace state, never in settings a repository could carry), else `labData.downloadFolder`.
 */
export class SyncFolders {
  constructor(private readonly state: vscode.Memento) {}

  /** The folder picked last in this workspace, while it is still there. */
  get remembered(): string | undefined {
    const folder = this.state.get<unknown>(REMEMBERED);
    return typeof folder === 'string' && path.isAbsolute(folder) && existsSync(folder)
      ? folder
      : undefined;
  }

  remember(folder: string): Thenable<void> {
    return this.state.update(REMEMBERED, folder);
  }

  /**
   * Asks where to sync: the folder used last (first, so Enter keeps it), the download folder, or
   * another folder chosen on disk. The answer is remembered for this workspace.
   */
  async choose(
    prompts: Prompts,
    standard: DownloadTarget,
    title: string,
  ): Promise<DownloadTarget | undefined> {
    const remembered = this.remembered;
    const choices = [
      ...(remembered && remembered !== standard.folder
        ? [
            {
              id: remembered,
              label: `$(folder) ${shownFolder(remembered)}`,
              description: vscode.l10n.t('used last'),
              detail: remembered,
            },
          ]
        : []),
      {
        id: standard.folder,
        label: `$(folder) ${shownFolder(standard.folder)}`,
        description:
          remembered === standard.folder
            ? vscode.l10n.t('used last · the download folder (labData.downloadFolder)')
            : vscode.l10n.t('the download folder (labData.downloadFolder)'),
        detail: standard.folder,
      },
      { id: '', label: `$(folder-opened) ${vscode.l10n.t('Choose Another Folder…')}` },
    ];
    const picked = await prompts.pickOne(
      title,
      vscode.l10n.t('Sync into which folder?'),
      choices,
      false,
      remembered ?? standard.folder,
    );
    if (picked === undefined || picked === null) {
      return undefined;
    }
    const folder =
      picked !== ''
        ? picked
        : (
            await prompts.chooseFolder(
              vscode.l10n.t('Sync Here'),
              vscode.Uri.file(remembered ?? standard.folder),
            )
          )?.fsPath;
    if (folder === undefined) {
      return undefined;
    }
    await this.remember(folder);
    return targetFor(folder, standard);
  }
}

/**
 * The save target for a sync into `folder`: inside the workspace folder it is bounded by that
 * folder, as the download folder is; a folder elsewhere on disk is bounded by itself.
 */
export function targetFor(folder: string, standard: DownloadTarget): DownloadTarget {
  if (!path.isAbsolute(folder)) {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t('"{0}" is not a full path to a folder.', folder),
    );
  }
  const resolved = path.resolve(folder);
  if (resolved === standard.folder) {
    return standard;
  }
  const inside = isInside(resolved, standard.root);
  return {
    ...downloadTargetIn(vscode.Uri.file(inside ? standard.root : resolved)),
    folder: resolved,
    root: inside ? standard.root : resolved,
  };
}
