import { mapConcurrently } from '../async/concurrency';
import { LabApiError } from '../errors/errors';
import type { LabApi } from '../api/labApi';
import type { Report } from '../api/records';
import { currentSha256s } from './currentHashes';
import { readManifest, revisionOf, type ManifestEntry, type SyncManifest } from './manifest';
import { labEntries } from './manifestModel';
import { errorText } from '../errors/errorText';

/** Why a saved report no longer matches the lab, each a short phrase. */
export function changesAtLab(entry: ManifestEntry, current: Report): string[] {
  const reasons: string[] = [];
  const revision = revisionOf(current.raw);
  if (revision !== undefined && entry.revision !== undefined && revision !== entry.revision) {
    reasons.push(`revision ${entry.revision} → ${revision}`);
  }
  const updatedAt = typeof current.raw.updated_at === 'string' ? current.raw.updated_at : undefined;
  if (
    updatedAt !== undefined &&
    entry.updated_at !== undefined &&
    Date.parse(updatedAt) > Date.parse(entry.updated_at)
  ) {
    reasons.push(`updated ${updatedAt}`);
  }
  if (
    current.published_at !== undefined &&
    entry.published_at !== undefined &&
    Date.parse(current.published_at) > Date.parse(entry.published_at)
  ) {
    reasons.push(`published again ${current.published_at}`);
  }
  if (
    current.status !== undefined &&
    entry.status !== undefined &&
    current.status !== entry.status
  ) {
    reasons.push(`status ${entry.status} → ${current.status}`);
  }
  if (current.download_available === false) {
    reasons.push('no file available any more');
  }
  return reasons;
}

/** What verification found for one saved file. */
export interface VerifiedFile {
  readonly lab: string;
  readonly reportId: string;
  /** The file's path relative to the folder, as the manifest records it. */
  readonly file: string;
  readonly entry: ManifestEntry;
  readonly local: 'same' | 'changed' | 'missing';
  /** Empty when the lab's metadata matches what was saved. */
  readonly atLab: readonly string[];
  /** Set when the lab could not be asked (signed out, unreachable, forbidden). */
  readonly unavailable?: string;
  /** Why the lab could not be asked, when it answered with a failure. */
  readonly error?: LabApiError;
}

/** What verification came to for one file, in the words `lab-data verify` and the `lab-data` tasks print. */
export type VerifiedState = 'ok' | 'missing' | 'changed' | 'unchecked at lab' | 'changed at lab';

/** One file's state, worst first: missing, changed locally, the lab not asked, changed at the lab. */
export function verifiedState(file: VerifiedFile): VerifiedState {
  if (file.local === 'missing') {
    return 'missing';
  }
  if (file.local === 'changed') {
    return 'changed';
  }
  if (file.unavailable !== undefined) {
    return 'unchecked at lab';
  }
  return file.atLab.length > 0 ? 'changed at lab' : 'ok';
}

export interface VerifyResult {
  readonly checked: string[];
  readonly ok: string[];
  readonly changedLocally: string[];
  readonly changedAtLab: string[];
  readonly missing: string[];
  readonly unavailable: string[];
  readonly files: VerifiedFile[];
}

export interface VerifyOptions {
  /**
   * The signed-in lab of that name and origin, or undefined when it cannot be asked. Without it,
   * only the files are checked against the manifest and no lab is asked.
   */
  readonly apiFor?: (lab: string, origin: string) => LabApi | undefined;
  /** Hash every file, even one whose size and time say it is unchanged. */
  readonly rehash?: boolean;
  /** How many reports are asked of the labs at once. */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
  /** The folder's manifest when the caller has read it already (it is then not read again). */
  readonly manifest?: SyncManifest;
}

/**
 * Checks every file a folder's manifest records (hashing those whose size or time changed, or
 * all with `rehash`) and, with `apiFor`, asks each file's lab for the report's current metadata, a
 * few at a time (the lab's own rate limits apply on top): a file is `ok` when its bytes and the
 * lab's metadata are what was saved.
 */
export async function verifyFolder(folder: string, options: VerifyOptions): Promise<VerifyResult> {
  const manifest = options.manifest ?? (await readManifest(folder));
  const work = labEntries(manifest);
  const apiFor = options.apiFor;
  const hashes = await currentSha256s(
    folder,
    work.map((item) => item.entry),
    {
      rehash: options.rehash,
      signal: options.signal,
      // Without a lab to ask, checking the files is all the work there is.
      onProgress: apiFor ? undefined : options.onProgress,
    },
  );
  const checked = work.map((item, index) => checkedLocally(item, hashes[index]));
  let done = 0;
  const files = apiFor
    ? await mapConcurrently(
        checked,
        options.concurrency ?? 4,
        async (file, index) => {
          const asked = await askLab(file, work[index]!.origin, apiFor, options.signal);
          options.onProgress?.(++done, work.length);
          return asked;
        },
        options.signal,
      )
    : checked;
  const ids = (keep: (file: VerifiedFile) => boolean): string[] =>
    files.filter(keep).map((file) => file.reportId);
  return {
    checked: ids(() => true),
    ok: ids(
      (file) => file.local === 'same' && file.atLab.length === 0 && file.unavailable === undefined,
    ),
    changedLocally: ids((file) => file.local === 'changed'),
    changedAtLab: ids((file) => file.atLab.length > 0),
    missing: ids((file) => file.local === 'missing'),
    unavailable: ids((file) => file.unavailable !== undefined),
    files,
  };
}

/** What a file's bytes say, before any lab is asked. */
function checkedLocally(
  item: { lab: string; entry: ManifestEntry },
  sha: string | undefined,
): VerifiedFile {
  const { lab, entry } = item;
  const local = sha === undefined ? 'missing' : sha === entry.sha256 ? 'same' : 'changed';
  return { lab, reportId: entry.report_id, file: entry.file, entry, local, atLab: [] };
}

/** A file's check with what its lab says of the report now. */
async function askLab(
  base: VerifiedFile,
  origin: string,
  apiFor: (lab: string, origin: string) => LabApi | undefined,
  signal: AbortSignal | undefined,
): Promise<VerifiedFile> {
  const { lab, entry } = base;
  const api = apiFor(lab, origin);
  if (!api) {
    return { ...base, atLab: [], unavailable: `not signed in to ${lab} at ${origin}` };
  }
  try {
    return {
      ...base,
      atLab: changesAtLab(entry, await api.getReport(entry.report_id, signal)),
    };
  } catch (error) {
    if (error instanceof LabApiError && error.code === 'notFound') {
      return { ...base, atLab: ['no longer available at the lab'] };
    }
    if (signal?.aborted) {
      throw error;
    }
    return {
      ...base,
      atLab: [],
      unavailable: errorText(error),
      ...(error instanceof LabApiError ? { error } : {}),
    };
  }
}
