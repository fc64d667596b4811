/**
 * The overview's charts as Chart.js configurations: the theme's colours, each report type's
 * colour and pattern, the axes (whole counts from zero, dates as the Reports view shows them,
 * long names shortened) and the backdrop a saved PNG needs. Chart.js itself is loaded by the page.
 */
import type { Chart as ChartInstance, ChartConfiguration, ChartEvent } from 'chart.js';
import type { ReportOverview } from '../core/derived/overview';
import type { TypeStyle } from '../core/derived/typeStyles';

export type ChartName = 'time' | 'clients' | 'status';

/** What a chart's configuration needs of the data the extension sent, and what a click on a bar does. */
export interface ChartContext {
  /** Each report type's colour and pattern (indices into `palette()` and `PATTERNS`). */
  readonly styles?: Readonly<Record<string, TypeStyle>>;
  /** VS Code's display language, for the numbers Chart.js writes on axes and in tooltips. */
  readonly locale?: string;
  /** The count series' name ("Reports"). */
  readonly reportsLabel: string;
  /** A time bucket's step as the Reports view shows dates. */
  periodOf(index: number, key: string): string;
  /** The bars of the client (or project) chart or the status chart. */
  countsOf(name: 'clients' | 'status'): ReportOverview['byClient'];
  /** A bar was clicked. */
  select(name: ChartName, index: number): void;
}

export function css(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/** The theme's chart colours, then its other accents: readable in light, dark and high-contrast themes. */
function palette(): string[] {
  return [
    css('--vscode-charts-blue', '#3794ff'),
    css('--vscode-charts-orange', '#d18616'),
    css('--vscode-charts-green', '#89d185'),
    css('--vscode-charts-purple', '#b180d7'),
    css('--vscode-charts-red', '#f14c4c'),
    css('--vscode-charts-yellow', '#cca700'),
    css('--vscode-terminal-ansiCyan', '#11a8cd'),
    css('--vscode-descriptionForeground', '#888888'),
  ];
}

/** Marks drawn over a colour so report types differ by more than colour: plain, then lines and dots. */
const PATTERNS: ReadonlyArray<(context: CanvasRenderingContext2D, size: number) => void> = [
  () => undefined,
  (context, size) => line(context, 0, size, size, 0),
  (context, size) => dot(context, size / 2, size / 2, size / 5),
  (context, size) => line(context, 0, size / 2, size, size / 2),
  (context, size) => line(context, size / 2, 0, size / 2, size),
  (context, size) => line(context, 0, 0, size, size),
  (context, size) => {
    line(context, 0, size, size, 0);
    line(context, 0, 0, size, size);
  },
  (context, size) => {
    dot(context, size / 4, size / 4, size / 8);
    dot(context, (3 * size) / 4, (3 * size) / 4, size / 8);
  },
];

function line(context: CanvasRenderingContext2D, x1: number, y1: number, x2: number, y2: number) {
  context.beginPath();
  context.moveTo(x1, y1);
  context.lineTo(x2, y2);
  context.stroke();
}

function dot(context: CanvasRenderingContext2D, x: number, y: number, radius: number) {
  context.beginPath();
  context.arc(x, y, radius, 0, 2 * Math.PI);
  context.fill();
}

/** A type's fill: its colour with its pattern drawn over it in the background's colour. */
function patternFill(colour: string, pattern: number, background: string): CanvasPattern | string {
  const size = 10;
  const tile = document.createElement('canvas');
  tile.width = size;
  tile.height = size;
  const context = tile.getContext('2d');
  if (!context) {
    return colour;
  }
  context.fillStyle = colour;
  context.fillRect(0, 0, size, size);
  context.strokeStyle = background;
  context.fillStyle = background;
  context.lineWidth = 2;
  PATTERNS[pattern % PATTERNS.length]!(context, size);
  return context.createPattern(tile, 'repeat') ?? colour;
}

/** A bar's label on its axis: shortened by the extension (name cut, id whole) when long. */
function axisLabel(row: ReportOverview['byClient'][number] | undefined): string {
  return row ? (row.short ?? row.label) : '';
}

/** What every chart shares: the theme's colours, the axes' kinds, a click, the backdrop. */
function chartBasics(name: ChartName, context: ChartContext) {
  const foreground = css('--vscode-foreground', '#cccccc');
  const grid = css('--vscode-editorWidget-border', 'rgba(128,128,128,0.3)');
  const background = css('--vscode-editor-background', '#ffffff');
  return {
    colours: palette(),
    background,
    // The count axis counts whole reports: integer steps only (never 0.5), from zero.
    counting: {
      stacked: true,
      beginAtZero: true,
      ticks: { color: foreground, precision: 0 },
      grid: { color: grid },
    },
    category: { stacked: true, ticks: { color: foreground }, grid: { color: grid } },
    common: {
      ...(context.locale ? { locale: context.locale } : {}),
      responsive: true,
      maintainAspectRatio: false,
      animation: false as const,
      onClick: (_event: ChartEvent, elements: Array<{ index: number }>) =>
        elements[0] && context.select(name, elements[0].index),
      plugins: { legend: { labels: { color: foreground } } },
    },
    // Paints the theme's background under the chart, so a saved PNG is readable anywhere.
    backdrop: {
      id: 'backdrop',
      beforeDraw: (chart: ChartInstance) => {
        const canvas = chart.ctx;
        canvas.save();
        canvas.fillStyle = background;
        canvas.fillRect(0, 0, chart.width, chart.height);
        canvas.restore();
      },
    },
  };
}

/** Reports over time, stacked by type, each type in its own colour and pattern. */
function timeConfig(overview: ReportOverview, context: ChartContext): ChartConfiguration {
  const { colours, background, counting, category, common, backdrop } = chartBasics(
    'time',
    context,
  );
  const period = (index: number): string =>
    context.periodOf(index, overview.buckets[index]?.key ?? '');
  return {
    type: 'bar',
    data: {
      labels: overview.buckets.map((bucket) => bucket.key),
      datasets: overview.types.map((type, index) => {
        const style = context.styles?.[type] ?? { colour: index, pattern: index };
        const colour = colours[style.colour % colours.length]!;
        // The border carries the plain colour (and tells a test which colour the type has).
        return {
          label: type,
          data: overview.buckets.map((bucket) => bucket.byType[type] ?? 0),
          backgroundColor: patternFill(colour, style.pattern, background),
          borderColor: colour,
          borderWidth: 1,
        };
      }),
    },
    options: {
      ...common,
      scales: {
        x: {
          ...category,
          ticks: { ...category.ticks, callback: (_value: unknown, index: number) => period(index) },
        },
        y: counting,
      },
      plugins: {
        ...common.plugins,
        tooltip: {
          callbacks: {
            title: (items: Array<{ dataIndex: number }>) => period(items[0]?.dataIndex ?? 0),
          },
        },
      },
    },
    plugins: [backdrop],
  };
}

/** Reports by client (a client's projects when one is chosen; the 25 largest) or by status. */
function countConfig(name: 'clients' | 'status', context: ChartContext): ChartConfiguration {
  const { colours, counting, category, common, backdrop } = chartBasics(name, context);
  const counts = name === 'clients' ? context.countsOf(name).slice(0, 25) : context.countsOf(name);
  // Long names are shortened on the axis, the id kept whole; the table and the tooltip keep them whole.
  const labelled = {
    ...category,
    ticks: {
      ...category.ticks,
      callback: (_value: unknown, index: number) => axisLabel(counts[index]),
    },
  };
  return {
    type: 'bar',
    data: {
      labels: counts.map((row) => row.label),
      datasets: [
        {
          label: context.reportsLabel,
          data: counts.map((row) => row.count),
          backgroundColor: counts.map(
            (_, index) => colours[name === 'status' ? index % colours.length : 0],
          ),
        },
      ],
    },
    options: {
      ...common,
      indexAxis: name === 'clients' ? 'y' : 'x',
      scales: name === 'clients' ? { x: counting, y: labelled } : { x: labelled, y: counting },
      plugins: { legend: { display: false } },
    },
    plugins: [backdrop],
  };
}

/** The Chart.js configuration of one chart, in the theme's colours as they are now. */
export function chartConfig(
  name: ChartName,
  overview: ReportOverview,
  context: ChartContext,
): ChartConfiguration {
  return name === 'time' ? timeConfig(overview, context) : countConfig(name, context);
}
