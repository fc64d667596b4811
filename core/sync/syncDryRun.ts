import type { LabApi } from '../api/labApi';
import type { ListQuery } from '../api/query';
import type { Report } from '../api/records';
import { readManifest, sectionFor } from './manifest';
import { decideInFolder, reportsToSync } from './syncPlan';
import type { SaveTarget } from './bulkSave';

/**
 * What a sync would do with one report: `new` and `amended` are downloaded (`amended` replaces a
 * file Lab Data saved from an older revision); `upToDate` and `noFile` are left alone;
 * `changedLocally` is a local file the lab has nothing newer for (kept); `ask` is one a person
 * must decide about (a locally changed file the lab has amended, or a file of that name not saved
 * by Lab Data), which a run with nobody to ask keeps.
 */
export type PlannedKind = 'new' | 'amended' | 'upToDate' | 'noFile' | 'changedLocally' | 'ask';

export interface PlannedFile {
  readonly reportId: string;
  readonly fileName: string;
  readonly kind: PlannedKind;
  /** Bytes a download would write (downloads only); undefined when the lab would not say. */
  readonly bytes?: number;
}

export interface SyncDryRun {
  readonly since?: string;
  readonly listed: readonly Report[];
  readonly files: readonly PlannedFile[];
  /** Files that would be downloaded (`new` and `amended`). */
  readonly downloads: number;
  /** Their bytes, summed over those whose size is known. */
  readonly bytes: number;
  /** Downloads whose size the lab did not give (HEAD refused, or no `Content-Length`). */
  readonly sizeUnknown: number;
}

export interface SyncDryRunSteps {
  /** Lists the reports to consider, exactly as the real sync's `list` step would. */
  readonly list: (query: ListQuery, since: string | undefined) => Promise<Report[]>;
  /** As the real sync: a filtered sync lists what its filters match and leaves deleted files alone. */
  readonly filtered?: boolean;
  readonly signal?: AbortSignal;
  /** Asks for the sizes of files to download at most this many at a time (default: the lab's). */
  readonly concurrency?: number;
}

/**
 * Decides what {@link syncFolder} would do, without writing anything: the same listing, the same
 * file names, the same decision per report (`decideSync`), and the size of each file it would
 * download (from a HEAD request of the file, as the lab's records carry no size). The folder need
 * not exist; no manifest, local state, cache entry or lock is touched.
 */
export async function planFolderSync(
  api: LabApi,
  target: SaveTarget,
  steps: SyncDryRunSteps,
): Promise<SyncDryRun> {
  const lab = { name: api.lab.name, origin: api.origin };
  const section = sectionFor(await readManifest(target.folder), lab);
  const since = steps.filtered ? undefined : section.watermark;
  const listed = await steps.list(since ? { publishedSince: since } : {}, since);
  const planned: Array<{ report: Report; fileName: string; kind: PlannedKind }> = [];
  for (const report of await reportsToSync(
    section,
    listed,
    target.folder,
    Boolean(steps.filtered),
  )) {
    const { fileName, decision } = await decideInFolder(report, section, target, lab.name);
    const kind: PlannedKind =
      decision.action === 'download'
        ? decision.ifExists === 'overwrite'
          ? 'amended'
          : 'new'
        : decision.action === 'ask'
          ? 'ask'
          : decision.reason === 'changedLocallyKept'
            ? 'changedLocally'
            : decision.reason;
    planned.push({ report, fileName, kind });
  }
  const files = await withSizes(api, planned, steps);
  const downloads = files.filter((file) => file.kind === 'new' || file.kind === 'amended');
  return {
    since,
    listed,
    files,
    downloads: downloads.length,
    bytes: downloads.reduce((total, file) => total + (file.bytes ?? 0), 0),
    sizeUnknown: downloads.filter((file) => file.bytes === undefined).length,
  };
}

/** Each planned download with its size from the lab, a few HEAD requests at a time. */
async function withSizes(
  api: LabApi,
  planned: ReadonlyArray<{ report: Report; fileName: string; kind: PlannedKind }>,
  steps: SyncDryRunSteps,
): Promise<PlannedFile[]> {
  const files: PlannedFile[] = planned.map(({ report, fileName, kind }) => ({
    reportId: report.report_id,
    fileName,
    kind,
  }));
  const todo = files
    .map((file, index) => ({ file, index }))
    .filter(({ file }) => file.kind === 'new' || file.kind === 'amended');
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      const { file, index } = todo[next++]!;
      const bytes = await api.reportFileSize(file.reportId, steps.signal);
      files[index] = bytes === undefined ? file : { ...file, bytes };
    }
  };
  const concurrency = Math.max(1, Math.min(steps.concurrency ?? api.concurrency, todo.length));
  await Promise.all(Array.from({ length: concurrency }, worker));
  return files;
}
