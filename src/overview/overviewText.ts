import * as vscode from 'vscode';
import type { Count, ReportOverview } from '../../core/derived/overview';
import { periodLabel } from '../views/recordText';
import { formatCount } from '../ui/displayLocale';

/** The row with the most reports (the first of equals), if any. */
function largest(rows: readonly Count[]): Count | undefined {
  return rows.reduce<Count | undefined>(
    (top, row) => (top && top.count >= row.count ? top : row),
    undefined,
  );
}

/** Each chart in one sentence (what a screen reader reads for the chart, and what the panel shows under its title). */
export function chartSummaries(
  overview: ReportOverview,
  byProject: boolean,
): { time: string; clients: string; status: string } {
  const buckets = overview.buckets;
  const dated = buckets.reduce((sum, bucket) => sum + bucket.total, 0);
  const busiest = buckets.reduce<ReportOverview['buckets'][number] | undefined>(
    (top, bucket) => (top && top.total >= bucket.total ? top : bucket),
    undefined,
  );
  const typeCounts = overview.types.map((type) => ({
    key: type,
    label: type,
    count: buckets.reduce((sum, bucket) => sum + (bucket.byType[type] ?? 0), 0),
  }));
  const commonType = largest(typeCounts);
  const period = (bucket: ReportOverview['buckets'][number]) =>
    periodLabel(bucket.start, overview.bucketing);
  const time =
    dated === 0 || !busiest || !commonType
      ? vscode.l10n.t('No report has a publication date to chart.')
      : vscode.l10n.t(
          '{0} reports published from {1} to {2}, the most in {3} ({4}); the most common type is {5} ({6}).',
          formatCount(dated),
          period(buckets[0]!),
          period(buckets.at(-1)!),
          period(busiest),
          formatCount(busiest.total),
          commonType.label,
          formatCount(commonType.count),
        );
  const rows = byProject ? overview.byProject : overview.byClient;
  const top = largest(rows);
  const clients = !top
    ? vscode.l10n.t('No reports to chart.')
    : byProject
      ? vscode.l10n.t(
          '{0} reports across {1} projects, the most in {2} ({3}).',
          formatCount(overview.total),
          formatCount(rows.length),
          top.label,
          formatCount(top.count),
        )
      : vscode.l10n.t(
          '{0} reports across {1} clients, the most for {2} ({3}).',
          formatCount(overview.total),
          formatCount(rows.length),
          top.label,
          formatCount(top.count),
        );
  const status =
    overview.byStatus.length === 0
      ? vscode.l10n.t('No reports to chart.')
      : vscode.l10n.t(
          '{0} reports by status: {1}.',
          formatCount(overview.total),
          overview.byStatus.map((row) => `${row.label} ${formatCount(row.count)}`).join(', '),
        );
  return { time, clients, status };
}

/** The panel's words, in the user's language (the webview has none of its own). */
export function overviewTexts(
  lab: string,
  overview: ReportOverview,
  filter: string,
  limit: { limit: number; total?: number } | undefined,
  byProject: boolean,
): Record<string, string> {
  const summaries = chartSummaries(overview, byProject);
  return {
    title: vscode.l10n.t('Overview: {0}', lab),
    summary: vscode.l10n.t('{0} reports', formatCount(overview.total)),
    filtered: filter
      ? vscode.l10n.t('Filtered by: {0}', filter)
      : vscode.l10n.t('Not filtered: every report of {0}', lab),
    clearFilter: vscode.l10n.t('Clear Filter'),
    clearFilterTitle: vscode.l10n.t(
      "Clear the Reports view's filter for {0} and chart every report",
      lab,
    ),
    limited: limit
      ? vscode.l10n.t(
          '{0} has more reports than the overview reads ({1}, see labData.overviewMaxReports); the charts show the newest {1}.',
          lab,
          formatCount(limit.limit),
        )
      : '',
    newSince: !overview.newSince
      ? ''
      : overview.newSince.count === 0
        ? vscode.l10n.t('Nothing new since you last looked')
        : vscode.l10n.t('{0} new since you last looked', formatCount(overview.newSince.count)),
    refresh: vscode.l10n.t('Refresh'),
    refreshTitle: vscode.l10n.t(
      "List the reports again, with the Reports view's filter as it is now",
    ),
    timeTitle:
      overview.bucketing === 'day'
        ? vscode.l10n.t('Reports per day, by type')
        : overview.bucketing === 'week'
          ? vscode.l10n.t('Reports per week, by type')
          : vscode.l10n.t('Reports per month, by type'),
    clientsTitle: vscode.l10n.t('Reports by client'),
    projectsTitle: vscode.l10n.t('Reports by project'),
    timeSummary: summaries.time,
    clientsSummary: summaries.clients,
    statusSummary: summaries.status,
    project: vscode.l10n.t('Project'),
    statusTitle: vscode.l10n.t('Reports by status'),
    latest: vscode.l10n.t('Latest reports'),
    showTable: vscode.l10n.t('Table'),
    showTableTitle: vscode.l10n.t('Show the chart as a table'),
    filterRow: vscode.l10n.t('Chart only this and filter the Reports view to it'),
    savePng: vscode.l10n.t('Save as PNG'),
    saveCsv: vscode.l10n.t('Save as CSV'),
    day: vscode.l10n.t('Day'),
    week: vscode.l10n.t('Week'),
    month: vscode.l10n.t('Month'),
    total: vscode.l10n.t('Total'),
    client: vscode.l10n.t('Client'),
    status: vscode.l10n.t('Status'),
    reports: vscode.l10n.t('Reports'),
    report: vscode.l10n.t('Report'),
    type: vscode.l10n.t('Type'),
    published: vscode.l10n.t('Published'),
    preview: vscode.l10n.t('Preview'),
    metadata: vscode.l10n.t('Metadata'),
    actions: vscode.l10n.t('Actions'),
  };
}
