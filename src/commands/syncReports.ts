import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SaveRun } from '../../core/sync/bulkSave';
import { SKIP_REASONS, syncFolder } from '../../core/sync/folderSync';
import type { Report } from '../../core/api/records';
import { formatBytes } from '../../core/files/sizes';
import { outcome, saveWithProgress, upToDateCount } from '../downloads/saveWithProgress';
import { MANIFEST_FILE_NAME, readManifest, sectionFor } from '../../core/sync/manifest';
import {
  downloadTargetIn,
  resolveDownloadTarget,
  shownFolder,
  withFolderLayout,
} from '../downloads/targetFolder';
import { labsOfFolders } from '../labs/manifestLabs';
import { requireDiskFolder } from '../downloads/diskFolders';
import { targetFor, type SyncFolders } from '../downloads/syncFolderChoice';
import {
  describeReportFilter,
  matchesLocally,
  serverPart,
  type ReportFilter,
  type ReportsTreeProvider,
} from '../views/reportsTree';
import { knownNames } from '../views/recordText';
import { serverText } from '../../core/errors/serverText';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import type { Activity } from '../ui/activity';
import type { PromptsHolder } from '../ui/prompts';
import { labForCommand } from './labTarget';
import { listAllReports } from './saveAllReports';
import { commandTargets, type CommandTargets } from '../ui/commandTargets';
import { titleFor } from '../ui/prompts/labTitles';

export interface SyncSummary {
  readonly lab: string;
  readonly folder: string;
  readonly since?: string;
  readonly listed: number;
  readonly saved: number;
  /** Files left alone because they are the lab's files already. */
  readonly upToDate: number;
  readonly skipped: number;
  readonly failed: number;
  readonly bytes: number;
  readonly watermark?: string;
  readonly manifestWritten: boolean;
  /** Reports the folder holds for this lab after the sync. */
  readonly files: number;
  /** The sentence shown. */
  readonly message: string;
}

/** The sync's outcome in plain words: "Up to date (380 reports in lab-reports)." or what was saved, kept, skipped (why) and failed. */
export function syncSentence(
  lab: string,
  folder: string,
  run: SaveRun,
  files: number,
  filter?: string,
): string {
  if (
    run.saved.length === 0 &&
    run.skipped.every((skip) => skip.upToDate) &&
    run.failed.length === 0 &&
    !run.cancelled
  ) {
    return filter
      ? vscode.l10n.t(
          'The reports of {0} that match the filter ({1}) are up to date in {2}.',
          lab,
          filter,
          folder,
        )
      : vscode.l10n.t('{0} is up to date ({1} reports in {2}).', lab, files, folder);
  }
  const saved =
    run.saved.length > 0
      ? vscode.l10n.t('{0} new or changed saved ({1})', run.saved.length, formatBytes(run.bytes))
      : vscode.l10n.t('nothing new saved');
  return filter
    ? vscode.l10n.t(
        'Sync of {0} (filtered: {1}) into {2}: {3}',
        lab,
        filter,
        folder,
        outcome(saved, run),
      )
    : vscode.l10n.t('Sync of {0} into {1}: {2}', lab, folder, outcome(saved, run));
}

/** Arguments of `labData.syncReports`. */
export interface SyncArgs {
  readonly lab?: string;
  /** The folder to sync: a full path, or one relative to the workspace folder; without it, the download folder. */
  readonly folder?: string;
}

/**
 * `labData.syncReports` ("Sync Reports to Folder…", `{ lab?, folder? }`): keeps a folder up to date
 * with one lab, through the core's {@link syncFolder}. From the UI it asks which folder (the one
 * used last in this workspace first, the download folder, or another one) and honours the Reports
 * view's filter as Save All does: a filtered sync saves what the filter matches and says so before
 * it starts, every time. The first sync of a folder asks once, with the same count of reports the
 * progress and the summary then count. Automation names the folder or gets the download folder.
 */
export async function syncReports(
  labs: Labs,
  reportsTree: ReportsTreeProvider,
  prompts: PromptsHolder,
  folders: SyncFolders,
  log: Logger,
  activity: Activity,
  ...args: unknown[]
): Promise<SyncSummary | undefined> {
  requireDiskFolder('sync');
  const targets = commandTargets(args);
  const given = targets.options as SyncArgs;
  const connection = await labForCommand(
    labs,
    prompts.current,
    targets.lab,
    targets.lab === undefined && labs.signedIn.length > 1
      ? await labsOfFolders(labs, await foldersToSync(folders, given.folder))
      : [],
  );
  const api = connection?.backgroundApi;
  const standard = api && (await resolveDownloadTarget(prompts.current, labs.signedIn.length > 1));
  if (!api || !standard) {
    return undefined;
  }
  const title = titleFor(api.lab.name, 'syncReports');
  const chosen = targets.automated
    ? typeof given.folder === 'string' && given.folder.trim() !== ''
      ? targetFor(path.resolve(standard.root, given.folder.trim()), standard)
      : standard
    : await folders.choose(prompts.current, standard, title);
  // The folder chosen keeps its own layout (flat, or a folder per lab), as the download folder does.
  const target = chosen && (await withFolderLayout(chosen));
  if (!target) {
    return undefined;
  }
  const lab = { name: api.lab.name, origin: api.origin };
  const folder = shownFolder(target.folder);
  const scope = syncScope(targets, reportsTree, lab.name);
  // A colleague's clone: its manifest records this lab's reports, its watermark (machine state) is not there.
  const recorded = Object.keys(
    sectionFor(
      await readManifest(target.folder).catch(() => ({ version: 3 as const, labs: {} })),
      lab,
    ).files,
  ).length;
  const { filter, filtered } = scope;
  const result = await syncFolder(api, target, {
    filtered,
    list: async (query, from) => {
      const reports = await listAllReports(
        api,
        filtered ? { ...query, ...serverPart(filter) } : query,
        from
          ? vscode.l10n.t('Checking {0} for new reports…', lab.name)
          : vscode.l10n.t('Listing reports of {0}…', lab.name),
      );
      return reports.filter((report) => matchesLocally(report, filter));
    },
    // "Syncing…" in the status bar once files are fetched: never while the question still waits.
    save: (reports, decide) =>
      activity.run(vscode.l10n.t('Syncing {0}', lab.name), () =>
        saveWithProgress(vscode.l10n.t('Syncing reports of {0}…', lab.name), reports, {
          api,
          target,
          prompts: prompts.current,
          log,
          decide,
        }),
      ),
    // Automation (`{ lab }` from a task or another extension) asked for the sync already.
    confirm: targets.automated
      ? undefined
      : (reports, first) =>
          askToSync(prompts, { lab: lab.name, folder, recorded, scope }, reports, first),
  });
  const { since, listed, run, watermark, manifestWritten, files } = result;
  if (result.declined) {
    log.info('Sync', `The sync of ${target.folder} with ${lab.name} was not started.`);
    return undefined;
  }
  const message = syncSentence(
    lab.name,
    folder,
    run,
    files,
    filtered ? scope.described : undefined,
  );
  log.info(
    'Sync',
    `${message} Listed ${listed.length}${since ? ` published since ${since}` : ''}. Folder: ${target.folder}`,
  );
  run.skipped
    .filter((skip) => skip.reason !== SKIP_REASONS.upToDate)
    .forEach((skip) => log.info('Sync', `Skipped ${skip.reportId}: ${skip.reason}.`));
  void showOutcome(message, run, vscode.Uri.file(target.folder), log);
  return {
    lab: lab.name,
    folder: target.folder,
    since,
    listed: listed.length,
    saved: run.saved.length,
    upToDate: upToDateCount(run),
    skipped: run.skipped.length,
    failed: run.failed.length,
    bytes: run.bytes,
    watermark,
    manifestWritten,
    files,
    message,
  };
}

/** What a sync covers: the Reports view's filter, or the client or project whose row it started from. */
interface SyncScope {
  readonly filter: ReportFilter;
  readonly filtered: boolean;
  /** The filter in words, server text cleaned ("client Riverside Water Authority (CL-0001)"). */
  readonly described: string;
  /** The client or project whose row's Sync this is, by name. */
  readonly row?: string;
}

/**
 * The reports a sync covers: from a client's or project's row, that row's reports; from the UI
 * otherwise, what the Reports view's filter matches; automation (`{ lab }`) keeps its full sync.
 */
function syncScope(
  targets: CommandTargets,
  reportsTree: ReportsTreeProvider,
  lab: string,
): SyncScope {
  const ref = targets.refs.find(
    (candidate) => candidate.kind === 'client' || candidate.kind === 'project',
  );
  const filter: ReportFilter = targets.automated
    ? {}
    : ref?.kind === 'client'
      ? { clientId: ref.id }
      : ref?.kind === 'project'
        ? { projectId: ref.id }
        : reportsTree.filterOf(lab);
  // Clients' and projects' names are server text: cleaned before the question, the summary or the log shows them.
  const described = serverText(describeReportFilter(filter, knownNames.of(lab)), 300);
  const name = typeof ref?.record?.name === 'string' ? ref.record.name : ref?.id;
  return {
    filter,
    filtered: Object.keys(filter).length > 0,
    described,
    ...(ref ? { row: serverText(name ?? ref.id, 120) } : {}),
  };
}

/** The question before a first or filtered sync: how many reports, of what, into which folder. */
function askToSync(
  prompts: PromptsHolder,
  sync: {
    readonly lab: string;
    readonly folder: string;
    readonly recorded: number;
    readonly scope: SyncScope;
  },
  reports: readonly Report[],
  first: boolean,
): Promise<boolean> {
  const { lab, folder, recorded, scope } = sync;
  const withFile = reports.filter((report) => report.download_available !== false).length;
  const files =
    withFile === reports.length
      ? vscode.l10n.t('each has a file, saved there')
      : vscode.l10n.t(
          '{0} of them have a file, saved there; {1} have none',
          withFile,
          reports.length - withFile,
        );
  const question = scope.row
    ? vscode.l10n.t(
        'Sync the {0} reports of {1} at {2} into {3}?',
        reports.length,
        scope.row,
        lab,
        folder,
      )
    : scope.filtered
      ? vscode.l10n.t(
          'Sync the {0} reports of {1} that match the filter into {2}?',
          reports.length,
          lab,
          folder,
        )
      : vscode.l10n.t('Sync {0} reports of {1} into {2}?', reports.length, lab, folder);
  const which = scope.row
    ? vscode.l10n.t(
        'Only the reports of {0} are synced; Sync from the lab or the view syncs every report.',
        scope.row,
      )
    : scope.filtered
      ? vscode.l10n.t(
          'The Reports view is filtered ({0}): only the reports it matches are synced; clear the filter to sync every report.',
          scope.described,
        )
      : undefined;
  return prompts.current.confirm(
    question,
    [
      which,
      first && recorded > 0
        ? vscode.l10n.t(
            "{0}'s manifest records {1} reports of {2}, but this machine has not synced the folder before (its watermark is this machine's own), so every report is listed; to bring back only the recorded reports at their recorded revisions, use Restore Saved Reports instead.",
            folder,
            recorded,
            lab,
          )
        : first
          ? vscode.l10n.t('This is the first sync of {0} with {1}.', folder, lab)
          : undefined,
      vscode.l10n.t('Of these {0} reports, {1}.', reports.length, files),
      scope.filtered ? undefined : vscode.l10n.t('Later syncs fetch only what is new or changed.'),
    ]
      .filter(Boolean)
      .join(' '),
    vscode.l10n.t('Sync'),
  );
}

/**
 * The folders a sync is likely to go to, whose manifests name the labs to propose first: the one
 * named, the one used last in this workspace, each workspace folder's download folder, then any
 * other folder of the workspace holding a manifest.
 */
async function foldersToSync(folders: SyncFolders, given?: unknown): Promise<string[]> {
  const roots = (vscode.workspace.workspaceFolders ?? []).filter(
    (root) => root.uri.scheme === 'file',
  );
  const named =
    typeof given === 'string' && given.trim() !== ''
      ? roots.map((root) => path.resolve(root.uri.fsPath, given.trim()))
      : [];
  const manifests = await vscode.workspace.findFiles(
    `**/${MANIFEST_FILE_NAME}`,
    '**/node_modules/**',
    50,
  );
  return [
    ...named,
    ...(folders.remembered ? [folders.remembered] : []),
    ...roots.map((root) => downloadTargetIn(root.uri).folder),
    ...manifests.map((uri) => path.dirname(uri.fsPath)).sort(),
  ];
}

/** The summary with Reveal in Explorer (and Show Log after a failure); never awaited by the command. */
async function showOutcome(
  message: string,
  run: SaveRun,
  folder: vscode.Uri,
  log: Logger,
): Promise<void> {
  const reveal = vscode.l10n.t('Reveal in Explorer');
  const showLog = vscode.l10n.t('Show Log');
  const choice =
    run.failed.length > 0
      ? await vscode.window.showWarningMessage(message, reveal, showLog)
      : await vscode.window.showInformationMessage(message, reveal);
  if (choice === reveal) {
    await vscode.commands.executeCommand(
      'revealInExplorer',
      run.saved[0] ? vscode.Uri.file(run.saved[0].file.path) : folder,
    );
  } else if (choice === showLog) {
    log.show();
  }
}
