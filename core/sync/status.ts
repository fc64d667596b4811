import type { LabApi } from '../api/labApi';
import type { Report } from '../api/records';
import type { FileCache } from '../files/fileCache';
import { mapConcurrently } from '../async/concurrency';
import type { Stats } from 'node:fs';
import { statEach } from '../files/statEach';
import { fileSha256 } from './reportFiles';
import { recordedPaths } from './currentHashes';
import { revisionOf, vouchedSha256, type ManifestEntry, type SyncManifest } from './manifest';
import { labEntries } from './manifestModel';
import { changesAtLab } from './provenance';
import { listAllReports } from './folderSync';
import { errorText } from '../errors/errorText';

/**
 * The cache's looks in flight at once: enough that a server's folder listings (each awaited by
 * every file of its folder) go out many at a time, the cache's own limit keeping what it sends.
 */
const CACHE_LOOKS = 256;

/** One manifest entry against the folder, the cache and (asked) the lab. */
export interface EntryStatus {
  readonly lab: string;
  readonly origin: string;
  readonly reportId: string;
  readonly file: string;
  /** The file in the folder: as recorded, missing, or with other bytes. */
  readonly local: 'ok' | 'missing' | 'changed';
  /**
   * Whether the cache holds the recorded file (so `pull` restores it without the lab), present in
   * the folder or not: told from the cache's listing (its bytes are checked when restored).
   */
  readonly cached: boolean;
  /** Asked only with `remote`: the lab lists it unchanged, amended, or not at all. */
  readonly remote?: 'same' | 'amended' | 'notListed';
  readonly recordedRevision?: string;
  readonly labRevision?: string;
  /** Why the lab's report differs (`remote: 'amended'`). */
  readonly changes?: readonly string[];
}

export interface FolderStatus {
  readonly entries: readonly EntryStatus[];
  /** Reports the lab lists that a synced folder does not record (`remote`, synced folders only). */
  readonly newAtLab: ReadonlyArray<{
    readonly lab: string;
    readonly reportId: string;
    readonly publishedAt?: string;
  }>;
  /** Labs that could not be asked, and why (`remote`); `error` is what the lab's client failed with. */
  readonly unavailable: ReadonlyArray<{
    readonly lab: string;
    readonly reason: string;
    readonly error?: unknown;
  }>;
  /** True when nothing is out of step: every file as recorded, nothing amended or new. */
  readonly inStep: boolean;
}

export interface StatusOptions {
  readonly cache?: FileCache;
  /**
   * Asks each lab with its list pages (one request a page, never one a report); undefined for a
   * lab that cannot be asked (no token, address not confirmed).
   */
  readonly apiFor?: (lab: string, origin: string) => LabApi | undefined;
  /** Labs whose folder was synced here (a watermark): reports they list and it lacks are new. */
  readonly synced?: (lab: string) => boolean;
  /**
   * Which of the reports a synced lab lists and the manifest lacks count as new: a selection's own
   * (given a manifest restricted to it, its other recorded reports are not new). Every one by default.
   */
  readonly countsAsNew?: (lab: string, report: Report) => boolean;
  readonly rehash?: boolean;
  readonly signal?: AbortSignal;
}

/**
 * Where a folder stands against its manifest, like `git status`: each entry missing, changed
 * locally, or as recorded, and whether the cache can restore it; with `apiFor`, the lab's list
 * pages tell which reports were amended (or are no longer listed) and, for a synced folder, which
 * are new at the lab.
 */
export async function folderStatus(
  folder: string,
  manifest: SyncManifest,
  options: StatusOptions = {},
): Promise<FolderStatus> {
  const work = labEntries(manifest);
  // The cache is asked from the start (a server's listings, one a folder, many at once), while the
  // lab's pages are read and the files looked at: its answers come back as the local work goes on.
  const lookup = options.cache?.lookup({ exact: true });
  const cached = lookup
    ? mapConcurrently(
        work,
        CACHE_LOOKS,
        ({ entry }) => lookup(entry.sha256, entry.bytes),
        options.signal,
      )
    : Promise.resolve(work.map(() => false));
  // Settled by the Promise.all below; a failure before then (a lab's listing) must not leave it unhandled.
  cached.catch(() => undefined);
  const listed = new Map<string, Map<string, Report> | undefined>();
  const unavailable: Array<{ lab: string; reason: string; error?: unknown }> = [];
  if (options.apiFor) {
    for (const [lab, section] of Object.entries(manifest.labs)) {
      const api = options.apiFor(lab, section.origin);
      if (!api) {
        unavailable.push({ lab, reason: `no token or confirmed address for ${section.origin}` });
        continue;
      }
      try {
        const reports = await listAllReports(api, {}, { signal: options.signal });
        listed.set(lab, new Map(reports.map((report) => [report.report_id, report])));
      } catch (error) {
        if (options.signal?.aborted) {
          throw error;
        }
        unavailable.push({ lab, reason: errorText(error), error });
      }
    }
  }
  // Every file's size and time in synchronous batches: ten thousand files in step cost no hashing.
  const files = recordedPaths(
    folder,
    work.map(({ entry }) => entry),
  );
  const [stats, held] = await Promise.all([statEach(files, options.signal), cached]);
  const entries = await mapConcurrently(
    work,
    8,
    async ({ lab, origin, entry }, index) =>
      entryStatus(
        { file: files[index], stats: stats[index], cached: held[index]! },
        lab,
        origin,
        entry,
        listed.get(lab),
        options,
      ),
    options.signal,
  );
  const newAtLab: Array<{ lab: string; reportId: string; publishedAt?: string }> = [];
  for (const [lab, reports] of listed) {
    if (!reports || !options.synced?.(lab)) {
      continue;
    }
    const recorded = manifest.labs[lab]!.files;
    for (const report of reports.values()) {
      if (
        !(report.report_id in recorded) &&
        report.download_available !== false &&
        (options.countsAsNew?.(lab, report) ?? true)
      ) {
        newAtLab.push({ lab, reportId: report.report_id, publishedAt: report.published_at });
      }
    }
  }
  return {
    entries,
    newAtLab,
    unavailable,
    inStep:
      newAtLab.length === 0 &&
      unavailable.length === 0 &&
      entries.every((entry) => entry.local === 'ok' && (entry.remote ?? 'same') === 'same'),
  };
}

/** A file's SHA-256 as it is now: the recorded one when its size and time vouch for it, else hashed. */
async function shaNow(
  file: string | undefined,
  stats: Stats | undefined,
  entry: ManifestEntry,
  rehash: boolean | undefined,
): Promise<string | undefined> {
  if (file === undefined || stats === undefined || !stats.isFile()) {
    return undefined;
  }
  return (
    (rehash ? undefined : vouchedSha256(stats, entry)) ?? fileSha256(file).catch(() => undefined)
  );
}

async function entryStatus(
  at: {
    readonly file: string | undefined;
    readonly stats: Stats | undefined;
    /** Whether the cache holds the recorded file (asked before). */
    readonly cached: boolean;
  },
  lab: string,
  origin: string,
  entry: ManifestEntry,
  listed: ReadonlyMap<string, Report> | undefined,
  options: StatusOptions,
): Promise<EntryStatus> {
  const sha = await shaNow(at.file, at.stats, entry, options.rehash);
  const local = sha === undefined ? 'missing' : sha === entry.sha256 ? 'ok' : 'changed';
  const base = {
    lab,
    origin,
    reportId: entry.report_id,
    file: entry.file,
    local,
    cached: at.cached,
    recordedRevision: entry.revision,
  } as const;
  if (!listed) {
    return base;
  }
  const report = listed.get(entry.report_id);
  if (!report) {
    return { ...base, remote: 'notListed' };
  }
  const changes = changesAtLab(entry, report);
  return {
    ...base,
    remote: changes.length > 0 ? 'amended' : 'same',
    labRevision: revisionOf(report.raw),
    ...(changes.length > 0 ? { changes } : {}),
  };
}
