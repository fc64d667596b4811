import * as vscode from 'vscode';
import { serverText } from '../../core/errors/serverText';
import { withNotificationProgress } from '../ui/progress';
import { toAbortSignal } from '../cancellation';
import type { LabApi } from '../../core/api/labApi';
import type { ListQuery } from '../../core/api/query';
import type { Report } from '../../core/api/records';
import { listAllReports as listAll } from '../../core/sync/folderSync';
import { searchFilters } from '../../core/derived/savedSearches';
import { requireDiskFolder } from '../downloads/diskFolders';
import { resolveDownloadTarget, shownFolder } from '../downloads/targetFolder';
import { saveWithProgress, summarize, upToDateCount } from '../downloads/saveWithProgress';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import type { ExistingFileChoice, PromptsHolder } from '../ui/prompts';
import { matchesLocally, serverPart, type ReportsTreeProvider } from '../views/reportsTree';
import { labForCommand } from './labTarget';
import { sayingRetries } from '../downloads/retryProgress';
import { commandTargets, type RecordRef } from '../ui/commandTargets';

export interface BulkSummary {
  readonly folder: string;
  readonly listed: number;
  readonly saved: number;
  /** Of the skipped, the files already identical to the lab's (left alone without a question). */
  readonly upToDate: number;
  readonly skipped: number;
  readonly failed: number;
  readonly bytes: number;
  readonly cancelled: boolean;
  readonly uris: vscode.Uri[];
}

/** Lists every report matching `query`, page by page, under a cancellable progress notification. */
export async function listAllReports(
  api: LabApi,
  query: ListQuery,
  title: string,
): Promise<Report[]> {
  return withNotificationProgress(title, (progress, token) =>
    // A retry of a lab that does not answer is said in the progress.
    sayingRetries(api, progress, () =>
      listAll(api, query, {
        signal: toAbortSignal(token),
        onPage: (listed, total) =>
          progress.report({
            message:
              total !== undefined
                ? vscode.l10n.t('{0} of {1} reports', listed, total)
                : vscode.l10n.t('{0} reports', listed),
          }),
      }),
    ),
  );
}

/** The report scope of a row: a client, a project, or (no row) the lab's part of the Reports view with its filter. */
function scopeOf(
  ref: RecordRef | undefined,
  lab: string,
  reportsTree: ReportsTreeProvider,
): { query: ListQuery; label: string; keep?: (report: Report) => boolean } {
  // Server text (a client's or project's name), cleaned before it is shown or logged.
  const name = serverText(typeof ref?.record?.name === 'string' ? ref.record.name : ref?.id, 120);
  if (ref?.kind === 'client' || ref?.kind === 'project') {
    return {
      query: ref.kind === 'client' ? { clientId: ref.id } : { projectId: ref.id },
      label: vscode.l10n.t('the reports of {0}', name!),
    };
  }
  const filter = reportsTree.filterOf(lab);
  return {
    query: serverPart(filter),
    keep: (report) => matchesLocally(report, filter),
    label:
      Object.keys(filter).length > 0
        ? vscode.l10n.t('the filtered reports of {0}', lab)
        : vscode.l10n.t('all reports of {0}', lab),
  };
}

/** More files than this, and Save All asks once before it writes (asked from the UI; never when called with options). */
export const SAVE_ALL_ASKS_ABOVE = 100;

/**
 * `labData.saveAllReports`: saves every downloadable report of a client, a project or the
 * (filtered) Reports view of one lab, with bounded concurrency, one shared back-off and a summary.
 * Arguments: a client, project or saved-search tree item (or none), and optionally `{ lab?, ifExists? }`.
 */
export async function saveAllReports(
  labs: Labs,
  reportsTree: ReportsTreeProvider,
  prompts: PromptsHolder,
  log: Logger,
  ...args: unknown[]
): Promise<BulkSummary | undefined> {
  requireDiskFolder('save');
  const targets = commandTargets(args);
  const connection = await labForCommand(labs, prompts.current, targets.lab);
  const api = connection?.backgroundApi;
  const target = api && (await resolveDownloadTarget(prompts.current, labs.signedIn.length > 1));
  if (!api || !target) {
    return undefined;
  }
  const ref = targets.refs.find(
    (candidate) => candidate.kind === 'client' || candidate.kind === 'project',
  );
  const scope = targets.search
    ? {
        query: searchFilters(targets.search, new Date()),
        label: vscode.l10n.t('the reports of the saved search {0}', targets.search.name),
      }
    : scopeOf(ref, api.lab.name, reportsTree);
  const listed = await listAllReports(api, scope.query, vscode.l10n.t('Listing {0}…', scope.label));
  const reports = 'keep' in scope && scope.keep ? listed.filter(scope.keep) : listed;
  const withFile = reports.filter((report) => report.download_available !== false).length;
  if (!targets.automated && withFile > SAVE_ALL_ASKS_ABOVE) {
    const where = `${shownFolder(target.folder)}/`;
    const go = await prompts.current.confirm(
      vscode.l10n.t('Save {0} report PDFs to {1}?', withFile, where),
      vscode.l10n.t(
        "These are {0}. Files already there with the lab's bytes are left as they are; you are asked about any other file in the way.",
        scope.label,
      ),
      vscode.l10n.t('Save'),
    );
    if (!go) {
      return undefined;
    }
  }
  const run = await saveWithProgress(vscode.l10n.t('Saving {0}…', scope.label), reports, {
    api,
    target,
    prompts: prompts.current,
    log,
    ifExists: targets.options.ifExists as ExistingFileChoice | undefined,
  });
  const summary = vscode.l10n.t('Save All, {0}: {1}', scope.label, summarize(run, target.folder));
  log.info('Save', `${summary} Folder: ${target.folder}`);
  run.skipped.forEach((skip) => log.info('Save', `Skipped ${skip.reportId}: ${skip.reason}.`));
  void showSummary(summary, run.failed.length > 0, target.folder, log);
  return {
    folder: target.folder,
    listed: reports.length,
    saved: run.saved.length,
    upToDate: upToDateCount(run),
    skipped: run.skipped.length,
    failed: run.failed.length,
    bytes: run.bytes,
    cancelled: run.cancelled,
    uris: run.saved.map((saved) => vscode.Uri.file(saved.file.path)),
  };
}

/** The outcome with "Reveal in Explorer" (the folder), and "Show Log" when some failed; never awaited. */
async function showSummary(
  summary: string,
  failed: boolean,
  folder: string,
  log: Logger,
): Promise<void> {
  const reveal = vscode.l10n.t('Reveal in Explorer');
  const showLog = vscode.l10n.t('Show Log');
  const choice = failed
    ? await vscode.window.showWarningMessage(summary, reveal, showLog)
    : await vscode.window.showInformationMessage(summary, reveal);
  if (choice === reveal) {
    await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(folder));
  } else if (choice === showLog) {
    log.show();
  }
}
