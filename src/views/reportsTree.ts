import * as vscode from 'vscode';
import type { ListFilters } from '../../core/api/query';
import type { Report } from '../../core/api/records';
import { ContextKeys, Views } from '../constants';
import type { Labs } from '../labs/labs';
import { LabTreeProvider, type LabScope } from './labTreeProvider';
import type { PagedList } from './pagedList';
import {
  filtersNeeded,
  isRelativeSince,
  searchFilters,
  searchesForLab,
  type SavedSearch,
} from '../../core/derived/savedSearches';
import type { NewReports } from '../news/newReports';
import type { SavedSearchSettings } from '../news/savedSearchSettings';
import { phrase } from '../ui/phrase';
import { rollingInWords, sinceMoment } from '../ui/prompts';
import { knownNames, statusWord, type NameOf } from './recordText';
import {
  FilterNode,
  LoadMoreNode,
  MessageNode,
  SavedSearchNode,
  localTime,
  pagedChildren,
  type LabNode,
} from './nodes';
import { ReportNode, reportTitle } from './reportNode';
import { formatCount } from '../ui/displayLocale';
import { countOf, matchCount } from '../ui/counts';
import { sharedTitlePrefix } from './sharedTitles';
import { sameSavedState, type SavedReportLookup } from './savedState';
import { ReportFilters, type ReportFilter } from './reportFilters';

export type { ReportFilter } from './reportFilters';

/**
 * How many reports match a filter, in words, once the list has said: the lab's count, or with a
 * report type (which Lab Data applies itself) how many of those loaded match.
 */
function matchingCount(list: PagedList<Report>, filter: ReportFilter): string | undefined {
  if (!list.loaded || list.error !== undefined) {
    return undefined;
  }
  if (filter.reportType === undefined) {
    const count = list.total ?? (list.hasMore ? undefined : list.items.length);
    return count === undefined ? undefined : matchCount('report', count);
  }
  const matching = list.items.filter((report) => matchesLocally(report, filter)).length;
  return list.hasMore
    ? vscode.l10n.t(
        '{0} of the {1} reports loaded match the filter',
        formatCount(matching),
        formatCount(list.items.length),
      )
    : matchCount('report', matching);
}

/** Whether a report passes the parts of a filter Lab Data applies itself (the report type). */
export function matchesLocally(report: Report, filter: ReportFilter): boolean {
  return filter.reportType === undefined || report.report_type === filter.reportType;
}

/** A filter without the parts Lab Data applies itself: what is sent to the lab. */
export function serverPart(filter: ReportFilter): ListFilters {
  return {
    publishedSince: filter.publishedSince && sinceMoment(filter.publishedSince),
    status: filter.status,
    clientId: filter.clientId,
    projectId: filter.projectId,
  };
}

/** A filter in words, clients and projects by name where the lab gave one ("client Riverside Water Authority (CL-0001)"). */
export function describeReportFilter(filter: ReportFilter, nameOf?: NameOf): string {
  return reportFilterCriteria(filter, nameOf).join(', ');
}

/** A filter's criteria in words, one string each, in the order {@link describeReportFilter} joins them. */
export function reportFilterCriteria(filter: ReportFilter, nameOf?: NameOf): string[] {
  const named = (kind: 'client' | 'project', id: string): string => {
    const name = nameOf?.(kind, id);
    return name ? `${name} (${id})` : id;
  };
  const rolling = filter.publishedSince && rollingInWords(filter.publishedSince);
  return [
    rolling
      ? vscode.l10n.t('published {0}', rolling)
      : filter.publishedSince &&
        vscode.l10n.t(
          'published since {0}',
          localTime(filter.publishedSince) ?? filter.publishedSince,
        ),
    filter.status && vscode.l10n.t('status {0}', statusWord(filter.status)),
    filter.clientId && vscode.l10n.t('client {0}', named('client', filter.clientId)),
    filter.projectId && vscode.l10n.t('project {0}', named('project', filter.projectId)),
    filter.reportType && vscode.l10n.t('type {0}', filter.reportType),
  ].filter((criterion): criterion is string => Boolean(criterion));
}

/** A saved search's filters in words; a relative date is shown as written ("published since -7d"). */
export function describeSavedSearch(search: SavedSearch): string {
  const relative = search.publishedSince !== undefined && isRelativeSince(search.publishedSince);
  const rest = describeReportFilter({
    ...search,
    publishedSince: relative ? undefined : search.publishedSince,
  });
  return [relative ? vscode.l10n.t('published since {0}', search.publishedSince!) : undefined, rest]
    .filter(Boolean)
    .join(', ');
}

/**
 * Published reports of each lab, newest first, a page at a time, optionally filtered on the server
 * (per lab). The user's saved searches sit at the top as folders, and reports published since the
 * user last looked carry a "new" marker.
 */
export class ReportsTreeProvider extends LabTreeProvider {
  private readonly filters: ReportFilters;
  /** A lab's filter was set or cleared (undefined: every lab's). */
  readonly onDidChangeFilter: vscode.Event<string | undefined>;
  /** Nodes are reused while their report is, so `TreeView.reveal` can find them. */
  private readonly nodes = new Map<string, ReportNode>();

  constructor(
    labs: Labs,
    private readonly news?: NewReports,
    private readonly searches?: SavedSearchSettings,
    saved?: SavedReportLookup,
    /** Where each lab's filter is kept across reloads (the workspace's state). */
    filterState?: vscode.Memento,
  ) {
    super(labs, Views.reports, saved);
    this.filters = new ReportFilters(filterState);
    this.onDidChangeFilter = this.filters.onDidChange;
    if (this.filters.any) {
      void this.updateContext();
    }
    this.searchesChanged = searches?.onDidChange(() => {
      this.forgetLists('search:');
      this.redraw();
    });
  }

  private readonly searchesChanged?: vscode.Disposable;

  override dispose(): void {
    this.searchesChanged?.dispose();
    this.filters.dispose();
    super.dispose();
  }

  /** The filter of one lab (empty when none), a rolling date ("Last 30 days") as today's moment. */
  filterOf(lab: string): ReportFilter {
    const filter = this.filterAsSet(lab);
    return filter.publishedSince === undefined
      ? filter
      : { ...filter, publishedSince: sinceMoment(filter.publishedSince) };
  }

  /** The filter of one lab as it was set: a rolling date stays rolling (`today`, `-7d`, `-30d`). */
  filterAsSet(lab: string): ReportFilter {
    return this.filters.of(lab);
  }

  /** Sets one lab's filter; an empty filter clears it. */
  async setFilter(lab: string, filter: ReportFilter): Promise<void> {
    this.forgetLists('reports:', lab);
    this.nodes.clear();
    await this.filters.set(lab, filter);
    await this.updateContext();
  }

  /** Clears every lab's filter. */
  async clearFilters(): Promise<void> {
    this.forgetLists('reports:');
    this.nodes.clear();
    await this.filters.clear();
    await this.updateContext();
  }

  protected async roots(scope: LabScope): Promise<LabNode[]> {
    const filter = this.filterOf(scope.name);
    const list = this.reportList(scope);
    const nodes: LabNode[] = [];
    const criteria = reportFilterCriteria(this.filterAsSet(scope.name), knownNames.of(scope.name));
    const description = criteria.join(', ');
    // The first page tells how many match (the filter row says it) and what the rows' titles share.
    await list.ensureLoaded();
    if (description) {
      const note =
        filter.reportType !== undefined
          ? vscode.l10n.t(
              'The lab has no report-type filter: Lab Data shows only reports of type {0} among those it loads.',
              filter.reportType,
            )
          : undefined;
      nodes.push(
        new FilterNode(
          `${scope.idPrefix}reports/filter`,
          scope.name,
          description,
          'reports',
          note,
          {
            count: matchingCount(list, filter),
            criteria,
          },
        ),
      );
    }
    nodes.push(...this.searchRows(scope));
    const shared = sharedTitlePrefix(
      list.items.filter((report) => matchesLocally(report, filter)).map(reportTitle),
    );
    const empty = filter.publishedSince
      ? vscode.l10n.t(
          'No reports published since {0}',
          localTime(filter.publishedSince) ?? filter.publishedSince,
        )
      : description
        ? vscode.l10n.t('No reports match the filter')
        : vscode.l10n.t('No published reports');
    nodes.push(
      ...(await pagedChildren(
        `${scope.idPrefix}reports`,
        list,
        (report) => this.nodeOf(scope, report, undefined, shared),
        empty,
        'report',
        (report) => matchesLocally(report, filter),
      )),
    );
    return nodes;
  }

  protected mainList(
    scope: LabScope,
  ): { list: PagedList<unknown>; count: (count: number) => string } | undefined {
    const filter = this.filterOf(scope.name);
    if (filter.reportType !== undefined) {
      // The lab's count includes the other types Lab Data hides here: no honest number to show.
      return undefined;
    }
    const filtered = Object.keys(filter).length > 0;
    return {
      list: this.reportList(scope) as PagedList<unknown>,
      count: (count) => (filtered ? matchCount('report', count) : countOf('report', count)),
    };
  }

  /** One lab's main list of reports, with its filter's server part. */
  private reportList(scope: LabScope): PagedList<Report> {
    const query: ListFilters = serverPart(this.filterOf(scope.name));
    return this.list(
      scope,
      `reports:${JSON.stringify(query)}`,
      (api, page, signal) => api.listReports({ ...query, page }, signal),
      (report) => report.report_id,
    );
  }

  /** The reports loaded so far in one lab's list (with its filter), for suggestions. */
  loadedReports(lab: string): Report[] {
    const filter = this.filterOf(lab);
    return this.loadedItems<Report>(lab, `reports:${JSON.stringify(serverPart(filter))}`).filter(
      (report) => matchesLocally(report, filter),
    );
  }

  /**
   * The row of the first report a "Load more" added to the lab's main list, for moving focus onto
   * it; undefined for other lists (a saved search's folder) or when nothing was added.
   */
  async firstLoadedAfter(more: LoadMoreNode, before: number): Promise<ReportNode | undefined> {
    const report = more.list.items[before] as Report | undefined;
    const parentId = more.id.replace(/\/more$/, '');
    const main = /^(?:lab:(.+)\/)?reports$/.exec(parentId);
    if (!report || !main) {
      return undefined;
    }
    const id = `${parentId}/report:${report.report_id}`;
    // The rows as VS Code will ask for them; the nodes are kept, so reveal finds the same one.
    const rows = await this.rowsOf(main[1] ?? '');
    return rows.find((row): row is ReportNode => row instanceof ReportNode && row.id === id);
  }

  /** With one lab every report sits at the top level; with several, under its lab's row. */
  getParent(node: LabNode): LabNode | undefined {
    const lab = node instanceof FilterNode ? node.labName : node.ref?.lab;
    return lab !== undefined ? this.labRowOf(lab) : undefined;
  }

  /**
   * Where the keyboard goes once a lab's filter is set: the first row of its list (the filter's,
   * else its first report), so the arrows work at once; the lab's own row when that first row is
   * one the view cannot reveal by its parent.
   */
  async firstRowAfterFilter(lab: string): Promise<LabNode | undefined> {
    const first = (await this.rowsOf(lab))[0];
    return first && (first instanceof FilterNode || first.ref !== undefined)
      ? first
      : (this.labRowOf(lab) ?? first);
  }

  /**
   * The row of a report of `lab` in this view (with its filter), loading further pages while
   * needed, up to `maxPages`; undefined when the view does not list it.
   */
  async findNode(lab: string, reportId: string, maxPages = 20): Promise<ReportNode | undefined> {
    for (let page = 0; page < maxPages; page++) {
      const rows = await this.rowsOf(lab);
      const found = rows.find(
        (row): row is ReportNode => row instanceof ReportNode && row.report.report_id === reportId,
      );
      const more = rows.find((row): row is LoadMoreNode => row instanceof LoadMoreNode);
      if (found || !more) {
        return found;
      }
      await more.list.loadMore();
    }
    return undefined;
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand(
      'setContext',
      ContextKeys.reportsFiltered,
      this.filters.any,
    );
    this.redraw();
  }

  private nodeOf(
    scope: LabScope,
    report: Report,
    parentId = `${scope.idPrefix}reports`,
    sharedPrefix?: string,
  ): ReportNode {
    const id = `${parentId}/report:${report.report_id}`;
    const isNew = this.news?.isNew(scope.name, report) ?? false;
    const saved = this.savedState(scope.name, report.report_id);
    const cached = this.nodes.get(id);
    if (
      cached &&
      cached.report === report &&
      cached.isNew === isNew &&
      cached.sharedPrefix === sharedPrefix &&
      cached.namesLab === scope.several &&
      sameSavedState(cached.saved, saved)
    ) {
      return cached;
    }
    const node = new ReportNode(
      report,
      parentId,
      scope.name,
      isNew,
      sharedPrefix,
      saved,
      scope.several,
    );
    this.nodes.set(id, node);
    return node;
  }

  /** The saved searches of a lab as folders, and a row per unusable entry of the setting. */
  private searchRows(scope: LabScope): LabNode[] {
    if (!this.searches) {
      return [];
    }
    const parentId = `${scope.idPrefix}reports`;
    const invalid = this.searches.invalid.map(
      (entry) =>
        new MessageNode(
          `${parentId}/search-invalid:${entry.index}`,
          vscode.l10n.t('Saved search "{0}" cannot be used', entry.name ?? `#${entry.index + 1}`),
          'warning',
          undefined,
          phrase(entry.error),
        ),
    );
    const folders = searchesForLab(this.searches.searches, scope.name).map((search) => {
      const folderId = `${parentId}/search:${search.name}`;
      return new SavedSearchNode(
        parentId,
        scope.name,
        search,
        describeSavedSearch(search),
        async () => {
          const missing = filtersNeeded(search).filter(
            (filter) => !scope.connection.lab.filters.includes(filter),
          );
          if (missing.length > 0) {
            return [
              new MessageNode(
                `${folderId}/unsupported`,
                vscode.l10n.t(
                  '{0} does not offer the {1} filter (see "filters" in labData.labs).',
                  scope.name,
                  missing.join(', '),
                ),
                'warning',
              ),
            ];
          }
          // Relative dates are resolved when the list starts (and at every refresh), then kept for its further pages.
          let filters = searchFilters(search, new Date());
          const list = this.list(
            scope,
            `search:${JSON.stringify(search)}`,
            (api, page, signal) => {
              if (page === 1) {
                filters = searchFilters(search, new Date());
              }
              return api.listReports({ ...filters, page }, signal);
            },
            (report) => report.report_id,
          );
          await list.ensureLoaded();
          const shared = sharedTitlePrefix(list.items.map(reportTitle));
          return pagedChildren(
            folderId,
            list,
            (report) => this.nodeOf(scope, report, folderId, shared),
            vscode.l10n.t('No reports match this search'),
            'report',
          );
        },
      );
    });
    return [...folders, ...invalid];
  }
}
