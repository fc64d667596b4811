import * as vscode from 'vscode';

/** The work that reads or writes a folder's files on this machine's disk. */
export type DiskWork = 'save' | 'sync' | 'restore' | 'verify';

/**
 * Why a command cannot do its work here: the workspace (or the folder it was given) is virtual, a
 * folder that is not on the disk of the machine the extension runs on (`memfs:`, `vscode-vfs:`…).
 * The command runner shows its message as one warning, not as an error.
 */
export class NeedsDiskFolder extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NeedsDiskFolder';
  }
}

/** The workspace folders on this machine's disk (scheme `file`: with a remote, the remote's disk). */
export function diskFolders(): readonly vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
}

/**
 * Whether the workspace is virtual: it has folders and none is on disk. There, no search provider
 * answers `workspace.findFiles` (it waits for one forever), so nothing searches for manifests.
 */
export function isVirtualWorkspace(): boolean {
  return (vscode.workspace.workspaceFolders?.length ?? 0) > 0 && diskFolders().length === 0;
}

function sentence(work: DiskWork, where: string): string {
  switch (work) {
    case 'save':
      return vscode.l10n.t(
        'Saving reports needs a folder on this machine’s disk, and {0} is virtual: browse and preview here, or open a folder on disk to save.',
        where,
      );
    case 'sync':
      return vscode.l10n.t(
        'Syncing reports needs a folder on this machine’s disk, and {0} is virtual: browse and preview here, or open a folder on disk to sync.',
        where,
      );
    case 'restore':
      return vscode.l10n.t(
        'Restoring saved reports needs a folder on this machine’s disk, and {0} is virtual: open the folder on disk to restore it.',
        where,
      );
    case 'verify':
      return vscode.l10n.t(
        'Verifying saved reports needs a folder on this machine’s disk, and {0} is virtual: open the folder on disk to verify it.',
        where,
      );
  }
}

/**
 * The one rule of virtual workspaces: work on files needs a folder on disk. Throws
 * {@link NeedsDiskFolder} when `given` (a folder the command was handed) is not on disk, or, with
 * none given, when the workspace has folders and none of them is on disk. A window with no folder
 * passes (the command offers to choose one on disk), and so does a workspace with at least one
 * folder on disk (its virtual folders are never offered).
 */
export function requireDiskFolder(work: DiskWork, given?: vscode.Uri): void {
  if (given !== undefined) {
    if (given.scheme !== 'file') {
      throw new NeedsDiskFolder(sentence(work, given.toString(true)));
    }
    return;
  }
  if (isVirtualWorkspace()) {
    throw new NeedsDiskFolder(
      sentence(work, vscode.workspace.workspaceFolders![0]!.uri.toString(true)),
    );
  }
}
