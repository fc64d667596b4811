import * as vscode from 'vscode';
import { LabApiError } from '../core/errors';
import { toUtcTimestamp } from '../core/query';
import type { LabSession } from '../auth/labSession';
import type { ReportFilter, ReportsTreeProvider } from '../views/reportsTree';
import type { SamplesTreeProvider } from '../views/samplesTree';

/** Arguments of `labData.filterReports`; any given field skips its prompt. */
export interface ReportFilterArgs {
  readonly publishedSince?: string;
  readonly status?: string;
  readonly clientId?: string;
  readonly projectId?: string;
}

const DAY = 86_400_000;
const ANY = 'Any';

function startOfLocalDay(daysAgo: number): string {
  const now = new Date();
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  return toUtcTimestamp(new Date(start.getTime() - daysAgo * DAY));
}

function validateDate(value: string): string | undefined {
  try {
    toUtcTimestamp(value);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Asks for a "since" date: a preset or a typed ISO 8601 date. `null` means "any"; undefined means cancelled. */
export async function pickSince(title: string, verb: string): Promise<string | null | undefined> {
  const presets: Array<vscode.QuickPickItem & { since: () => string | null }> = [
    { label: ANY, description: `no ${verb} date limit`, since: () => null },
    { label: 'Today', since: () => startOfLocalDay(0) },
    { label: 'Last 7 days', since: () => startOfLocalDay(7) },
    { label: 'Last 30 days', since: () => startOfLocalDay(30) },
    { label: 'Since a date…', description: 'ISO 8601, e.g. 2024-05-01 or 2024-05-01T08:00:00Z', since: () => '' },
  ];
  const choice = await vscode.window.showQuickPick(presets, { title, placeHolder: `${verb[0]!.toUpperCase()}${verb.slice(1)} since…`, ignoreFocusOut: true });
  if (!choice) {
    return undefined;
  }
  const since = choice.since();
  if (since !== '') {
    return since;
  }
  const typed = await vscode.window.showInputBox({ title, prompt: `${verb} since (ISO 8601 date or time with zone)`, placeHolder: '2024-05-01', validateInput: validateDate, ignoreFocusOut: true });
  return typed === undefined ? undefined : toUtcTimestamp(typed, `${verb}-since date`);
}

async function pickFrom(title: string, placeHolder: string, items: vscode.QuickPickItem[]): Promise<string | null | undefined> {
  const choice = await vscode.window.showQuickPick([{ label: ANY }, ...items], { title, placeHolder, ignoreFocusOut: true, matchOnDescription: true });
  return choice === undefined ? undefined : choice.label === ANY ? null : choice.label;
}

/** Reads a list for a picker; a tenant without that kind of record simply gets no choices. */
async function optionalItems<T>(load: () => Promise<readonly T[]>): Promise<readonly T[]> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof LabApiError && (error.code === 'forbidden' || error.code === 'notFound')) {
      return [];
    }
    throw error;
  }
}

/**
 * `labData.filterReports`: narrows the Reports view by published-since, status, client and
 * project, filtered on the server. With arguments it asks nothing.
 */
export async function filterReports(session: LabSession, tree: ReportsTreeProvider, args?: unknown): Promise<ReportFilter | undefined> {
  if (typeof args === 'object' && args !== null) {
    const given = args as ReportFilterArgs;
    const filter: ReportFilter = {
      publishedSince: given.publishedSince !== undefined ? toUtcTimestamp(given.publishedSince, 'published-since date') : undefined,
      status: given.status,
      clientId: given.clientId,
      projectId: given.projectId,
    };
    await tree.setFilter(filter);
    return tree.currentFilter;
  }
  const api = await session.api();
  if (!api) {
    await vscode.commands.executeCommand('labData.signIn');
    return undefined;
  }
  const title = 'Lab Data: Filter Reports';
  const publishedSince = await pickSince(title, 'published');
  if (publishedSince === undefined) {
    return undefined;
  }
  const status = await pickFrom(title, 'Status', [{ label: 'published' }, { label: 'amended' }]);
  if (status === undefined) {
    return undefined;
  }
  const clients = await optionalItems(async () => (await api.listClients({ pageSize: 200 })).items);
  const clientId = clients.length === 0 ? null : await pickFrom(title, 'Client', clients.map((c) => ({ label: c.client_id, description: c.name })));
  if (clientId === undefined) {
    return undefined;
  }
  const projects = await optionalItems(async () => (await api.listProjects({ pageSize: 200, clientId: clientId ?? undefined })).items);
  const projectId = projects.length === 0 ? null : await pickFrom(title, 'Project', projects.map((p) => ({ label: p.project_id, description: p.name })));
  if (projectId === undefined) {
    return undefined;
  }
  await tree.setFilter({ publishedSince: publishedSince ?? undefined, status: status ?? undefined, clientId: clientId ?? undefined, projectId: projectId ?? undefined });
  return tree.currentFilter;
}

/** `labData.filterSamples`: received-since, as `{ receivedSince }` or chosen from presets. */
export async function filterSamples(tree: SamplesTreeProvider, args?: unknown): Promise<string | undefined> {
  if (typeof args === 'object' && args !== null && 'receivedSince' in args) {
    const value = (args as { receivedSince?: string }).receivedSince;
    await tree.setReceivedSince(value ? toUtcTimestamp(value, 'received-since date') : undefined);
    return tree.currentReceivedSince;
  }
  const since = await pickSince('Lab Data: Filter Samples', 'received');
  if (since === undefined) {
    return undefined;
  }
  await tree.setReceivedSince(since ?? undefined);
  return tree.currentReceivedSince;
}
