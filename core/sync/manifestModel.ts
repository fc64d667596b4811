// The data model of a folder's manifest, shared by the lockfile's text, the local state and the
// manifest's reader and writer (which import it; it imports nothing).

/**
 * The committed manifest, version 3: what every machine agrees on and nothing else. Per lab
 * (keyed by its origin, with its name) and per report: file name, revision, SHA-256, bytes,
 * where it came from, and the few fields a reader needs to know what it is. Machine state (file
 * times, save times, the sync watermark, the lab's full metadata) lives in the folder's local
 * state (`localState.ts`). Keys are sorted by code unit (not by locale, which differs between
 * machines), indented by two spaces, one report a line, with a trailing newline: two syncs of the same lab state give
 * byte-identical files anywhere.
 */
export const LOCKFILE_VERSION = 3;

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
  /** The report's type, client, project and samples: what a reader needs to know what it is. */
  readonly type?: string;
  readonly client?: string;
  readonly project?: string;
  readonly samples?: readonly string[];
  readonly bytes: number;
  readonly sha256: string;
  /**
   * The file's modification time when it was saved (milliseconds since 1970): a file of the same
   * size and time is taken to be unchanged and is not hashed again (`--rehash` in the command-line tool forces it).
   */
  readonly mtime_ms?: number;
  /** When this machine saved it (local state; a fresh clone has none). */
  readonly saved_at?: string;
  /** Endpoint path the file came from, e.g. `/api/v1/reports/R-1/file`. */
  readonly source: string;
  /**
   * The report's metadata as the lab sent it when the file was saved, to compare with later: kept
   * in the folder's local state (`savedMetadata`), present here only on an entry made just now or
   * read from a version 1 or 2 manifest.
   */
  readonly metadata?: Readonly<Record<string, unknown>>;
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
  /** In memory always the current version; files of versions 1 and 2 are read into it. */
  readonly version: typeof LOCKFILE_VERSION;
  readonly labs: Readonly<Record<string, LabSection>>;
}

/** The identity a section is kept under: the lab's name, checked against its origin. */
export interface LabKey {
  readonly name: string;
  readonly origin: string;
}

/** One entry of a manifest with the lab (name and origin) whose section holds it. */
export interface LabEntry {
  readonly lab: string;
  readonly origin: string;
  readonly entry: ManifestEntry;
}

/**
 * Every entry of every lab, in the manifest's order: what pull, status and verify work through.
 * One pass with `for…in` (ten thousand entries without ten thousand intermediate arrays).
 */
export function labEntries(manifest: SyncManifest): LabEntry[] {
  const all: LabEntry[] = [];
  for (const lab in manifest.labs) {
    const section = manifest.labs[lab]!;
    for (const id in section.files) {
      all.push({ lab, origin: section.origin, entry: section.files[id]! });
    }
  }
  return all;
}
