import { LabApiError } from '../core/errors';
import type { LabApi } from '../core/labApi';
import { toUtcTimestamp } from '../core/query';
import type { LabSession } from '../auth/labSession';
import type { Prompts } from '../ui/prompts';
import type { ReportFilter, ReportsTreeProvider } from '../views/reportsTree';
import type { SamplesTreeProvider } from '../views/samplesTree';
import { signedInApi } from './signedInApi';

/** Arguments of `labData.filterReports` and `labData.searchReports`. */
export interface ReportFilterArgs {
  readonly publishedSince?: string;
  readonly status?: string;
  readonly clientId?: string;
  readonly projectId?: string;
}

/** A filter from command arguments, with its date validated and in UTC. */
export function filterFromArgs(given: ReportFilterArgs): ReportFilter {
  return {
    publishedSince: given.publishedSince !== undefined ? toUtcTimestamp(given.publishedSince, 'published-since date') : undefined,
    status: given.status,
    clientId: given.clientId,
    projectId: given.projectId,
  };
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

/** Asks, step by step, for published-since, status, client and project (pickers filled from the API). */
export async function askReportFilter(api: LabApi, prompts: Prompts, title: string): Promise<ReportFilter | undefined> {
  const publishedSince = await prompts.since(`${title} (1/4)`, 'published');
  if (publishedSince === undefined) {
    return undefined;
  }
  const status = await prompts.pickOne(`${title} (2/4)`, 'Status', [{ id: 'published', label: 'published' }, { id: 'amended', label: 'amended' }], true);
  if (status === undefined) {
    return undefined;
  }
  const clients = await optionalItems(async () => (await api.listClients({ pageSize: 200 })).items);
  const clientId = clients.length === 0 ? null : await prompts.pickOne(`${title} (3/4)`, 'Client', clients.map((c) => ({ id: c.client_id, label: c.client_id, description: c.name })), true);
  if (clientId === undefined) {
    return undefined;
  }
  const projects = await optionalItems(async () => (await api.listProjects({ pageSize: 200, clientId: clientId ?? undefined })).items);
  const projectId = projects.length === 0 ? null : await prompts.pickOne(`${title} (4/4)`, 'Project', projects.map((p) => ({ id: p.project_id, label: p.project_id, description: p.name })), true);
  if (projectId === undefined) {
    return undefined;
  }
  return { publishedSince: publishedSince ?? undefined, status: status ?? undefined, clientId: clientId ?? undefined, projectId: projectId ?? undefined };
}

/**
 * `labData.filterReports`: narrows the Reports view by published-since, status, client and
 * project, filtered on the server. With arguments it asks nothing.
 */
export async function filterReports(session: LabSession, tree: ReportsTreeProvider, prompts: Prompts, args?: unknown): Promise<ReportFilter | undefined> {
  if (typeof args === 'object' && args !== null) {
    await tree.setFilter(filterFromArgs(args as ReportFilterArgs));
    return tree.currentFilter;
  }
  const api = await signedInApi(session);
  if (!api) {
    return undefined;
  }
  const filter = await askReportFilter(api, prompts, 'Lab Data: Filter Reports');
  if (!filter) {
    return undefined;
  }
  await tree.setFilter(filter);
  return tree.currentFilter;
}

/** `labData.filterSamples`: received-since, as `{ receivedSince }` or chosen from presets. */
export async function filterSamples(tree: SamplesTreeProvider, prompts: Prompts, args?: unknown): Promise<string | undefined> {
  if (typeof args === 'object' && args !== null && 'receivedSince' in args) {
    const value = (args as { receivedSince?: string }).receivedSince;
    await tree.setReceivedSince(value ? toUtcTimestamp(value, 'received-since date') : undefined);
    return tree.currentReceivedSince;
  }
  const since = await prompts.since('Lab Data: Filter Samples', 'received');
  if (since === undefined) {
    return undefined;
  }
  await tree.setReceivedSince(since ?? undefined);
  return tree.currentReceivedSince;
}
