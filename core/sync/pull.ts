import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { LabApi } from '../api/labApi';
import type { Report } from '../api/records';
import { LabApiError } from '../errors/errors';
import { oncePerKey } from '../async/concurrency';
import { labError } from '../errors/messages';
import { prepareFolder, type PreparedFolder, type SavedFile } from '../files/safeWriter';
import type { FileCache } from '../files/fileCache';
import { FolderRun } from './folderRun';
import {
  currentSha256,
  manifestEntry,
  revisionOf,
  type ManifestEntry,
  type SyncManifest,
} from './manifest';
import { labEntries } from './manifestModel';
import { changesAtLab } from './provenance';

/** What pulling one entry of a manifest came to. */
export type PullState =
  /** The file was there with the recorded bytes, and the lab has nothing newer (or was not asked). */
  | 'present'
  /** The file was missing (or `force`d) and was restored with the recorded bytes, from the cache or the lab (`from`). */
  | 'restored'
  /** The lab has a newer file and `update` took it; the manifest entry follows it. */
  | 'updated'
  /**
   * The lab has a newer file than the record (the report was amended): a local file with the
   * recorded bytes was kept (`missing` false), or there is none and no cache has the recorded bytes.
   */
  | 'changedAtLab'
  /** The file differs from the record and was left alone (`force` replaces it). */
  | 'changedLocally'
  /** The lab no longer has the report. */
  | 'notAtLab'
  /** A request or a write failed; `error` says why. */
  | 'failed';

export interface PulledFile {
  readonly lab: string;
  readonly origin: string;
  readonly reportId: string;
  /** The file's path relative to the folder, as the manifest records it. */
  readonly file: string;
  readonly state: PullState;
  /** The revision (or publication) recorded, and the lab's now, when they differ. */
  readonly recorded?: string;
  readonly atLab?: string;
  /** Why the lab's report differs from the record, each a short phrase. */
  readonly changes?: readonly string[];
  readonly bytes?: number;
  /** Where a restored file's bytes came from (with `dryRun`: would come from). */
  readonly from?: 'cache' | 'lab';
  /** Set when the recorded file is not in the folder after the run (only for `changedAtLab`). */
  readonly missing?: boolean;
  readonly error?: LabApiError;
}

export interface PullOptions {
  /** The client of a manifest section's lab; undefined when there is no token for it (its files fail). */
  readonly apiFor: (lab: string, origin: string) => LabApi | undefined;
  /**
   * Ask the lab about every entry (one small request each) and take its newer files, updating
   * their manifest entries. Without it, a present and intact file needs no lab.
   */
  readonly update?: boolean;
  /** Where files are restored from first, and where files from the lab are kept. */
  readonly cache?: FileCache;
  /** Decide and count, write nothing: the states, sources and bytes the real run would have. */
  readonly dryRun?: boolean;
  /** Replace files that differ from their record with the recorded file. */
  readonly force?: boolean;
  /** Hash every file, even one whose size and time say it is unchanged. */
  readonly rehash?: boolean;
  /** Files at once; the lab's own request limit applies on top. */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: {
    readonly done: number;
    readonly total: number;
    readonly bytes: number;
  }) => void;
  /** Told of each entry as it is done. */
  readonly onFile?: (file: PulledFile) => void;
}

export interface PullResult {
  readonly files: readonly PulledFile[];
  readonly bytes: number;
  /** Whether the manifest was written (only `update` writes it). */
  readonly manifestWritten: boolean;
}

/**
 * The metadata path of a report, from the path its file came from: `…/reports/{id}/file` →
 * `…/reports/{id}` (the spec's shape, whatever the prefix); undefined for any other shape.
 */
export function reportPathFromSource(source: string, reportId: string): string | undefined {
  const id = encodeURIComponent(reportId);
  const match = /^(\/.*)\/[^/?#]+$/.exec(source);
  return match && match[1]!.endsWith(`/${id}`) ? match[1] : undefined;
}

/** A recorded path on the lab's origin we are willing to request: absolute, no host, no `..`. */
function usableSource(source: unknown): source is string {
  return (
    typeof source === 'string' &&
    /^\/[^/\\]/.test(source) &&
    !source.split(/[?#]/)[0]!.split('/').includes('..')
  );
}

function versionOf(entry: ManifestEntry | Report): string | undefined {
  const revision = 'raw' in entry ? revisionOf(entry.raw) : entry.revision;
  return revision !== undefined
    ? `revision ${revision}`
    : entry.published_at !== undefined
      ? `published ${entry.published_at}`
      : undefined;
}

/** Failures of the folder's own side: they happened whatever the cache held and the lab said. */
const LOCAL_FAILURES: ReadonlySet<string> = new Set([
  'fileSystem',
  'fileExists',
  'invalidInput',
  'cancelled',
]);

/** Whether a file failed on the folder's own side (the disk, a file in the way, a cancel). */
export function failedLocally(file: PulledFile): boolean {
  return file.error !== undefined && LOCAL_FAILURES.has(file.error.code);
}

/**
 * The files a pull asked of the lab because the cache lacked them, and that the lab then did not
 * give. With a team cache that is the first cause to say ("someone's push did not run"), before the
 * lab's words, which only say why the files did not come from there instead. A lab the client could
 * not ask at all (`labUnusable`: no token) counts whatever its files' errors.
 */
export function lackedByCache(
  files: readonly PulledFile[],
  labUnusable: (lab: string) => boolean = () => false,
): PulledFile[] {
  return files.filter(
    (file) =>
      (file.state === 'failed' && (labUnusable(file.lab) || !failedLocally(file))) ||
      (file.state === 'changedAtLab' && file.missing === true) ||
      (file.state === 'notAtLab' && file.from === undefined),
  );
}

/**
 * Restores a folder from its manifest, the way a lockfile is restored: every listed file, under
 * its recorded name, checked against its SHA-256 before it takes that name, from the content
 * cache first, then from the lab. A file already there with the recorded bytes needs nothing,
 * not even the lab: only `update` asks the lab about each report (one small request each) and
 * takes its newer files, updating their entries. A report the lab has amended since, whose
 * recorded bytes no cache has, is reported with both versions. A local file that
 * differs from its record is left alone unless `force`. Nothing outside the folder is written:
 * the manifest must have passed {@link readManifestStrictly}.
 */
export async function pullFolder(
  folder: string,
  manifest: SyncManifest,
  options: PullOptions,
): Promise<PullResult> {
  const work = labEntries(manifest);
  const run = new FolderRun({
    folder,
    concurrency: options.concurrency ?? 4,
    signal: options.signal,
    cache: options.cache,
    onProgress: options.onProgress,
  });
  // Each folder is made, resolved and checked against the root once per run, not once per file.
  const folderOf = oncePerKey((subfolder: string) => prepareFolder(subfolder, folder));
  // One listing per folder tells a missing file without a failing look per file (a fresh clone has them all missing).
  const listing = oncePerKey((subfolder: string) =>
    fs.readdir(subfolder).then(
      (found): ReadonlySet<string> | undefined => new Set(found),
      () => undefined,
    ),
  );
  // No listing (the folder is not there, or not readable): the file itself is looked at.
  const listed = async (file: string): Promise<boolean> =>
    (await listing(path.dirname(file)))?.has(path.basename(file)) ?? true;
  // The cache's folders listed once a run: a fresh cache (the usual CI case) costs one look, not one a file.
  const cacheHolds = options.cache?.lookup() ?? (() => Promise.resolve(false));
  let results: Array<PulledFile | undefined>;
  let written: boolean;
  try {
    results = await run.each(work, async (item) => {
      let result: PulledFile;
      try {
        result = await pullOne(item, options, {
          folder,
          run,
          folderOf,
          listed,
          cacheHolds,
          onUpdated: (report, saved) =>
            // The file `update` took is recorded in its lab's section when the run ends.
            run.recordEntry(
              { name: item.lab, origin: item.origin },
              manifestEntry(
                report,
                { ...saved, fileName: item.entry.file },
                new Date().toISOString(),
                item.entry.source,
                item.entry,
              ),
            ),
        });
      } catch (error) {
        result = {
          lab: item.lab,
          origin: item.origin,
          reportId: item.entry.report_id,
          file: item.entry.file,
          state: 'failed',
          error: run.failed(item.lab, item.origin, error),
        };
      }
      run.wrote(result.bytes ?? 0);
      options.onFile?.(result);
      return result;
    });
  } finally {
    // What `update` took is recorded even when the run stops early (Ctrl+C), so the folder and its manifest agree.
    written = await run.finish();
  }
  options.signal?.throwIfAborted();
  const files = results.filter((file): file is PulledFile => file !== undefined);
  return {
    files,
    bytes: files.reduce((sum, file) => sum + (file.bytes ?? 0), 0),
    manifestWritten: options.dryRun ? false : written,
  };
}

/** What one entry's pull shares with the run. */
interface PullContext {
  readonly folder: string;
  readonly run: FolderRun;
  readonly folderOf: (subfolder: string) => Promise<PreparedFolder>;
  readonly listed: (file: string) => Promise<boolean>;
  /** Whether the cache's listing (taken once a run) shows a file of this SHA-256. */
  readonly cacheHolds: (sha256: string) => Promise<boolean>;
  /** The lab's newer file `update` took, to be recorded. */
  readonly onUpdated: (report: Report, saved: SavedFile) => void;
}

function pullOne(item: PullItem, options: PullOptions, context: PullContext): Promise<PulledFile> {
  return new EntryPull(item, options, context).pull();
}

/** One manifest entry of a manifest. */
interface PullItem {
  readonly lab: string;
  readonly origin: string;
  readonly entry: ManifestEntry;
}

/** What the lab says of an entry's report: the report, how it differs from the record, or that it is gone. */
interface AtLab {
  readonly report?: Report;
  readonly changes: string[];
  readonly gone: boolean;
}

/**
 * Pulling one entry: the file as it is, then the cache, then the lab. Only what needs the lab asks
 * for its client: an intact or cached folder needs no token.
 */
class EntryPull {
  private readonly base: Pick<PulledFile, 'lab' | 'origin' | 'reportId' | 'file'>;
  private readonly target: string;
  private present = false;

  constructor(
    private readonly item: PullItem,
    private readonly options: PullOptions,
    private readonly context: PullContext,
  ) {
    const { lab, origin, entry } = item;
    this.base = { lab, origin, reportId: entry.report_id, file: entry.file };
    this.target = path.join(context.folder, ...entry.file.split('/'));
  }

  async pull(): Promise<PulledFile> {
    const { entry } = this.item;
    const options = this.options;
    const base = this.base;
    this.present = await this.context.listed(this.target);
    const local = this.present
      ? await currentSha256(this.target, entry, options.rehash)
      : undefined;
    if (local === entry.sha256) {
      return options.update && !options.dryRun ? this.askTheLab() : { ...base, state: 'present' };
    }
    if (local !== undefined && !options.force) {
      return { ...base, state: 'changedLocally' };
    }
    // The disk is full or closed to us (heard on an earlier file): nothing more can be written.
    const folderDown = options.dryRun ? undefined : this.context.run.folderFailed();
    if (folderDown) {
      throw folderDown;
    }
    return (await this.fromCache()) ?? this.fromLab();
  }

  /** The recorded bytes from the cache (with `update`, then the lab's view); undefined when the cache lacks them. */
  private async fromCache(): Promise<PulledFile | undefined> {
    const { entry } = this.item;
    const { cache, dryRun, update, signal } = this.options;
    if (cache && dryRun && (await cache.has(entry.sha256, entry.bytes))) {
      return { ...this.base, state: 'restored', bytes: entry.bytes, from: 'cache' };
    }
    if (!cache || dryRun || !(await this.context.cacheHolds(entry.sha256))) {
      return undefined;
    }
    // Undefined when the cache no longer has it, or had a corrupt copy.
    const restored = await cache.restore(entry.sha256, entry.bytes, {
      folder: await this.context.folderOf(path.dirname(this.target)),
      fileName: path.basename(this.target),
      ifExists: this.present ? 'overwrite' : 'fail',
      signal,
    });
    if (!restored) {
      return undefined;
    }
    this.onRestored(restored);
    return update
      ? this.askTheLab(restored)
      : { ...this.base, state: 'restored', bytes: restored.bytes, from: 'cache' };
  }

  /** The recorded bytes from the lab, or with `update` its newer file; a file changed at the lab is said, not taken. */
  private async fromLab(): Promise<PulledFile> {
    const { entry } = this.item;
    const base = this.base;
    if (this.options.dryRun) {
      // What the real run would meet before any request: no token, an address not confirmed.
      this.api();
      return { ...base, state: 'restored', bytes: entry.bytes, from: 'lab' };
    }
    try {
      const saved = await this.download(!this.options.update);
      if (saved.sha256 === entry.sha256) {
        this.onRestored(saved);
        return { ...base, state: 'restored', bytes: saved.bytes, from: 'lab' };
      }
      // Only with `update`: the lab's newer file was taken; its entry follows it.
      const lab = await this.atLab();
      const report = lab.report ?? {
        report_id: entry.report_id,
        published_at: entry.published_at,
        raw: { report_id: entry.report_id },
      };
      this.context.onUpdated(report, saved);
      return {
        ...base,
        state: 'updated',
        changes: lab.changes.length > 0 ? lab.changes : ['a different file'],
        bytes: saved.bytes,
        from: 'lab',
        ...this.versions(lab.report),
      };
    } catch (error) {
      if (
        error instanceof LabApiError &&
        ['fileChangedAtLab', 'sizeNotRecorded', 'transferLonger'].includes(error.text?.id ?? '') &&
        (error.text?.id === 'fileChangedAtLab' || !this.options.update)
      ) {
        const lab = await this.atLab().catch((): AtLab => ({
          report: undefined,
          changes: [],
          gone: false,
        }));
        return {
          ...base,
          state: 'changedAtLab',
          missing: !this.present,
          changes: lab.changes.length > 0 ? lab.changes : ['a different file'],
          ...this.versions(lab.report),
        };
      }
      if (error instanceof LabApiError && error.code === 'notFound') {
        return { ...base, state: 'notAtLab', changes: ['no longer available at the lab'] };
      }
      throw error;
    }
  }

  /** The lab's view of a file that is (now) in the folder with the recorded bytes: `update` only. */
  private async askTheLab(restored?: SavedFile): Promise<PulledFile> {
    const base = this.base;
    const restoredFacts = restored ? { bytes: restored.bytes, from: 'cache' as const } : {};
    let lab: AtLab;
    try {
      lab = await this.atLab();
    } catch (error) {
      // The file is here with its recorded bytes; only the lab's view of it could not be had.
      return {
        ...base,
        state: restored ? 'restored' : 'present',
        ...restoredFacts,
        error: this.context.run.failed(this.item.lab, this.item.origin, error),
      };
    }
    if (lab.gone) {
      return { ...base, state: 'notAtLab', changes: ['no longer available at the lab'] };
    }
    if (lab.changes.length === 0 || !lab.report) {
      return restored
        ? { ...base, state: 'restored', ...restoredFacts }
        : { ...base, state: 'present' };
    }
    const saved = await this.download(false);
    this.context.onUpdated(lab.report, saved);
    return {
      ...base,
      state: 'updated',
      changes: lab.changes,
      bytes: saved.bytes,
      from: 'lab',
      ...this.versions(lab.report),
    };
  }

  /**
   * The lab's client. A failure of the lab as a whole (no token, refused, unreachable), heard on an
   * earlier file, fails this file's lab part at once; what the cache holds has been restored before
   * this is asked.
   */
  private api(): LabApi {
    const { lab, origin } = this.item;
    const down = this.context.run.labFailure(lab);
    if (down) {
      throw down;
    }
    const api = this.options.apiFor(lab, origin);
    if (!api) {
      throw labError('unauthorized', 'noToken', { origin });
    }
    return api;
  }

  /** The lab's report for the entry and how it differs from the record; `gone` when the lab no longer has it. */
  private async atLab(): Promise<AtLab> {
    const { entry } = this.item;
    if (!usableSource(entry.source)) {
      return { changes: [], gone: false };
    }
    const metadataPath = reportPathFromSource(entry.source, entry.report_id);
    if (metadataPath === undefined) {
      return { changes: [], gone: false };
    }
    try {
      const report = await this.api().getReportAt(metadataPath, this.options.signal);
      return { report, changes: changesAtLab(entry, report), gone: false };
    } catch (error) {
      if (error instanceof LabApiError && error.code === 'notFound') {
        return { changes: [], gone: true };
      }
      throw error;
    }
  }

  /** The entry's file from the lab into its recorded name; with `check`, only the recorded bytes are taken. */
  private async download(check: boolean): Promise<SavedFile> {
    const { entry } = this.item;
    if (!usableSource(entry.source)) {
      throw labError('invalidInput', 'idInvalid', {
        text: String(entry.source),
        what: 'file source',
      });
    }
    const saved = await this.api().downloadFileAt(entry.source, {
      folder: await this.context.folderOf(path.dirname(this.target)),
      fileName: path.basename(this.target),
      // The recorded name gets the recorded (checked) bytes. A name the folder's listing showed free
      // is taken with a hard link, which refuses whatever appeared there since (and costs two
      // looks less a file than an overwrite); a file there is replaced by a rename, as an overwrite,
      // which still refuses a link or a folder standing there.
      ifExists: this.present ? 'overwrite' : 'fail',
      signal: this.options.signal,
      // Only the recorded file will do: it is not read past its recorded size.
      expectedBytes: check ? entry.bytes : undefined,
      checkSha256: check
        ? (sha) =>
            sha === entry.sha256
              ? undefined
              : labError('invalidResponse', 'fileChangedAtLab', { id: entry.report_id })
        : undefined,
    });
    // Kept while the next file downloads: the copy into the cache holds no download's place.
    this.context.run.keep(saved);
    return saved;
  }

  private onRestored(saved: SavedFile): void {
    this.context.run.noteTime({
      origin: this.item.origin,
      reportId: this.item.entry.report_id,
      sha256: saved.sha256,
      mtimeMs: saved.mtimeMs,
    });
  }

  private versions(report?: Report): { recorded?: string; atLab?: string } {
    return {
      recorded: versionOf(this.item.entry),
      atLab: report ? versionOf(report) : undefined,
    };
  }
}
