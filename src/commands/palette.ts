import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import type { LabApi } from '../../core/api/labApi';
import { toUtcTimestamp } from '../../core/api/query';
import type { Report, Sample } from '../../core/api/records';
import { Commands, Views } from '../constants';
import type { Labs } from '../labs/labs';
import { sinceMoment, type Prompts, type PromptsHolder } from '../ui/prompts';
import { titleFor } from '../ui/prompts/labTitles';
import { SampleNode, localTime } from '../views/nodes';
import { matchesLocally, type ReportFilter, type ReportsTreeProvider } from '../views/reportsTree';
import type { Page } from '../../core/api/pagination';
import type { LabNode } from '../views/nodes';
import { apiForCommand, unlessKnownDown } from './labTarget';
import { commandTargets } from '../ui/commandTargets';
import { withNotificationProgress } from '../ui/progress';
import { toAbortSignal } from '../cancellation';
import {
  askForReport,
  askForReportInLabs,
  notFoundHint,
  reportInLabs,
  type RecentReports,
} from './reportSuggestions';

export type ReportAction = 'preview' | 'openMetadata' | 'savePdf' | 'copyId' | 'reveal';
const ACTIONS: ReadonlyArray<{ id: ReportAction; label: () => string; several?: () => string }> = [
  { id: 'preview', label: () => vscode.l10n.t('$(open-preview) Preview PDF') },
  {
    id: 'openMetadata',
    label: () => vscode.l10n.t('$(json) Open Metadata'),
    several: () => vscode.l10n.t('$(json) Open Metadata of each'),
  },
  {
    id: 'savePdf',
    label: () => vscode.l10n.t('$(cloud-download) Save PDF'),
    several: () => vscode.l10n.t('$(cloud-download) Save PDFs'),
  },
  {
    id: 'copyId',
    label: () => vscode.l10n.t('$(copy) Copy Id'),
    several: () => vscode.l10n.t('$(copy) Copy Ids'),
  },
  { id: 'reveal', label: () => vscode.l10n.t('$(list-tree) Reveal in Reports View') },
];

export interface PaletteServices {
  readonly labs: Labs;
  readonly prompts: PromptsHolder;
  readonly reportsTree: ReportsTreeProvider;
  readonly reportsView: vscode.TreeView<LabNode>;
  readonly recent: RecentReports;
}

export function summaryOf(report: Report): string {
  return [
    report.report_type,
    localTime(report.published_at),
    report.status,
    report.download_available === false ? vscode.l10n.t('no file') : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The pages with only the reports that pass the filter's local part (the report type); the lab's count no longer applies then. */
export async function* locallyFiltered(
  pages: AsyncIterable<Page<Report>>,
  filter: ReportFilter,
): AsyncIterable<Page<Report>> {
  for await (const page of pages) {
    yield filter.reportType === undefined
      ? page
      : {
          ...page,
          items: page.items.filter((report) => matchesLocally(report, filter)),
          totalCount: undefined,
        };
  }
}

/** Runs one action on one or several reports of one lab. */
export async function act(
  action: ReportAction,
  reports: readonly Report[],
  api: LabApi,
  services: PaletteServices,
): Promise<unknown> {
  const ids = reports.map((report) => report.report_id);
  const lab = api.lab.name;
  switch (action) {
    case 'preview':
      // A preview that fails has said why already; its rejection is for callers of its own.
      return vscode.commands
        .executeCommand(Commands.previewReport, { lab, id: ids[0] })
        .then(undefined, () => undefined);
    case 'openMetadata': {
      const uris: unknown[] = [];
      for (const id of ids) {
        uris.push(await vscode.commands.executeCommand(Commands.openReportMetadata, { lab, id }));
      }
      return uris.length === 1 ? uris[0] : uris;
    }
    case 'savePdf':
      return vscode.commands.executeCommand(
        Commands.saveReportPdf,
        ids.length === 1 ? { lab, id: ids[0] } : { lab, ids },
      );
    case 'copyId':
      await vscode.env.clipboard.writeText(ids.join('\n'));
      void vscode.window.showInformationMessage(
        ids.length === 1
          ? vscode.l10n.t('Copied {0}.', ids[0]!)
          : vscode.l10n.t('Copied {0} report ids.', ids.length),
      );
      return ids;
    case 'reveal': {
      const node = await services.reportsTree.findNode(lab, ids[0]!);
      if (!node) {
        void vscode.window.showInformationMessage(
          Object.keys(services.reportsTree.filterOf(lab)).length > 0
            ? vscode.l10n.t('{0} is not in the Reports view with its current filter.', ids[0]!)
            : vscode.l10n.t('{0} is not in the Reports view.', ids[0]!),
        );
        return false;
      }
      await vscode.commands.executeCommand(`${Views.reports}.focus`);
      await services.reportsView.reveal(node, { select: true, focus: true });
      return true;
    }
  }
}

export async function chooseAction(
  prompts: Prompts,
  title: string,
  several: boolean,
): Promise<ReportAction | undefined> {
  const choices = ACTIONS.flatMap((action) =>
    !several
      ? [{ id: action.id, label: action.label() }]
      : action.several
        ? [{ id: action.id, label: action.several() }]
        : [],
  );
  const picked = await prompts.pickOne(
    title,
    vscode.l10n.t('What would you like to do?'),
    choices,
    false,
  );
  return (picked ?? undefined) as ReportAction | undefined;
}

export function parseAction(value: unknown): ReportAction | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value === 'string' && ACTIONS.some((action) => action.id === value)) {
    return value as ReportAction;
  }
  throw new LabApiError(
    'invalidInput',
    vscode.l10n.t(
      'Unknown action "{0}"; use one of {1}.',
      String(value).slice(0, 40),
      ACTIONS.map((a) => a.id).join(', '),
    ),
  );
}

/** A lookup of report `id` in `labs` (names), with a notification that says so when it takes a moment, and Cancel. */
function lookingUp<T>(
  id: string,
  labs: string,
  lookup: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return withNotificationProgress(
    vscode.l10n.t('Lab Data: Looking up {0} in {1}', id, labs),
    (_progress, token) => lookup(toAbortSignal(token)),
  );
}

/**
 * `labData.findReport`: a report by id (asked for without one) with its summary and actions:
 * Preview PDF, Open Metadata, Save PDF, Copy Id, Reveal in Reports view. Arguments: `"RPT-1"` or
 * `{ id: "RPT-1", action?: "preview" | "openMetadata" | "savePdf" | "copyId" | "reveal" }`.
 */
export async function findReport(
  services: PaletteServices,
  ...args: unknown[]
): Promise<
  { report: Record<string, unknown>; action?: ReportAction; result?: unknown } | undefined
> {
  const targets = commandTargets(args);
  const given = targets.automated ? (targets.options as { action?: unknown }) : {};
  const idGiven = targets.refs[0]?.id ?? targets.ids[0];
  const labName = targets.refs[0]?.lab ?? targets.lab;
  let api: LabApi | undefined;
  let report: Report | undefined;
  const several = services.labs.signedIn;
  // The title says which labs are searched: every signed-in one, or the one named (a lab's row).
  const searched = labName ?? several.map((connection) => connection.lab.name).join(', ');
  const title = searched
    ? titleFor(searched, 'findReport')
    : vscode.l10n.t('Lab Data: Find Report');
  if (labName === undefined && several.length > 1) {
    // Several labs: every one is searched, and the lab is asked only when more than one has the id.
    const found =
      idGiven !== undefined
        ? await lookingUp(idGiven, searched, (signal) =>
            reportInLabs(services.prompts.current, several, idGiven, title, signal),
          )
        : await askForReportInLabs(services.prompts.current, several, services, title);
    api = found?.connection.api;
    report = found?.report;
  } else {
    api = await apiForCommand(services.labs, services.prompts.current, labName);
    if (!api) {
      return undefined;
    }
    const lab = api.lab.name;
    unlessKnownDown(services.labs.get(lab));
    const labApi = api;
    report =
      idGiven !== undefined
        ? await lookingUp(idGiven, lab, (signal) =>
            labApi.getReport(idGiven, signal).catch((error: unknown) => {
              throw notFoundHint(error, idGiven, lab, undefined);
            }),
          )
        : await askForReport(services.prompts.current, api, services, title);
  }
  if (!api || !report) {
    return undefined;
  }
  const lab = api.lab.name;
  await services.recent.remember(lab, report.report_id);
  const action =
    parseAction(given.action) ??
    (await chooseAction(
      services.prompts.current,
      `${report.report_id}: ${summaryOf(report)}`,
      false,
    ));
  if (!action) {
    return { report: report.raw };
  }
  if ((action === 'savePdf' || action === 'preview') && report.download_available === false) {
    throw new LabApiError(
      'notFound',
      action === 'preview'
        ? vscode.l10n.t('Report {0} has no file to preview.', report.report_id)
        : vscode.l10n.t('Report {0} has no file to download.', report.report_id),
    );
  }
  return { report: report.raw, action, result: await act(action, [report], api, services) };
}

function sampleChoice(sample: Sample): { id: string; label: string; description?: string } {
  const raw = sample.raw;
  const text = (key: string): string | undefined =>
    typeof raw[key] === 'string' ? (raw[key] as string) : undefined;
  return {
    id: sample.id ?? JSON.stringify(raw),
    label: sample.id ?? text('sample_name') ?? vscode.l10n.t('Sample'),
    description: [text('sample_name'), text('matrix'), localTime(text('received_at'))]
      .filter(Boolean)
      .join(' · '),
  };
}

/**
 * `labData.listSamples`: samples received since a date, page by page, in a quick pick; choosing
 * one opens its JSON. Arguments `{ receivedSince?, pageSize? }` return the sample ids without prompts.
 */
export async function listSamples(
  services: PaletteServices,
  ...rawArgs: unknown[]
): Promise<{ ids: string[] } | { opened: string } | undefined> {
  const targets = commandTargets(rawArgs);
  const api = await apiForCommand(services.labs, services.prompts.current, targets.lab);
  if (!api) {
    return undefined;
  }
  if (targets.automated) {
    const args = targets.options as { receivedSince?: string; pageSize?: number };
    const receivedSince = args.receivedSince
      ? toUtcTimestamp(args.receivedSince, 'received-since date')
      : undefined;
    const ids: string[] = [];
    for await (const page of api.iterateSamples({ receivedSince, pageSize: args.pageSize })) {
      ids.push(...page.items.map((sample) => sampleChoice(sample).id));
    }
    return { ids };
  }
  const prompts = services.prompts.current;
  const since = await prompts.since(titleFor(api.lab.name, 'listSamples'), 'received');
  if (since === undefined) {
    return undefined;
  }
  const chosen = await prompts.pickFromPages(
    titleFor(api.lab.name, 'samples'),
    api.iterateSamples({ receivedSince: since === null ? undefined : sinceMoment(since) }),
    sampleChoice,
    false,
  );
  const sample = chosen?.[0];
  if (!sample) {
    return undefined;
  }
  await vscode.commands.executeCommand(
    Commands.openReportMetadata,
    new SampleNode(sample, 'palette', 0, api.lab.name),
  );
  return { opened: sampleChoice(sample).id };
}
