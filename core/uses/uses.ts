import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { IdShapes } from '../derived/idPatterns';
import { localFolder } from '../sync/localState';
import { labEntries, type ManifestEntry, type SyncManifest } from '../sync/manifestModel';
import { lastReads, readReads } from './reads';
import { SCAN_CACHE_FILE_NAME, repositoryTop, scanRepository, type ScanHit } from './scan';
import {
  USES_FILE_NAME,
  compareRevisions,
  parseUses,
  useKey,
  usesRecord,
  type ReportUse,
  type UsesRecord,
} from './usesRecord';

/** The committed record of a manifest's folder (none yet: no uses). */
export async function readUses(folder: string): Promise<UsesRecord> {
  const text = await fs.readFile(path.join(folder, USES_FILE_NAME), 'utf8').catch(() => undefined);
  return parseUses(text);
}

/** Whether a folder has anything to tell uses from: a committed record or a readers' log. */
export async function hasUses(folder: string): Promise<boolean> {
  const exists = (file: string): Promise<boolean> =>
    fs.stat(file).then(
      () => true,
      () => false,
    );
  return (
    (await exists(path.join(folder, USES_FILE_NAME))) ||
    (await exists(path.join(folder, '.lab-data', 'reads.jsonl')))
  );
}

/** The pattern of the ids a manifest records (the shapes hovers and links learn); none when it records none. */
export function reportIdPattern(manifest: SyncManifest): RegExp | undefined {
  const shapes = new IdShapes();
  shapes.learn(labEntries(manifest).map(({ entry }) => entry.report_id));
  return shapes.pattern;
}

/** The uses a folder's consumers have now, and what was found on the way. */
export interface CurrentUses {
  readonly record: UsesRecord;
  /** The repository's top, which consumers' paths are relative to. */
  readonly root: string;
  /** Per consumer that names an id, where (for editors). */
  readonly named: ReadonlyMap<string, readonly ScanHit[]>;
  /** Lines of the readers' log that could not be used. */
  readonly skippedReads: number;
  readonly scannedFiles: number;
}

export interface CurrentUsesOptions {
  /**
   * Whether a consumer that only names a report takes the manifest's current revision (what
   * recording does: a name is a use of whatever is recorded when uses are recorded), or keeps the
   * one the committed record says (what impact does).
   */
  readonly acknowledgeNamed: boolean;
  /** The record to start from; the folder's committed one when not given. */
  readonly previous?: UsesRecord;
}

function byLabAndId(
  manifest: SyncManifest,
): Map<string, { origin: string; entry: ManifestEntry }[]> {
  const byId = new Map<string, { origin: string; entry: ManifestEntry }[]>();
  for (const { origin, entry } of labEntries(manifest)) {
    const list = byId.get(entry.report_id) ?? [];
    list.push({ origin, entry });
    byId.set(entry.report_id, list);
  }
  return byId;
}

/**
 * Where the scan keeps its cache: in the folder's `.lab-data/` when that is there (a pull, a sync or
 * a save made it), never made for it. The uses are read in the background (a file watcher), and a
 * reader that made `.lab-data` could make it inside a folder being deleted. A link is refused.
 */
async function scanCacheFile(folder: string): Promise<string | undefined> {
  const local = localFolder(folder);
  const stats = await fs.lstat(local).catch(() => undefined);
  return stats?.isDirectory() ? path.join(local, SCAN_CACHE_FILE_NAME) : undefined;
}

/**
 * The uses of a manifest's reports as they stand: the committed record, updated with each
 * consumer's last read in `.lab-data/reads.jsonl` (a later revision than the record's, or the
 * same revision read again) and with the ids the repository's files name (`named`, unless the
 * consumer's read is known). A consumer whose file is gone is dropped; so is a `named` use its
 * file no longer names.
 */
export async function currentUses(
  folder: string,
  manifest: SyncManifest,
  options: CurrentUsesOptions,
): Promise<CurrentUses> {
  const root = await repositoryTop(folder);
  const previous = options.previous ?? (await readUses(folder));
  const reports = byLabAndId(manifest);
  const pattern = reportIdPattern(manifest);
  const scan = pattern
    ? await scanRepository(root, pattern, await scanCacheFile(folder))
    : { hits: new Map<string, readonly ScanHit[]>(), files: 0, read: 0 };
  const named = new Map<string, readonly ScanHit[]>();
  for (const [file, hits] of scan.hits) {
    const known = hits.filter((hit) => reports.has(hit.id));
    if (known.length > 0) {
      named.set(file, known);
    }
  }
  const exists = new Map<string, boolean>();
  const present = async (consumer: string): Promise<boolean> => {
    if (!exists.has(consumer)) {
      exists.set(
        consumer,
        await fs.stat(path.join(root, consumer)).then(
          (stat) => stat.isFile(),
          () => false,
        ),
      );
    }
    return exists.get(consumer)!;
  };
  const uses = new Map<string, ReportUse>();
  for (const use of previous.uses) {
    const stillNamed = named.get(use.consumer)?.some((hit) => hit.id === use.id) ?? false;
    if ((use.how === 'read' || stillNamed) && (await present(use.consumer))) {
      uses.set(useKey(use), use);
    }
  }
  const log = await readReads(folder);
  for (const read of lastReads(log.reads)) {
    const use: ReportUse = {
      consumer: read.consumer!,
      lab: read.lab,
      id: read.reportId,
      ...(read.revision !== undefined ? { revision: read.revision } : {}),
      sha256: read.sha256,
      how: 'read',
    };
    const known = uses.get(useKey(use));
    // A colleague's record of a later run is not undone by this machine's older read.
    if (
      (known?.how === 'read' && compareRevisions(known.revision, use.revision) > 0) ||
      !(await present(use.consumer))
    ) {
      continue;
    }
    uses.set(useKey(use), use);
  }
  for (const [consumer, hits] of named) {
    for (const id of new Set(hits.map((hit) => hit.id))) {
      for (const { origin, entry } of reports.get(id) ?? []) {
        const use: ReportUse = {
          consumer,
          lab: origin,
          id,
          ...(entry.revision !== undefined ? { revision: entry.revision } : {}),
          sha256: entry.sha256,
          how: 'named',
        };
        const known = uses.get(useKey(use));
        if (!known || (known.how === 'named' && options.acknowledgeNamed)) {
          uses.set(useKey(use), use);
        }
      }
    }
  }
  return {
    record: usesRecord(uses.values()),
    root,
    named,
    skippedReads: log.skipped,
    scannedFiles: scan.files,
  };
}

/** A consumer that used another revision (or file) of a report than the one now recorded or at the lab. */
export interface AffectedUse {
  readonly use: ReportUse;
  /** The revision it is measured against: the manifest's, or with a lab's, the lab's newest. */
  readonly currentRevision?: string;
  readonly currentSha256?: string;
  readonly publishedAt?: string;
}

/** The lab's newest revision of a report, when impact is measured against the lab (`--remote`). */
export interface LabRevision {
  readonly revision?: string;
  readonly publishedAt?: string;
}

/**
 * The uses whose revision or SHA-256 differs from what the manifest records for that report (or,
 * given `atLab`, whose revision differs from the lab's newest), for the given ids or all. A use
 * of a report the manifest no longer records is not counted: there is nothing to compare it with.
 */
export function impactOf(
  record: UsesRecord,
  manifest: SyncManifest,
  options: {
    readonly ids?: readonly string[];
    readonly atLab?: (origin: string, id: string) => LabRevision | undefined;
  } = {},
): AffectedUse[] {
  const entries = new Map<string, ManifestEntry>();
  for (const { origin, entry } of labEntries(manifest)) {
    entries.set(`${origin}\u0000${entry.report_id}`, entry);
  }
  const wanted = options.ids && options.ids.length > 0 ? new Set(options.ids) : undefined;
  const affected: AffectedUse[] = [];
  for (const use of record.uses) {
    if (wanted && !wanted.has(use.id)) {
      continue;
    }
    const entry = entries.get(`${use.lab}\u0000${use.id}`);
    if (!entry) {
      continue;
    }
    if (options.atLab) {
      const newest = options.atLab(use.lab, use.id);
      if (newest?.revision !== undefined && newest.revision !== use.revision) {
        affected.push({
          use,
          currentRevision: newest.revision,
          ...(newest.publishedAt !== undefined ? { publishedAt: newest.publishedAt } : {}),
        });
        continue;
      }
    }
    if (entry.revision !== use.revision || entry.sha256 !== use.sha256) {
      affected.push({
        use,
        ...(entry.revision !== undefined ? { currentRevision: entry.revision } : {}),
        currentSha256: entry.sha256,
        ...(entry.published_at !== undefined ? { publishedAt: entry.published_at } : {}),
      });
    }
  }
  return affected;
}

/** The distinct consumers among affected uses, sorted. */
export function affectedConsumers(affected: readonly AffectedUse[]): string[] {
  return [...new Set(affected.map((each) => each.use.consumer))].sort();
}

/**
 * Where a consumer's use of a report is shown (the Problems panel, a CodeLens): each line of the
 * consumer's text that names the id (in a notebook, of a cell's source; an id only in a cell's
 * outputs is shown on that cell's first line); when its text names it nowhere (a read whose id
 * came from elsewhere), the file's first line (a notebook's first cell).
 */
export function placesOf(id: string, hits: readonly ScanHit[] | undefined): ScanHit[] {
  const places = new Map<string, ScanHit>();
  for (const hit of hits ?? []) {
    if (hit.id !== id) {
      continue;
    }
    const place: ScanHit = hit.output
      ? { id, line: 0, ...(hit.cell !== undefined ? { cell: hit.cell } : {}) }
      : { id, line: hit.line, ...(hit.cell !== undefined ? { cell: hit.cell } : {}) };
    places.set(`${place.cell ?? -1}:${place.line}`, place);
  }
  return places.size > 0 ? [...places.values()] : [{ id, line: 0 }];
}
