import {
  LOCKFILE_VERSION,
  type LabSection,
  type ManifestEntry,
  type SyncManifest,
} from './manifestModel';

export { LOCKFILE_VERSION };

/** The placeholder of a lab's file path template (`files_at`): the report id, percent-encoded. */
const ID = '{id}';

/** The fields of an entry the committed file keeps, under their short names. */
const COMMITTED = [
  'bytes',
  'client',
  'file',
  'project',
  'published_at',
  'revision',
  'samples',
  'sha256',
  'status',
  'type',
] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sorts by UTF-16 code unit, the same on every machine (localeCompare is not). */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isFlat(value: unknown): boolean {
  return (
    !isObject(value) &&
    !(Array.isArray(value) && value.some((item) => isObject(item) || Array.isArray(item)))
  );
}

/**
 * JSON with sorted keys and two-space indentation, except that an object of plain values (one
 * report's entry) and an array of plain values stay on one line: one report, one line, so a diff
 * or a merge is one line per report.
 */
export function stableJson(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.every(isFlat)) {
      return `[${value.map((item) => stableJson(item)).join(', ')}]`;
    }
    const inner = `${indent}  `;
    return `[\n${value.map((item) => `${inner}${stableJson(item, inner)}`).join(',\n')}\n${indent}]`;
  }
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort(byCodeUnit);
    if (keys.length === 0) {
      return '{}';
    }
    if (keys.every((key) => isFlat(value[key]))) {
      return `{${keys.map((key) => `${JSON.stringify(key)}: ${stableJson(value[key])}`).join(', ')}}`;
    }
    const inner = `${indent}  `;
    return `{\n${keys
      .map((key) => `${inner}${JSON.stringify(key)}: ${stableJson(value[key], inner)}`)
      .join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** The path template most of a section's entries came from (`/api/v1/reports/{id}/file`). */
function filesAt(files: readonly ManifestEntry[]): string | undefined {
  const counts = new Map<string, number>();
  for (const entry of files) {
    const id = encodeURIComponent(entry.report_id);
    const template =
      typeof entry.source === 'string' && entry.source.includes(`/${id}/`)
        ? entry.source.replace(`/${id}/`, `/${ID}/`)
        : undefined;
    if (template !== undefined) {
      counts.set(template, (counts.get(template) ?? 0) + 1);
    }
  }
  return [...counts]
    .sort(([a, m], [b, n]) => n - m || byCodeUnit(a, b))
    .map(([template]) => template)[0];
}

function sourceFrom(template: string | undefined, reportId: string): string | undefined {
  return template?.replace(ID, encodeURIComponent(reportId));
}

/** One lab's part of the committed file. */
function committedSection(name: string, section: LabSection): Record<string, unknown> {
  const entries = Object.values(section.files);
  const template = filesAt(entries);
  const reports: Record<string, unknown> = {};
  for (const entry of entries) {
    const kept: Record<string, unknown> = {};
    for (const field of COMMITTED) {
      kept[field] = entry[field];
    }
    if (entry.source !== sourceFrom(template, entry.report_id)) {
      kept.source = entry.source;
    }
    if (entry.revision === undefined) {
      // Without a revision, the lab's update time is what tells an amendment.
      kept.updated_at = entry.updated_at;
    }
    reports[entry.report_id] = kept;
  }
  return {
    name: name.startsWith('legacy:') ? undefined : name,
    files_at: template,
    reports,
  };
}

/** The committed text of a manifest: version 3, deterministic (see {@link LOCKFILE_VERSION}). */
export function lockfileText(manifest: SyncManifest): string {
  const labs: Record<string, unknown> = {};
  for (const [name, section] of Object.entries(manifest.labs)) {
    labs[section.origin] = committedSection(name, section);
  }
  return `${stableJson({ version: LOCKFILE_VERSION, labs })}\n`;
}

/** Whether a parsed version 3 file has the shape of one (labs by origin, each with reports). */
export function isLockfileShape(parsed: Record<string, unknown>): boolean {
  return (
    isObject(parsed.labs) &&
    Object.values(parsed.labs).every((section) => isObject(section) && isObject(section.reports))
  );
}

/**
 * The in-memory manifest of a parsed version 3 file; sections are named by their labs' names. Its
 * entries are the parsed file's objects, completed (give it a file parsed for it alone).
 */
export function fromLockfile(parsed: Record<string, unknown>): SyncManifest {
  const labs: Record<string, LabSection> = {};
  for (const [origin, value] of Object.entries(isObject(parsed.labs) ? parsed.labs : {})) {
    if (!isObject(value) || !isObject(value.reports)) {
      continue;
    }
    const template = typeof value.files_at === 'string' ? value.files_at : undefined;
    const files: Record<string, ManifestEntry> = {};
    const reports = value.reports;
    // for…in, not Object.entries: ten thousand entries without ten thousand pairs made and dropped.
    for (const reportId in reports) {
      const raw = reports[reportId];
      // "__proto__" would set the object's prototype, not add an entry (and its fields would then
      // be listed as entries): such an id is skipped, as it always was.
      if (!isObject(raw) || reportId === '__proto__') {
        continue;
      }
      // The parsed object is this function's own: completed in place, not copied (a copy of each
      // of ten thousand entries costs more than reading the whole file).
      raw.report_id = reportId;
      if (typeof raw.source !== 'string') {
        raw.source = sourceFrom(template, reportId);
      }
      files[reportId] = raw as unknown as ManifestEntry;
    }
    let name = typeof value.name === 'string' && value.name ? value.name : `legacy:${origin}`;
    if (name in labs) {
      name = `${name} (${origin})`;
    }
    labs[name] = { origin, files };
  }
  return { version: LOCKFILE_VERSION, labs };
}

/** Whether a manifest's text still holds git's conflict markers (a merge left unresolved). */
export function hasConflictMarkers(text: string): boolean {
  return /^(<{7}|>{7})(?: |$)/m.test(text) && /^={7}$/m.test(text);
}

/**
 * The two sides of a text with git conflict markers: `ours` keeps the lines between `<<<<<<<` and
 * `=======` (or `|||||||` in diff3 style), `theirs` those between `=======` and `>>>>>>>`; lines
 * outside conflicts go to both.
 */
export function conflictSides(text: string): { readonly ours: string; readonly theirs: string } {
  const ours: string[] = [];
  const theirs: string[] = [];
  let state: 'both' | 'ours' | 'base' | 'theirs' = 'both';
  for (const line of text.split('\n')) {
    if (/^<{7}(?: |$)/.test(line)) {
      state = 'ours';
    } else if (/^\|{7}(?: |$)/.test(line) && state === 'ours') {
      state = 'base';
    } else if (/^={7}$/.test(line) && (state === 'ours' || state === 'base')) {
      state = 'theirs';
    } else if (/^>{7}(?: |$)/.test(line) && state === 'theirs') {
      state = 'both';
    } else if (state === 'both') {
      ours.push(line);
      theirs.push(line);
    } else if (state === 'ours') {
      ours.push(line);
    } else if (state === 'theirs') {
      theirs.push(line);
    }
  }
  return { ours: ours.join('\n'), theirs: theirs.join('\n') };
}
