import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import { serverText } from '../../core/errors/serverText';
import type { LabApi } from '../../core/api/labApi';
import { parseReport, type Report } from '../../core/api/records';
import { requireDiskFolder } from '../downloads/diskFolders';
import { resolveDownloadTarget, shownFolder } from '../downloads/targetFolder';
import { saveWithProgress, summarize } from '../downloads/saveWithProgress';
import type { SaveRun } from '../../core/sync/bulkSave';
import type { Labs } from '../labs/labs';
import { PDF_PREVIEW_VIEW_TYPE } from '../preview/pdfPreview';
import type { Logger } from '../log';
import type { ExistingFileChoice, PromptsHolder } from '../ui/prompts';
import { labForCommand } from './labTarget';
import { commandTargets } from '../ui/commandTargets';
import { titleFor } from '../ui/prompts/labTitles';

/** Options that may come with the reports: `{ ifExists: 'overwrite' | 'keepBoth' | 'skip' }`. */
export interface SaveArgs {
  readonly ifExists?: ExistingFileChoice;
}

/** The reports to save, grouped by lab: rows carry their record; ids are fetched from their lab. */
interface LabReports {
  readonly lab?: string;
  readonly reports: Report[];
  readonly ids: string[];
}

function groupByLab(args: readonly unknown[]): {
  groups: LabReports[];
  options: SaveArgs;
  several: boolean;
} {
  const targets = commandTargets(args);
  const groups = new Map<string | undefined, LabReports>();
  const group = (lab: string | undefined): LabReports => {
    let found = groups.get(lab);
    if (!found) {
      found = { lab, reports: [], ids: [] };
      groups.set(lab, found);
    }
    return found;
  };
  for (const ref of targets.refs.filter((candidate) => candidate.kind === 'report')) {
    group(ref.lab).reports.push(
      (ref.record && parseReport(ref.record)) ?? {
        report_id: ref.id,
        download_available: ref.downloadable,
        raw: { report_id: ref.id },
      },
    );
  }
  if (targets.ids.length > 0) {
    group(targets.lab).ids.push(...targets.ids);
  }
  return {
    groups: [...groups.values()],
    options: targets.options as SaveArgs,
    several: targets.several,
  };
}

/**
 * `labData.saveReportPdf`: saves one or several report PDFs into the workspace's download folder.
 * Arguments: a tree item or selection, an id or ids, or `{ lab?, id }` / `{ lab?, ids }` (with
 * `ifExists`). Returns the saved file's Uri, or a Uri[] for several, so tasks and other extensions can chain it.
 */
export async function saveReportPdf(
  labs: Labs,
  prompts: PromptsHolder,
  log: Logger,
  ...args: unknown[]
): Promise<vscode.Uri | vscode.Uri[] | undefined> {
  requireDiskFolder('save');
  const { groups, options, several } = groupByLab(args);
  if (groups.length === 0) {
    const connection = await labForCommand(labs, prompts.current, commandTargets(args).lab);
    const id =
      connection &&
      (await prompts.current.reportId([], {
        title: titleFor(connection.lab.name, 'saveReportPdf'),
      }));
    if (!connection || !id) {
      return undefined;
    }
    groups.push({ lab: connection.lab.name, reports: [], ids: [id] });
  }
  const uris: vscode.Uri[] = [];
  const runs: SaveRun[] = [];
  let target: Awaited<ReturnType<typeof resolveDownloadTarget>>;
  for (const group of groups) {
    const api = (await labForCommand(labs, prompts.current, group.lab))?.api;
    if (!api) {
      return undefined;
    }
    const reports = [...group.reports];
    for (const id of group.ids) {
      reports.push(await api.getReport(id));
    }
    if (reports.every((report) => report.download_available === false)) {
      throw new LabApiError(
        'notFound',
        reports.length === 1
          ? vscode.l10n.t('Report {0} has no file to download.', reports[0]!.report_id)
          : vscode.l10n.t('None of these reports has a file to download.'),
      );
    }
    target ??= await resolveDownloadTarget(prompts.current, labs.signedIn.length > 1);
    if (!target) {
      return undefined;
    }
    const run = await save(api, reports, target, prompts, log, options.ifExists);
    runs.push(run);
    // The contract returns the file: saved now, or already there with the lab's bytes.
    uris.push(
      ...run.saved.map((saved) => vscode.Uri.file(saved.file.path)),
      ...run.skipped.flatMap((skip) =>
        skip.upToDate && skip.path ? [vscode.Uri.file(skip.path)] : [],
      ),
    );
    if (run.cancelled) {
      break;
    }
  }
  const failed = runs.flatMap((run) => run.failed);
  if (failed.length > 0 && uris.length === 0) {
    throw failed[0]!.error;
  }
  const saved = runs.flatMap((run) => run.saved);
  const upToDate = runs.flatMap((run) => run.skipped.filter((skip) => skip.upToDate && skip.path));
  if (uris.length > 0) {
    const one = !several && uris.length === 1;
    const message =
      one && saved.length === 1
        ? vscode.l10n.t('Saved {0}.', saved[0]!.file.fileName)
        : one && upToDate.length === 1
          ? vscode.l10n.t(
              '{0} is up to date in {1}.',
              serverText(upToDate[0]!.reportId, 120),
              `${shownFolder(path.dirname(upToDate[0]!.path!))}/`,
            )
          : runs.map((run) => summarize(run, target!.folder)).join(' ');
    void offerToOpen(uris, message, one ? undefined : target!.folder);
  } else if (!runs.some((run) => run.cancelled)) {
    void vscode.window.showInformationMessage(
      runs.map((run) => summarize(run, target!.folder)).join(' '),
    );
  }
  return several ? uris : uris[0];
}

async function save(
  api: LabApi,
  reports: readonly Report[],
  target: NonNullable<Awaited<ReturnType<typeof resolveDownloadTarget>>>,
  prompts: PromptsHolder,
  log: Logger,
  ifExists: ExistingFileChoice | undefined,
): Promise<SaveRun> {
  const title =
    reports.length === 1
      ? vscode.l10n.t('Saving {0}…', reports[0]!.report_id)
      : vscode.l10n.t('Saving {0} reports…', reports.length);
  const run = await saveWithProgress(title, reports, {
    api,
    target,
    prompts: prompts.current,
    log,
    ifExists,
  });
  log.info('Save', `${api.lab.name}: ${summarize(run, target.folder)} Folder: ${target.folder}`);
  return run;
}

/**
 * After a save: "Open" and "Reveal in Explorer" for one file; for several (`folder` given), "Reveal
 * in Explorer" shows their folder. Never awaited by the command.
 */
export async function offerToOpen(
  uris: readonly vscode.Uri[],
  message: string,
  folder?: string,
): Promise<void> {
  const open = vscode.l10n.t('Open');
  const reveal = vscode.l10n.t('Reveal in Explorer');
  const choice = await vscode.window.showInformationMessage(
    message,
    ...(folder === undefined ? [open, reveal] : [reveal]),
  );
  if (choice === open) {
    // VS Code has no PDF viewer of its own: a saved report opens in ours.
    await vscode.commands.executeCommand('vscode.openWith', uris[0], PDF_PREVIEW_VIEW_TYPE);
  } else if (choice === reveal) {
    await vscode.commands.executeCommand(
      'revealInExplorer',
      folder === undefined ? uris[0] : vscode.Uri.file(folder),
    );
  }
}
