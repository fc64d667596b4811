import * as path from 'node:path';
import { withNotificationProgress } from '../ui/progress';
import { Readable } from 'node:stream';
import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import { csvRow } from '../../core/derived/exportList';
import { LabApiError } from '../../core/errors/errors';
import { aggregateReports, overviewCsv, type ReportOverview } from '../../core/derived/overview';
import type { ListFilters } from '../../core/api/query';
import type { Report } from '../../core/api/records';
import { isInside, writeFileSafely } from '../../core/files/safeWriter';
import { Commands, SETTINGS_SECTION, Settings } from '../constants';
import type { LabConnection } from '../labs/labConnection';
import type { Logger } from '../log';
import type { NewReports } from '../news/newReports';
import { WebviewPage } from '../ui/webviewPage';
import { serverText } from '../../core/errors/serverText';
import { localTime } from '../views/nodes';
import { displayLocale, formatCount } from '../ui/displayLocale';
import { knownNames, periodLabel } from '../views/recordText';
import {
  describeReportFilter,
  matchesLocally,
  serverPart,
  type ReportFilter,
  type ReportsTreeProvider,
} from '../views/reportsTree';
import { errorText } from '../../core/errors/errorText';

/** Reports one overview reads at most unless `labData.overviewMaxReports` says otherwise. */
export const DEFAULT_OVERVIEW_LIMIT = 20_000;

/** What the webview said it drew: counts per bar of each chart. */
export interface DrawnOverview {
  readonly lab: string;
  readonly total: number;
  /** Milliseconds from the command to the charts drawn. */
  readonly ms: number;
  readonly time: Readonly<Record<string, number>>;
  readonly clients: Readonly<Record<string, number>>;
  readonly status: Readonly<Record<string, number>>;
  readonly charts: number;
  /** The values on each chart's count axis, as drawn. */
  readonly ticks: Readonly<Record<'time' | 'clients' | 'status', readonly number[]>>;
  /** The labels each chart's category axis shows (shortened names, dates as the tree shows them). */
  readonly axisLabels: Readonly<Record<'time' | 'clients' | 'status', readonly string[]>>;
  /** The filter charted, in words ('' for none). */
  readonly filter: string;
  /** What the panel shows: its filter line, whether it offers Clear Filter, the latest reports' publication times. */
  readonly shown: {
    readonly filter: string;
    readonly clearFilter: boolean;
    readonly published: readonly string[];
  };
}

/** One lab's overview panel: its data (cached for the panel's life) and its webview. */
class OverviewPanel {
  overview?: ReportOverview;
  filter: ReportFilter;
  private drawnWaiters: Array<{
    resolve: (drawn: DrawnOverview) => void;
    reject: (error: Error) => void;
  }> = [];
  started = Date.now();
  lastDrawn?: DrawnOverview;
  /** The filter last charted, in words. */
  lastDescribed?: string;

  constructor(
    readonly lab: string,
    readonly panel: vscode.WebviewPanel,
    filter: ReportFilter,
  ) {
    this.filter = filter;
  }

  nextDrawn(): Promise<DrawnOverview> {
    return new Promise((resolve, reject) => this.drawnWaiters.push({ resolve, reject }));
  }

  drawn(result: DrawnOverview): void {
    this.lastDrawn = result;
    this.drawnWaiters.splice(0).forEach((waiter) => waiter.resolve(result));
  }

  failed(error: Error): void {
    this.drawnWaiters.splice(0).forEach((waiter) => waiter.reject(error));
  }
}

/**
 * `labData.showOverview`: a webview panel per lab charting its reports (over time by type, by
 * client, by status), what is new since the user last looked, and the latest reports. The data
 * is one listing of the filtered reports (no per-report requests), cached while the panel is open;
 * Refresh lists again. Chart.js is shipped with the extension and loaded only by the webview.
 */
export class OverviewPanels implements vscode.Disposable {
  private readonly panels = new Map<string, OverviewPanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly news: NewReports,
    private readonly log: Logger,
    /** The Reports view, whose filter for the lab a Refresh uses. */
    private readonly reports: ReportsTreeProvider,
  ) {}

  /** Opens (or reveals and reloads) the overview of a lab with `filter`; resolves once the charts are drawn. */
  async show(connection: LabConnection, filter: ReportFilter): Promise<DrawnOverview> {
    const lab = connection.lab.name;
    let entry = this.panels.get(lab);
    if (entry) {
      entry.filter = filter;
      entry.panel.reveal();
    } else {
      const panel = vscode.window.createWebviewPanel(
        'labData.overview',
        vscode.l10n.t('Overview: {0}', lab),
        vscode.ViewColumn.Active,
        {
          enableScripts: true,
          localResourceRoots: [
            vscode.Uri.joinPath(this.extensionUri, 'dist'),
            vscode.Uri.joinPath(this.extensionUri, 'media'),
          ],
        },
      );
      panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'lab-data.svg');
      const created = new OverviewPanel(lab, panel, filter);
      entry = created;
      this.panels.set(lab, created);
      const ready = new Promise<void>((resolve) => {
        const subscription = panel.webview.onDidReceiveMessage(
          (message: { type: string; [key: string]: unknown }) => {
            if (message.type === 'ready') {
              resolve();
            }
            void this.onMessage(connection, created, message).catch((error: unknown) =>
              this.log.warn('Overview', `${lab}: ${errorText(error)}`),
            );
          },
        );
        panel.onDidDispose(() => {
          subscription.dispose();
          this.panels.delete(lab);
          created.failed(new LabApiError('cancelled', vscode.l10n.t('The overview was closed.')));
        });
      });
      panel.webview.html = this.html(panel.webview, lab);
      await ready;
    }
    return this.load(connection, entry);
  }

  /** The open overview of a lab (tests, diagnostics). */
  panelOf(lab: string):
    | {
        readonly overview?: ReportOverview;
        readonly lastDrawn?: DrawnOverview;
        click(chart: string, index: number): Promise<void>;
        press(button: 'refresh' | 'clearFilter'): Promise<DrawnOverview>;
      }
    | undefined {
    const entry = this.panels.get(lab);
    return (
      entry && {
        overview: entry.overview,
        lastDrawn: entry.lastDrawn,
        click: async (chart, index) =>
          void (await entry.panel.webview.postMessage({ type: 'click', chart, index })),
        // As a person's click on the panel's button: the webview posts what the button posts.
        press: async (button) => {
          const drawn = entry.nextDrawn();
          await entry.panel.webview.postMessage({ type: 'press', button });
          return drawn;
        },
      }
    );
  }

  dispose(): void {
    this.panels.forEach((entry) => entry.panel.dispose());
  }

  /** Lists the filtered reports (newest first, up to the limit), aggregates them and sends them to the webview. */
  private async load(connection: LabConnection, entry: OverviewPanel): Promise<DrawnOverview> {
    const api = connection.api;
    if (!api) {
      throw new LabApiError(
        'unauthorized',
        vscode.l10n.t('Sign in to {0} first.', connection.lab.name),
      );
    }
    entry.started = Date.now();
    const limit = Math.max(
      100,
      vscode.workspace
        .getConfiguration(SETTINGS_SECTION)
        .get<number>(Settings.overviewMaxReports, DEFAULT_OVERVIEW_LIMIT),
    );
    // The lab filters what it can; the report type (no lab offers it) is applied here, as in the Reports view.
    const query: ListFilters = serverPart(entry.filter);
    const filter = entry.filter;
    await entry.panel.webview.postMessage({
      type: 'loading',
      text: vscode.l10n.t('Listing the reports of {0}…', connection.lab.name),
    });
    const { reports, total, more } = await withNotificationProgress(
      vscode.l10n.t('Loading the overview of {0}…', connection.lab.name),
      async (progress, token) => {
        const signal = toAbortSignal(token);
        const found: Report[] = [];
        let count: number | undefined;
        let hasMore = false;
        for await (const page of api.iterateReports(
          { ...query, pageSize: Math.min(200, Math.max(api.lab.pageSize ?? 0, 100)) },
          { signal, maxPages: 10_000 },
        )) {
          found.push(...page.items.filter((report) => matchesLocally(report, filter)));
          count ??= page.totalCount;
          hasMore = page.hasMore;
          progress.report({
            message:
              count !== undefined
                ? vscode.l10n.t('{0} of {1} reports', found.length, Math.min(count, limit))
                : vscode.l10n.t('{0} reports', found.length),
          });
          if (found.length >= limit) {
            break;
          }
        }
        return {
          reports: found.slice(0, limit),
          total: count,
          more: hasMore || found.length > limit,
        };
      },
    );
    const clientNames = new Map<string, string>();
    if (api.lab.filters.includes('client_id')) {
      try {
        (await api.listClients({ pageSize: 200 })).items.forEach(
          (client) => client.name && clientNames.set(client.client_id, client.name),
        );
      } catch {
        // A tenant without clients: ids are shown as they are.
      }
    }
    const projectNames = new Map<string, string>();
    if (entry.filter.clientId) {
      try {
        (await api.listProjects({ pageSize: 200, clientId: entry.filter.clientId })).items.forEach(
          (project) => project.name && projectNames.set(project.project_id, project.name),
        );
      } catch {
        // A tenant without project structures: ids are shown as they are.
      }
    }
    const overview = aggregateReports(reports, {
      now: new Date(),
      mark: this.news.markOf(connection.lab.name),
      clientNames,
      projectNames,
    });
    entry.overview = overview;
    const described = serverText(
      describeReportFilter(entry.filter, knownNames.of(connection.lab.name)),
      300,
    );
    entry.lastDescribed = described;
    const drawn = entry.nextDrawn();
    await entry.panel.webview.postMessage({
      type: 'data',
      lab: connection.lab.name,
      // Dates as the Reports view shows them, formatted here (the webview's locale may differ).
      overview: {
        ...overview,
        latest: overview.latest.map((row) => ({
          ...row,
          published: localTime(row.publishedAt) ?? '',
        })),
      },
      periods: overview.buckets.map((bucket) => periodLabel(bucket.start, overview.bucketing)),
      filter: described,
      locale: displayLocale(),
      byProject: entry.filter.clientId !== undefined,
      ...(more ? { limit: { limit, total } } : {}),
      text: this.texts(
        connection.lab.name,
        overview,
        described,
        more ? { limit, total } : undefined,
      ),
    });
    const result = await drawn;
    const ms = Date.now() - entry.started;
    this.log.info(
      'Overview',
      `${connection.lab.name}: ${reports.length} report(s) charted in ${ms} ms${more ? ` (the newest ${limit} of ${total ?? 'more'})` : ''}.`,
    );
    return { ...result, lab: connection.lab.name, total: reports.length, ms, filter: described };
  }

  private async onMessage(
    connection: LabConnection,
    entry: OverviewPanel,
    message: { type: string; [key: string]: unknown },
  ): Promise<void> {
    const lab = connection.lab.name;
    switch (message.type) {
      case 'drawn':
        entry.drawn({
          lab,
          total: entry.overview?.total ?? 0,
          ms: Number(message.ms),
          time: message.time as Record<string, number>,
          clients: message.clients as Record<string, number>,
          status: message.status as Record<string, number>,
          charts: Number(message.charts),
          ticks: message.ticks as DrawnOverview['ticks'],
          axisLabels: message.axisLabels as DrawnOverview['axisLabels'],
          shown: message.shown as DrawnOverview['shown'],
          filter: entry.lastDescribed ?? '',
        });
        break;
      case 'refresh':
        // The Reports view's filter as it is now (a bar click or the filter command may have changed it).
        entry.filter = this.reports.filterOf(lab);
        await this.load(connection, entry);
        break;
      case 'clearFilter':
        await vscode.commands.executeCommand(Commands.clearReportsFilter, { lab });
        entry.filter = {};
        await this.load(connection, entry);
        break;
      case 'filter': {
        const slice = Object.fromEntries(
          ['publishedSince', 'clientId', 'projectId', 'status']
            .filter((key) => typeof message[key] === 'string')
            .map((key) => [key, message[key] as string]),
        );
        await vscode.commands.executeCommand(Commands.filterReports, {
          lab,
          ...entry.filter,
          ...slice,
        });
        await vscode.commands.executeCommand('labData.reports.focus');
        break;
      }
      case 'preview':
        await vscode.commands.executeCommand(Commands.previewReport, {
          lab,
          id: String(message.id),
        });
        break;
      case 'metadata':
        await vscode.commands.executeCommand(Commands.openReportMetadata, {
          lab,
          id: String(message.id),
        });
        break;
      case 'save':
        await this.save(
          lab,
          entry,
          String(message.chart),
          message.format === 'png' ? 'png' : 'csv',
          typeof message.data === 'string' ? message.data : undefined,
        );
        break;
    }
  }

  /** "Save as PNG / CSV": into the workspace's `lab-exports` folder (never outside it). */
  private async save(
    lab: string,
    entry: OverviewPanel,
    chart: string,
    format: 'png' | 'csv',
    dataUrl: string | undefined,
  ): Promise<void> {
    const root = vscode.workspace.workspaceFolders?.find((folder) => folder.uri.scheme === 'file')
      ?.uri.fsPath;
    if (!root || !entry.overview) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t('Open a folder first: charts are saved into the workspace.'),
      );
      return;
    }
    const name = ['time', 'clients', 'status'].includes(chart) ? chart : 'time';
    let body: Buffer;
    if (format === 'png') {
      const match = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(dataUrl ?? '');
      if (!match) {
        return;
      }
      body = Buffer.from(match[1]!, 'base64');
    } else {
      body = Buffer.from(
        `${overviewCsv(entry.overview, name as 'time' | 'clients' | 'status')
          .map(csvRow)
          .join('\r\n')}\r\n`,
        'utf8',
      );
    }
    const folder = path.join(root, 'lab-exports');
    const fileName = `overview-${lab.replace(/[^A-Za-z0-9._-]+/g, '_')}-${name}-${new Date().toISOString().slice(0, 10)}.${format}`;
    if (!isInside(path.join(folder, fileName), root)) {
      return;
    }
    const saved = await writeFileSafely({
      folder,
      fileName,
      root,
      source: Readable.from([body]),
      ifExists: 'overwrite',
    });
    const uri = vscode.Uri.file(saved.path);
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Saved {0}.', vscode.workspace.asRelativePath(uri)),
    );
  }

  private texts(
    lab: string,
    overview: ReportOverview,
    filter: string,
    limit: { limit: number; total?: number } | undefined,
  ): Record<string, string> {
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
            limit.limit,
          )
        : '',
      newSince: !overview.newSince
        ? ''
        : overview.newSince.count === 0
          ? vscode.l10n.t('Nothing new since you last looked')
          : vscode.l10n.t('{0} new since you last looked', overview.newSince.count),
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
      project: vscode.l10n.t('Project'),
      statusTitle: vscode.l10n.t('Reports by status'),
      latest: vscode.l10n.t('Latest reports'),
      showTable: vscode.l10n.t('Table'),
      showTableTitle: vscode.l10n.t('Show the chart as a table'),
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
    };
  }

  private html(webview: vscode.Webview, lab: string): string {
    const page = new WebviewPage(webview, this.extensionUri);
    const csp = `default-src 'none'; img-src ${page.cspSource} data:; style-src ${page.cspSource} 'unsafe-inline'; font-src ${page.cspSource}; script-src 'nonce-${page.nonce}'`;
    return page.document(
      csp,
      'overview.css',
      '',
      `<main id="overview" aria-live="polite"></main>
<script nonce="${page.nonce}" src="${page.resource('dist', 'chartjs', 'chart.umd.min.js')}"></script>
<script type="module" nonce="${page.nonce}" src="${page.resource('dist', 'webview', 'overview.js')}"></script>`,
      vscode.l10n.t('Overview: {0}', lab),
    );
  }
}
