import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LabApiError, isCancellation } from '../errors/errors';
import type { LabApi } from '../api/labApi';
import { cancelledError } from '../errors/messages';
import type { Report } from '../api/records';
import { pathExists, reportFileName } from './reportFiles';
import {
  currentSha256,
  isUpToDate,
  readManifest,
  recordSaved,
  sectionFor,
  type LabSection,
} from './manifest';
import type { FileCache } from '../files/fileCache';
import {
  prepareFolder,
  type ExistingFilePolicy,
  type PreparedFolder,
  type SavedFile,
} from '../files/safeWriter';
import { oncePerKey } from '../async/concurrency';
import { foldedFileName } from '../files/fileNames';
import { nameBesideOtherLab, recordedNames, type RecordedNames } from './folderLayout';
import { FolderRun, type RunProgress } from './folderRun';

/** What to do with a file that is already there. */
export type ExistingFileChoice = 'overwrite' | 'keepBoth' | 'skip';

export interface ExistingFileAnswer {
  readonly choice: ExistingFileChoice;
  /** Apply the same answer to every later file of this run. */
  readonly forAll: boolean;
}

/** Where a run saves: a folder inside a root, and the file-name template. */
export interface SaveTarget {
  readonly root?: string;
  readonly folder: string;
  readonly template: string;
  /** Hash every file already there, even one whose size and time say it is unchanged. */
  readonly rehash?: boolean;
}

/** What to do with one report: download it (into this name, with this policy) or leave it. */
export type SaveDecision =
  | {
      readonly action: 'download';
      readonly fileName: string;
      readonly ifExists: ExistingFilePolicy;
    }
  | {
      readonly action: 'skip';
      readonly reason: string;
      readonly upToDate?: boolean;
      readonly fileName?: string;
    };

/** Why a report without a file is left out. */
export const NO_FILE = 'no file is available for this report';

/** Why a file was left alone because it is already the lab's file (the folder's manifest holds its SHA-256). */
export const UP_TO_DATE = 'up to date';

export interface SavedReport {
  readonly report: Report;
  readonly file: SavedFile;
}

/** A report left alone, and why; `upToDate` when the file on disk is the lab's file already (`path`: that file). */
export interface SkippedReport {
  readonly reportId: string;
  readonly reason: string;
  readonly upToDate?: boolean;
  readonly path?: string;
}

export interface SaveRun {
  readonly saved: SavedReport[];
  readonly skipped: SkippedReport[];
  readonly failed: Array<{ readonly reportId: string; readonly error: unknown }>;
  /** Bytes of the files saved so far. */
  bytes: number;
  cancelled: boolean;
}

/** How far a run is: files finished, and bytes written including files still arriving. */
export type SaveProgress = RunProgress;

/** Asks "overwrite, keep both or skip?" one dialog at a time, remembering "for all" answers. */
export type ExistingFileQuestion = (
  fileName: string,
  reason: 'exists' | 'changedLocally',
) => Promise<ExistingFileChoice>;

export interface SaveOptions {
  readonly api: LabApi;
  readonly target: SaveTarget;
  readonly signal: AbortSignal;
  readonly concurrency: number;
  /** Asks a person about one existing file (`more`: other files follow); undefined cancels the run. */
  readonly ask?: (
    fileName: string,
    reason: 'exists' | 'changedLocally',
    more: boolean,
  ) => Promise<ExistingFileAnswer | undefined>;
  /** Told of each report that could not be saved. */
  readonly warn?: (message: string) => void;
  /** A standing answer for files that already exist (from command arguments). */
  readonly ifExists?: ExistingFileChoice;
  /** Decides per report; the default asks before touching an existing file. */
  readonly decide?: (report: Report, ask: ExistingFileQuestion) => Promise<SaveDecision>;
  /** Told at most ten times a second, and once at the end. */
  readonly onProgress?: (progress: SaveProgress) => void;
  /** Where each saved file is also kept by its SHA-256, so the folder can be restored without the lab. */
  readonly cache?: FileCache;
}

/** File names as the file system compares them: without case on Windows and macOS. */
function foldCase(name: string): string {
  return process.platform === 'win32' || process.platform === 'darwin' ? name.toLowerCase() : name;
}

/** The safe writer's policy for each answer that writes. */
export const POLICY: Record<Exclude<ExistingFileChoice, 'skip'>, ExistingFilePolicy> = {
  overwrite: 'overwrite',
  keepBoth: 'keepBoth',
};

export { PROGRESS_INTERVAL_MS } from './folderRun';

/**
 * The file a save writes a report to: the one the folder's manifest records for it (as a sync
 * plans it, `plannedFileName`), else the template's, unless another lab's report holds that name.
 */
export function savedFileName(
  report: Report,
  template: string,
  lab: string,
  recorded?: RecordedNames,
): string {
  if (!recorded) {
    return reportFileName(report, template, lab);
  }
  const recordedFile = recorded.own[report.report_id]?.file;
  const fileName = recordedFile ?? reportFileName(report, template, lab);
  return recordedFile === undefined && recorded.othersFiles.has(foldedFileName(fileName))
    ? nameBesideOtherLab(fileName, lab)
    : fileName;
}

/**
 * The default decision: files without a download are skipped; an existing file is asked about.
 * A report the folder's manifest records keeps its recorded file, whatever the template (`recorded`:
 * the names the manifest gives); a name another lab's report holds there is never taken, whether
 * its file is there or not: the report is saved beside it ({@link nameBesideOtherLab}).
 * `exists` answers from one listing of the folder in a bulk run; the final hard link still refuses
 * a file that appears after it was read, so nothing is ever replaced unasked.
 */
export async function decideByExistingFile(
  report: Report,
  target: SaveTarget,
  lab: string,
  ask: ExistingFileQuestion,
  exists: (fileName: string) => Promise<boolean> = (name) =>
    pathExists(path.join(target.folder, name)),
  identical: (report: Report, fileName: string) => Promise<boolean> = () => Promise.resolve(false),
  recorded?: RecordedNames,
): Promise<SaveDecision> {
  if (report.download_available === false) {
    return { action: 'skip', reason: NO_FILE };
  }
  const fileName = savedFileName(report, target.template, lab, recorded);
  if (!(await exists(fileName))) {
    return { action: 'download', fileName, ifExists: 'fail' };
  }
  if (await identical(report, fileName)) {
    // Byte-identical to what the lab published (the manifest's SHA-256 of this revision): nothing to ask.
    return { action: 'skip', reason: UP_TO_DATE, upToDate: true, fileName };
  }
  const choice = await ask(fileName, 'exists');
  return choice === 'skip'
    ? { action: 'skip', reason: `${fileName} already exists` }
    : { action: 'download', fileName, ifExists: POLICY[choice] };
}

/**
 * Saves report files into the target folder and records them in its manifest: the one call every
 * command and the tool use to save (there is no separate "record" step to forget). At most
 * `concurrency` at a time (the HTTP layer shares one back-off for 429s). One failure never stops
 * the others, except one no other file could escape (the disk is full, the lab refused the token):
 * then the rest fail with it at once. Cancelling stops them all and leaves no partial file. The
 * workers, that check, the copies into the content cache, progress and the record in the manifest
 * are the {@link FolderRun} that `pull` runs too.
 */
export async function saveReports(
  reports: readonly Report[],
  options: SaveOptions,
): Promise<SaveRun> {
  const run: SaveRun = { saved: [], skipped: [], failed: [], bytes: 0, cancelled: false };
  const folderRun = new FolderRun({
    folder: options.target.folder,
    concurrency: options.concurrency,
    signal: options.signal,
    cache: options.cache,
    onProgress: options.onProgress,
  });
  const signal = folderRun.signal;
  const lab = { name: options.api.lab.name, origin: options.api.origin };
  const ask = existingFileQuestion(options, reports.length > 1, folderRun);
  const decide = options.decide ?? (await defaultDecision(options, lab));
  // Each folder is created, resolved and checked against its root once per run, not once per file.
  const folderFor = oncePerKey((subfolder: string): Promise<PreparedFolder> =>
    subfolder === '.'
      ? prepareFolder(options.target.folder, options.target.root)
      : prepareFolder(
          path.join(options.target.folder, subfolder),
          options.target.root ?? options.target.folder,
        ),
  );
  const saveOne = (item: Report): Promise<void> =>
    saveOneReport(item, { run, folderRun, options, lab, decide, ask, folderFor });
  await folderRun.each(reports, saveOne);
  run.cancelled ||= signal.aborted;
  // What the run saved is recorded even when it was cancelled part-way, so the folder and its manifest agree.
  if (run.saved.length > 0) {
    const savedAt = new Date().toISOString();
    folderRun.record(lab, (current) =>
      recordSaved(current, run.saved, savedAt, (id) => options.api.paths.reportFile(id)),
    );
  }
  await folderRun.finish();
  return run;
}

/**
 * Asks about a file in the way, one question at a time; an answer "for all" stands for the rest of
 * the run; dismissing the question cancels the run.
 */
function existingFileQuestion(
  options: SaveOptions,
  several: boolean,
  folderRun: FolderRun,
): ExistingFileQuestion {
  let standing = options.ifExists;
  let dialog: Promise<unknown> = Promise.resolve();
  return (fileName, reason) => {
    const next = dialog.then(async () => {
      if (standing !== undefined && reason === 'exists') {
        return standing;
      }
      if (folderRun.signal.aborted) {
        throw cancelledError();
      }
      const answer = options.ask ? await options.ask(fileName, reason, several) : undefined;
      if (!answer) {
        folderRun.cancel();
        throw cancelledError();
      }
      if (answer.forAll && reason === 'exists') {
        standing = answer.choice;
      }
      return answer.choice;
    });
    dialog = next.catch(() => undefined);
    return next;
  };
}

/**
 * The decision a run takes without a caller's own ({@link decideByExistingFile}), with one listing
 * per folder instead of a look per file (a template may put files in subfolders), and the folder's
 * manifest read once before anything is saved: one the run could not record in (git conflict
 * markers, a newer version, not JSON) stops it with its message before a file is written. It tells
 * a file already saved by its SHA-256.
 */
async function defaultDecision(
  options: SaveOptions,
  lab: { readonly name: string; readonly origin: string },
): Promise<NonNullable<SaveOptions['decide']>> {
  const folder = options.target.folder;
  const listing = oncePerKey((subfolder: string) =>
    fs.readdir(subfolder).then(
      (names) => new Set(names.map(foldCase)),
      () => new Set<string>(),
    ),
  );
  const exists = async (fileName: string): Promise<boolean> =>
    (await listing(path.join(folder, path.dirname(fileName)))).has(
      foldCase(path.basename(fileName)),
    );
  const manifest = await readManifest(folder);
  const section: LabSection | undefined = sectionFor(manifest, lab);
  const recorded =
    section && recordedNames(manifest, section, (id) => options.api.paths.reportFile(id));
  const identical = async (report: Report, fileName: string): Promise<boolean> => {
    const entry = section?.files[report.report_id];
    if (!entry || entry.file !== fileName || entry.published_at !== report.published_at) {
      return false; // not worth reading the file
    }
    return isUpToDate(report, entry, await currentSha256(path.join(folder, fileName), entry));
  };
  return (report, question) =>
    decideByExistingFile(report, options.target, lab.name, question, exists, identical, recorded);
}

/** What one report's save shares with the run. */
interface SaveContext {
  readonly run: SaveRun;
  readonly folderRun: FolderRun;
  readonly options: SaveOptions;
  readonly lab: { readonly name: string; readonly origin: string };
  readonly decide: NonNullable<SaveOptions['decide']>;
  readonly ask: ExistingFileQuestion;
  readonly folderFor: (subfolder: string) => Promise<PreparedFolder>;
}

/** Saves one report as decided (or says why not), into the run's lists. */
async function saveOneReport(item: Report, context: SaveContext): Promise<void> {
  const { run, folderRun, options, lab } = context;
  const signal = folderRun.signal;
  // The disk is full or read-only, or the lab failed as a whole: this file would fail alike.
  const known = folderRun.folderFailed() ?? folderRun.labFailure(lab.name);
  if (known) {
    run.failed.push({ reportId: item.report_id, error: known });
    return;
  }
  let received = 0;
  try {
    const decision = await context.decide(item, context.ask);
    if (decision.action === 'skip') {
      const upToDate = decision.upToDate
        ? {
            upToDate: true,
            ...(decision.fileName
              ? { path: path.join(options.target.folder, decision.fileName) }
              : {}),
          }
        : {};
      run.skipped.push({ reportId: item.report_id, reason: decision.reason, ...upToDate });
      return;
    }
    // A template with subfolders (`${client_id}/${report_id}.pdf`) writes below the folder, each made inside the root.
    const subfolder = path.dirname(decision.fileName);
    const saved = await options.api.downloadReportFile(item.report_id, {
      folder: await context.folderFor(subfolder),
      fileName: path.basename(decision.fileName),
      ifExists: decision.ifExists,
      signal,
      onProgress: options.onProgress
        ? (bytes) => {
            folderRun.arrived(bytes - received);
            received = bytes;
          }
        : undefined,
    });
    const file = subfolder === '.' ? saved : { ...saved, fileName: decision.fileName };
    run.saved.push({ report: item, file });
    run.bytes += file.bytes;
    folderRun.wrote(file.bytes);
    folderRun.keep(saved);
  } catch (error) {
    if (isCancellation(error) || signal.aborted) {
      run.cancelled = true;
      return;
    }
    // Remembered for the run when no other file could escape it (disk full, the lab refused).
    folderRun.failed(lab.name, lab.origin, error);
    run.failed.push({ reportId: item.report_id, error });
    options.warn?.(
      `Report ${item.report_id} was not saved: ${error instanceof LabApiError ? error.describe() : String(error)}`,
    );
  } finally {
    folderRun.arrived(-received);
  }
}
