import { timeOf } from './newReports';
import type { Report } from '../api/records';

/** How reports are grouped over time: by day for a month or less, by ISO week up to half a year, else by month. */
export type Bucketing = 'day' | 'week' | 'month';

/** One step of the time axis (UTC), with its reports by type. */
export interface TimeBucket {
  /** `2026-11-20`, `2026-W47` or `2026-11`. */
  readonly key: string;
  /** The bucket's first moment, ISO 8601 UTC. */
  readonly start: string;
  readonly total: number;
  readonly byType: Readonly<Record<string, number>>;
}

export interface Count {
  readonly key: string;
  readonly label: string;
  /** The label shortened for an axis (the name cut, the id kept whole), when it is longer than that. */
  readonly short?: string;
  readonly count: number;
}

/** Longest axis label, in characters. */
export const AXIS_LABEL_LENGTH = 32;

/**
 * "Riverside Water Authorit… (C-1001)": a name and its id in at most `max` characters, the name
 * cut at its end so the id, which tells records apart, stays whole; an id is never cut (when it
 * leaves no room for a name, it stands alone).
 */
export function axisLabel(name: string | undefined, id: string, max = AXIS_LABEL_LENGTH): string {
  if (!name) {
    return id;
  }
  const whole = `${name} (${id})`;
  if (whole.length <= max) {
    return whole;
  }
  const room = max - id.length - 4;
  return room >= 4 ? `${name.slice(0, room).trimEnd()}… (${id})` : id;
}

/** Everything the overview draws, computed from one listing. */
export interface ReportOverview {
  readonly total: number;
  readonly bucketing: Bucketing;
  readonly buckets: readonly TimeBucket[];
  /** Report types, most frequent first; the time chart stacks these. */
  readonly types: readonly string[];
  readonly byClient: readonly Count[];
  readonly byProject: readonly Count[];
  readonly byStatus: readonly Count[];
  /** Reports without a readable publication time (counted everywhere but on the time axis). */
  readonly undated: number;
  /** Reports published after the user's "new since" mark, when there is one. */
  readonly newSince?: { readonly mark: string; readonly count: number };
  /** The newest reports, for the table. */
  readonly latest: ReadonlyArray<{
    readonly id: string;
    readonly type?: string;
    readonly client?: string;
    readonly status?: string;
    readonly publishedAt?: string;
    readonly downloadable: boolean;
  }>;
}

const DAY = 86_400_000;
/** Types beyond this many are stacked together as "Other". */
export const MAX_TYPES = 8;
export const OTHER = 'Other';
export const UNKNOWN = '(none)';

function isoDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Monday 00:00 UTC of the ISO week holding `at`, and the week's `YYYY-Www` key. */
function isoWeek(at: number): { start: number; key: string } {
  const day = new Date(at);
  const start =
    Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()) -
    ((day.getUTCDay() + 6) % 7) * DAY;
  // The ISO year is the year of the week's Thursday.
  const thursday = new Date(start + 3 * DAY);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY)) + 1;
  return { start, key: `${year}-W${String(week).padStart(2, '0')}` };
}

function bucketOf(at: number, bucketing: Bucketing): { start: number; key: string } {
  if (bucketing === 'week') {
    return isoWeek(at);
  }
  const date = new Date(at);
  if (bucketing === 'month') {
    return {
      start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
      key: isoDay(at).slice(0, 7),
    };
  }
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  return { start, key: isoDay(start) };
}

function nextStart(start: number, bucketing: Bucketing): number {
  if (bucketing === 'day') {
    return start + DAY;
  }
  if (bucketing === 'week') {
    return start + 7 * DAY;
  }
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** The grouping that keeps the time axis readable for a span from `from` to `to`. */
export function bucketingFor(from: number, to: number): Bucketing {
  const days = (to - from) / DAY;
  return days <= 31 ? 'day' : days <= 183 ? 'week' : 'month';
}

function counted(
  map: Map<string, number>,
  label: (key: string) => string,
  name: (key: string) => string | undefined = () => undefined,
): Count[] {
  return [...map.entries()]
    .map(([key, count]) => {
      const whole = label(key);
      const short = axisLabel(name(key), key);
      return { key, label: whole, ...(short !== whole ? { short } : {}), count };
    })
    .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim()
    ? value.trim()
    : typeof value === 'number'
      ? String(value)
      : undefined;
}

/**
 * Aggregates listed reports for the overview: over time (every bucket from the first report to
 * `now`, empty ones included, stacked by type), by client and project (with names when given),
 * by status (any status the lab sends; none as "(none)"), what is new since `mark`, and the
 * newest reports. Pure and deterministic for a fixed `now`.
 */
export function aggregateReports(
  reports: readonly Report[],
  options: {
    readonly now: Date;
    readonly mark?: string;
    readonly clientNames?: ReadonlyMap<string, string>;
    readonly projectNames?: ReadonlyMap<string, string>;
    readonly latest?: number;
  },
): ReportOverview {
  const now = options.now.getTime();
  const dated = reports
    .map((report) => ({ report, at: timeOf(report.published_at) }))
    .filter((entry): entry is { report: Report; at: number } => entry.at !== undefined);
  const undated = reports.length - dated.length;
  const first = dated.reduce((min, entry) => Math.min(min, entry.at), Infinity);
  const last = Math.max(
    now,
    dated.reduce((max, entry) => Math.max(max, entry.at), -Infinity),
  );
  const bucketing = dated.length === 0 ? 'day' : bucketingFor(first, last);

  const typeTotals = new Map<string, number>();
  for (const { report } of dated) {
    const type = text(report.report_type) ?? UNKNOWN;
    typeTotals.set(type, (typeTotals.get(type) ?? 0) + 1);
  }
  const ranked = [...typeTotals.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([type]) => type);
  const kept = new Set(ranked.length > MAX_TYPES ? ranked.slice(0, MAX_TYPES - 1) : ranked);
  const types = ranked.length > MAX_TYPES ? [...kept, OTHER] : ranked;

  const buckets: Array<{
    key: string;
    start: number;
    total: number;
    byType: Record<string, number>;
  }> = [];
  if (dated.length > 0) {
    const index = new Map<string, (typeof buckets)[number]>();
    for (
      let start = bucketOf(first, bucketing).start;
      start <= last;
      start = nextStart(start, bucketing)
    ) {
      const bucket = { key: bucketOf(start, bucketing).key, start, total: 0, byType: {} };
      buckets.push(bucket);
      index.set(bucket.key, bucket);
    }
    for (const { report, at } of dated) {
      const bucket = index.get(bucketOf(at, bucketing).key)!;
      const type = text(report.report_type) ?? UNKNOWN;
      const stacked = kept.has(type) ? type : OTHER;
      bucket.total++;
      bucket.byType[stacked] = (bucket.byType[stacked] ?? 0) + 1;
    }
  }

  const clients = new Map<string, number>();
  const projects = new Map<string, number>();
  const statuses = new Map<string, number>();
  for (const report of reports) {
    const client = text(report.client_id) ?? UNKNOWN;
    clients.set(client, (clients.get(client) ?? 0) + 1);
    const project = text(report.project_id) ?? UNKNOWN;
    projects.set(project, (projects.get(project) ?? 0) + 1);
    const status = text(report.status) ?? UNKNOWN;
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  const named = (names: ReadonlyMap<string, string> | undefined) => (key: string) => {
    const name = names?.get(key);
    return name ? `${name} (${key})` : key;
  };
  const markAt = timeOf(options.mark);
  const latest = [...reports]
    .sort((a, b) => (timeOf(b.published_at) ?? -Infinity) - (timeOf(a.published_at) ?? -Infinity))
    .slice(0, options.latest ?? 10)
    .map((report) => ({
      id: report.report_id,
      type: report.report_type,
      client: report.client_id,
      status: report.status,
      publishedAt: report.published_at,
      downloadable: report.download_available !== false,
    }));
  return {
    total: reports.length,
    bucketing,
    buckets: buckets.map((bucket) => ({
      key: bucket.key,
      start: new Date(bucket.start).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      total: bucket.total,
      byType: bucket.byType,
    })),
    types,
    byClient: counted(clients, named(options.clientNames), (key) => options.clientNames?.get(key)),
    byProject: counted(projects, named(options.projectNames), (key) =>
      options.projectNames?.get(key),
    ),
    byStatus: counted(statuses, (key) => key),
    undated,
    ...(markAt !== undefined
      ? {
          newSince: {
            mark: options.mark!,
            count: dated.filter((entry) => entry.at > markAt).length,
          },
        }
      : {}),
    latest,
  };
}

/** A chart's data as CSV rows (header first), for "Save as CSV" and copying. */
export function overviewCsv(
  overview: ReportOverview,
  chart: 'time' | 'clients' | 'projects' | 'status',
): string[][] {
  if (chart === 'time') {
    return [
      [overview.bucketing, ...overview.types, 'total'],
      ...overview.buckets.map((bucket) => [
        bucket.key,
        ...overview.types.map((type) => String(bucket.byType[type] ?? 0)),
        String(bucket.total),
      ]),
    ];
  }
  const rows =
    chart === 'clients'
      ? overview.byClient
      : chart === 'projects'
        ? overview.byProject
        : overview.byStatus;
  return [
    [chart === 'status' ? 'status' : chart === 'clients' ? 'client' : 'project', 'reports'],
    ...rows.map((row) => [row.label, String(row.count)]),
  ];
}
