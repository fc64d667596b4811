import { withNotificationProgress } from '../ui/progress';
import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import { LabApiError } from '../../core/errors/errors';
import { aggregateReports, type ReportOverview } from '../../core/derived/overview';
import type { ListFilters } from '../../core/api/query';
import type { Report } from '../../core/api/records';
import { Commands, SETTINGS_SECTION, Settings } from '../constants';
import type { LabConnection } from '../labs/labConnection';
import type { Logger } from '../log';
import type { NewReports } from '../news/newReports';
import { WebviewPage } from '../ui/webviewPage';
import { serverText } from '../../core/errors/serverText';
import { localTime } from '../views/nodes';
import { displayLocale } from '../ui/displayLocale';
import { knownNames, periodLabel } from '../views/recordText';
import { TypeStyles } from '../../core/derived/typeStyles';
import { overviewTexts } from './overviewText';
import { saveChart } from './overviewExport';
import { sameFilter } from '../views/reportFilters';
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
  /** Each report type's colour on the time chart, as drawn. */
  readonly typeColours: Readonly<Record<string, string>>;
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
    /** The data message this waiter waits to see drawn; undefined: whatever is drawn next. */
    seq?: number;
    resolve: (drawn: DrawnOverview) => void;
    reject: (error: Error) => void;
  }> = [];
  started = Date.now();
  lastDrawn?: DrawnOverview;
  /** The filter last charted, in words. */
  lastDescribed?: string;
  /**
   * The last data message sent: the page is built from it again whenever its webview is (VS Code
   * drops a hidden webview's page and loads it afresh when its tab is shown again).
   */
  lastData?: { readonly seq: number; readonly [key: string]: unknown };
  /** The Reports view's filter changed while the panel was hidden: listed again once it shows. */
  stale = false;
  /** Listings started; one started later makes an earlier one's result old news. */
  loads = 0;
  private seq = 0;

  constructor(
    readonly lab: string,
    readonly panel: vscode.WebviewPanel,
    filter: ReportFilter,
    readonly connection: LabConnection,
  ) {
    this.filter = filter;
  }

  nextSeq(): number {
    return ++this.seq;
  }

  /** The next drawing (of data message `seq`, or of anything when undefined). */
  nextDrawn(seq?: number): Promise<DrawnOverview> {
    return new Promise((resolve, reject) => this.drawnWaiters.push({ seq, resolve, reject }));
  }

  drawn(result: DrawnOverview, seq: number | undefined): void {
    this.lastDrawn = result;
    const [done, waiting] = [
      this.drawnWaiters.filter(
        (waiter) => waiter.seq === undefined || (seq !== undefined && waiter.seq <= seq),
      ),
      this.drawnWaiters.filter(
        (waiter) => waiter.seq !== undefined && (seq === undefined || waiter.seq > seq),
      ),
    ];
    this.drawnWaiters = waiting;
    done.forEach((waiter) => waiter.resolve(result));
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
  /** Each lab's report types' colours and patterns, kept whatever the filter (for the session). */
  private readonly typeStyles = new Map<string, TypeStyles>();
  private readonly filterChanged: vscode.Disposable;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly news: NewReports,
    private readonly log: Logger,
    /** The Reports view, whose filter for the lab the overview follows. */
    private readonly reports: ReportsTreeProvider,
  ) {
    this.filterChanged = reports.onDidChangeFilter((lab) =>
      [...this.panels.values()]
        .filter((entry) => lab === undefined || entry.lab === lab)
        .forEach((entry) => this.follow(entry)),
    );
  }

  /**
   * The Reports view's filter for the panel's lab changed: the panel charts it too, at once when
   * it is on screen, else when it is shown again (a hidden webview hears nothing).
   */
  private follow(entry: OverviewPanel): void {
    const filter = this.reports.filterOf(entry.lab);
    if (sameFilter(filter, entry.filter)) {
      return;
    }
    entry.filter = filter;
    if (entry.panel.visible) {
      this.reload(entry);
    } else {
      entry.stale = true;
    }
  }

  /** Lists and draws again, in the background (a failure goes to the log). */
  private reload(entry: OverviewPanel): void {
    entry.stale = false;
    void this.load(entry.connection, entry).catch((error: unknown) =>
      this.log.warn('Overview', `${entry.lab}: ${errorText(error)}`),
    );
  }

  /** Opens (or reveals and reloads) the overview of a lab with `filter`; resolves once the charts are drawn. */
  async show(connection: LabConnection, filter: ReportFilter): Promise<DrawnOverview> {
    const lab = connection.lab.name;
    let entry = this.panels.get(lab);
    if (entry) {
      entry.filter = filter;
      entry.stale = false;
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
      const created = new OverviewPanel(lab, panel, filter, connection);
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
        // Shown again after the filter changed while hidden, its page kept (no "ready" to answer).
        const viewState = panel.onDidChangeViewState(
          () => panel.visible && created.stale && this.reload(created),
        );
        panel.onDidDispose(() => {
          subscription.dispose();
          viewState.dispose();
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
        click(chart: string, index: number): Promise<DrawnOverview>;
        press(button: 'refresh' | 'clearFilter'): Promise<DrawnOverview>;
      }
    | undefined {
    const entry = this.panels.get(lab);
    return (
      entry && {
        get overview() {
          return entry.overview;
        },
        get lastDrawn() {
          return entry.lastDrawn;
        },
        // As a person's click on a bar: resolves once the overview is drawn again with that filter.
        click: async (chart, index) => {
          const drawn = entry.nextDrawn();
          await entry.panel.webview.postMessage({ type: 'click', chart, index });
          return drawn;
        },
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
    this.filterChanged.dispose();
    this.panels.forEach((entry) => entry.panel.dispose());
  }

  private stylesOf(lab: string): TypeStyles {
    let styles = this.typeStyles.get(lab);
    if (!styles) {
      styles = new TypeStyles();
      this.typeStyles.set(lab, styles);
    }
    return styles;
  }

  /** Lists the filtered reports (newest first, up to the limit), aggregates them and sends them to the webview. */
  private async load(connection: LabConnection, entry: OverviewPanel): Promise<DrawnOverview> {
    const api = connection.backgroundApi;
    const lab = connection.lab.name;
    if (!api) {
      throw new LabApiError(
        'unauthorized',
        vscode.l10n.t('Sign in to {0} first.', connection.lab.name),
      );
    }
    const load = ++entry.loads;
    entry.started = Date.now();
    const limit = Math.max(
      100,
      vscode.workspace
        .getConfiguration(SETTINGS_SECTION)
        .get<number>(Settings.overviewMaxReports, DEFAULT_OVERVIEW_LIMIT),
    );
    const filter = entry.filter;
    await entry.panel.webview.postMessage({
      type: 'loading',
      text: vscode.l10n.t('Listing the reports of {0}…', connection.lab.name),
    });
    const { reports, total, more } = await this.listReports(connection, api, filter, limit);
    const names = await this.names(api, lab, filter);
    if (load !== entry.loads) {
      // A later listing (the filter changed meanwhile) draws instead of this one.
      return entry.nextDrawn();
    }
    const overview = aggregateReports(reports, {
      now: new Date(),
      mark: this.news.markOf(connection.lab.name),
      ...names,
    });
    entry.overview = overview;
    const described = serverText(describeReportFilter(filter, knownNames.of(lab)), 300);
    const byProject = filter.clientId !== undefined;
    entry.lastDescribed = described;
    const seq = entry.nextSeq();
    const drawn = entry.nextDrawn(seq);
    entry.lastData = {
      type: 'data',
      seq,
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
      byProject,
      styles: this.stylesOf(lab).of(overview.types),
      ...(more ? { limit: { limit, total } } : {}),
      text: overviewTexts(lab, overview, described, more ? { limit, total } : undefined, byProject),
    };
    // A hidden panel's webview hears nothing: it asks again ("ready") when shown, and gets this.
    await entry.panel.webview.postMessage(entry.lastData);
    const result = await drawn;
    const ms = Date.now() - entry.started;
    this.log.info(
      'Overview',
      `${connection.lab.name}: ${reports.length} report(s) charted in ${ms} ms${more ? ` (the newest ${limit} of ${total ?? 'more'})` : ''}.`,
    );
    return { ...result, lab: connection.lab.name, total: reports.length, ms, filter: described };
  }

  /** The reports matching `filter`, newest first, at most `limit`, with a progress notification. */
  private listReports(
    connection: LabConnection,
    api: NonNullable<LabConnection['backgroundApi']>,
    filter: ReportFilter,
    limit: number,
  ): Promise<{ reports: Report[]; total?: number; more: boolean }> {
    // The lab filters what it can; the report type (no lab offers it) is applied here, as in the Reports view.
    const query: ListFilters = serverPart(filter);
    return withNotificationProgress(
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
  }

  /** The lab's client names, and the chosen client's project names, for the charts' labels. */
  private async names(
    api: NonNullable<LabConnection['backgroundApi']>,
    lab: string,
    filter: ReportFilter,
  ): Promise<{ clientNames: Map<string, string>; projectNames: Map<string, string> }> {
    const clientNames = new Map<string, string>();
    if (api.lab.filters.includes('client_id')) {
      try {
        (await api.listClients({ pageSize: 200 })).items.forEach((client) => {
          knownNames.remember(lab, 'client', client.client_id, client.name);
          return client.name && clientNames.set(client.client_id, client.name);
        });
      } catch {
        // A tenant without clients: ids are shown as they are.
      }
    }
    const projectNames = new Map<string, string>();
    if (filter.clientId) {
      try {
        (await api.listProjects({ pageSize: 200, clientId: filter.clientId })).items.forEach(
          (project) => {
            // The filter line here and in the Reports view names a project chosen by a click.
            knownNames.remember(lab, 'project', project.project_id, project.name);
            return project.name && projectNames.set(project.project_id, project.name);
          },
        );
      } catch {
        // A tenant without project structures: ids are shown as they are.
      }
    }
    return { clientNames, projectNames };
  }

  private async onMessage(
    connection: LabConnection,
    entry: OverviewPanel,
    message: { type: string; [key: string]: unknown },
  ): Promise<void> {
    const lab = connection.lab.name;
    switch (message.type) {
      case 'ready':
        // The page was loaded again (its tab shown after being hidden): drawn from what it showed
        // last, or listed again when the Reports view's filter changed meanwhile. The first
        // "ready" of a new panel finds neither: `show` loads it.
        if (entry.stale) {
          this.reload(entry);
        } else if (entry.lastData) {
          await entry.panel.webview.postMessage(entry.lastData);
        }
        break;
      case 'drawn':
        entry.drawn(
          {
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
            typeColours: message.typeColours as DrawnOverview['typeColours'],
            filter: entry.lastDescribed ?? '',
          },
          typeof message.seq === 'number' ? message.seq : undefined,
        );
        break;
      case 'refresh':
        // The Reports view's filter as it is now (a bar click or the filter command may have changed it).
        entry.filter = this.reports.filterOf(lab);
        await this.load(connection, entry);
        break;
      case 'clearFilter': {
        // The view's filter cleared: the overview follows it (see `follow`), or lists again here
        // when the view had none (the overview charted a filter of its own).
        const loads = entry.loads;
        await vscode.commands.executeCommand(Commands.clearReportsFilter, { lab });
        if (entry.loads === loads) {
          entry.filter = {};
          await this.load(connection, entry);
        }
        break;
      }
      case 'filter': {
        const slice = Object.fromEntries(
          ['publishedSince', 'clientId', 'projectId', 'status']
            .filter((key) => typeof message[key] === 'string')
            .map((key) => [key, message[key] as string]),
        );
        const loads = entry.loads;
        await vscode.commands.executeCommand(Commands.filterReports, {
          lab,
          ...entry.filter,
          ...slice,
        });
        // A bar clicked shows the Reports view; a row chosen from the keyboard keeps the focus here.
        if (message.keepFocus !== true) {
          await vscode.commands.executeCommand('labData.reports.focus');
        }
        // The overview charts the slice the Reports view now shows: it followed the view's new
        // filter (see `follow`), or, the view's filter being that already, lists again here.
        if (entry.loads === loads) {
          entry.filter = this.reports.filterOf(lab);
          await this.load(connection, entry);
        }
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
        await saveChart(
          lab,
          entry.overview,
          String(message.chart),
          message.format === 'png' ? 'png' : 'csv',
          typeof message.data === 'string' ? message.data : undefined,
        );
        break;
    }
  }

  private html(webview: vscode.Webview, lab: string): string {
    const page = new WebviewPage(webview, this.extensionUri);
    const csp = `default-src 'none'; img-src ${page.cspSource} data:; style-src ${page.cspSource} 'unsafe-inline'; font-src ${page.cspSource}; script-src 'nonce-${page.nonce}'`;
    return page.document(
      csp,
      'overview.css',
      '',
      `<main id="overview"></main>
<script nonce="${page.nonce}" src="${page.resource('dist', 'chartjs', 'chart.umd.min.js')}"></script>
<script type="module" nonce="${page.nonce}" src="${page.resource('dist', 'webview', 'overview.js')}"></script>`,
      vscode.l10n.t('Overview: {0}', lab),
    );
  }
}
