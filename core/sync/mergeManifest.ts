import type { LabSection, ManifestEntry, SyncManifest } from './manifest';
import { byCodeUnit } from './lockfile';
import { LOCKFILE_VERSION } from './lockfile';
import { foldedFileName } from '../files/fileNames';

/** What a three-way merge of two manifests came to. */
export interface ManifestMerge {
  readonly manifest: SyncManifest;
  /** One sentence per conflict the merge could not decide; empty when it merged cleanly. */
  readonly conflicts: readonly string[];
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
 * revisions takes the newer; two different files of one report at the same revision, or two
 * reports claiming one file name, are conflicts it names. Nothing of either side's machine state
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
  // Two reports may never claim one file name (case folded: Windows and macOS would make them one file).
  const claimed = new Map<string, string>();
  for (const [name, section] of Object.entries(labs)) {
    for (const entry of Object.values(section.files)) {
      const folded = foldedFileName(entry.file);
      const other = claimed.get(folded);
      if (other !== undefined) {
        conflicts.push(`${entry.file}: claimed by ${other} and by ${name} ${entry.report_id}`);
      } else {
        claimed.set(folded, `${name} ${entry.report_id}`);
      }
    }
  }
  return { manifest: { version: LOCKFILE_VERSION, labs }, conflicts };
}
