import * as path from 'node:path';
import { byCodeUnit } from './lockfile';
import { headCommit, mergeBase, mergesTouching, textAtCommit } from './gitState';
import type { SyncManifest } from './manifestModel';
import { mergeManifests } from './mergeManifest';

/**
 * A merge committed with entries of the manifest missing: when git cannot run the merge driver
 * (not on git's PATH, its installed path gone) it keeps "ours" without conflict markers, and the
 * usual `git add` and commit then drop the other side's reports. Found from the history (the
 * merge, its parents and their common ancestor), so every client asks the same question, and
 * rebuilt from the merge's parents as the driver would have merged them.
 */

/** How many of the newest merges that touched a manifest are checked. */
const MERGES_CHECKED = 10;

/** A report a merge left out of the manifest. */
export interface LostEntry {
  readonly lab: string;
  readonly origin: string;
  readonly reportId: string;
}

/** A merge whose manifest lacks entries its parents record, and which of them are still missing. */
export interface LostMerge {
  readonly commit: string;
  readonly lost: readonly LostEntry[];
}

/** The manifests of one merge: the ancestor of its parents, the parents, and the merge itself. */
interface MergeManifests {
  readonly commit: string;
  readonly base: SyncManifest;
  readonly ours: SyncManifest;
  readonly theirs: SyncManifest;
  readonly merged: SyncManifest;
}

/** One merge's manifests and the entries it lost, as read once per HEAD. */
interface CheckedMerge {
  readonly manifests: MergeManifests;
  readonly lost: readonly LostEntry[];
}

const keyOf = (origin: string, reportId: string): string => `${origin}\0${reportId}`;

/** Every entry of a manifest by origin and report id. */
function entriesOf(manifest: SyncManifest): Map<string, LostEntry> {
  const entries = new Map<string, LostEntry>();
  for (const [lab, section] of Object.entries(manifest.labs)) {
    for (const reportId of Object.keys(section.files)) {
      entries.set(keyOf(section.origin, reportId), { lab, origin: section.origin, reportId });
    }
  }
  return entries;
}

/**
 * The entries a merge should have kept and did not: those both parents record, and those one
 * parent added since their common ancestor. An entry one side removed (the ancestor and the other
 * side have it) is a removal, not a loss.
 */
export function entriesLost(manifests: Omit<MergeManifests, 'commit'>): LostEntry[] {
  const [base, ours, theirs, merged] = [
    entriesOf(manifests.base),
    entriesOf(manifests.ours),
    entriesOf(manifests.theirs),
    entriesOf(manifests.merged),
  ];
  const lost = new Map<string, LostEntry>();
  for (const [key, entry] of [...ours, ...theirs]) {
    const kept = (ours.has(key) && theirs.has(key)) || !base.has(key);
    if (kept && !merged.has(key)) {
      lost.set(key, entry);
    }
  }
  return [...lost.values()].sort(
    (a, b) => byCodeUnit(a.origin, b.origin) || byCodeUnit(a.reportId, b.reportId),
  );
}

/**
 * The manifest reader's parse (`manifest.ts`'s `parseManifest`), handed in by its callers: the
 * reader calls this check, so this module does not import the reader back.
 */
export type ManifestParser = (text: string | undefined, folder: string) => SyncManifest;

/** Parses a manifest as a commit records it; undefined when it cannot be read. */
function parsedAt(
  text: string | undefined,
  folder: string,
  parse: ManifestParser,
): SyncManifest | undefined {
  try {
    return parse(text?.trim() === '' ? undefined : text, folder);
  } catch {
    return undefined;
  }
}

/** The manifests of a merge with two parents; undefined when one of them cannot be read. */
async function manifestsOf(
  file: string,
  commit: string,
  [first, second]: readonly string[],
  parse: ManifestParser,
): Promise<MergeManifests | undefined> {
  const folder = path.dirname(file);
  const base = await mergeBase(file, first!, second!);
  const [b, o, t, m] = await Promise.all(
    [base, first!, second!, commit].map(async (revision) =>
      revision === undefined
        ? parsedAt(undefined, folder, parse)
        : parsedAt(await textAtCommit(file, revision), folder, parse),
    ),
  );
  return b && o && t && m ? { commit, base: b, ours: o, theirs: t, merged: m } : undefined;
}

/** The merges checked per manifest file, with the HEAD they were read at. */
const checkedCache = new Map<string, { readonly head: string; readonly merges: CheckedMerge[] }>();

/** The newest merges of HEAD's history that lost entries of a manifest (read once per HEAD). */
async function checkedMerges(file: string, parse: ManifestParser): Promise<CheckedMerge[]> {
  const head = await headCommit(file);
  if (head === undefined) {
    return [];
  }
  const known = checkedCache.get(file);
  if (known?.head === head) {
    return known.merges;
  }
  const merges: CheckedMerge[] = [];
  for (const merge of await mergesTouching(file, MERGES_CHECKED)) {
    if (merge.parents.length !== 2) {
      continue;
    }
    const manifests = await manifestsOf(file, merge.commit, merge.parents, parse);
    const lost = manifests === undefined ? [] : entriesLost(manifests);
    if (manifests !== undefined && lost.length > 0) {
      merges.push({ manifests, lost });
    }
  }
  checkedCache.set(file, { head, merges });
  return merges;
}

/**
 * The newest merge of HEAD's history whose manifest lacks entries its parents record and that
 * the manifest `current` (the file as it is now) still lacks; undefined when there is none, or
 * outside git. Entries added back since (a sync, a resolve) no longer count.
 */
export async function lostMerge(
  file: string,
  current: SyncManifest,
  parse: ManifestParser,
): Promise<LostMerge | undefined> {
  const found = await lostMergeManifests(file, current, parse);
  return found && { commit: found.manifests.commit, lost: found.lost };
}

async function lostMergeManifests(
  file: string,
  current: SyncManifest,
  parse: ManifestParser,
): Promise<CheckedMerge | undefined> {
  const merges = await checkedMerges(file, parse);
  if (merges.length === 0) {
    // Outside git, or no merge lost anything: the current entries are not gathered at all.
    return undefined;
  }
  const now = entriesOf(current);
  for (const merge of merges) {
    const lost = merge.lost.filter((entry) => !now.has(keyOf(entry.origin, entry.reportId)));
    if (lost.length > 0) {
      return { manifests: merge.manifests, lost };
    }
  }
  return undefined;
}

/**
 * The manifest `current` with what the newest lost merge dropped put back: the merge's parents
 * merged as the driver would have (from their common ancestor), then that merged with `current`
 * from the merge's own manifest, so what was changed since the merge (a sync, a removal) stays.
 * Undefined when no merge lost entries still missing.
 */
export async function rebuildLostMerge(
  file: string,
  current: SyncManifest,
  parse: ManifestParser,
): Promise<
  | {
      readonly merge: LostMerge;
      readonly manifest: SyncManifest;
      readonly conflicts: readonly string[];
    }
  | undefined
> {
  const found = await lostMergeManifests(file, current, parse);
  if (found === undefined) {
    return undefined;
  }
  const { base, ours, theirs, merged, commit } = found.manifests;
  const rebuilt = mergeManifests(base, ours, theirs);
  const result = mergeManifests(merged, current, rebuilt.manifest);
  return {
    merge: { commit, lost: found.lost },
    manifest: result.manifest,
    conflicts: [...rebuilt.conflicts, ...result.conflicts],
  };
}
