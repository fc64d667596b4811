import * as path from 'node:path';
import type { Report } from '../api/records';
import type { SavedFile } from '../files/safeWriter';
import {
  currentSha256,
  isUpToDate,
  recordSaved,
  type LabSection,
  type ManifestEntry,
} from './manifest';
import { laterTimestamp, pathExists, reportFileName } from './reportFiles';

/** What a sync does with one report. `ask` means a person must choose (the file was changed or is foreign). */
export type SyncDecision =
  | { readonly action: 'skip'; readonly reason: 'noFile' | 'upToDate' | 'changedLocallyKept' }
  | {
      readonly action: 'download';
      readonly fileName: string;
      readonly ifExists: 'fail' | 'overwrite';
    }
  | {
      readonly action: 'ask';
      readonly fileName: string;
      readonly reason: 'exists' | 'changedLocally';
    };

/**
 * Decides one report from its manifest entry and the file on disk (`localSha256` undefined when
 * there is none): new files are fetched; untouched files are refreshed only when the lab has a
 * newer publication; a locally changed file is never overwritten without asking, and kept when
 * the lab has nothing newer.
 */
export function decideSync(
  report: Report,
  entry: ManifestEntry | undefined,
  fileName: string,
  localSha256: string | undefined,
): SyncDecision {
  if (report.download_available === false) {
    return { action: 'skip', reason: 'noFile' };
  }
  if (localSha256 === undefined) {
    return { action: 'download', fileName, ifExists: 'fail' };
  }
  if (isUpToDate(report, entry, localSha256)) {
    return { action: 'skip', reason: 'upToDate' };
  }
  if (entry && localSha256 === entry.sha256) {
    // The file is what Lab Data saved, and the lab has published a newer revision since.
    return { action: 'download', fileName, ifExists: 'overwrite' };
  }
  if (entry && entry.published_at === report.published_at) {
    return { action: 'skip', reason: 'changedLocallyKept' };
  }
  return { action: 'ask', fileName, reason: entry ? 'changedLocally' : 'exists' };
}

/** The file a report is (or would be) saved as: the one the manifest recorded, else the template's. */
export function plannedFileName(
  report: Report,
  section: LabSection,
  fromTemplate: (report: Report) => string,
): string {
  return section.files[report.report_id]?.file ?? fromTemplate(report);
}

/**
 * Reports an earlier sync saved whose files were deleted since and that the listing (which only
 * covers what is new) did not bring back: they are fetched again by id, without listing everything.
 */
export async function deletedSinceLastSync(
  section: LabSection,
  listedIds: ReadonlySet<string>,
  exists: (fileName: string) => Promise<boolean>,
): Promise<Report[]> {
  const missing: Report[] = [];
  for (const entry of Object.values(section.files)) {
    if (!listedIds.has(entry.report_id) && !(await exists(entry.file))) {
      missing.push({
        report_id: entry.report_id,
        published_at: entry.published_at,
        download_available: true,
        raw: { report_id: entry.report_id },
      });
    }
  }
  return missing;
}

/**
 * What a sync goes through: the listed reports, and, for a full sync, those an earlier sync saved
 * whose files were deleted since. A filtered sync writes only what its filter matches: files
 * deleted outside it are left for a full sync. The sync and its dry run both start here.
 */
export async function reportsToSync(
  section: LabSection,
  listed: readonly Report[],
  folder: string,
  filtered: boolean,
): Promise<Report[]> {
  const missing = filtered
    ? []
    : await deletedSinceLastSync(
        section,
        new Set(listed.map((report) => report.report_id)),
        (file) => pathExists(path.join(folder, file)),
      );
  return [...listed, ...missing];
}

/**
 * The section after a sync: saved files recorded (with where they came from), and the watermark
 * moved to the latest publication listed, but only when every report was dealt with, so a report
 * that failed is listed again next time.
 */
export function afterSync(
  section: LabSection,
  listed: readonly Report[],
  saved: ReadonlyArray<{ readonly report: Report; readonly file: SavedFile }>,
  options: {
    readonly complete: boolean;
    readonly savedAt: string;
    readonly sourceOf: (reportId: string) => string;
  },
): { section: LabSection; changed: boolean } {
  const { files } = recordSaved(section, saved, options.savedAt, options.sourceOf);
  const watermark = options.complete
    ? listed.reduce<string | undefined>(
        (latest, report) => laterTimestamp(latest, report.published_at),
        section.watermark,
      )
    : section.watermark;
  return {
    section: { origin: section.origin, watermark, files },
    changed: saved.length > 0 || watermark !== section.watermark,
  };
}

/**
 * What a sync does with one listed report, judged from the folder as it is now: the file name it
 * takes there and the plan's decision (its file hashed unless its recorded size and time vouch for
 * it). The sync and its dry run ask this one question, so the dry run says what the sync does.
 */
export async function decideInFolder(
  report: Report,
  section: LabSection,
  target: { readonly folder: string; readonly template: string; readonly rehash?: boolean },
  labName: string,
): Promise<{ fileName: string; decision: SyncDecision }> {
  const fileName = plannedFileName(report, section, (candidate) =>
    reportFileName(candidate, target.template, labName),
  );
  const entry = section.files[report.report_id];
  const sha =
    report.download_available === false
      ? undefined
      : await currentSha256(
          path.join(target.folder, fileName),
          entry?.file === fileName ? entry : undefined,
          target.rehash,
        );
  return { fileName, decision: decideSync(report, entry, fileName, sha) };
}
