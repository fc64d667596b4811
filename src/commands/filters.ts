import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import type { LabApi } from '../../core/api/labApi';
import type { FilterName } from '../../core/api/labDefinition';
import { toUtcTimestamp } from '../../core/api/query';
import type { Labs } from '../labs/labs';
import { rollingInWords, sinceMoment, type Choice, type Prompts } from '../ui/prompts';
import type { Project } from '../../core/api/records';
import { localTime } from '../views/nodes';
import type { ReportFilter, ReportsTreeProvider } from '../views/reportsTree';
import type { SamplesTreeProvider } from '../views/samplesTree';
import type { Trees } from '../views/registerViews';
import { labForCommand } from './labTarget';
import { commandTargets } from '../ui/commandTargets';
import { knownNames, statusWord } from '../views/recordText';
import { serverText } from '../../core/errors/serverText';
import { titleFor } from '../ui/prompts/labTitles';

/** Arguments of `labData.filterReports` and `labData.searchReports`. */
export interface ReportFilterArgs {
  readonly publishedSince?: string;
  readonly status?: string;
  readonly clientId?: string;
  readonly projectId?: string;
  /** Applied by Lab Data to the reports the lab sends (no lab offers a report-type filter). */
  readonly reportType?: string;
}

const FILTER_OF: Readonly<Record<Exclude<keyof ReportFilterArgs, 'reportType'>, FilterName>> = {
  publishedSince: 'published_since',
  status: 'status',
  clientId: 'client_id',
  projectId: 'project_id',
};

/** Whether an arguments object sets any report filter (an automation call rather than "ask me"). */
export function hasReportFilter(options: Readonly<Record<string, unknown>>): boolean {
  return [...Object.keys(FILTER_OF), 'reportType'].some((key) => key in options);
}

/** A filter from command arguments, with its date validated and in UTC, using only filters the lab offers. */
export function filterFromArgs(given: ReportFilterArgs, api: LabApi): ReportFilter {
  for (const [key, filter] of Object.entries(FILTER_OF) as Array<
    [Exclude<keyof ReportFilterArgs, 'reportType'>, FilterName]
  >) {
    if (given[key] !== undefined && !api.lab.filters.includes(filter)) {
      throw new LabApiError(
        'invalidInput',
        vscode.l10n.t(
          '{0} does not offer the {1} filter (see "filters" in labData.labs).',
          api.lab.name,
          filter,
        ),
      );
    }
  }
  return {
    publishedSince:
      given.publishedSince !== undefined
        ? toUtcTimestamp(given.publishedSince, 'published-since date')
        : undefined,
    status: given.status,
    clientId: given.clientId,
    projectId: given.projectId,
    reportType:
      typeof given.reportType === 'string' && given.reportType.trim()
        ? given.reportType.trim()
        : undefined,
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

/** The report types among a first page of reports (the lab has no list of types). */
async function reportTypes(api: LabApi): Promise<string[]> {
  const reports = await optionalItems(async () => (await api.listReports({ pageSize: 100 })).items);
  return [
    ...new Set(
      reports
        .map((report) => report.report_type)
        .filter((type): type is string => typeof type === 'string' && type.trim() !== ''),
    ),
  ].sort((a, b) => a.localeCompare(b));
}

const STATUSES = ['published', 'amended'];

/** How a project, location or work order is named in a picker: by name, with its id and kind. */
function projectChoice(project: Project): Choice {
  const kind = typeof project.raw.kind === 'string' ? statusWord(project.raw.kind) : undefined;
  return {
    id: project.project_id,
    label: serverText(project.name ?? project.project_id, 120),
    description:
      serverText(
        [project.name ? project.project_id : undefined, kind].filter(Boolean).join(' · '),
        120,
      ) || undefined,
  };
}

type Criterion = 'published_since' | 'status' | 'client_id' | 'project_id' | 'report_type';

/** The field of a {@link ReportFilter} each criterion sets. */
const FIELD_OF: Readonly<Record<Criterion, keyof ReportFilter>> = {
  published_since: 'publishedSince',
  status: 'status',
  client_id: 'clientId',
  project_id: 'projectId',
  report_type: 'reportType',
};

/** A criterion's name, as the criteria list and each step's title say it. */
function criterionLabel(criterion: Criterion): string {
  switch (criterion) {
    case 'published_since':
      return vscode.l10n.t('Published since');
    case 'status':
      return vscode.l10n.t('Status');
    case 'client_id':
      return vscode.l10n.t('Client');
    case 'project_id':
      return vscode.l10n.t('Project, location or work order');
    case 'report_type':
      return vscode.l10n.t('Report type');
  }
}

/** What the filter in force says of each criterion, in words (a client by name, a rolling date as such). */
function valuesInWords(lab: string, current: ReportFilter): Record<Criterion, string | undefined> {
  const nameOf = knownNames.of(lab);
  const named = (kind: 'client' | 'project', id: string): string => {
    const name = nameOf(kind, id);
    return name ? `${name} (${id})` : id;
  };
  return {
    published_since:
      current.publishedSince &&
      (rollingInWords(current.publishedSince) ??
        localTime(current.publishedSince) ??
        current.publishedSince),
    status: current.status && statusWord(current.status),
    client_id: current.clientId && named('client', current.clientId),
    project_id: current.projectId && named('project', current.projectId),
    report_type: current.reportType,
  };
}

/** A criterion in the first list: its name, its value (or "any"), checked when it has one. */
function criterionChoice(
  criterion: Criterion,
  value: string | undefined,
): Choice & { readonly picked: boolean } {
  return {
    id: criterion,
    label: criterionLabel(criterion),
    description: serverText(value ?? vscode.l10n.t('any'), 160),
    detail:
      criterion === 'report_type'
        ? vscode.l10n.t('The lab has no such filter: Lab Data filters the reports it receives.')
        : undefined,
    picked: value !== undefined,
  };
}

/** What one step of the filter needs: the lab, the questions, the filter in force and its words, the step's title. */
interface FilterStep {
  readonly api: LabApi;
  readonly prompts: Prompts;
  readonly current: ReportFilter;
  readonly values: Record<Criterion, string | undefined>;
  /** The title of a criterion's step ("Lab Data: Filter Reports — Meridian: Client (1/2)"). */
  readonly title: (criterion: Criterion) => string;
}

/**
 * One of a list for a criterion, its value in force highlighted. A value the list does not hold (a
 * client past the first page, a type not among the first reports, a status set by automation) is
 * offered first as itself, so Enter still keeps it; a list the lab does not share asks nothing and
 * keeps the value in force.
 */
function pickValue(
  step: FilterStep,
  criterion: Criterion,
  placeHolder: string,
  choices: Choice[],
): Promise<string | null | undefined> {
  const value = step.current[FIELD_OF[criterion]];
  const shown = criterion === 'report_type' ? value : step.values[criterion];
  const offered =
    value !== undefined && !choices.some((choice) => choice.id === value)
      ? [
          {
            id: value,
            label: serverText(shown ?? value, 120),
            description: vscode.l10n.t('current'),
          },
          ...choices,
        ]
      : choices;
  return offered.length === 0
    ? Promise.resolve(value ?? null)
    : step.prompts.pickOne(step.title(criterion), placeHolder, offered, true, value);
}

/** Asks one criterion's value: null means any, undefined cancel. Projects are those of `clientId` when one is chosen. */
async function askCriterion(
  step: FilterStep,
  criterion: Criterion,
  clientId: string | undefined,
): Promise<string | null | undefined> {
  const { api } = step;
  switch (criterion) {
    case 'published_since':
      return step.prompts.since(step.title(criterion), 'published', step.current.publishedSince);
    case 'status':
      return pickValue(
        step,
        criterion,
        vscode.l10n.t('Status'),
        STATUSES.map((id) => ({ id, label: statusWord(id) })),
      );
    case 'client_id': {
      const clients = await optionalItems(
        async () => (await api.listClients({ pageSize: 200 })).items,
      );
      clients.forEach((client) =>
        knownNames.remember(api.lab.name, 'client', client.client_id, client.name),
      );
      return pickValue(
        step,
        criterion,
        vscode.l10n.t('Client'),
        clients.map((c) => ({
          id: c.client_id,
          label: serverText(c.name ?? c.client_id, 120),
          description: c.name ? serverText(c.client_id, 80) : undefined,
        })),
      );
    }
    case 'project_id': {
      const projects = await optionalItems(
        async () => (await api.listProjects({ pageSize: 200, clientId })).items,
      );
      projects.forEach((project) =>
        knownNames.remember(api.lab.name, 'project', project.project_id, project.name),
      );
      return pickValue(
        step,
        criterion,
        vscode.l10n.t('Project, location or work order'),
        projects.map(projectChoice),
      );
    }
    case 'report_type':
      return pickValue(
        step,
        criterion,
        vscode.l10n.t(
          'Report type (the lab has no such filter: Lab Data filters the reports it receives)',
        ),
        (await reportTypes(api)).map((type) => ({ id: type, label: serverText(type, 120) })),
      );
  }
}

/**
 * Asks for a report filter the way a person sets two or three criteria: first one list of every
 * criterion the lab offers (and the report type, which Lab Data applies itself and says so), each
 * showing its current value and checked when it has one, then one step per checked criterion with
 * its current value first, so Enter keeps it. Two criteria take three steps; reopening and pressing
 * Enter through keeps the filter; unchecking a criterion clears it.
 */
export async function askReportFilter(
  api: LabApi,
  prompts: Prompts,
  title: string,
  current: ReportFilter = {},
): Promise<ReportFilter | undefined> {
  const values = valuesInWords(api.lab.name, current);
  const criteria: Criterion[] = [
    ...(['published_since', 'status', 'client_id', 'project_id'] as const).filter((filter) =>
      api.lab.filters.includes(filter),
    ),
    'report_type',
  ];
  const chosen = await prompts.pickCriteria(
    title,
    criteria.map((criterion) => criterionChoice(criterion, values[criterion])),
  );
  if (chosen === undefined) {
    return undefined;
  }
  const steps = criteria.filter((criterion) => chosen.includes(criterion));
  const step: FilterStep = {
    api,
    prompts,
    current,
    values,
    title: (criterion) =>
      `${title}: ${criterionLabel(criterion)} (${steps.indexOf(criterion) + 1}/${steps.length})`,
  };
  const filter: { -readonly [K in keyof ReportFilter]: ReportFilter[K] } = {};
  for (const criterion of steps) {
    const answer = await askCriterion(step, criterion, filter.clientId);
    if (answer === undefined) {
      return undefined;
    }
    filter[FIELD_OF[criterion]] = answer ?? undefined;
  }
  return filter;
}

/**
 * `labData.filterReports`: narrows one lab's part of the Reports view by the filters that lab
 * offers, filtered on the server. With a filter in its arguments (`{ lab?, publishedSince?, … }`)
 * it asks nothing; from a toolbar button (which passes the selected row) it asks.
 */
export async function filterReports(
  labs: Labs,
  trees: Pick<Trees, 'reports' | 'reportsView'>,
  prompts: Prompts,
  ...args: unknown[]
): Promise<ReportFilter | undefined> {
  const tree = trees.reports;
  const targets = commandTargets(args);
  const connection = await labForCommand(labs, prompts, targets.lab);
  const api = connection?.api;
  if (!connection || !api) {
    return undefined;
  }
  const lab = connection.lab.name;
  const given = targets.automated && hasReportFilter(targets.options);
  const filter = given
    ? filterFromArgs(targets.options as ReportFilterArgs, api)
    : await askReportFilter(
        api,
        prompts,
        titleFor(lab, 'filterReports'),
        // As set: "Last 30 days" is offered again as itself, still rolling, not as the date it gave today.
        tree.filterAsSet(lab),
      );
  if (!filter) {
    return undefined;
  }
  await tree.setFilter(lab, filter);
  if (!given && trees.reportsView.visible) {
    // A person filtered: the keyboard is on the list's first row, so the arrows work at once.
    const first = await tree.firstRowAfterFilter(lab);
    if (first) {
      await trees.reportsView
        .reveal(first, { select: true, focus: true })
        .then(undefined, () => undefined);
    }
  }
  return tree.filterOf(lab);
}

/** `labData.clearReportsFilter`: clears one lab's filter (`{ lab }` or its row), or every lab's. */
export async function clearReportsFilter(
  tree: ReportsTreeProvider,
  ...args: unknown[]
): Promise<void> {
  const { lab } = commandTargets(args);
  await (lab === undefined ? tree.clearFilters() : tree.setFilter(lab, {}));
}

/** `labData.filterSamples`: received-since, as `{ lab?, receivedSince }` or chosen from presets. */
export async function filterSamples(
  labs: Labs,
  tree: SamplesTreeProvider,
  prompts: Prompts,
  ...args: unknown[]
): Promise<string | undefined> {
  const targets = commandTargets(args);
  const connection = await labForCommand(labs, prompts, targets.lab);
  if (!connection) {
    return undefined;
  }
  const name = connection.lab.name;
  if (!connection.lab.filters.includes('received_since')) {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t(
        '{0} does not offer the {1} filter (see "filters" in labData.labs).',
        name,
        'received_since',
      ),
    );
  }
  if (targets.automated && 'receivedSince' in targets.options) {
    const value = targets.options.receivedSince;
    await tree.setReceivedSince(
      name,
      typeof value === 'string' && value ? toUtcTimestamp(value, 'received-since date') : undefined,
    );
    return tree.receivedSinceOf(name);
  }
  const since = await prompts.since(titleFor(name, 'filterSamples'), 'received');
  if (since === undefined) {
    return undefined;
  }
  await tree.setReceivedSince(name, since === null ? undefined : sinceMoment(since));
  return tree.receivedSinceOf(name);
}

/** `labData.clearSamplesFilter`: clears one lab's received-since filter (`{ lab }` or its row), or every lab's. */
export async function clearSamplesFilter(
  tree: SamplesTreeProvider,
  ...args: unknown[]
): Promise<void> {
  await tree.setReceivedSince(commandTargets(args).lab, undefined);
}
