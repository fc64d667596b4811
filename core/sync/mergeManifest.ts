import type { LabSection, ManifestEntry, SyncManifest } from './manifestModel';
import { byCodeUnit } from './lockfile';
import { LOCKFILE_VERSION } from './lockfile';
import { foldedFileName, sanitizeFileName } from '../files/fileNames';

/** A report given a second file name because another report claims its first. */
export interface SecondName {
  readonly lab: string;
  readonly reportId: string;
  /** The report that keeps the name (the one whose id sorts first). */
  readonly keptBy: string;
  readonly from: string;
  readonly to: string;
}

/** What a three-way merge of two manifests came to. */
export interface ManifestMerge {
  readonly manifest: SyncManifest;
  /** One sentence per conflict the merge could not decide; empty when it merged cleanly. */
  readonly conflicts: readonly string[];
  /** Reports that claimed a file name another report kept, with the name each has now. */
  readonly renamed: readonly SecondName[];
}

/** `x.pdf` → `x~RPT-3.pdf` (in the same subfolder), made a safe name; `~2`, `~3` … while taken. */
function secondName(file: string, reportId: string, taken: (name: string) => boolean): string {
  const slash = file.lastIndexOf('/');
  const [folder, name] = [file.slice(0, slash + 1), file.slice(slash + 1)];
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 1; ; n += 1) {
    const suffix = n === 1 ? '' : `~${n}`;
    const candidate = `${folder}${sanitizeFileName(`${stem}~${reportId}${suffix}${extension}`)}`;
    if (!taken(candidate)) {
      return candidate;
    }
  }
}

/**
 * Gives each report that claims a file name another report already claims (case folded, as
 * Windows and macOS compare names) a second name of its own, `<stem>~<report id><ext>`: the
 * report whose id sorts first (then its lab's name) keeps the name, so both sides of a merge, and
 * every clone, come to the same names. The renamed report's file is then restored under its new
 * name by a pull (from the cache, else the lab).
 */
export function separateFileNames(manifest: SyncManifest): {
  readonly manifest: SyncManifest;
  readonly renamed: readonly SecondName[];
} {
  const all = Object.entries(manifest.labs)
    .flatMap(([lab, section]) => Object.values(section.files).map((entry) => ({ lab, entry })))
    .sort((a, b) => byCodeUnit(a.entry.report_id, b.entry.report_id) || byCodeUnit(a.lab, b.lab));
  // Every name any entry claims: a second name must be none of them.
  const taken = new Set(all.map(({ entry }) => foldedFileName(entry.file)));
  const owner = new Map<string, string>();
  const renamed: SecondName[] = [];
  for (const { lab, entry } of all) {
    const folded = foldedFileName(entry.file);
    const keptBy = owner.get(folded);
    if (keptBy === undefined) {
      owner.set(folded, entry.report_id);
      continue;
    }
    const to = secondName(entry.file, entry.report_id, (name) => taken.has(foldedFileName(name)));
    taken.add(foldedFileName(to));
    owner.set(foldedFileName(to), entry.report_id);
    renamed.push({ lab, reportId: entry.report_id, keptBy, from: entry.file, to });
  }
  if (renamed.length === 0) {
    return { manifest, renamed };
  }
  const labs: Record<string, LabSection> = {};
  for (const [lab, section] of Object.entries(manifest.labs)) {
    const files = { ...section.files };
    for (const change of renamed.filter((each) => each.lab === lab)) {
      files[change.reportId] = { ...files[change.reportId]!, file: change.to };
    }
    labs[lab] = { ...section, files };
  }
  return { manifest: { ...manifest, labs }, renamed };
}

/** Compares two revisions: numbers as numbers, anything else as text; undefined when either is missing. */
function compareRevisions(a?: string, b?: string): number | undefined {
  if (a === undefined || b === undefined) {
    return undefined;
  }
  const [x, y] = [Number(a), Number(b)];
  if (Number.isFinite(x) && Number.isFinite(y)) {
    return x - y;
  }
  return byCodeUnit(a, b);
}

function compareTimes(a?: string, b?: string): number | undefined {
  const [x, y] = [a === undefined ? NaN : Date.parse(a), b === undefined ? NaN : Date.parse(b)];
  return Number.isNaN(x) || Number.isNaN(y) ? undefined : x - y;
}

/** Which of two entries of one report records the newer file: 1 ours, -1 theirs, 0 cannot tell. */
function newer(ours: ManifestEntry, theirs: ManifestEntry): number {
  const order =
    compareRevisions(ours.revision, theirs.revision) ||
    compareTimes(ours.updated_at, theirs.updated_at) ||
    compareTimes(ours.published_at, theirs.published_at) ||
    0;
  return Math.sign(order);
}

function bySection(manifest: SyncManifest): Map<string, { name: string; section: LabSection }> {
  return new Map(
    Object.entries(manifest.labs).map(([name, section]) => [section.origin, { name, section }]),
  );
}

/**
 * Merges two manifests that grew from `base`, entry by entry, per lab (by origin): reports only
 * one side has are kept (unless the other side removed them since `base`); the same report at two
 * revisions takes the newer; two different files of one report at the same revision are a
 * conflict it names, and two reports claiming one file name are separated
 * ({@link separateFileNames}). Nothing of either side's machine state
 * is involved: only the committed fields.
 */
export function mergeManifests(
  base: SyncManifest,
  ours: SyncManifest,
  theirs: SyncManifest,
): ManifestMerge {
  const conflicts: string[] = [];
  const [b, o, t] = [bySection(base), bySection(ours), bySection(theirs)];
  const origins = [...new Set([...o.keys(), ...t.keys()])].sort(byCodeUnit);
  const labs: Record<string, LabSection> = {};
  for (const origin of origins) {
    const name = o.get(origin)?.name ?? t.get(origin)!.name;
    const [baseFiles, ourFiles, theirFiles] = [
      b.get(origin)?.section.files ?? {},
      o.get(origin)?.section.files ?? {},
      t.get(origin)?.section.files ?? {},
    ];
    const files: Record<string, ManifestEntry> = {};
    const ids = [...new Set([...Object.keys(ourFiles), ...Object.keys(theirFiles)])].sort(
      byCodeUnit,
    );
    for (const id of ids) {
      const [was, mine, other] = [baseFiles[id], ourFiles[id], theirFiles[id]];
      if (!mine || !other) {
        const only = (mine ?? other)!;
        // Removed on the other side since the base, and unchanged on this one: the removal wins.
        if (!(was && was.sha256 === only.sha256)) {
          files[id] = only;
        }
        continue;
      }
      if (mine.sha256 === other.sha256) {
        files[id] = mine;
        continue;
      }
      const order = newer(mine, other);
      if (order !== 0) {
        files[id] = order > 0 ? mine : other;
      } else if (was && was.sha256 === mine.sha256) {
        files[id] = other;
      } else if (was && was.sha256 === other.sha256) {
        files[id] = mine;
      } else {
        files[id] = mine;
        conflicts.push(
          `${name} ${id}: both sides record a different file at ${mine.revision !== undefined ? `revision ${mine.revision}` : 'the same revision'} (${mine.sha256.slice(0, 12)}… and ${other.sha256.slice(0, 12)}…)`,
        );
      }
    }
    labs[name] = { origin, files };
  }
  // Two reports may never claim one file name: the later one gets a second name.
  const separated = separateFileNames({ version: LOCKFILE_VERSION, labs });
  return { manifest: separated.manifest, conflicts, renamed: separated.renamed };
}
