import * as vscode from 'vscode';
import { knownNames } from './recordText';

/** The Reports view's filter for one lab; dates are already validated and in UTC. */
export interface ReportFilter {
  /** A UTC timestamp, or as set from a rolling preset (`today`, `-7d`, `-30d`; see `sinceMoment`). */
  readonly publishedSince?: string;
  readonly status?: string;
  readonly clientId?: string;
  readonly projectId?: string;
  /** A report type; no lab offers this filter, so Lab Data applies it to the reports it loads. */
  readonly reportType?: string;
}

const FILTER_KEYS: ReadonlyArray<keyof ReportFilter> = [
  'publishedSince',
  'status',
  'clientId',
  'projectId',
  'reportType',
];

/** Where the filters are kept in the workspace's state (`ExtensionContext.workspaceState`). */
const STATE_KEY = 'labData.reportsFilters';
/** The names of a kept filter's client and project, so the view says them again after a reload. */
const NAMES_KEY = 'labData.reportsFilterNames';

/** A kept filter's client and project names, by lab. */
type FilterNames = Record<string, { client?: string; project?: string }>;

/** A filter's set parts only (no empty or unknown ones); `{}` for none. */
function keptParts(filter: unknown): ReportFilter {
  const given = (typeof filter === 'object' && filter !== null ? filter : {}) as Record<
    string,
    unknown
  >;
  return Object.fromEntries(
    FILTER_KEYS.filter((key) => typeof given[key] === 'string' && given[key] !== '').map((key) => [
      key,
      given[key],
    ]),
  ) as ReportFilter;
}

/** Whether two filters set the same parts to the same values. */
export function sameFilter(a: ReportFilter, b: ReportFilter): boolean {
  return FILTER_KEYS.every((key) => a[key] === b[key]);
}

/**
 * Each lab's Reports filter, as set (a rolling date stays rolling), kept in the workspace's state
 * so a window reload finds it again: the view and Sync go on using it. Says when one changes.
 */
export class ReportFilters implements vscode.Disposable {
  private readonly filters = new Map<string, ReportFilter>();
  private readonly changed = new vscode.EventEmitter<string | undefined>();
  /** A lab's filter was set or cleared (undefined: every lab's was cleared). */
  readonly onDidChange = this.changed.event;

  constructor(private readonly state?: vscode.Memento) {
    const stored = state?.get<Record<string, unknown>>(STATE_KEY) ?? {};
    const names = state?.get<FilterNames>(NAMES_KEY) ?? {};
    for (const [lab, filter] of Object.entries(stored)) {
      const kept = keptParts(filter);
      if (Object.keys(kept).length > 0) {
        this.filters.set(lab, kept);
        rememberNames(lab, kept, names[lab]);
      }
    }
  }

  /** Whether any lab has a filter. */
  get any(): boolean {
    return this.filters.size > 0;
  }

  of(lab: string): ReportFilter {
    return this.filters.get(lab) ?? {};
  }

  /** Sets one lab's filter; an empty one clears it. */
  async set(lab: string, filter: ReportFilter): Promise<void> {
    const kept = keptParts(filter);
    if (Object.keys(kept).length > 0) {
      this.filters.set(lab, kept);
    } else {
      this.filters.delete(lab);
    }
    await this.save();
    this.changed.fire(lab);
  }

  async clear(): Promise<void> {
    this.filters.clear();
    await this.save();
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.changed.dispose();
  }

  private async save(): Promise<void> {
    await this.state?.update(STATE_KEY, Object.fromEntries(this.filters));
    const names: FilterNames = {};
    for (const [lab, filter] of this.filters) {
      const nameOf = knownNames.of(lab);
      const client = filter.clientId && nameOf('client', filter.clientId);
      const project = filter.projectId && nameOf('project', filter.projectId);
      if (client || project) {
        names[lab] = { ...(client ? { client } : {}), ...(project ? { project } : {}) };
      }
    }
    await this.state?.update(NAMES_KEY, names);
  }
}

/** Tells the window the names a kept filter's client and project had when it was set. */
function rememberNames(
  lab: string,
  filter: ReportFilter,
  names: { client?: unknown; project?: unknown } | undefined,
): void {
  if (filter.clientId && typeof names?.client === 'string') {
    knownNames.remember(lab, 'client', filter.clientId, names.client);
  }
  if (filter.projectId && typeof names?.project === 'string') {
    knownNames.remember(lab, 'project', filter.projectId, names.project);
  }
}
