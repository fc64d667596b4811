import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import { isInside } from '../../core/files/safeWriter';
import { folderTemplate } from '../../core/sync/folderLayout';
import { readManifest } from '../../core/sync/manifest';
import { SETTINGS_SECTION, Settings } from '../constants';
import type { Prompts } from '../ui/prompts';
import { diskFolders } from './diskFolders';

/** A folder as a person finds it: relative to the workspace where it is inside one. */
export function shownFolder(folder: string): string {
  return vscode.workspace.asRelativePath(folder, false) || path.basename(folder);
}

export interface DownloadTarget {
  /** The workspace folder (or chosen folder) files must stay inside. */
  readonly root: string;
  /** `<root>/<labData.downloadFolder>`. */
  readonly folder: string;
  /** `labData.fileNameTemplate` for that folder. */
  readonly template: string;
  /** Several labs are signed in: a folder that records no file yet gets a folder per lab. */
  readonly severalLabs?: boolean;
  /** `template` is a `labData.fileNameTemplate` the user set, not the folder's layout. */
  readonly ownTemplate?: boolean;
}

/**
 * Where report files go: `<workspace folder>/<labData.downloadFolder>`. Multi-root asks which folder
 * (of those on disk: {@link diskFolders}); no folder open offers to pick one. The setting must name
 * a folder inside the workspace folder.
 */
export async function resolveDownloadTarget(
  prompts: Prompts,
  severalLabs = false,
): Promise<DownloadTarget | undefined> {
  const folders = diskFolders();
  let rootUri: vscode.Uri | undefined;
  if (folders.length === 1) {
    rootUri = folders[0]!.uri;
  } else if (folders.length > 1) {
    rootUri = (await prompts.pickWorkspaceFolder(folders))?.uri;
  } else {
    rootUri = await prompts.pickFolderOnDisk();
  }
  if (!rootUri) {
    return undefined;
  }
  return withFolderLayout(downloadTargetIn(rootUri, severalLabs));
}

/**
 * The target named as its folder is laid out: without a template of the user's, the layout the
 * folder's manifest records (flat, or a folder per lab: {@link folderTemplate}), so a second lab
 * signed in never moves a folder's new files one level down. A manifest that cannot be read is
 * left to the save, which says what is wrong with it.
 */
export async function withFolderLayout(target: DownloadTarget): Promise<DownloadTarget> {
  if (target.ownTemplate) {
    return target;
  }
  const manifest = await readManifest(target.folder).catch(() => undefined);
  return { ...target, template: folderTemplate(manifest, target.severalLabs ?? false) };
}

/**
 * The download folder of one workspace folder (or a folder on disk), per its settings. Without a
 * `labData.fileNameTemplate` of the user's, the template is today's default for a new folder
 * ({@link withFolderLayout} reads the folder's own).
 */
export function downloadTargetIn(rootUri: vscode.Uri, severalLabs = false): DownloadTarget {
  if (rootUri.scheme !== 'file') {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t('Reports can only be saved into a folder on this machine’s disk.'),
    );
  }
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION, rootUri);
  const relative =
    (config.get<string>(Settings.downloadFolder) ?? 'lab-reports').trim() || 'lab-reports';
  const root = rootUri.fsPath;
  const folder = path.resolve(root, relative);
  if (path.isAbsolute(relative) || !isInside(folder, root)) {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t(
        'The labData.downloadFolder setting ("{0}") must name a folder inside the workspace folder.',
        relative,
      ),
    );
  }
  const set = config.inspect<string>(Settings.fileNameTemplate);
  const own = set?.workspaceFolderValue ?? set?.workspaceValue ?? set?.globalValue;
  return {
    root,
    folder,
    template: own ?? folderTemplate(undefined, severalLabs),
    ...(severalLabs ? { severalLabs } : {}),
    ...(own !== undefined ? { ownTemplate: true } : {}),
  };
}
