import * as vscode from 'vscode';
import type { ListFilters } from '../core/query';
import type { Report } from '../core/records';
import { Commands, ContextKeys, Views } from '../constants';
import type { Labs } from '../labs/labs';
import { LabTreeProvider, type LabScope } from './labTreeProvider';
import { filtersNeeded, isRelativeSince, searchFilters, searchesForLab, type SavedSearch } from '../core/savedSearches';
import type { NewReports } from '../news/newReports';
import type { SavedSearchSettings } from '../news/savedSearchSettings';
import { phrase } from '../ui/phrase';
import { LoadMoreNode, MessageNode, ReportNode, SavedSearchNode, localTime, pagedChildren, type LabNode } from './nodes';

/** The Reports view's filter for one lab; dates are already validated and in UTC. */
export interface ReportFilter {
  readonly publishedSince?: string;
  readonly status?: string;
  readonly clientId?: string;
  readonly projectId?: string;
}

export function describeReportFilter(filter: ReportFilter): string {
  return [
    filter.publishedSince && vscode.l10n.t('published since {0}', localTime(filter.publishedSince) ?? filter.publishedSince),
    filter.status && vscode.l10n.t('status {0}', filter.status),
    filter.clientId && vscode.l10n.t('client {0}', filter.clientId),
    filter.projectId && vscode.l10n.t('project {0}', filter.projectId),
  ]
    .filter(Boolean)
    .join(', ');
}

/** A saved search's filters in words; a relative date is shown as written ("published since -7d"). */
export function describeSavedSearch(search: SavedSearch): string {
  const relative = search.publishedSince !== undefined && isRelativeSince(search.publishedSince);
  const rest = describeReportFilter({ ...search, publishedSince: relative ? undefined : search.publishedSince });
  return [relative ? vscode.l10n.t('published since {0}', search.publishedSince!) : undefined, rest].filter(Boolean).join(', ');
}

/**
 * Published reports of each lab, newest first, a page at a time, optionally filtered on the server
 * (per lab). The user's saved searches sit at the top as folders, and reports published since the
 * user last looked carry a "new" marker.
 */
export class ReportsTreeProvider extends LabTreeProvider {
  private readonly filters = new Map<string, ReportFilter>();
  /** Nodes are reused while their report is, so `TreeView.reveal` can find them. */
  private readonly nodes = new Map<string, ReportNode>();

  constructor(
    labs: Labs,
    private readonly news?: NewReports,
    private readonly searches?: SavedSearchSettings,
  ) {
    super(labs, Views.reports);
    this.searchesChanged = searches?.onDidChange(() => {
      this.forgetLists('search:');
      this.redraw();
    });
  }

  private readonly searchesChanged?: vscode.Disposable;

  override dispose(): void {
    this.searchesChanged?.dispose();
    super.dispose();
  }

  /** The filter of one lab (empty when none). */
  filterOf(lab: string): ReportFilter {
    return this.filters.get(lab) ?? {};
  }

  /** Sets one lab's filter; an empty filter clears it. */
  async setFilter(lab: string, filter: ReportFilter): Promise<void> {
    this.forgetLists('reports:', lab);
    this.nodes.clear();
    const kept = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined && value !== '')) as ReportFilter;
    if (Object.keys(kept).length > 0) {
      this.filters.set(lab, kept);
    } else {
      this.filters.delete(lab);
    }
    await this.updateContext();
  }

  /** Clears every lab's filter. */
  async clearFilters(): Promise<void> {
    this.forgetLists('reports:');
    this.nodes.clear();
    this.filters.clear();
    await this.updateContext();
  }

  protected async roots(scope: LabScope): Promise<LabNode[]> {
    const filter = this.filterOf(scope.name);
    const query: ListFilters = { ...filter };
    const list = this.list(scope, `reports:${JSON.stringify(filter)}`, (api, page) => api.listReports({ ...query, page }), (report) => report.report_id);
    const nodes: LabNode[] = [];
    const description = describeReportFilter(filter);
    if (description) {
      nodes.push(
        new MessageNode(`${scope.idPrefix}reports/filter`, vscode.l10n.t('Filtered by: {0}', description), 'filter', { command: Commands.clearReportsFilter, title: vscode.l10n.t('Clear Filter'), arguments: [{ lab: scope.name }] }, vscode.l10n.t('Click to clear the filter.')),
      );
    }
    nodes.push(...this.searchRows(scope));
    const empty = filter.publishedSince ? vscode.l10n.t('No reports published since {0}', localTime(filter.publishedSince) ?? filter.publishedSince) : description ? vscode.l10n.t('No reports match the filter') : vscode.l10n.t('No published reports');
    nodes.push(...(await pagedChildren(`${scope.idPrefix}reports`, list, (report) => this.nodeOf(scope, report), empty, 'reports')));
    return nodes;
  }

  /** With one lab every report sits at the top level; with several, under its lab's row. */
  getParent(node: LabNode): LabNode | undefined {
    return node.ref ? this.labRowOf(node.ref.lab) : undefined;
  }

  /**
   * The row of a report of `lab` in this view (with its filter), loading further pages while
   * needed, up to `maxPages`; undefined when the view does not list it.
   */
  async findNode(lab: string, reportId: string, maxPages = 20): Promise<ReportNode | undefined> {
    for (let page = 0; page < maxPages; page++) {
      const rows = await this.rowsOf(lab);
      const found = rows.find((row): row is ReportNode => row instanceof ReportNode && row.report.report_id === reportId);
      const more = rows.find((row): row is LoadMoreNode => row instanceof LoadMoreNode);
      if (found || !more) {
        return found;
      }
      await more.list.loadMore();
    }
    return undefined;
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand('setContext', ContextKeys.reportsFiltered, this.filters.size > 0);
    this.redraw();
  }

  private nodeOf(scope: LabScope, report: Report, parentId = `${scope.idPrefix}reports`): ReportNode {
    const id = `${parentId}/report:${report.report_id}`;
    const isNew = this.news?.isNew(scope.name, report) ?? false;
    const cached = this.nodes.get(id);
    if (cached && cached.report === report && cached.isNew === isNew) {
      return cached;
    }
    const node = new ReportNode(report, parentId, scope.name, isNew);
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
      (entry) => new MessageNode(`${parentId}/search-invalid:${entry.index}`, vscode.l10n.t('Saved search "{0}" cannot be used', entry.name ?? `#${entry.index + 1}`), 'warning', undefined, phrase(entry.error)),
    );
    const folders = searchesForLab(this.searches.searches, scope.name).map((search) => {
      const folderId = `${parentId}/search:${search.name}`;
      return new SavedSearchNode(parentId, scope.name, search, describeSavedSearch(search), async () => {
        const missing = filtersNeeded(search).filter((filter) => !scope.connection.lab.filters.includes(filter));
        if (missing.length > 0) {
          return [new MessageNode(`${folderId}/unsupported`, vscode.l10n.t('{0} does not offer the {1} filter (see "filters" in labData.labs).', scope.name, missing.join(', ')), 'warning')];
        }
        // Relative dates are resolved when the list starts (and at every refresh), then kept for its further pages.
        let filters = searchFilters(search, new Date());
        const list = this.list(scope, `search:${JSON.stringify(search)}`, (api, page) => {
          if (page === 1) {
            filters = searchFilters(search, new Date());
          }
          return api.listReports({ ...filters, page });
        }, (report) => report.report_id);
        return pagedChildren(folderId, list, (report) => this.nodeOf(scope, report, folderId), vscode.l10n.t('No reports match this search'), 'reports');
      });
    });
    return [...folders, ...invalid];
  }
}
