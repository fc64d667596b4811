import type { ExistingFileQuestion, SaveDecision, SaveRun, SaveTarget } from './bulkSave';
import { NO_FILE, POLICY } from './bulkSave';
import type { LabApi, IterateOptions } from '../api/labApi';
import type { ListQuery } from '../api/query';
import type { Report } from '../api/records';
import { afterSync, decideInFolder, reportsToSync, type SyncDecision } from './syncPlan';
import { readManifest, sectionFor, updateManifest } from './manifest';

/** Every report of a query, page after page (concurrently where the lab's paging allows). */
export async function listAllReports(
  api: LabApi,
  query: ListQuery,
  options: IterateOptions & { readonly onPage?: (listed: number, total?: number) => void } = {},
): Promise<Report[]> {
  const reports: Report[] = [];
  for await (const page of api.iterateReports(query, options)) {
    reports.push(...page.items);
    options.onPage?.(reports.length, page.totalCount);
  }
  return reports;
}

export const SKIP_REASONS: Readonly<
  Record<Extract<SyncDecision, { action: 'skip' }>['reason'], string>
> = {
  noFile: NO_FILE,
  upToDate: 'up to date',
  changedLocallyKept: 'changed locally; the lab has no newer version, so the local file is kept',
};

/** Turns the plan for one report into what the saver does, asking a person when the plan says so. */
async function toSaveDecision(
  decision: SyncDecision,
  ask: ExistingFileQuestion,
): Promise<SaveDecision> {
  switch (decision.action) {
    case 'skip':
      return {
        action: 'skip',
        reason: SKIP_REASONS[decision.reason],
        ...(decision.reason === 'upToDate' ? { upToDate: true } : {}),
      };
    case 'download':
      return decision;
    case 'ask': {
      const choice = await ask(decision.fileName, decision.reason);
      return choice === 'skip'
        ? {
            action: 'skip',
            reason:
              decision.reason === 'changedLocally'
                ? 'changed locally; kept'
                : `${decision.fileName} already exists`,
          }
        : { action: 'download', fileName: decision.fileName, ifExists: POLICY[choice] };
    }
  }
}

export interface FolderSyncSteps {
  /** Lists the reports to consider (`publishedSince` the watermark after the first sync). */
  readonly list: (query: ListQuery, since: string | undefined) => Promise<Report[]>;
  /** Saves reports as `decide` says (the command runs {@link saveReports} under a progress notification). */
  readonly save: (
    reports: readonly Report[],
    decide: (report: Report, ask: ExistingFileQuestion) => Promise<SaveDecision>,
  ) => PromiseLike<SaveRun>;
  /**
   * Asked before anything is written by the first sync of this folder with this lab (`first`), and
   * by every filtered one (which lists what its filters match, not what is new); false stops it.
   */
  readonly confirm?: (reports: readonly Report[], first: boolean) => Promise<boolean>;
  /**
   * A sync narrowed by filters: it lists what its filters match each time (not only what is new
   * since the folder's mark) and leaves the mark alone, so a later sync without them still lists
   * every report the filtered one skipped.
   */
  readonly filtered?: boolean;
}

export interface FolderSyncResult {
  readonly since?: string;
  readonly listed: readonly Report[];
  readonly run: SaveRun;
  readonly watermark?: string;
  readonly manifestWritten: boolean;
  /** Files the folder's manifest holds for this lab after the sync. */
  readonly files: number;
  /** True when the first sync was not confirmed: nothing was saved or written. */
  readonly declined?: boolean;
}

/**
 * One sync of a folder with one lab. The folder's manifest keeps a section per lab recording each
 * file (report id, published time, size, SHA-256, save time, source path) and the lab's watermark;
 * a sync lists only reports published since then, re-fetches files deleted locally, and never
 * overwrites a locally changed file without asking. With nothing new it costs one list request and
 * writes nothing, not even the manifest.
 */
export async function syncFolder(
  api: LabApi,
  target: SaveTarget,
  steps: FolderSyncSteps,
): Promise<FolderSyncResult> {
  const lab = { name: api.lab.name, origin: api.origin };
  const manifest = await readManifest(target.folder);
  const section = sectionFor(manifest, lab);
  const since = steps.filtered ? undefined : section.watermark;
  const listed = await steps.list(since ? { publishedSince: since } : {}, since);
  const first = !section.watermark;
  if ((first || steps.filtered) && steps.confirm && !(await steps.confirm(listed, first))) {
    return {
      since,
      listed,
      run: { saved: [], skipped: [], failed: [], bytes: 0, cancelled: true },
      watermark: since,
      manifestWritten: false,
      files: Object.keys(section.files).length,
      declined: true,
    };
  }
  const reports = await reportsToSync(section, listed, target.folder, Boolean(steps.filtered));
  const run = await steps.save(reports, async (report, ask) => {
    const { decision } = await decideInFolder(report, section, target, lab.name);
    return toSaveDecision(decision, ask);
  });
  let watermark = section.watermark;
  let files = Object.keys(section.files).length;
  const manifestWritten = await updateManifest(target.folder, lab, (current) => {
    const next = afterSync(current, listed, run.saved, {
      complete: run.failed.length === 0 && !run.cancelled && !steps.filtered,
      savedAt: new Date().toISOString(),
      sourceOf: (id) => api.paths.reportFile(id),
    });
    watermark = next.section.watermark;
    files = Object.keys(next.section.files).length;
    return next.changed ? next.section : undefined;
  });
  return { since, listed, run, watermark, manifestWritten, files };
}
