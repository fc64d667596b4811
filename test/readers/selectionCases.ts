import { ruleOf, selectEntries, type SelectionCriteria } from '../../core/derived/selection';
import { readManifest } from '../../core/sync/manifest';
import type { ManifestEntry } from '../../core/sync/manifestModel';

/**
 * Selections of a fixture folder and the reports the command line's own selection (core:
 * ruleOf + selectEntries, what `lab-data pull/status/verify --client …` run) keeps: the readers'
 * tests pass the same criteria to `reports()` and must keep the same reports, so the three
 * languages cannot drift apart on what a filter means.
 */
export interface SelectionCase {
  /** The criteria as the flags give them: each list field a list of values, since/until text. */
  readonly criteria: SelectionCriteria;
  /** What the command line keeps: `origin report_id`, sorted. */
  readonly selected: string[];
}

/** The day of an ISO time (its first ten characters: the manifest records UTC `…Z` times). */
function dayOf(time: string): string {
  return time.slice(0, 10);
}

/** An ISO time moved to another zone, the same instant (`2026-03-01T10:00:00Z` → `…T12:00:00+02:00`). */
function inZone(time: string, hours: number): string {
  const shifted = new Date(Date.parse(time) + hours * 3_600_000).toISOString().slice(0, 19);
  const sign = hours < 0 ? '-' : '+';
  return `${shifted}${sign}${String(Math.abs(hours)).padStart(2, '0')}:00`;
}

/** Criteria chosen from what the folder records, each field alone, several at once, dates at a day's edges. */
export async function selectionCases(folder: string, addressOf: (origin: string) => string) {
  const manifest = await readManifest(folder);
  const rows: Array<{ name: string; origin: string; entry: ManifestEntry }> = [];
  for (const [name, section] of Object.entries(manifest.labs)) {
    for (const entry of Object.values(section.files)) {
      rows.push({ name, origin: section.origin, entry });
    }
  }
  rows.sort((a, b) => a.entry.report_id.localeCompare(b.entry.report_id));
  const values = (pick: (entry: ManifestEntry) => readonly (string | undefined)[]) =>
    [...new Set(rows.flatMap(({ entry }) => pick(entry)))]
      .filter((value): value is string => value !== undefined)
      .sort();
  const clients = values((entry) => [entry.client]);
  const projects = values((entry) => [entry.project]);
  const statuses = values((entry) => [entry.status]);
  const types = values((entry) => [entry.type]);
  const samples = values((entry) => entry.samples ?? []);
  const ids = values((entry) => [entry.report_id]);
  const times = values((entry) => [entry.published_at]);
  const middle = times[Math.floor(times.length / 2)]!;
  const labNames = Object.keys(manifest.labs).sort();
  const firstOrigin = manifest.labs[labNames[0]!]!.origin;
  const all: SelectionCriteria[] = [
    { client: [clients[0]!] },
    { client: clients.slice(0, 2) },
    { project: projects.slice(-2) },
    { status: [statuses[statuses.length - 1]!] },
    { status: ['amended'] },
    { type: [types[0]!] },
    { sample: [samples[0]!] },
    { sample: samples.slice(1, 4) },
    { report: ids.slice(0, 3) },
    { lab: [labNames[labNames.length - 1]!] },
    // An address selects by its origin: its path and a trailing slash say nothing.
    { lab: [addressOf(firstOrigin)] },
    { since: dayOf(middle) },
    // A date alone as "until" includes that whole day (UTC).
    { until: dayOf(middle) },
    { since: inZone(middle, 2) },
    { until: inZone(middle, -5) },
    { since: dayOf(times[0]!), until: dayOf(middle) },
    { client: clients.slice(0, 2), since: dayOf(times[1]!), lab: [labNames[0]!] },
    { sample: samples.slice(0, 6), type: types.slice(0, 2), status: statuses },
  ];
  const now = new Date();
  return all.map((criteria): SelectionCase => {
    const rule = ruleOf('fixture selection', criteria, manifest, now);
    const kept = selectEntries(manifest, { rules: [rule] }).manifest;
    const selected = Object.values(kept.labs)
      .flatMap((section) =>
        Object.keys(section.files).map((reportId) => `${section.origin} ${reportId}`),
      )
      .sort();
    return { criteria, selected };
  });
}
