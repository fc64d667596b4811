import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import type { ListFilters } from '../core/query';
import { Commands, ContextKeys, Views } from '../constants';
import { LabTreeProvider } from './labTreeProvider';
import type { Report } from '../core/records';
import { LoadMoreNode, MessageNode, ReportNode, localTime, pagedChildren, type LabNode } from './nodes';

/** The Reports view's filter; dates are already validated and in UTC. */
export interface ReportFilter {
  readonly publishedSince?: string;
  readonly status?: string;
  readonly clientId?: string;
  readonly projectId?: string;
}

export function describeReportFilter(filter: ReportFilter): string {
  return [
    filter.publishedSince && `published since ${localTime(filter.publishedSince)}`,
    filter.status && `status ${filter.status}`,
    filter.clientId && `client ${filter.clientId}`,
    filter.projectId && `project ${filter.projectId}`,
  ]
    .filter(Boolean)
    .join(', ');
}

/** Published reports, newest first, a page at a time, optionally filtered on the server. */
export class ReportsTreeProvider extends LabTreeProvider {
  private filter: ReportFilter = {};
  /** Nodes are reused while their report is, so `TreeView.reveal` can find them. */
  private readonly nodes = new Map<string, ReportNode>();

  constructor(session: LabSession) {
    super(session, Views.reports);
  }

  get currentFilter(): ReportFilter {
    return this.filter;
  }

  async setFilter(filter: ReportFilter): Promise<void> {
    this.forgetLists('reports:');
    this.nodes.clear();
    this.filter = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined && value !== '')) as ReportFilter;
    await vscode.commands.executeCommand('setContext', ContextKeys.reportsFiltered, Object.keys(this.filter).length > 0);
    this.redraw();
  }

  protected async roots(): Promise<LabNode[]> {
    const filter = this.filter;
    const query: ListFilters = { ...filter };
    const key = `reports:${JSON.stringify(filter)}`;
    const list = this.list(key, (api, page) => api.listReports({ ...query, page }), (report) => report.report_id);
    const nodes: LabNode[] = [];
    const description = describeReportFilter(filter);
    if (description) {
      nodes.push(new MessageNode('reports/filter', `Filtered by: ${description}`, 'filter', { command: Commands.clearReportsFilter, title: 'Clear Filter' }, 'Click to clear the filter.'));
    }
    const empty = filter.publishedSince ? `No reports published since ${localTime(filter.publishedSince)}` : description ? 'No reports match the filter' : 'No published reports';
    nodes.push(...(await pagedChildren('reports', list, (report) => this.nodeOf(report), empty, 'reports')));
    return nodes;
  }

  /** Every report in this view sits at the top level. */
  getParent(): undefined {
    return undefined;
  }

  /**
   * The row of a report in this view (with its filter), loading further pages while needed, up to
   * `maxPages`; undefined when the view does not list it.
   */
  async findNode(reportId: string, maxPages = 20): Promise<ReportNode | undefined> {
    for (let page = 0; page < maxPages; page++) {
      const rows = await this.getChildren();
      const found = rows.find((row): row is ReportNode => row instanceof ReportNode && row.report.report_id === reportId);
      const more = rows.find((row): row is LoadMoreNode => row instanceof LoadMoreNode);
      if (found || !more) {
        return found;
      }
      await more.list.loadMore();
    }
    return undefined;
  }

  private nodeOf(report: Report): ReportNode {
    const id = `reports/report:${report.report_id}`;
    const cached = this.nodes.get(id);
    if (cached && cached.report === report) {
      return cached;
    }
    const node = new ReportNode(report, 'reports');
    this.nodes.set(id, node);
    return node;
  }
}
