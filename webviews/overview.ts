/**
 * The lab overview webview: draws what the extension aggregated (reports over time stacked by
 * type, by client, by status), each chart with a table view, Save as PNG and CSV, and a click on
 * a bar that filters the Reports view. Chart.js is loaded from the extension by a nonce'd script
 * tag before this module; colours come from the VS Code theme and follow it when it changes.
 */
import type { Chart as ChartInstance, ChartConfiguration } from 'chart.js';
import type { ReportOverview } from '../core/derived/overview';
import type { TypeStyle } from '../core/derived/typeStyles';
import { chartConfig, type ChartContext, type ChartName } from './overviewCharts';
import { element } from './element';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
declare const Chart: new (canvas: HTMLCanvasElement, config: ChartConfiguration) => ChartInstance;

/** A row of the latest reports, with its publication time as the Reports view shows it. */
type LatestRow = ReportOverview['latest'][number] & { readonly published?: string };

interface OverviewData {
  /** Which data message this is: echoed with "drawn", so the extension knows what was drawn. */
  readonly seq?: number;
  readonly lab: string;
  /** The time axis' steps as the Reports view shows dates ("20 Nov 2026", "Week of 16 Nov 2026"), one per bucket. */
  readonly periods?: readonly string[];
  /** A client is chosen: the second chart shows its projects instead of the clients. */
  readonly byProject?: boolean;
  readonly overview: ReportOverview;
  /** Each report type's colour and pattern (indices into `palette()` and `PATTERNS`), the same whatever the filter. */
  readonly styles?: Readonly<Record<string, TypeStyle>>;
  readonly filter: string;
  readonly limit?: { readonly limit: number; readonly total?: number };
  readonly text: Readonly<Record<string, string>>;
  /** VS Code's display language, for the numbers Chart.js writes on axes and in tooltips. */
  readonly locale?: string;
}

const vscode = acquireVsCodeApi();
const root = document.getElementById('overview') as HTMLDivElement;
const charts = new Map<ChartName, ChartInstance>();
let data: OverviewData | undefined;
let started = performance.now();
/** A row was chosen from the keyboard: after the redraw, the focus goes to the filter line, which says what is charted. */
let focusFilterLine = false;

function post(type: string, fields: Record<string, unknown> = {}): void {
  vscode.postMessage({ type, ...fields });
}

function table(
  caption: string,
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  rowHeader: (cell: string, index: number) => Node | string = (cell) => cell,
): HTMLTableElement {
  return element(
    'table',
    {},
    element('caption', {}, caption),
    element(
      'thead',
      {},
      element('tr', {}, ...header.map((cell) => element('th', { scope: 'col' }, cell))),
    ),
    element(
      'tbody',
      {},
      ...rows.map((row, rowIndex) =>
        element(
          'tr',
          {},
          ...row.map((cell, index) =>
            index === 0
              ? element('th', { scope: 'row' }, rowHeader(cell, rowIndex))
              : element('td', {}, cell),
          ),
        ),
      ),
    ),
  );
}

/** The rows each chart shows, as its table view and as what the drawn-counts report says. */
function rowsOf(
  name: ChartName,
  overview: ReportOverview,
): { header: string[]; rows: string[][]; labels: string[] } {
  const text = data!.text;
  if (name === 'time') {
    return {
      header: [
        text[overview.bucketing] ?? overview.bucketing,
        ...overview.types,
        text.total ?? 'Total',
      ],
      rows: overview.buckets.map((bucket, index) => [
        periodOf(index, bucket.key),
        ...overview.types.map((type) => String(bucket.byType[type] ?? 0)),
        String(bucket.total),
      ]),
      labels: overview.buckets.map((bucket) => bucket.key),
    };
  }
  const counts = countsOf(name, overview);
  const first =
    name === 'clients'
      ? data!.byProject
        ? (text.project ?? 'Project')
        : (text.client ?? 'Client')
      : (text.status ?? 'Status');
  return {
    header: [first, text.reports ?? 'Reports'],
    rows: counts.map((row) => [row.label, String(row.count)]),
    labels: counts.map((row) => row.label),
  };
}

/** A time bucket's step as the Reports view shows dates, else its key. */
function periodOf(index: number, key: string): string {
  return data?.periods?.[index] ?? key;
}

/** A chart's configuration, from the data drawn now. */
function config(name: ChartName, overview: ReportOverview): ChartConfiguration {
  const context: ChartContext = {
    styles: data?.styles,
    locale: data?.locale,
    reportsLabel: data?.text.reports ?? 'Reports',
    periodOf,
    countsOf: (chart) => countsOf(chart, overview),
    select: (chart, index) => select(chart, index),
  };
  return chartConfig(name, overview, context);
}

/** The bars of the client chart (a client's projects when one is chosen) or the status chart. */
function countsOf(
  name: 'clients' | 'status',
  overview: ReportOverview,
): ReportOverview['byClient'] {
  return name === 'status'
    ? overview.byStatus
    : data!.byProject
      ? overview.byProject
      : overview.byClient;
}

/**
 * A bar was chosen (clicked, its table row's button pressed, or asked by a test): the overview and
 * the Reports view are filtered to that slice; from the keyboard, the focus stays in the overview.
 */
function select(name: ChartName, index: number, fromKeyboard = false): void {
  const overview = data?.overview;
  if (!overview) {
    return;
  }
  if (name === 'time') {
    const bucket = overview.buckets[index];
    if (bucket) {
      focusFilterLine = fromKeyboard;
      post('filter', {
        chart: name,
        publishedSince: bucket.start,
        label: bucket.key,
        keepFocus: fromKeyboard,
      });
    }
  } else {
    const row = countsOf(name, overview)[index];
    if (row) {
      focusFilterLine = fromKeyboard;
      post('filter', {
        keepFocus: fromKeyboard,
        chart: name,
        ...(name === 'clients'
          ? data!.byProject
            ? { projectId: row.key }
            : { clientId: row.key }
          : { status: row.key }),
        label: row.label,
      });
    }
  }
}

function section(
  name: ChartName,
  title: string,
  summary: string,
  overview: ReportOverview,
): HTMLElement {
  const { header, rows } = rowsOf(name, overview);
  const text = data!.text;
  const summaryLine = element('p', { className: 'chart-summary', id: `summary-${name}` }, summary);
  // The chart is a picture for a screen reader: its title, described by the summary; the table has the data.
  const canvas = element('canvas', { role: 'img' });
  canvas.setAttribute('aria-label', title);
  canvas.setAttribute('aria-describedby', summaryLine.id);
  // Each row's first cell is a button doing what a click on its bar does, so the keyboard can too.
  const rowButton = (cell: string, index: number): Node => {
    const button = element('button', {
      className: 'row',
      textContent: cell,
      title: text.filterRow ?? '',
    });
    button.addEventListener('click', () => select(name, index, true));
    return button;
  };
  const tableView = element(
    'div',
    { className: 'table', hidden: true, id: `table-${name}`, tabIndex: 0 },
    table(title, header, rows, rowButton),
  );
  tableView.setAttribute('role', 'region');
  tableView.setAttribute('aria-label', `${text.showTable ?? 'Table'}: ${title}`);
  const toggle = element('button', {
    textContent: text.showTable ?? 'Table',
    title: text.showTableTitle ?? '',
  });
  toggle.dataset.action = `table-${name}`;
  toggle.setAttribute('aria-expanded', 'false');
  toggle.setAttribute('aria-controls', tableView.id);
  toggle.setAttribute('aria-label', `${text.showTable ?? 'Table'}: ${title}`);
  toggle.addEventListener('click', () => {
    tableView.hidden = !tableView.hidden;
    toggle.setAttribute('aria-expanded', String(!tableView.hidden));
  });
  const png = element('button', { textContent: text.savePng ?? 'Save as PNG' });
  png.setAttribute('aria-label', `${text.savePng ?? 'Save as PNG'}: ${title}`);
  png.addEventListener('click', () =>
    post('save', {
      chart: name,
      format: 'png',
      data: charts.get(name)?.toBase64Image('image/png', 1),
    }),
  );
  const csv = element('button', { textContent: text.saveCsv ?? 'Save as CSV' });
  csv.setAttribute('aria-label', `${text.saveCsv ?? 'Save as CSV'}: ${title}`);
  csv.addEventListener('click', () => post('save', { chart: name, format: 'csv' }));
  const node = element(
    'section',
    { className: `chart ${name}` },
    element(
      'header',
      {},
      element('h2', {}, title),
      element('span', { className: 'actions' }, toggle, png, csv),
    ),
    summaryLine,
    element('div', { className: 'canvas' }, canvas),
    tableView,
  );
  requestAnimationFrame(() => charts.set(name, new Chart(canvas, config(name, overview))));
  return node;
}

/** The title, the count and Refresh. */
function heading(current: OverviewData): HTMLElement {
  const { text } = current;
  const refresh = element('button', {
    textContent: text.refresh ?? 'Refresh',
    title: text.refreshTitle ?? '',
  });
  refresh.dataset.action = 'refresh';
  refresh.addEventListener('click', () => post('refresh'));
  return element(
    'header',
    { className: 'top' },
    element('h1', {}, text.title ?? current.lab),
    element('span', { className: 'summary' }, text.summary ?? ''),
    refresh,
  );
}

/** The filter charted, and a way to drop it (which clears the Reports view's filter too). */
function filterLine(current: OverviewData): HTMLElement {
  const { text } = current;
  const filterBar = element(
    'p',
    { className: current.filter ? 'filter filtered' : 'filter', tabIndex: -1 },
    element('span', {}, text.filtered ?? current.filter),
  );
  if (current.filter) {
    const clear = element('button', {
      textContent: text.clearFilter ?? 'Clear Filter',
      title: text.clearFilterTitle ?? '',
    });
    clear.dataset.action = 'clearFilter';
    clear.addEventListener('click', () => post('clearFilter'));
    filterBar.append(clear);
  }
  return filterBar;
}

/** One row of the latest reports: its id opens it (preview, or metadata without a file). */
function latestRow(row: LatestRow, text: Readonly<Record<string, string>>): HTMLElement {
  const open = element('a', {
    href: '#',
    textContent: row.id,
    title: row.downloadable ? (text.preview ?? '') : (text.metadata ?? ''),
  });
  open.addEventListener('click', (event) => {
    event.preventDefault();
    post(row.downloadable ? 'preview' : 'metadata', { id: row.id });
  });
  const metadata = element('a', { href: '#', textContent: text.metadata ?? 'Metadata' });
  metadata.addEventListener('click', (event) => {
    event.preventDefault();
    post('metadata', { id: row.id });
  });
  return element(
    'tr',
    {},
    element('th', { scope: 'row' }, open),
    element('td', {}, row.type ?? ''),
    element('td', {}, row.client ?? ''),
    element('td', {}, row.status ?? ''),
    element('td', {}, row.published ?? row.publishedAt ?? ''),
    element('td', {}, metadata),
  );
}

/** The latest reports, as a table. */
function latestTable(current: OverviewData): HTMLElement {
  const { overview, text } = current;
  const columns = [text.report, text.type, text.client, text.status, text.published, text.actions];
  return element(
    'section',
    { className: 'latest' },
    element('h2', {}, text.latest ?? 'Latest reports'),
    element(
      'table',
      {},
      element('caption', { className: 'visually-hidden' }, text.latest ?? 'Latest reports'),
      element(
        'thead',
        {},
        element('tr', {}, ...columns.map((cell) => element('th', { scope: 'col' }, cell ?? ''))),
      ),
      element(
        'tbody',
        {},
        ...(overview.latest as readonly LatestRow[]).map((row) => latestRow(row, text)),
      ),
    ),
  );
}

function render(): void {
  charts.forEach((chart) => chart.destroy());
  charts.clear();
  const current = data!;
  const { overview, text } = current;
  const filterBar = filterLine(current);
  const notes: HTMLElement[] = [filterBar];
  if (current.limit) {
    notes.push(element('p', { className: 'note' }, text.limited ?? ''));
  }
  if (overview.newSince) {
    notes.push(element('p', { className: 'new' }, text.newSince ?? ''));
  }
  root.replaceChildren(
    heading(current),
    ...notes,
    section('time', text.timeTitle ?? 'Reports over time', text.timeSummary ?? '', overview),
    element(
      'div',
      { className: 'pair' },
      section(
        'clients',
        (current.byProject ? text.projectsTitle : text.clientsTitle) ?? 'By client',
        text.clientsSummary ?? '',
        overview,
      ),
      section('status', text.statusTitle ?? 'By status', text.statusSummary ?? '', overview),
    ),
    latestTable(current),
  );
  if (focusFilterLine) {
    focusFilterLine = false;
    filterBar.focus();
  }
  // Once the charts are drawn (they are made in the next frame), says what was drawn.
  requestAnimationFrame(() => requestAnimationFrame(() => reportDrawn(current.seq)));
}

/** Tells the extension what each chart drew (counts, axes, colours) and what the page shows. */
function reportDrawn(seq: number | undefined): void {
  const counts = (name: ChartName): Record<string, number> => {
    const chart = charts.get(name);
    const labels = (chart?.data.labels ?? []) as string[];
    return Object.fromEntries(
      labels.map((label, index) => [
        label,
        chart!.data.datasets.reduce((sum, dataset) => sum + Number(dataset.data[index] ?? 0), 0),
      ]),
    );
  };
  // What each axis shows, so a test can see whole-number counts and the labels a person reads.
  const countAxis = (name: ChartName): string => (name === 'clients' ? 'x' : 'y');
  const ticks = (name: ChartName): number[] =>
    (charts.get(name)?.scales[countAxis(name)]?.ticks ?? []).map((tick) => tick.value);
  const axisLabels = (name: ChartName): string[] =>
    (charts.get(name)?.scales[countAxis(name) === 'x' ? 'y' : 'x']?.ticks ?? []).map((tick) =>
      Array.isArray(tick.label) ? tick.label.join(' ') : String(tick.label ?? ''),
    );
  const all = <T>(of: (name: ChartName) => T): Record<ChartName, T> => ({
    time: of('time'),
    clients: of('clients'),
    status: of('status'),
  });
  const shown = {
    filter: root.querySelector('.filter span')?.textContent ?? '',
    clearFilter: root.querySelector('button[data-action="clearFilter"]') !== null,
    published: [...root.querySelectorAll('section.latest tbody tr td:nth-of-type(4)')].map(
      (cell) => cell.textContent ?? '',
    ),
  };
  // Each report type's colour as drawn (the time chart's datasets), so a test can see it kept.
  const typeColours = Object.fromEntries(
    (charts.get('time')?.data.datasets ?? []).map((dataset) => [
      dataset.label ?? '',
      String(dataset.borderColor),
    ]),
  );
  post('drawn', {
    seq,
    ms: Math.round(performance.now() - started),
    typeColours,
    time: counts('time'),
    clients: counts('clients'),
    status: counts('status'),
    charts: charts.size,
    ticks: all(ticks),
    axisLabels: all(axisLabels),
    shown,
  });
}

window.addEventListener('message', (event: MessageEvent) => {
  const message = event.data as { type: string; [key: string]: unknown };
  if (message.type === 'data') {
    started = performance.now();
    data = message as unknown as OverviewData;
    render();
  } else if (message.type === 'loading') {
    root.replaceChildren(
      element('p', { className: 'loading', role: 'status' }, String(message.text ?? '')),
    );
  } else if (message.type === 'click') {
    select(message.chart as ChartName, Number(message.index));
  } else if (message.type === 'press') {
    // A test presses a button as a person would: the button itself, so a missing button presses nothing.
    root
      .querySelector<HTMLButtonElement>(`button[data-action="${String(message.button)}"]`)
      ?.click();
  }
});

/** The theme changed: the charts drawn again in its colours; the page (open tables, the focus) stays as it is. */
function recolour(): void {
  const overview = data?.overview;
  if (!overview) {
    return;
  }
  charts.forEach((chart, name) => {
    const canvas = chart.canvas;
    chart.destroy();
    charts.set(name, new Chart(canvas, config(name, overview)));
  });
}

// The theme changed (VS Code sets the body's class): draw again in its colours.
new MutationObserver(() => recolour()).observe(document.body, {
  attributes: true,
  attributeFilter: ['class'],
});
post('ready');
