import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatBytes } from '../../core/files/sizes';
import { serverText } from '../../core/errors/serverText';
import { foundOnPath, shellQuoted, stageFile } from '../../core/sync/gitState';
import { MANIFEST_FILE_NAME, readManifestStrictly } from '../../core/sync/manifest';
import { manifestProblemText } from '../../core/sync/manifestProblems';
import { pullFolder } from '../../core/sync/pull';
import { pushFolder, type PushedFile } from '../../core/sync/push';
import {
  GITATTRIBUTES_LINE,
  ManifestGitError,
  installMergeDriver,
  resolveManifest,
} from '../../core/sync/resolveManifest';
import type { LostMerge } from '../../core/sync/lostMerge';
import { toAbortSignal } from '../cancellation';
import { Commands } from '../constants';
import {
  contentCache,
  sayTeamCacheTrouble,
  teamCacheCause,
  withContentCache,
} from '../downloads/teamCache';
import type { Labs } from '../labs/labs';
import { apiServing } from '../labs/manifestLabs';
import type { Logger } from '../log';
import { withNotificationProgress } from '../ui/progress';
import type { PromptsHolder } from '../ui/prompts';
import type { SavedEntryRow } from '../views/savedReportsView';
import { oneAtATime } from './folderRuns';
import { servingLabName } from './servingLab';
import type { SavedFolderStates } from './savedFolders';
import type { SavedReportFindings } from './savedReports';

/** The folder a command acts on: a row of the view, `{ folder }`, or a path. */
function folderOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') {
    return arg;
  }
  if (arg instanceof vscode.Uri) {
    return arg.fsPath;
  }
  const folder = (arg as { folder?: unknown } | undefined)?.folder;
  return typeof folder === 'string' ? folder : undefined;
}

/** The report a command acts on: a report row of the view, or `{ folder, lab, id }` (the manifest's lab). */
function reportOf(arg: unknown): { folder: string; entry: SavedEntryRow } | undefined {
  const given = arg as
    { folder?: unknown; entry?: SavedEntryRow; lab?: unknown; id?: unknown } | undefined;
  if (typeof given?.folder !== 'string') {
    return undefined;
  }
  if (given.entry) {
    return { folder: given.folder, entry: given.entry };
  }
  if (typeof given.lab === 'string' && typeof given.id === 'string') {
    return {
      folder: given.folder,
      entry: { lab: given.lab, origin: '', reportId: given.id, file: '', state: 'inStep' },
    };
  }
  return undefined;
}

/** Folders to act on: the one given, else every manifest the view lists. */
async function foldersOf(states: SavedFolderStates, arg: unknown): Promise<string[]> {
  const given = folderOf(arg);
  if (given !== undefined) {
    return [given];
  }
  return (await states.folders()).map((folder) => folder.folder);
}

/**
 * Restore on a folder's row: `labData.restoreReports` with `{ folder }`; on a missing report's row,
 * that file alone, as the per-file fix restores it (cache first, then the lab, its recorded name).
 */
export function restoreSavedFolder(arg?: unknown): Thenable<unknown> {
  const report = reportOf(arg);
  if (report?.entry.file) {
    return vscode.commands.executeCommand(Commands.redownloadSavedReport, {
      folder: report.folder,
      lab: report.entry.lab,
      id: report.entry.reportId,
    });
  }
  const folder = folderOf(arg);
  return vscode.commands.executeCommand(
    Commands.restoreReports,
    ...(folder !== undefined ? [{ folder }] : []),
  );
}

/** Verify on a folder's row: `labData.verifySavedReports` with `{ folder }`. */
export function verifySavedFolder(arg?: unknown): Thenable<unknown> {
  const folder = folderOf(arg);
  return vscode.commands.executeCommand(
    Commands.verifySavedReports,
    ...(folder !== undefined ? [{ folder }] : []),
  );
}

/**
 * Check the Lab for Amendments: the one action of the view that asks a lab (its list pages), for
 * a folder or every folder; the view then shows amended reports. Resolves to the counts.
 */
export async function checkForAmendments(
  states: SavedFolderStates,
  log: Logger,
  arg?: unknown,
): Promise<{ amended: number; notListed: number; unavailable: string[] }> {
  const folders = await foldersOf(states, arg);
  const found = await withNotificationProgress(
    vscode.l10n.t('Asking the lab about amendments…'),
    (_progress, token) => states.checkLab(folders, toAbortSignal(token)),
  );
  const text = vscode.l10n.t(
    'The lab has amended {0} saved report(s); {1} no longer listed.',
    found.amended,
    found.notListed,
  );
  log.info('Saved Reports', text);
  if (found.unavailable.length > 0) {
    void vscode.window.showWarningMessage(
      `${text} ${vscode.l10n.t('Not asked: {0}', serverText(found.unavailable.join('; '), 600))}`,
    );
  } else {
    void vscode.window.showInformationMessage(text);
  }
  return found;
}

/**
 * Update to the Lab's Revision on an amended report: says what changes and asks first, then takes
 * the lab's file and records it in that entry alone (the core's `pullFolder` with `update` on a
 * manifest of that entry, as the per-file fix does).
 */
export async function updateToLabRevision(
  labs: Labs,
  prompts: PromptsHolder,
  states: SavedFolderStates,
  findings: SavedReportFindings,
  log: Logger,
  arg?: unknown,
): Promise<boolean> {
  const target = reportOf(arg);
  if (!target) {
    return false;
  }
  const { folder, entry } = target;
  const { manifest, problems } = await readManifestStrictly(folder);
  const section = manifest?.labs[entry.lab];
  const recorded = section?.files[entry.reportId];
  if (!manifest || !section || !recorded) {
    void vscode.window.showErrorMessage(
      problems.map(manifestProblemText).join(' ') ||
        vscode.l10n.t('{0} is no longer recorded in {1}.', entry.reportId, MANIFEST_FILE_NAME),
    );
    return false;
  }
  // What changes is said before anything is written: the file's bytes and its entry.
  const confirmed = await prompts.current.confirm(
    vscode.l10n.t(
      'Update {0} to the lab’s revision of {1}?',
      serverText(recorded.file, 200),
      serverText(entry.reportId, 80),
    ),
    vscode.l10n.t(
      'The lab amended it ({0}): recorded revision {1}, at the lab {2}. The file is replaced by the lab’s and its entry in {3} records the new revision and SHA-256; no other entry changes.',
      serverText((entry.changes ?? []).join(', ') || vscode.l10n.t('amended'), 300),
      recorded.revision ?? '?',
      entry.labRevision ?? '?',
      MANIFEST_FILE_NAME,
    ),
    vscode.l10n.t("Update to the Lab's Revision"),
  );
  if (!confirmed) {
    return false;
  }
  const one = {
    ...manifest,
    labs: { [entry.lab]: { ...section, files: { [entry.reportId]: recorded } } },
  };
  const result = await withNotificationProgress(
    vscode.l10n.t('Updating {0}…', entry.reportId),
    (_progress, token) =>
      oneAtATime(folder, () =>
        withContentCache(log, (cache) =>
          pullFolder(folder, one, {
            apiFor: (name, origin) => apiServing(labs, { name, origin }),
            cache,
            force: true,
            update: true,
            signal: toAbortSignal(token),
          }),
        ),
      ),
  );
  const file = result.files[0];
  states.refresh(folder);
  if (file?.state === 'updated' || file?.state === 'present' || file?.state === 'restored') {
    findings.resolve(folder, entry.reportId);
    log.info('Saved Reports', `${entry.reportId}: ${file.state} at ${recorded.file}`);
    return true;
  }
  void vscode.window.showWarningMessage(
    vscode.l10n.t(
      '{0} was not updated: {1}',
      entry.reportId,
      serverText(file?.error?.message ?? file?.state ?? vscode.l10n.t('cancelled'), 300),
    ),
  );
  return false;
}

/** Reveal on a report row: its file in the Explorer. */
export function revealSavedReport(arg?: unknown): Thenable<unknown> | undefined {
  const target = reportOf(arg);
  if (!target) {
    return undefined;
  }
  const uri = vscode.Uri.file(path.join(target.folder, ...target.entry.file.split('/')));
  return vscode.commands.executeCommand(
    'revealInExplorer',
    existsSync(uri.fsPath) ? uri : vscode.Uri.file(target.folder),
  );
}

/** Preview on a report row: the saved file in the PDF editor, or the lab's when it is missing. */
export async function previewSavedReport(labs: Labs, arg?: unknown): Promise<unknown> {
  const target = reportOf(arg);
  if (!target) {
    return undefined;
  }
  const file = path.join(target.folder, ...target.entry.file.split('/'));
  if (target.entry.file !== '' && existsSync(file)) {
    return vscode.commands.executeCommand(
      'vscode.openWith',
      vscode.Uri.file(file),
      'labData.pdfPreview',
    );
  }
  const lab = await servingLabName(labs, target.folder, target.entry);
  return lab === undefined
    ? undefined
    : vscode.commands.executeCommand(Commands.previewReport, { lab, id: target.entry.reportId });
}

/** Compare with the Lab's on a report row: the saved metadata beside the lab's now. */
export function compareWithLab(arg?: unknown): Thenable<unknown> | undefined {
  const target = reportOf(arg);
  if (!target) {
    return undefined;
  }
  return vscode.commands.executeCommand(Commands.compareSavedReport, {
    folder: target.folder,
    lab: target.entry.lab,
    id: target.entry.reportId,
    ...(target.entry.origin ? { origin: target.entry.origin } : {}),
  });
}

/** What Resolve says after rebuilding a committed merge that lost entries from its parents. */
function restoredText(file: string, merge: LostMerge, conflicts: number, staged: boolean): string {
  const commit = merge.commit.slice(0, 12);
  return conflicts > 0
    ? vscode.l10n.t(
        'Restored {0} report(s) the merge {1} left out of {2}, with {3} conflict(s) kept from our side: check them, then stage the file (git add) and commit it.',
        merge.lost.length,
        commit,
        file,
        conflicts,
      )
    : staged
      ? vscode.l10n.t(
          'Restored {0} report(s) the merge {1} left out of {2}, rebuilt from its parents, and staged it; commit it, then Restore brings their files.',
          merge.lost.length,
          commit,
          file,
        )
      : vscode.l10n.t(
          'Restored {0} report(s) the merge {1} left out of {2}, rebuilt from its parents; stage it (git add) and commit it.',
          merge.lost.length,
          commit,
          file,
        );
}

/**
 * Resolve on a conflicted manifest: the core merge of `lab-data merge-manifest --resolve`. A clean
 * merge of a file git holds as unmerged is then staged (as VS Code's merge editor completes a
 * merge); with conflicts kept from our side, the person checks them and stages it.
 */
export async function resolveManifestConflict(
  states: SavedFolderStates,
  log: Logger,
  arg?: unknown,
): Promise<{ outcome: string; conflicts: number; staged: boolean } | undefined> {
  const folder = folderOf(arg);
  if (folder === undefined) {
    return undefined;
  }
  let staged = false;
  try {
    const resolved = await oneAtATime(folder, () => resolveManifest(folder));
    if ((resolved.fromGit || resolved.outcome === 'restored') && resolved.conflicts.length === 0) {
      staged = await stageFile(resolved.file);
    }
    const text =
      resolved.outcome === 'nothing'
        ? vscode.l10n.t('{0} has nothing to resolve.', resolved.file)
        : resolved.outcome === 'restored' && resolved.restored
          ? restoredText(resolved.file, resolved.restored, resolved.conflicts.length, staged)
          : resolved.conflicts.length > 0
            ? vscode.l10n.t(
                'Merged both sides of {0} entry by entry, with {1} conflict(s) kept from our side: check them, then stage the file (git add).',
                resolved.file,
                resolved.conflicts.length,
              )
            : staged
              ? vscode.l10n.t(
                  "Merged both sides of {0} entry by entry from git's versions and staged it; commit the merge.",
                  resolved.file,
                )
              : vscode.l10n.t('Merged both sides of {0} entry by entry.', resolved.file);
    log.info('Saved Reports', text);
    for (const conflict of resolved.conflicts) {
      log.warn('Saved Reports', serverText(conflict, 1000));
    }
    void (resolved.conflicts.length > 0
      ? vscode.window.showWarningMessage(text)
      : vscode.window.showInformationMessage(text));
    return { outcome: resolved.outcome, conflicts: resolved.conflicts.length, staged };
  } catch (error) {
    if (error instanceof ManifestGitError) {
      void vscode.window.showErrorMessage(error.message);
      return undefined;
    }
    throw error;
  } finally {
    states.refresh(folder);
  }
}

/**
 * Installs the merge driver for a folder's repository, as `lab-data merge-manifest --install`
 * does, with one difference: VS Code has no `lab-data` of its own to name. With one on PATH, git's
 * config names it by absolute path; without, only `.gitattributes` is written, and the message
 * says how to configure the driver (git merges the manifest as text until then, and Resolve
 * merges a conflict).
 */
export async function installMergeDriverFor(log: Logger, arg?: unknown): Promise<boolean> {
  const folder = folderOf(arg);
  if (folder === undefined) {
    return false;
  }
  const tool = await foundOnPath('lab-data');
  const driver = tool === undefined ? undefined : `${shellQuoted(tool)} merge-manifest %O %A %B %P`;
  try {
    const installed = await installMergeDriver(folder, driver);
    const text =
      driver !== undefined
        ? vscode.l10n.t(
            'Installed the merge driver in {0}: "{1}" in .gitattributes (commit it) and git config merge.lab-data.driver "{2}".',
            installed.top,
            GITATTRIBUTES_LINE,
            driver,
          )
        : vscode.l10n.t(
            'Wrote "{0}" in {1}/.gitattributes (commit it). lab-data is not on this PATH, so git merges the manifest as text until the driver is configured: install lab-data-cli and run lab-data merge-manifest --install in this clone; meanwhile Resolve in the Saved Reports view merges a conflicted manifest.',
            GITATTRIBUTES_LINE,
            installed.top,
          );
    log.info('Saved Reports', text);
    void vscode.window.showInformationMessage(text);
    return true;
  } catch (error) {
    if (error instanceof ManifestGitError) {
      void vscode.window.showErrorMessage(error.message);
      return false;
    }
    throw error;
  }
}

/** What Push to Team Cache returns: files by outcome, every folder together. */
export interface PushSummary {
  readonly cache: string;
  readonly pushed: number;
  readonly alreadyThere: number;
  readonly notPushed: number;
  readonly bytes: number;
  readonly cacheProblem?: string;
}

/**
 * Push to Team Cache: what `lab-data cache push` does (the core's `pushFolder`) into the cache
 * this machine restores from (`labData.cacheFolder`), for a folder or every folder: each recorded
 * file whose bytes are the recorded SHA-256 goes in. Progress, and one summary.
 */
export async function pushToTeamCache(
  states: SavedFolderStates,
  log: Logger,
  arg?: unknown,
): Promise<PushSummary> {
  const folders = await foldersOf(states, arg);
  const cache = await contentCache(log);
  const files: PushedFile[] = [];
  const problems: string[] = [];
  let bytes = 0;
  let cacheProblem: string | undefined;
  try {
    await withNotificationProgress(
      vscode.l10n.t('Pushing saved reports to the team cache…'),
      async (progress, token) => {
        for (const folder of folders) {
          const { manifest, problems: found } = await readManifestStrictly(folder);
          if (!manifest) {
            problems.push(...found.map(manifestProblemText));
            continue;
          }
          const result = await pushFolder(folder, manifest, cache, {
            signal: toAbortSignal(token),
            onProgress: ({ done, total, bytes: so }) =>
              progress.report({
                message: vscode.l10n.t('{0} of {1} files, {2}', done, total, formatBytes(so)),
              }),
          });
          files.push(...result.files);
          bytes += result.bytes;
          if (result.cacheProblem) {
            cacheProblem = result.cacheProblem.message;
            break;
          }
        }
      },
    );
  } finally {
    // A server's cache holds connections; a folder's, nothing.
    await cache.close().catch(() => undefined);
  }
  const count = (...wanted: Array<PushedFile['state']>): number =>
    files.filter((file) => wanted.includes(file.state)).length;
  const summary: PushSummary = {
    cache: cache.location,
    pushed: count('pushed'),
    alreadyThere: count('alreadyThere'),
    notPushed: count('missing', 'changed', 'cacheUnwritable', 'notChecked'),
    bytes,
    ...(cacheProblem !== undefined ? { cacheProblem } : {}),
  };
  const text = vscode.l10n.t(
    'Pushed to {0}: {1} file(s) ({2}), {3} already there, {4} not pushed ({5} changed locally, {6} missing).',
    cache.location,
    summary.pushed,
    formatBytes(bytes),
    summary.alreadyThere,
    summary.notPushed,
    count('changed'),
    count('missing'),
  );
  log.info('Saved Reports', text);
  // The cache's own cause first (refused credentials, silent, full), in the extension's words.
  const cause = teamCacheCause(cache, true);
  const trouble = [
    ...(cause
      ? [cause.sentence]
      : cacheProblem !== undefined
        ? [vscode.l10n.t('The cache cannot be written: {0}', serverText(cacheProblem, 300))]
        : []),
    ...problems,
  ];
  if (cause) {
    log.warn('Saved Reports', cause.sentence);
    void sayTeamCacheTrouble([...trouble, text].join(' '), cause, log);
  } else if (trouble.length > 0 || summary.notPushed > 0) {
    void sayTeamCacheTrouble([text, ...trouble].join(' '), undefined, log);
  } else {
    void vscode.window.showInformationMessage(text);
  }
  states.refresh();
  return summary;
}

/**
 * The offer to install the merge driver, made once per workspace (remembered in its state) when
 * the view finds a folder in a git repository whose attributes name no driver for the manifest.
 */
export function mergeDriverOffer(memento: vscode.Memento, log: Logger): (folder: string) => void {
  const key = 'labData.mergeDriverOffered';
  return (folder) => {
    if (memento.get<boolean>(key)) {
      return;
    }
    void memento.update(key, true);
    const install = vscode.l10n.t('Install Merge Driver');
    void vscode.window
      .showInformationMessage(
        vscode.l10n.t(
          'git merges {0} in {1} as text: two branches that both saved reports leave it in conflict. Install the merge driver (.gitattributes)?',
          MANIFEST_FILE_NAME,
          folder,
        ),
        install,
      )
      .then((choice) => (choice === install ? installMergeDriverFor(log, { folder }) : undefined));
  };
}
