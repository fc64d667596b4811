import { LabApiError, isCancellation } from '../errors/errors';
import { labError } from '../errors/messages';
import { Throttle } from '../async/concurrency';
import type { FileCache } from '../files/fileCache';
import { recordFileTimes } from './localState';
import { updateManifest, type LabKey, type LabSection, type ManifestEntry } from './manifest';

/** How far a run is: files finished, and bytes written including files still arriving. */
export interface RunProgress {
  readonly done: number;
  readonly total: number;
  readonly bytes: number;
}

/** How often a run tells its display how far it is. */
export const PROGRESS_INTERVAL_MS = 100;

/** Connection failures every other request to the same lab would meet too (not a file that broke off). */
const UNREACHABLE: ReadonlySet<string> = new Set([
  'unreachable',
  'hostNotFound',
  'proxyUnreachable',
  'proxyRefused',
  'proxyAuth',
  'proxyAuthRejected',
  'proxyUrlAuthRejected',
]);

/** Whether every other request to the same lab would fail alike, so the lab part of its other files fails without asking. */
export function labWide(error: LabApiError): boolean {
  const id = error.text?.id ?? '';
  return (
    // Not a 403: the spec's scope error is about one record, not the lab as a whole.
    error.code === 'unauthorized' ||
    error.code === 'rateLimited' ||
    // The lab's breaker tripped: it failed as a whole, and said so once.
    id.startsWith('labOutage') ||
    (error.code === 'network' && (UNREACHABLE.has(id) || id.startsWith('cert')))
  );
}

/** Write failures that no other file in the same folder can escape: the run stops asking for files after one. */
const FOLDER_WIDE_FAILURES: ReadonlySet<string> = new Set([
  'ENOSPC',
  'EDQUOT',
  'EROFS',
  'EACCES',
  'EPERM',
  'ENOTDIR',
  'EEXIST',
]);

function folderWide(error: LabApiError): boolean {
  return error.code === 'fileSystem' && FOLDER_WIDE_FAILURES.has(error.detail ?? '');
}

export interface FolderRunOptions {
  /** The folder whose manifest records what the run saved. */
  readonly folder: string;
  /** Files at once; each lab's own request limit applies on top. */
  readonly concurrency: number;
  readonly signal?: AbortSignal;
  /** Where each file taken from a lab is also kept by its SHA-256. */
  readonly cache?: FileCache;
  /** Told at most ten times a second, and once at the end. */
  readonly onProgress?: (progress: RunProgress) => void;
}

/**
 * One run over a folder of saved reports: what Save, Save All, Sync and pull share, so that a rule
 * of the run is written once for both clients. It owns
 * - the workers: at most `concurrency` files at once; cancelling stops taking files, and the run
 *   waits for those under way before it records anything;
 * - the lab-outage check: a failure every other request to that lab would meet too (refused token,
 *   no token, unreachable, the breaker tripped) is remembered per lab, so the lab part of the lab's
 *   other files fails at once with the same cause, while whatever needs no lab (the cache) goes on;
 *   a write failure no file of the folder can escape (disk full, read-only) stops the folder's;
 * - the cache: copies of files taken from a lab, kept while the next file downloads;
 * - progress: a running count of files and bytes, told through a {@link Throttle};
 * - the manifest record: changes to labs' sections applied in order when the run ends, even when
 *   it was cancelled part-way, so the folder and its manifest always agree; and the times of files
 *   written, so the next verify trusts them without hashing.
 */
export class FolderRun {
  readonly signal: AbortSignal;
  private readonly stop = new AbortController();
  private readonly labsDown = new Map<string, LabApiError>();
  private folderFailure?: LabApiError;
  private readonly kept: Array<Promise<void>> = [];
  private readonly records: Array<{
    readonly lab: LabKey;
    readonly change: (section: LabSection) => LabSection | undefined;
  }> = [];
  /** The entries {@link recordEntry} sets, a lab's at a time (by name and origin). */
  private readonly entries = new Map<string, Map<string, ManifestEntry>>();
  private readonly times: Array<{
    origin: string;
    reportId: string;
    sha256: string;
    mtimeMs: number;
  }> = [];
  private total = 0;
  private done = 0;
  private written = 0;
  private arriving = 0;
  private readonly display: Throttle;

  constructor(private readonly options: FolderRunOptions) {
    this.signal = options.signal
      ? AbortSignal.any([options.signal, this.stop.signal])
      : this.stop.signal;
    this.display = new Throttle(PROGRESS_INTERVAL_MS, () =>
      options.onProgress?.({
        done: this.done,
        total: this.total,
        bytes: this.written + this.arriving,
      }),
    );
  }

  get folder(): string {
    return this.options.folder;
  }

  get cache(): FileCache | undefined {
    return this.options.cache;
  }

  /** Whether the run was cancelled (by its caller, or by {@link cancel}). */
  get cancelled(): boolean {
    return this.signal.aborted;
  }

  /** Stops the run: no file is taken after this (a person declined a question). */
  cancel(): void {
    this.stop.abort();
  }

  /**
   * `work` for every item, at most `concurrency` at once, results in the items' order (undefined
   * for an item never taken because the run was cancelled). Every worker is waited for before it
   * resolves, so nothing is still writing when the run records; a failure `work` throws (only a
   * cancellation should reach here) is thrown after that.
   */
  async each<T, R>(
    items: readonly T[],
    work: (item: T, index: number) => Promise<R>,
  ): Promise<Array<R | undefined>> {
    this.total += items.length;
    const results: Array<R | undefined> = new Array(items.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < items.length && !this.signal.aborted) {
        const index = next++;
        try {
          results[index] = await work(items[index]!, index);
        } finally {
          this.done++;
          this.display.poke();
        }
      }
    };
    const settled = await Promise.allSettled(
      Array.from({ length: Math.max(1, Math.min(this.options.concurrency, items.length)) }, worker),
    );
    this.display.flush();
    const failure = settled.find((outcome) => outcome.status === 'rejected');
    if (failure) {
      throw (failure as PromiseRejectedResult).reason;
    }
    return results;
  }

  /**
   * Why the lab part of a file of `lab` fails without a request (a failure every other request to
   * it would meet too, heard earlier in this run), or undefined.
   */
  labFailure(lab: string): LabApiError | undefined {
    return this.labsDown.get(lab);
  }

  /** Why every file of the folder fails without trying (the disk is full or closed to us), or undefined. */
  folderFailed(): LabApiError | undefined {
    return this.folderFailure;
  }

  /**
   * A file of `lab` failed: the failure as a {@link LabApiError}, remembered for the lab or the
   * folder when no other file could escape it. A cancellation is thrown again, as it is.
   */
  failed(lab: string, origin: string, error: unknown): LabApiError {
    if (this.signal.aborted || isCancellation(error)) {
      throw error;
    }
    const failure =
      error instanceof LabApiError
        ? error
        : labError('network', 'unreachable', { origin, reason: String(error) });
    if (labWide(failure)) {
      // One cause, said once: every later failure of the lab as a whole is the first one heard
      // (files that failed at once would otherwise carry the raw error and the breaker's words).
      const first = this.labsDown.get(lab);
      if (first) {
        return first;
      }
      this.labsDown.set(lab, failure);
    }
    if (folderWide(failure)) {
      this.folderFailure ??= failure;
    }
    return failure;
  }

  /** Bytes of a file still arriving (a change since the last call), for the running count. */
  arrived(bytes: number): void {
    this.arriving += bytes;
    this.display.poke();
  }

  /** A file was written whole: its bytes join the count. */
  wrote(bytes: number): void {
    this.written += bytes;
  }

  /** Copies a file just taken from a lab into the cache, while the next one downloads (the run waits at its end). */
  keep(file: { readonly path: string; readonly sha256: string; readonly bytes: number }): void {
    if (this.options.cache) {
      this.kept.push(this.options.cache.keep(file.path, file.sha256, file.bytes));
    }
  }

  /** The time of a file written now, for the local state: the next verify then needs no hashing. */
  noteTime(time: { origin: string; reportId: string; sha256: string; mtimeMs?: number }): void {
    if (time.mtimeMs !== undefined) {
      this.times.push({ ...time, mtimeMs: time.mtimeMs });
    }
  }

  /**
   * An entry of a lab's section, set when the run ends. A run's entries are set in one pass over the
   * section (ten thousand updated reports copy the section once, not once each).
   */
  recordEntry(lab: LabKey, entry: ManifestEntry): void {
    const key = `${lab.name}\n${lab.origin}`;
    const known = this.entries.get(key);
    if (known) {
      known.set(entry.report_id, entry);
      return;
    }
    const entries = new Map([[entry.report_id, entry]]);
    this.entries.set(key, entries);
    this.record(lab, (section) => ({
      ...section,
      files: { ...section.files, ...Object.fromEntries(entries) },
    }));
  }

  /** A change to a lab's section of the folder's manifest, applied when the run ends. */
  record(lab: LabKey, change: (section: LabSection) => LabSection | undefined): void {
    this.records.push({ lab, change });
  }

  /**
   * Ends the run: the last progress, the cache copies, the manifest changes (each lab's in the
   * order they were made, one write a lab) and the files' times. Resolves to whether the manifest
   * was written.
   */
  async finish(): Promise<boolean> {
    this.display.flush();
    await Promise.all(this.kept);
    const byLab = new Map<
      string,
      { lab: LabKey; changes: Array<FolderRun['records'][number]['change']> }
    >();
    for (const { lab, change } of this.records) {
      const key = `${lab.name}\n${lab.origin}`;
      const known = byLab.get(key) ?? { lab, changes: [] };
      known.changes.push(change);
      byLab.set(key, known);
    }
    let written = false;
    for (const { lab, changes } of byLab.values()) {
      const changed = await updateManifest(this.options.folder, lab, (section) => {
        let next: LabSection | undefined;
        for (const change of changes) {
          next = change(next ?? section) ?? next;
        }
        return next;
      });
      written = changed || written;
    }
    if (this.times.length > 0) {
      await recordFileTimes(this.options.folder, this.times).catch(() => undefined);
    }
    return written;
  }
}
