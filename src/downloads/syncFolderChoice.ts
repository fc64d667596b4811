import { existsSync, promises as fs } from 'node:fs';
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
              vscode.l10n.t('Lab Data: Sync into Another Folder'),
              vscode.Uri.file(remembered ?? standard.folder),
              vscode.Uri.file(standard.root),
            )
          )?.fsPath;
    if (folder === undefined) {
      return undefined;
    }
    await makeFolder(folder, standard.root);
    await this.remember(folder);
    return targetFor(folder, standard);
  }
}

/**
 * Makes a folder a person typed, when it is not there yet: only inside the workspace folder
 * `root` (a folder elsewhere must exist already).
 */
export async function makeFolder(folder: string, root: string): Promise<void> {
  if (existsSync(folder)) {
    return;
  }
  if (!isInside(path.resolve(folder), root)) {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t(
        'A new folder must be inside the workspace folder; an existing one can be anywhere.',
      ),
    );
  }
  await fs.mkdir(folder, { recursive: true });
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
    ...downloadTargetIn(vscode.Uri.file(inside ? standard.root : resolved), standard.severalLabs),
    folder: resolved,
    root: inside ? standard.root : resolved,
  };
}
