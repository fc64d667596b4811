import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import type { Report } from '../api/records';
import { foldedFileName, relativePathProblem } from '../files/fileNames';
import { writeFileSafely, type SavedFile } from '../files/safeWriter';
import { SHA256_SHAPE } from '../files/fileCache';
import { fileSha256 } from './reportFiles';
import { isUnmerged } from './gitState';
import { lostMerge } from './lostMerge';
import { errorText } from '../errors/errorText';
import { labError } from '../errors/messages';
import {
  byCodeUnit,
  fromLockfile,
  hasConflictMarkers,
  isLockfileShape,
  lockfileText,
} from './lockfile';
import {
  localStateOf,
  readLocalState,
  recordMetadata,
  withLocalState,
  writeLocalState,
} from './localState';
import {
  LOCKFILE_VERSION,
  type LabKey,
  type LabSection,
  type ManifestEntry,
  type SyncManifest,
} from './manifestModel';

export type { LabKey, LabSection, ManifestEntry, SyncManifest } from './manifestModel';

export const MANIFEST_FILE_NAME = 'lab-data-sync.json';

const REVISION_FIELDS = ['revision', 'version', 'report_version', 'revision_number'] as const;

/** The revision a report's metadata names, if the lab sends one. */
export function revisionOf(raw: Readonly<Record<string, unknown>>): string | undefined {
  for (const field of REVISION_FIELDS) {
    const value = raw[field];
    if (
      (typeof value === 'string' && value.trim()) ||
      (typeof value === 'number' && Number.isFinite(value))
    ) {
      return String(value);
    }
  }
  return undefined;
}

/** The manifest entry of a report saved just now. */
export function manifestEntry(
  report: Report,
  file: SavedFile,
  savedAt: string,
  source: string,
  previous?: ManifestEntry,
): ManifestEntry {
  const updatedAt = typeof report.raw.updated_at === 'string' ? report.raw.updated_at : undefined;
  // A report known only by id (re-fetched after a local delete) keeps what was known of it.
  const known = Object.keys(report.raw).length > 1;
  const entry: Record<string, unknown> = {
    report_id: report.report_id,
    file: file.fileName,
    published_at: report.published_at ?? previous?.published_at,
    status: known ? report.status : previous?.status,
    revision: known ? revisionOf(report.raw) : previous?.revision,
    updated_at: known ? updatedAt : previous?.updated_at,
    type: known ? report.report_type : previous?.type,
    client: known ? report.client_id : previous?.client,
    project: known ? report.project_id : previous?.project,
    samples: known
      ? report.sample_ids && report.sample_ids.length > 0
        ? [...report.sample_ids]
        : undefined
      : previous?.samples,
    bytes: file.bytes,
    sha256: file.sha256,
    mtime_ms: file.mtimeMs,
    saved_at: savedAt,
    source,
    metadata: known ? report.raw : previous?.metadata,
  };
  // Fields the lab did not send are left out, not written as null.
  return Object.fromEntries(
    Object.entries(entry).filter(([, value]) => value !== undefined),
  ) as unknown as ManifestEntry;
}

/** A section with the files saved just now recorded (single saves and bulk saves; the watermark is sync's). */
export function recordSaved(
  section: LabSection,
  saved: ReadonlyArray<{ readonly report: Report; readonly file: SavedFile }>,
  savedAt: string,
  sourceOf: (reportId: string) => string,
): LabSection {
  const files: Record<string, ManifestEntry> = { ...section.files };
  for (const { report, file } of saved) {
    files[report.report_id] = manifestEntry(
      report,
      file,
      savedAt,
      sourceOf(report.report_id),
      files[report.report_id],
    );
  }
  return { ...section, files };
}

const LEGACY_PREFIX = 'legacy:';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asSection(value: unknown): LabSection | undefined {
  if (!isObject(value) || typeof value.origin !== 'string' || !isObject(value.files)) {
    return undefined;
  }
  const files = value.files as Record<string, ManifestEntry>;
  return typeof value.watermark === 'string'
    ? { origin: value.origin, watermark: value.watermark, files }
    : { origin: value.origin, files };
}

/**
 * Reads a manifest text (the folder's, for the messages). A 0.1.0 manifest (`version: 1`, one
 * lab) becomes a legacy section that the lab at the same origin adopts on its next sync; no
 * manifest means an empty one. A manifest that would be lost by starting afresh throws one
 * catalogue error naming the fix: conflict markers left by git, a version newer than this code
 * reads, or text that is not JSON.
 */
export function parseManifest(text: string | undefined, folder = '.'): SyncManifest {
  if (text === undefined) {
    return { version: LOCKFILE_VERSION, labs: {} };
  }
  const file = path.join(folder, MANIFEST_FILE_NAME);
  if (hasConflictMarkers(text)) {
    throw labError('invalidInput', 'manifestConflict', { file, folder });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\ufeff/, ''));
  } catch (error) {
    throw labError('invalidInput', 'manifestUnreadable', {
      file,
      reason: errorText(error),
    });
  }
  if (isObject(parsed) && typeof parsed.version === 'number' && parsed.version > LOCKFILE_VERSION) {
    throw labError('invalidInput', 'manifestNewer', { file, version: parsed.version });
  }
  return manifestFrom(parsed);
}

/** A manifest from its parsed JSON (see {@link parseManifest}); anything unusable gives an empty one. */
function manifestFrom(parsed: unknown): SyncManifest {
  const empty: SyncManifest = { version: LOCKFILE_VERSION, labs: {} };
  if (!isObject(parsed)) {
    return empty;
  }
  if (parsed.version === LOCKFILE_VERSION) {
    return fromLockfile(parsed);
  }
  if (parsed.version === 1 && typeof parsed.lab === 'string' && isObject(parsed.files)) {
    const origin = (/^[a-z]+:\/\/[^/]+/i.exec(parsed.lab) ?? [parsed.lab])[0];
    const section = asSection({ origin, watermark: parsed.watermark, files: parsed.files });
    return section
      ? { version: LOCKFILE_VERSION, labs: { [`${LEGACY_PREFIX}${parsed.lab}`]: section } }
      : empty;
  }
  if (parsed.version !== 2 || !isObject(parsed.labs)) {
    return empty;
  }
  const labs: Record<string, LabSection> = {};
  for (const [name, value] of Object.entries(parsed.labs)) {
    const section = asSection(value);
    if (section) {
      labs[name] = section;
    }
  }
  return { version: LOCKFILE_VERSION, labs };
}

/**
 * A lab's section of a manifest: the one of its origin (a teammate may call the same lab by
 * another name; a 0.1.0 one of the same origin is adopted), or an empty one.
 */
export function sectionFor(manifest: SyncManifest, lab: LabKey): LabSection {
  const own = manifest.labs[lab.name];
  if (own && own.origin === lab.origin) {
    return own;
  }
  const same = Object.values(manifest.labs).find((section) => section.origin === lab.origin);
  return same ?? { origin: lab.origin, files: {} };
}

/** The manifest with `lab`'s section replaced (a legacy section of its origin is adopted, so removed). */
export function withSection(
  manifest: SyncManifest,
  lab: LabKey,
  section: LabSection,
): SyncManifest {
  // One section per origin: a teammate's name for the same lab, or a 0.1.0 section, is replaced.
  const labs = Object.fromEntries(
    Object.entries(manifest.labs).filter(([, value]) => value.origin !== lab.origin),
  );
  labs[lab.name] = section;
  const sorted = Object.fromEntries(Object.entries(labs).sort(([a], [b]) => byCodeUnit(a, b)));
  return { version: LOCKFILE_VERSION, labs: sorted };
}

/** Reads the text of a folder's manifest; undefined when there is none. */
async function manifestText(folder: string): Promise<string | undefined> {
  try {
    return await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8');
  } catch (error) {
    // No file, or no folder to hold one (a file stands where the folder would be: writing says so).
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) {
      return undefined;
    }
    throw labError('invalidInput', 'manifestUnreadable', {
      file: path.join(folder, MANIFEST_FILE_NAME),
      reason: (error as Error).message,
    });
  }
}

/**
 * Throws when git holds a folder's manifest as unmerged (with or without conflict markers): a file
 * a merge driver never ran on holds one side only, and using or rewriting it would lose the other.
 */
async function refuseUnmerged(folder: string, text: string | undefined): Promise<void> {
  const file = path.join(folder, MANIFEST_FILE_NAME);
  if (text !== undefined && (await isUnmerged(file))) {
    throw labError('invalidInput', 'manifestUnmerged', { file, folder });
  }
}

/**
 * Reads the manifest of a folder with this machine's state (file times, watermarks) joined in.
 * Throws (see {@link parseManifest}) rather than start afresh over a manifest it cannot use.
 */
export async function readManifest(folder: string): Promise<SyncManifest> {
  const text = await manifestText(folder);
  await refuseUnmerged(folder, text);
  const manifest = parseManifest(text, folder);
  return withLocalState(manifest, await readLocalState(folder));
}

/**
 * Writes the manifest as version 3: the committed file (deterministic, see `lockfile.ts`) through
 * the safe writer (temporary file, then rename), and this machine's part in the local state.
 */
export async function writeManifest(folder: string, manifest: SyncManifest): Promise<void> {
  await writeFileSafely({
    folder,
    fileName: MANIFEST_FILE_NAME,
    source: Readable.from([Buffer.from(lockfileText(manifest))]),
    ifExists: 'overwrite',
  });
  await writeLocalState(folder, localStateOf(manifest));
  await recordMetadata(folder, manifest);
}

const manifestQueues = new Map<string, Promise<unknown>>();

/**
 * The lab under the name the manifest already gives its origin: a save or sync on a machine that
 * calls the lab otherwise changes entries, not the committed name of every other one (a 0.1.0
 * section is still adopted under the lab's own name). A lab new to the manifest whose name another
 * address's section holds is named `<name> (<host>)`: a write never replaces another's section.
 */
export function namedAsRecorded(manifest: SyncManifest, lab: LabKey): LabKey {
  if (manifest.labs[lab.name]?.origin === lab.origin) {
    return lab;
  }
  const recorded = Object.entries(manifest.labs).find(
    ([name, section]) => section.origin === lab.origin && !name.startsWith(LEGACY_PREFIX),
  );
  if (recorded) {
    return { name: recorded[0], origin: lab.origin };
  }
  // The name is another address's section (a colleague's VPN address of the same lab): a
  // section is keyed by its address, so this one takes a name of its own and that one is kept.
  const taken = (name: string): boolean =>
    manifest.labs[name] !== undefined && manifest.labs[name].origin !== lab.origin;
  if (!taken(lab.name)) {
    return lab;
  }
  const host = new URL(lab.origin).host;
  const candidates = [`${lab.name} (${host})`, `${lab.name} (${lab.origin})`];
  for (let n = 2; ; n += 1) {
    const name = candidates.shift() ?? `${lab.name} (${host}) ${n}`;
    if (!taken(name)) {
      return { name, origin: lab.origin };
    }
  }
}

/**
 * Reads a folder's manifest, changes one lab's section and writes it back, one change at a time
 * per folder (a single save finishing during a sync never loses either's entries). `change`
 * returns undefined when there is nothing to write. Resolves to whether the manifest was written.
 */
export function updateManifest(
  folder: string,
  lab: LabKey,
  change: (section: LabSection) => LabSection | undefined,
): Promise<boolean> {
  const key = path.resolve(folder);
  const run = (manifestQueues.get(key) ?? Promise.resolve())
    .catch(() => undefined)
    .then(async () => {
      const manifest = await readManifest(folder);
      const next = change(sectionFor(manifest, lab));
      if (next === undefined) {
        return false;
      }
      await writeManifest(folder, withSection(manifest, namedAsRecorded(manifest, lab), next));
      return true;
    });
  manifestQueues.set(key, run);
  void run
    .finally(() => manifestQueues.get(key) === run && manifestQueues.delete(key))
    .catch(() => undefined);
  return run;
}

/** Whether a local file is the lab's file of this report as published: the manifest's SHA-256 of the same revision. */
export function isUpToDate(
  report: Report,
  entry: ManifestEntry | undefined,
  localSha256: string | undefined,
): boolean {
  return (
    entry !== undefined &&
    localSha256 !== undefined &&
    localSha256 === entry.sha256 &&
    entry.published_at === report.published_at
  );
}

/**
 * The manifest's SHA-256 of a saved report's file when the file still has the size and
 * modification time it was saved with (so ten thousand unchanged files cost ten thousand `stat`s,
 * not reads); else undefined, and the file's bytes must be hashed.
 */
export function vouchedSha256(
  stats: Stats | undefined,
  entry: ManifestEntry | undefined,
): string | undefined {
  // Within a millisecond: copies and tools that restore times keep them at various precisions (ns, µs, ms).
  return stats !== undefined &&
    entry?.mtime_ms !== undefined &&
    stats.isFile() &&
    stats.size === entry.bytes &&
    Math.abs(stats.mtimeMs - entry.mtime_ms) < 1
    ? entry.sha256
    : undefined;
}

/**
 * The SHA-256 of a saved report's file as it is now, or undefined when it is not there: the
 * manifest's own when its size and time vouch for it ({@link vouchedSha256}), else computed from
 * its bytes. `rehash` always computes.
 */
export async function currentSha256(
  file: string,
  entry: ManifestEntry | undefined,
  rehash = false,
): Promise<string | undefined> {
  if (!rehash && entry?.mtime_ms !== undefined) {
    const stats = await fs.stat(file).catch(() => undefined);
    if (stats === undefined) {
      return undefined;
    }
    const vouched = vouchedSha256(stats, entry);
    if (vouched !== undefined) {
      return vouched;
    }
  }
  return fileSha256(file).catch(() => undefined);
}

/**
 * Why an entry's recorded size (`bytes`) cannot bound a read of its file, or undefined when it can
 * (a whole number of bytes, 0 or more, or none recorded): every download and cache read of the
 * file stops at that size, so a negative, fractional, huge or quoted one is refused, not guessed.
 */
export function recordedSizeProblem(bytes: unknown): string | undefined {
  if (bytes === undefined || (Number.isSafeInteger(bytes) && (bytes as number) >= 0)) {
    return undefined;
  }
  const shown = JSON.stringify(bytes)?.slice(0, 40) ?? String(bytes);
  const what =
    typeof bytes === 'string'
      ? 'a string'
      : typeof bytes !== 'number'
        ? `not a number`
        : bytes < 0
          ? 'negative'
          : Number.isInteger(bytes)
            ? 'too large'
            : 'not a whole number';
  return `its "bytes" is ${shown} (${what}), not a size in bytes to check the file against`;
}

/**
 * The line (from 1) of `field` in the entry of `reportId` in a manifest's text: the first line
 * naming the report as a key, then the first `field` after it; undefined when it cannot be found.
 */
export function lineOfField(text: string, reportId: string, field: string): number | undefined {
  const key = keyOfReport(text, reportId);
  if (key === undefined) {
    return undefined;
  }
  const at = text.indexOf(JSON.stringify(field), key);
  return lineAt(text, at < 0 ? key : at);
}

/**
 * The line (from 1) of the entry of `reportId` in a manifest's text: the first line naming the
 * report as a key; undefined when it cannot be found. Problems about a report as a whole (its
 * file missing or changed) are shown there.
 */
export function lineOfReport(text: string, reportId: string): number | undefined {
  const key = keyOfReport(text, reportId);
  return key === undefined ? undefined : lineAt(text, key);
}

/** Where the first key naming `reportId` starts in a manifest's text. */
function keyOfReport(text: string, reportId: string): number | undefined {
  return new RegExp(`${escapeRegExp(JSON.stringify(reportId))}\\s*:`).exec(text)?.index;
}

function lineAt(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Why a folder's manifest cannot be used as it is; each names the problem for the user. */
export type ManifestProblem =
  | { readonly kind: 'missing'; readonly file: string }
  | { readonly kind: 'conflict'; readonly file: string }
  | { readonly kind: 'unmerged'; readonly file: string }
  | {
      readonly kind: 'lostMerge';
      readonly file: string;
      readonly commit: string;
      readonly reportIds: readonly string[];
    }
  | { readonly kind: 'malformed'; readonly file: string; readonly reason: string }
  | { readonly kind: 'version'; readonly file: string; readonly version: unknown }
  | {
      readonly kind: 'entry';
      readonly file: string;
      readonly lab: string;
      readonly reportId: string;
      readonly name: string;
      readonly reason: string;
      /** The line of the manifest the problem is on, where it can be found. */
      readonly line?: number;
    };

/**
 * Reads a folder's manifest for a tool that must not guess (the command-line tool's pull and
 * verify): unlike {@link readManifest}, which starts afresh from anything unreadable, it says
 * what is wrong: no manifest, a file git holds as unmerged, a committed merge that lost entries
 * its parents record (see `lostMerge.ts`), JSON that does not parse, a version it does not know, an entry whose
 * file name would leave the folder or that another entry already uses, or an entry without a
 * usable SHA-256. Returns the manifest only when there is no problem.
 */
export async function readManifestStrictly(
  folder: string,
): Promise<{ readonly manifest?: SyncManifest; readonly problems: readonly ManifestProblem[] }> {
  const file = path.join(folder, MANIFEST_FILE_NAME);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return { problems: [{ kind: 'missing', file }] };
  }
  if (await isUnmerged(file)) {
    return { problems: [{ kind: 'unmerged', file }] };
  }
  if (hasConflictMarkers(text)) {
    return { problems: [{ kind: 'conflict', file }] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\ufeff/, ''));
  } catch (error) {
    return {
      problems: [{ kind: 'malformed', file, reason: errorText(error) }],
    };
  }
  if (!isObject(parsed)) {
    return { problems: [{ kind: 'malformed', file, reason: 'it is not a JSON object' }] };
  }
  if (parsed.version !== 1 && parsed.version !== 2 && parsed.version !== LOCKFILE_VERSION) {
    return { problems: [{ kind: 'version', file, version: parsed.version }] };
  }
  if (parsed.version === LOCKFILE_VERSION && !isLockfileShape(parsed)) {
    return {
      problems: [
        {
          kind: 'malformed',
          file,
          reason: 'its "labs" are not sections with "reports"',
        },
      ],
    };
  }
  if (
    parsed.version === 2 &&
    (!isObject(parsed.labs) ||
      Object.values(parsed.labs).some((section) => asSection(section) === undefined))
  ) {
    return {
      problems: [
        {
          kind: 'malformed',
          file,
          reason: 'its "labs" are not sections with an "origin" and "files"',
        },
      ],
    };
  }
  const manifest = withLocalState(manifestFrom(parsed), await readLocalState(folder));
  const problems: ManifestProblem[] = [];
  const names = new Map<string, string>();
  for (const [lab, section] of Object.entries(manifest.labs)) {
    for (const key in section.files) {
      const entry = section.files[key];
      const reportId = typeof entry?.report_id === 'string' ? entry.report_id : key;
      const name = typeof entry?.file === 'string' ? entry.file : '';
      const bad = (reason: string): void =>
        void problems.push({ kind: 'entry', file, lab, reportId, name, reason });
      const reason =
        name.toLowerCase() === MANIFEST_FILE_NAME
          ? 'it is the manifest itself'
          : relativePathProblem(name);
      if (reason !== undefined) {
        bad(reason);
        continue;
      }
      if (typeof entry.sha256 !== 'string' || !SHA256_SHAPE.test(entry.sha256)) {
        bad('it has no SHA-256 to check the file against');
        continue;
      }
      const sizeProblem = recordedSizeProblem(entry.bytes as unknown);
      if (sizeProblem !== undefined) {
        problems.push({
          kind: 'entry',
          file,
          lab,
          reportId,
          name,
          reason: sizeProblem,
          line: lineOfField(text, reportId, 'bytes'),
        });
        continue;
      }
      // Case-insensitive file systems (Windows, macOS) would make two such names one file.
      const folded = foldedFileName(name);
      const other = names.get(folded);
      if (other !== undefined) {
        bad(
          `another entry (${other}) has the same file name; lab-data merge-manifest --resolve ${folder} gives one of them a second name`,
        );
        continue;
      }
      names.set(folded, reportId);
    }
  }
  if (problems.length === 0) {
    const lost = await lostMerge(file, manifest, parseManifest);
    if (lost !== undefined) {
      const reportIds = lost.lost.map((entry) => entry.reportId);
      problems.push({ kind: 'lostMerge', file, commit: lost.commit, reportIds });
    }
  }
  return problems.length > 0 ? { problems } : { manifest, problems };
}
