import * as vscode from 'vscode';
import { isJsonObject, type JsonObject } from '../../core/api/records';
import { serverText } from '../../core/errors/serverText';
import { displayFormat } from '../ui/displayLocale';

/**
 * How a record reads for a person: labelled fields, local dates, statuses as words, names beside
 * ids. Every value the server sent passes through `serverText`; nothing here changes the record
 * (the metadata document keeps the exact JSON).
 */

/** An ISO 8601 date or date-time as servers send them (the shape alone, not a promise it is real). */
const ISO_DATE =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function parsedDate(value: string): Date | undefined {
  if (!ISO_DATE.test(value.trim())) {
    return undefined;
  }
  const at = new Date(value.trim());
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** "20 Nov 2026, 13:50" in the display language and the user's time zone; a date without a time stays a date; anything else as sent. */
export function localDateTime(value: string): string {
  const at = parsedDate(value);
  if (!at) {
    return serverText(value);
  }
  return /^\d{4}-\d{2}-\d{2}$/.test(value.trim())
    ? displayFormat().date(at)
    : displayFormat().dateTime(at);
}

/** "20 Nov 2026": the day only, for row labels. */
export function localDate(value: string | undefined): string | undefined {
  const at = value === undefined ? undefined : parsedDate(value);
  return at ? displayFormat().date(at) : undefined;
}

/**
 * A step of a time axis that starts at `start` (UTC days, ISO weeks, months) in the style of the
 * tree's dates: "20 Nov 2026", "Week of 16 Nov 2026", "Nov 2026".
 */
export function periodLabel(start: string, unit: 'day' | 'week' | 'month'): string {
  const at = parsedDate(start);
  if (!at) {
    return serverText(start);
  }
  return unit === 'month'
    ? displayFormat().utcMonth(at)
    : unit === 'week'
      ? vscode.l10n.t('Week of {0}', displayFormat().utcDay(at))
      : displayFormat().utcDay(at);
}

/** Server text written as code (snake_case, kebab-case, camelCase, CAPITALS) as words in sentence case; empty stays empty. */
function inWords(text: string): string {
  const words = serverText(text, 60)
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words ? `${words[0]!.toUpperCase()}${words.slice(1)}` : '';
}

/** A status as a word: "in_analysis" → "In analysis", "PUBLISHED" → "Published". */
export function statusWord(status: string): string {
  return inWords(status);
}

const LABELS: Readonly<Record<string, () => string>> = {
  report_id: () => vscode.l10n.t('Report'),
  report_type: () => vscode.l10n.t('Type'),
  title: () => vscode.l10n.t('Title'),
  published_at: () => vscode.l10n.t('Published'),
  status: () => vscode.l10n.t('Status'),
  download_available: () => vscode.l10n.t('PDF'),
  client_id: () => vscode.l10n.t('Client'),
  project_id: () => vscode.l10n.t('Project'),
  sample_ids: () => vscode.l10n.t('Samples'),
  sample_id: () => vscode.l10n.t('Sample'),
  sample_name: () => vscode.l10n.t('Name'),
  revision: () => vscode.l10n.t('Revision'),
  updated_at: () => vscode.l10n.t('Updated'),
  received_at: () => vscode.l10n.t('Received'),
  collected_at: () => vscode.l10n.t('Collected'),
  lab_name: () => vscode.l10n.t('Lab'),
  name: () => vscode.l10n.t('Name'),
  kind: () => vscode.l10n.t('Kind'),
  matrix: () => vscode.l10n.t('Matrix'),
  analyses: () => vscode.l10n.t('Analyses'),
  temperature_c: () => vscode.l10n.t('Temperature (°C)'),
};

/** A field name as a label: the known ones by name, others from snake_case or camelCase. */
export function fieldLabel(key: string): string {
  const known = LABELS[key];
  if (known) {
    return known();
  }
  return inWords(key) || key;
}

/** Names the lab gave for ids, from the record itself or from lists already loaded. */
export type NameOf = (kind: 'client' | 'project', id: string) => string | undefined;

/**
 * The names of clients and projects this window has seen listed (the Clients view, the filter's
 * pickers), per lab, so a report's client shows by name without a request of its own.
 */
export class KnownNames {
  private readonly names = new Map<string, string>();

  remember(lab: string, kind: 'client' | 'project', id: string, name: string | undefined): void {
    if (name) {
      this.names.set(`${lab}\u0000${kind}\u0000${id}`, name);
    }
  }

  /** The lookup for one lab's records. */
  of(lab: string): NameOf {
    return (kind, id) => this.names.get(`${lab}\u0000${kind}\u0000${id}`);
  }
}

/** The names seen in this window (one per extension host; names are not secrets; only a kept Reports filter's are stored, with it, in the workspace's state). */
export const knownNames = new KnownNames();

function scalar(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** A name the record carries for its client or project (`client_name`, `client: { name }`). */
export function nameInRecord(record: JsonObject, kind: 'client' | 'project'): string | undefined {
  const nested = record[kind];
  const fromObject = isJsonObject(nested) ? scalar(nested.name) : undefined;
  return scalar(record[`${kind}_name`]) ?? fromObject;
}

/** One field's value for a person. */
export function fieldValue(key: string, value: unknown, nameOf?: NameOf): string {
  if (value === null || value === undefined) {
    return '—';
  }
  if (typeof value === 'boolean') {
    if (key === 'download_available') {
      return value ? vscode.l10n.t('available') : vscode.l10n.t('not available');
    }
    return value ? vscode.l10n.t('yes') : vscode.l10n.t('no');
  }
  if (typeof value === 'number') {
    return displayFormat().number(value);
  }
  if (typeof value === 'string') {
    if (key === 'status' || key.endsWith('_status')) {
      return statusWord(value);
    }
    if ((key === 'client_id' || key === 'project_id') && nameOf) {
      const name = nameOf(key === 'client_id' ? 'client' : 'project', value);
      return name ? `${serverText(name, 120)} (${serverText(value, 80)})` : serverText(value, 120);
    }
    return parsedDate(value) ? localDateTime(value) : serverText(value, 300);
  }
  if (Array.isArray(value)) {
    return value.length === 0
      ? '—'
      : serverText(
          value
            .map((item) =>
              typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item),
            )
            .join(', '),
          300,
        );
  }
  return serverText(JSON.stringify(value) ?? String(value), 300);
}

export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&');
}

/** The fields a person looks for first, in this order; the rest follow as the server sent them. */
const FIRST = [
  'title',
  'report_type',
  'name',
  'sample_name',
  'status',
  'published_at',
  'received_at',
  'collected_at',
  'client_id',
  'project_id',
];

/** Fields shown beside the id they name (Client, Project) rather than on lines of their own. */
const NAMES_OF_IDS = new Set(['client_name', 'project_name']);

/**
 * A record as labelled lines ("**Published** 20 Nov 2026, 13:50"), every field the server sent,
 * known ones first; names beside ids where known (the record's `client_name` on the Client line).
 */
export function recordTooltip(
  title: string,
  record: JsonObject,
  nameOf?: NameOf,
): vscode.MarkdownString {
  const keys = Object.keys(record);
  const ordered = [
    ...FIRST.filter((key) => keys.includes(key)),
    ...keys.filter((key) => !FIRST.includes(key)),
  ];
  const names: NameOf = (kind, id) => nameOf?.(kind, id) ?? nameInRecord(record, kind);
  const lines = ordered
    .filter((key) => !NAMES_OF_IDS.has(key))
    .map(
      (key) =>
        `**${escapeMarkdown(fieldLabel(key))}** ${escapeMarkdown(fieldValue(key, record[key], names))}`,
    );
  const markdown = new vscode.MarkdownString(
    `**${escapeMarkdown(serverText(title))}**\n\n${lines.join('  \n')}`,
  );
  markdown.supportHtml = false;
  markdown.isTrusted = false;
  return markdown;
}

/** Parts of a row's description, each shown once: "Rock · Rock" becomes "Rock", and a part already inside an earlier one goes. */
export function distinctParts(parts: ReadonlyArray<string | undefined>): string[] {
  const kept: string[] = [];
  for (const part of parts) {
    const text = part?.trim();
    if (!text) {
      continue;
    }
    const lower = text.toLowerCase();
    const words = new RegExp(`(^|\\W)${lower.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|\\W)`);
    if (!kept.some((earlier) => words.test(earlier.toLowerCase()))) {
      kept.push(text);
    }
  }
  return kept;
}
