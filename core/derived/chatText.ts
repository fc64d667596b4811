import { serverText } from '../errors/serverText';
import type { JsonObject, Report, Sample } from '../api/records';

/** Most records a chat tool returns at once, and how many it returns unless asked. */
export const MAX_TOOL_RECORDS = 50;
export const DEFAULT_TOOL_RECORDS = 20;

/** `limit` from a tool's input: a whole number from 1 to 50, 20 when absent. */
export function toolLimit(value: unknown): number {
  if (value === undefined || value === null) {
    return DEFAULT_TOOL_RECORDS;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new TypeError('limit must be a number from 1 to 50');
  }
  return Math.min(MAX_TOOL_RECORDS, Math.max(1, Math.floor(value)));
}

/** A server timestamp as `2026-11-20 13:50 UTC`; unreadable values as sent. */
export function utcMinute(value: string | undefined): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  const at = Date.parse(value);
  return Number.isNaN(at)
    ? serverText(value, 40)
    : `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** One report as a line: id, type, title, client, project, status, publication time and whether a PDF can be had. */
export function reportLine(report: Report): string {
  const raw = report.raw;
  return [
    serverText(report.report_id, 80),
    report.report_type && serverText(report.report_type, 60),
    typeof raw.title === 'string' && raw.title.trim()
      ? `"${serverText(raw.title, 100)}"`
      : undefined,
    report.client_id && `client ${serverText(report.client_id, 60)}`,
    report.project_id && `project ${serverText(report.project_id, 60)}`,
    report.status && serverText(report.status, 40),
    report.published_at && `published ${utcMinute(report.published_at)}`,
    report.download_available === false ? 'no PDF' : 'PDF available',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** One sample as a line: id, name, matrix, status and when it was received. */
export function sampleLine(sample: Sample): string {
  const raw = sample.raw;
  const field = (...keys: string[]): string | undefined => {
    const key = keys.find(
      (candidate) => typeof raw[candidate] === 'string' || typeof raw[candidate] === 'number',
    );
    return key === undefined ? undefined : serverText(raw[key], 80);
  };
  const received = field('received_at', 'received', 'collected_at');
  return [
    sample.id !== undefined ? serverText(sample.id, 80) : '(no id)',
    field('sample_name', 'name', 'description', 'client_sample_id'),
    field('matrix'),
    field('status'),
    received && `received ${utcMinute(received)}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** What a list tool returns: a heading, a line per record, and "Showing N of M" when there were more. */
export interface ToolList {
  readonly text: string;
  readonly json: {
    readonly lab: string;
    readonly count: number;
    readonly total?: number;
    readonly truncated: boolean;
    readonly records: readonly JsonObject[];
  };
}

/**
 * Formats up to `limit` records. `total` is what the lab counted (if it said); `more` whether it
 * had further pages. When more exist the text ends with `Showing N of M` (or `Showing N; more
 * available` without a total) and the JSON says `truncated`.
 */
export function toolList<T extends { raw: JsonObject }>(
  lab: string,
  heading: string,
  records: readonly T[],
  lineOf: (record: T) => string,
  limit: number,
  total: number | undefined,
  more: boolean,
): ToolList {
  const shown = records.slice(0, limit);
  const truncated = records.length > limit || more || (total !== undefined && total > shown.length);
  const lines = [heading, ...shown.map((record) => `- ${lineOf(record)}`)];
  if (shown.length === 0) {
    lines.push('None found.');
  }
  if (truncated) {
    lines.push(
      total !== undefined && total > shown.length
        ? `Showing ${shown.length} of ${total}`
        : `Showing ${shown.length}; more available`,
    );
  }
  return {
    text: lines.join('\n'),
    json: {
      lab,
      count: shown.length,
      ...(total !== undefined ? { total } : {}),
      truncated,
      records: shown.map((record) => record.raw),
    },
  };
}

/** The confirmation shown before the save tool writes files: what, from where, into which folder. */
export function saveConfirmation(
  ids: readonly unknown[],
  lab: string,
  folder: string,
): { readonly title: string; readonly message: string } {
  const shown = ids
    .filter((id): id is string => typeof id === 'string')
    .map((id) => serverText(id, 80));
  const listed =
    shown.length > 10
      ? `${shown.slice(0, 10).join(', ')} and ${shown.length - 10} more`
      : shown.join(', ');
  return {
    title: shown.length === 1 ? 'Save a report PDF?' : `Save ${shown.length} report PDFs?`,
    message: `Save ${shown.length === 1 ? 'the PDF of report' : `the PDFs of ${shown.length} reports`} ${listed} from ${serverText(lab, 60)} into ${folder} in your workspace. An existing file is never replaced without asking.`,
  };
}
