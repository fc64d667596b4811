import * as vscode from 'vscode';
import type { ListFilters } from '../core/query';
import type { Report } from '../core/records';
import { Commands, ContextKeys, Views } from '../constants';
import type { Labs } from '../labs/labs';
import { LabTreeProvider, type LabScope } from './labTreeProvider';
import { LoadMoreNode, MessageNode, ReportNode, localTime, pagedChildren, type LabNode } from './nodes';

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

/** Published reports of each lab, newest first, a page at a time, optionally filtered on the server (per lab). */
export class ReportsTreeProvider extends LabTreeProvider {
  private readonly filters = new Map<string, ReportFilter>();
  /** Nodes are reused while their report is, so `TreeView.reveal` can find them. */
  private readonly nodes = new Map<string, ReportNode>();

  constructor(labs: Labs) {
    super(labs, Views.reports);
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

  private nodeOf(scope: LabScope, report: Report): ReportNode {
    const id = `${scope.idPrefix}reports/report:${report.report_id}`;
    const cached = this.nodes.get(id);
    if (cached && cached.report === report) {
      return cached;
    }
    const node = new ReportNode(report, `${scope.idPrefix}reports`, scope.name);
    this.nodes.set(id, node);
    return node;
  }
}
