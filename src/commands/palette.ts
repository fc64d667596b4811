import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import { LabApiError } from '../core/errors';
import { toUtcTimestamp } from '../core/query';
import type { Report, Sample } from '../core/records';
import { Commands, Views } from '../constants';
import type { Prompts, PromptsHolder } from '../ui/prompts';
import { SampleNode, localTime } from '../views/nodes';
import type { ReportsTreeProvider } from '../views/reportsTree';
import type { LabNode } from '../views/nodes';
import { askReportFilter, filterFromArgs, type ReportFilterArgs } from './filters';
import { signedInApi } from './signedInApi';

export type ReportAction = 'openMetadata' | 'savePdf' | 'copyId' | 'reveal';
const ACTIONS: ReadonlyArray<{ id: ReportAction; label: string; several: string }> = [
  { id: 'openMetadata', label: '$(json) Open Metadata', several: '$(json) Open Metadata of each' },
  { id: 'savePdf', label: '$(cloud-download) Save PDF', several: '$(cloud-download) Save PDFs' },
  { id: 'copyId', label: '$(copy) Copy Id', several: '$(copy) Copy Ids' },
  { id: 'reveal', label: '$(list-tree) Reveal in Reports View', several: '' },
];

export interface PaletteServices {
  readonly session: LabSession;
  readonly prompts: PromptsHolder;
  readonly reportsTree: ReportsTreeProvider;
  readonly reportsView: vscode.TreeView<LabNode>;
}

function summaryOf(report: Report): string {
  return [report.report_type, localTime(report.published_at), report.status, report.download_available === false ? 'no file' : undefined].filter(Boolean).join(' · ');
}

/** Runs one action on one or several reports. */
async function act(action: ReportAction, reports: readonly Report[], services: PaletteServices): Promise<unknown> {
  const ids = reports.map((report) => report.report_id);
  switch (action) {
    case 'openMetadata': {
      const uris: unknown[] = [];
      for (const id of ids) {
        uris.push(await vscode.commands.executeCommand(Commands.openReportMetadata, id));
      }
      return uris.length === 1 ? uris[0] : uris;
    }
    case 'savePdf':
      return vscode.commands.executeCommand(Commands.saveReportPdf, ids.length === 1 ? ids[0] : ids);
    case 'copyId':
      await vscode.env.clipboard.writeText(ids.join('\n'));
      void vscode.window.showInformationMessage(ids.length === 1 ? `Copied ${ids[0]}.` : `Copied ${ids.length} report ids.`);
      return ids;
    case 'reveal': {
      const node = await services.reportsTree.findNode(ids[0]!);
      if (!node) {
        void vscode.window.showInformationMessage(`${ids[0]} is not in the Reports view${Object.keys(services.reportsTree.currentFilter).length > 0 ? ' with its current filter' : ''}.`);
        return false;
      }
      await vscode.commands.executeCommand(`${Views.reports}.focus`);
      await services.reportsView.reveal(node, { select: true, focus: true });
      return true;
    }
  }
}

async function chooseAction(prompts: Prompts, title: string, several: boolean): Promise<ReportAction | undefined> {
  const choices = ACTIONS.filter((action) => !several || action.several).map((action) => ({ id: action.id, label: several ? action.several : action.label }));
  const picked = await prompts.pickOne(title, 'What would you like to do?', choices, false);
  return (picked ?? undefined) as ReportAction | undefined;
}

function parseAction(value: unknown): ReportAction | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value === 'string' && ACTIONS.some((action) => action.id === value)) {
    return value as ReportAction;
  }
  throw new LabApiError('invalidInput', `Unknown action "${String(value)}"; use one of ${ACTIONS.map((a) => a.id).join(', ')}.`);
}

/**
 * `labData.findReport`: a report by id (asked for without one) with its summary and actions:
 * Open Metadata, Save PDF, Copy Id, Reveal in Reports view. Arguments: `"RPT-1"` or
 * `{ id: "RPT-1", action?: "openMetadata" | "savePdf" | "copyId" | "reveal" }`.
 */
export async function findReport(services: PaletteServices, arg?: unknown): Promise<{ report: Record<string, unknown>; action?: ReportAction; result?: unknown } | undefined> {
  const given = typeof arg === 'string' ? { id: arg } : typeof arg === 'object' && arg !== null ? (arg as { id?: string; action?: unknown }) : {};
  const api = await signedInApi(services.session);
  if (!api) {
    return undefined;
  }
  const id = given.id ?? (await services.prompts.current.reportId());
  if (!id) {
    return undefined;
  }
  const report = await api.getReport(id);
  const action = parseAction(given.action) ?? (await chooseAction(services.prompts.current, `${report.report_id}: ${summaryOf(report)}`, false));
  if (!action) {
    return { report: report.raw };
  }
  if (action === 'savePdf' && report.download_available === false) {
    throw new LabApiError('notFound', `Report ${report.report_id} has no file to download.`);
  }
  return { report: report.raw, action, result: await act(action, [report], services) };
}

/**
 * `labData.searchReports`: published since, then status, client and project (or `{ publishedSince,
 * status, clientId, projectId, action? }` without prompts); results stream in page by page; the
 * chosen reports get an action, in bulk. Returns the ids found (with arguments) or chosen.
 */
export async function searchReports(services: PaletteServices, arg?: unknown): Promise<{ ids: string[]; action?: ReportAction; result?: unknown } | undefined> {
  const api = await signedInApi(services.session);
  if (!api) {
    return undefined;
  }
  const prompts = services.prompts.current;
  if (typeof arg === 'object' && arg !== null) {
    const args = arg as ReportFilterArgs & { action?: unknown };
    const filter = filterFromArgs(args);
    const action = parseAction(args.action);
    const reports: Report[] = [];
    for await (const page of api.iterateReports(filter)) {
      reports.push(...page.items);
    }
    const ids = reports.map((report) => report.report_id);
    if (!action || reports.length === 0) {
      return { ids };
    }
    const targets = action === 'savePdf' ? reports.filter((report) => report.download_available !== false) : reports;
    return { ids, action, result: await act(action, targets, services) };
  }
  const title = 'Lab Data: Search Reports';
  const filter = await askReportFilter(api, prompts, title);
  if (!filter) {
    return undefined;
  }
  const chosen = await prompts.pickFromPages(title, api.iterateReports(filter), (report) => ({ id: report.report_id, label: report.report_id, description: summaryOf(report), detail: typeof report.raw.title === 'string' ? report.raw.title : undefined }), true);
  if (!chosen || chosen.length === 0) {
    return undefined;
  }
  const action = await chooseAction(prompts, `${chosen.length} report(s) chosen`, chosen.length > 1);
  if (!action) {
    return { ids: chosen.map((report) => report.report_id) };
  }
  return { ids: chosen.map((report) => report.report_id), action, result: await act(action, action === 'savePdf' ? chosen.filter((r) => r.download_available !== false) : chosen, services) };
}

function sampleChoice(sample: Sample): { id: string; label: string; description?: string } {
  const raw = sample.raw;
  const text = (key: string): string | undefined => (typeof raw[key] === 'string' ? (raw[key] as string) : undefined);
  return { id: sample.id ?? JSON.stringify(raw), label: sample.id ?? text('sample_name') ?? 'Sample', description: [text('sample_name'), text('matrix'), localTime(text('received_at'))].filter(Boolean).join(' · ') };
}

/**
 * `labData.listSamples`: samples received since a date, page by page, in a quick pick; choosing
 * one opens its JSON. Arguments `{ receivedSince?, pageSize? }` return the sample ids without prompts.
 */
export async function listSamples(services: PaletteServices, arg?: unknown): Promise<{ ids: string[] } | { opened: string } | undefined> {
  const api = await signedInApi(services.session);
  if (!api) {
    return undefined;
  }
  if (typeof arg === 'object' && arg !== null) {
    const args = arg as { receivedSince?: string; pageSize?: number };
    const receivedSince = args.receivedSince ? toUtcTimestamp(args.receivedSince, 'received-since date') : undefined;
    const ids: string[] = [];
    for await (const page of api.iterateSamples({ receivedSince, pageSize: args.pageSize })) {
      ids.push(...page.items.map((sample) => sampleChoice(sample).id));
    }
    return { ids };
  }
  const prompts = services.prompts.current;
  const since = await prompts.since('Lab Data: List Samples', 'received');
  if (since === undefined) {
    return undefined;
  }
  const chosen = await prompts.pickFromPages('Lab Data: Samples', api.iterateSamples({ receivedSince: since ?? undefined }), sampleChoice, false);
  const sample = chosen?.[0];
  if (!sample) {
    return undefined;
  }
  await vscode.commands.executeCommand(Commands.openReportMetadata, new SampleNode(sample, 'palette', 0));
  return { opened: sampleChoice(sample).id };
}

