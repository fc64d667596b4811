import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import type { Report } from '../api/records';
import { writeFileSafely, type SavedFile } from '../files/safeWriter';

export const MANIFEST_FILE_NAME = 'lab-data-sync.json';

/**
 * What the folder remembers of one saved report file, its provenance: which revision of which
 * report it is (the lab's name and origin are its section's). Never the token.
 */
export interface ManifestEntry {
  readonly report_id: string;
  readonly file: string;
  readonly published_at?: string;
  /** The report's status when it was saved (`published`, `amended`…). */
  readonly status?: string;
  /** A revision the lab sent (`revision`, `version` or `report_version`), as text. */
  readonly revision?: string;
  readonly updated_at?: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly saved_at: string;
  /** Endpoint path the file came from, e.g. `/api/v1/reports/R-1/file`. */
  readonly source: string;
  /** The report's metadata as the lab sent it when the file was saved, to compare with later. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

const REVISION_FIELDS = ['revision', 'version', 'report_version', 'revision_number'] as const;

/** The revision a report's metadata names, if the lab sends one. */
export function revisionOf(raw: Readonly<Record<string, unknown>>): string | undefined {
  for (const field of REVISION_FIELDS) {
    const value = raw[field];
    if ((typeof value === 'string' && value.trim()) || (typeof value === 'number' && Number.isFinite(value))) {
      return String(value);
    }
  }
  return undefined;
}

/** The manifest entry of a report saved just now. */
export function manifestEntry(report: Report, file: SavedFile, savedAt: string, source: string, previous?: ManifestEntry): ManifestEntry {
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
    bytes: file.bytes,
    sha256: file.sha256,
    saved_at: savedAt,
    source,
    metadata: known ? report.raw : previous?.metadata,
  };
  // Fields the lab did not send are left out, not written as null.
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)) as unknown as ManifestEntry;
}

/** A section with the files saved just now recorded (single saves and bulk saves; the watermark is sync's). */
export function recordSaved(section: LabSection, saved: ReadonlyArray<{ readonly report: Report; readonly file: SavedFile }>, savedAt: string, sourceOf: (reportId: string) => string): LabSection {
  const files: Record<string, ManifestEntry> = { ...section.files };
  for (const { report, file } of saved) {
    files[report.report_id] = manifestEntry(report, file, savedAt, sourceOf(report.report_id), files[report.report_id]);
  }
  return { ...section, files };
}

/** One lab's part of a folder's manifest: where it is, its watermark, and the files it saved. */
export interface LabSection {
  /** The lab's origin; a section whose lab has moved to another origin is not used. */
  readonly origin: string;
  /** Latest `published_at` seen; the next sync asks only for reports published since then. */
  readonly watermark?: string;
  readonly files: Readonly<Record<string, ManifestEntry>>;
}

/** The manifest of a download folder: one section per lab, so labs sharing a folder never mix. */
export interface SyncManifest {
  readonly version: 2;
  readonly labs: Readonly<Record<string, LabSection>>;
}

/** The identity a section is kept under: the lab's name, checked against its origin. */
export interface LabKey {
  readonly name: string;
  readonly origin: string;
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
  return typeof value.watermark === 'string' ? { origin: value.origin, watermark: value.watermark, files } : { origin: value.origin, files };
}

/**
 * Reads a manifest text. A 0.1.0 manifest (`version: 1`, one lab) becomes a legacy section that
 * the lab at the same origin adopts on its next sync; anything unreadable means "start afresh".
 */
export function parseManifest(text: string | undefined): SyncManifest {
  const empty: SyncManifest = { version: 2, labs: {} };
  if (text === undefined) {
    return empty;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return empty;
  }
  if (!isObject(parsed)) {
    return empty;
  }
  if (parsed.version === 1 && typeof parsed.lab === 'string' && isObject(parsed.files)) {
    const origin = (/^[a-z]+:\/\/[^/]+/i.exec(parsed.lab) ?? [parsed.lab])[0];
    const section = asSection({ origin, watermark: parsed.watermark, files: parsed.files });
    return section ? { version: 2, labs: { [`${LEGACY_PREFIX}${parsed.lab}`]: section } } : empty;
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
  return { version: 2, labs };
}

/** A lab's section of a manifest: its own, or a 0.1.0 one from the same origin, or an empty one. */
export function sectionFor(manifest: SyncManifest, lab: LabKey): LabSection {
  const own = manifest.labs[lab.name];
  if (own && own.origin === lab.origin) {
    return own;
  }
  const legacy = Object.entries(manifest.labs).find(([key, section]) => key.startsWith(LEGACY_PREFIX) && section.origin === lab.origin);
  return legacy?.[1] ?? { origin: lab.origin, files: {} };
}

/** The manifest with `lab`'s section replaced (a legacy section of its origin is adopted, so removed). */
export function withSection(manifest: SyncManifest, lab: LabKey, section: LabSection): SyncManifest {
  const labs = Object.fromEntries(Object.entries(manifest.labs).filter(([key, value]) => !(key.startsWith(LEGACY_PREFIX) && value.origin === lab.origin)));
  labs[lab.name] = section;
  const sorted = Object.fromEntries(Object.entries(labs).sort(([a], [b]) => a.localeCompare(b)));
  return { version: 2, labs: sorted };
}

/** Reads the manifest of a folder. */
export async function readManifest(folder: string): Promise<SyncManifest> {
  return parseManifest(await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8').catch(() => undefined));
}

/** Writes the manifest through the safe writer (temporary file, then rename), files sorted for stable diffs. */
export async function writeManifest(folder: string, manifest: SyncManifest): Promise<void> {
  const labs = Object.fromEntries(
    Object.entries(manifest.labs).map(([name, section]) => [name, { ...section, files: Object.fromEntries(Object.entries(section.files).sort(([a], [b]) => a.localeCompare(b))) }]),
  );
  const text = `${JSON.stringify({ version: 2, labs }, null, 2)}\n`;
  await writeFileSafely({ folder, fileName: MANIFEST_FILE_NAME, source: Readable.from([Buffer.from(text)]), ifExists: 'overwrite' });
}

const manifestQueues = new Map<string, Promise<unknown>>();

/**
 * Reads a folder's manifest, changes one lab's section and writes it back, one change at a time
 * per folder (a single save finishing during a sync never loses either's entries). `change`
 * returns undefined when there is nothing to write. Resolves to whether the manifest was written.
 */
export function updateManifest(folder: string, lab: LabKey, change: (section: LabSection) => LabSection | undefined): Promise<boolean> {
  const key = path.resolve(folder);
  const run = (manifestQueues.get(key) ?? Promise.resolve())
    .catch(() => undefined)
    .then(async () => {
      const manifest = await readManifest(folder);
      const next = change(sectionFor(manifest, lab));
      if (next === undefined) {
        return false;
      }
      await writeManifest(folder, withSection(manifest, lab, next));
      return true;
    });
  manifestQueues.set(key, run);
  void run.finally(() => manifestQueues.get(key) === run && manifestQueues.delete(key)).catch(() => undefined);
  return run;
}

/** Whether a local file is the lab's file of this report as published: the manifest's SHA-256 of the same revision. */
export function isUpToDate(report: Report, entry: ManifestEntry | undefined, localSha256: string | undefined): boolean {
  return entry !== undefined && localSha256 !== undefined && localSha256 === entry.sha256 && entry.published_at === report.published_at;
}
