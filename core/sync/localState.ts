import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { labError } from '../errors/messages';
import { writeFileSafely } from '../files/safeWriter';
import type { LabSection, SyncManifest } from './manifestModel';

/**
 * A folder's machine state, beside its committed manifest and never committed: `.lab-data/`
 * holds a `.gitignore` of `*` (so git ignores the folder, itself included, without the user doing
 * anything, wherever the report folder sits in the repository), `state.json` (per report the
 * SHA-256 a file's size and time vouch for, when it was saved; per lab the sync watermark) and
 * `metadata.json` (the lab's full metadata of each saved report, for provenance, read only when
 * asked for, so verifying a large folder never parses it); `profile` (this clone's own profile,
 * core/derived/selection.ts) is written here too.
 */
export const LOCAL_FOLDER = '.lab-data';
const STATE_FILE = 'state.json';
const METADATA_FILE = 'metadata.json';

interface FileState {
  readonly sha256: string;
  readonly mtime_ms?: number;
  readonly saved_at?: string;
}

interface LabState {
  readonly watermark?: string;
  readonly files: Record<string, FileState>;
}

/** `state.json`: per lab origin, its watermark and what each file's size and time vouch for. */
export interface LocalState {
  readonly version: 1;
  readonly labs: Record<string, LabState>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function localFolder(folder: string): string {
  return path.join(folder, LOCAL_FOLDER);
}

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
  } catch {
    // Machine state is a cache: a missing or broken file only means files are hashed again.
    return undefined;
  }
}

export async function readLocalState(folder: string): Promise<LocalState> {
  const parsed = await readJson(path.join(localFolder(folder), STATE_FILE));
  if (!isObject(parsed) || parsed.version !== 1 || !isObject(parsed.labs)) {
    return { version: 1, labs: {} };
  }
  return parsed as unknown as LocalState;
}

/**
 * The manifest with each entry's time and each section's watermark from the local state. The
 * entries are completed in place, not copied: the manifest is one read just now, and a copy of each
 * of ten thousand entries costs more than reading both files.
 */
export function withLocalState(manifest: SyncManifest, state: LocalState): SyncManifest {
  const labs: Record<string, LabSection> = {};
  for (const [name, section] of Object.entries(manifest.labs)) {
    const lab = state.labs[section.origin];
    if (!lab || !isObject(lab.files)) {
      labs[name] = section;
      continue;
    }
    // for…in, not Object.entries: ten thousand entries without ten thousand pairs made and dropped.
    for (const id in section.files) {
      const entry = section.files[id]!;
      const local = lab.files[id];
      // A time vouches only for the bytes it was recorded with: after a merge brings another SHA-256, the file is hashed.
      if (local && local.sha256 === entry.sha256 && entry.mtime_ms === undefined) {
        const completed = entry as { mtime_ms?: number; saved_at?: string };
        if (typeof local.mtime_ms === 'number') {
          completed.mtime_ms = local.mtime_ms;
        }
        if (typeof local.saved_at === 'string' && entry.saved_at === undefined) {
          completed.saved_at = local.saved_at;
        }
      }
    }
    const watermark =
      section.watermark ?? (typeof lab.watermark === 'string' ? lab.watermark : undefined);
    labs[name] = watermark !== undefined ? { ...section, watermark } : section;
  }
  return { ...manifest, labs };
}

/** The local state of a manifest: what of it is this machine's. */
export function localStateOf(manifest: SyncManifest): LocalState {
  const labs: Record<string, LabState> = {};
  for (const section of Object.values(manifest.labs)) {
    const files: Record<string, FileState> = {};
    for (const id in section.files) {
      const entry = section.files[id]!;
      if (entry.mtime_ms !== undefined || entry.saved_at !== undefined) {
        files[id] = { sha256: entry.sha256, mtime_ms: entry.mtime_ms, saved_at: entry.saved_at };
      }
    }
    labs[section.origin] = { watermark: section.watermark, files };
  }
  return { version: 1, labs };
}

/**
 * Makes the folder's `.lab-data/` with its `.gitignore` of `*`, once. A `.lab-data` that is a link
 * (a repository can commit one) is refused: it would make Lab Data write where the link points.
 */
export async function ensureLocalFolder(folder: string): Promise<string> {
  const local = localFolder(folder);
  await fs.mkdir(local, { recursive: true });
  const stats = await fs.lstat(local);
  if (!stats.isDirectory()) {
    throw labError('invalidInput', 'localFolderNotOwn', { folder: local });
  }
  const ignore = path.join(local, '.gitignore');
  await fs
    .writeFile(ignore, '# Lab Data: this machine’s state, never committed\n*\n', {
      flag: 'wx',
    })
    .catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') {
        throw error;
      }
    });
  return local;
}

/** Writes one file of the folder's `.lab-data/` whole (a temporary file renamed into place). */
export async function writeLocal(folder: string, fileName: string, text: string): Promise<void> {
  const local = await ensureLocalFolder(folder);
  await writeFileSafely({
    folder: local,
    root: folder,
    fileName,
    source: Readable.from([Buffer.from(text)]),
    ifExists: 'overwrite',
  });
}

export async function writeLocalState(folder: string, state: LocalState): Promise<void> {
  await writeLocal(folder, STATE_FILE, JSON.stringify(state));
}

/**
 * Records the full metadata of entries that carry it (a save just now, or an older manifest
 * being rewritten) in `metadata.json`, keyed by origin, report id and SHA-256.
 */
export async function recordMetadata(folder: string, manifest: SyncManifest): Promise<void> {
  const carried = Object.values(manifest.labs).flatMap((section) =>
    Object.values(section.files)
      .filter((entry) => entry.metadata !== undefined)
      .map((entry) => ({ origin: section.origin, entry })),
  );
  if (carried.length === 0) {
    return;
  }
  const file = path.join(localFolder(folder), METADATA_FILE);
  const parsed = await readJson(file);
  const all: Record<string, Record<string, unknown>> = isObject(parsed)
    ? (parsed as Record<string, Record<string, unknown>>)
    : {};
  // Each origin's record copied once, not once an entry: ten thousand saved reports are one pass.
  const copied = new Set<string>();
  for (const { origin, entry } of carried) {
    if (!copied.has(origin)) {
      copied.add(origin);
      all[origin] = { ...all[origin] };
    }
    all[origin]![entry.report_id] = { sha256: entry.sha256, metadata: entry.metadata };
  }
  await writeLocal(folder, METADATA_FILE, JSON.stringify(all));
}

/** The metadata the lab sent when a report's recorded file was saved on this machine, if kept. */
export async function savedMetadata(
  folder: string,
  origin: string,
  reportId: string,
): Promise<Readonly<Record<string, unknown>> | undefined> {
  const parsed = await readJson(path.join(localFolder(folder), METADATA_FILE));
  const kept = isObject(parsed) && isObject(parsed[origin]) ? parsed[origin][reportId] : undefined;
  return isObject(kept) && isObject(kept.metadata) ? kept.metadata : undefined;
}

/** Whether a process of this id is running (a lock it holds is not stale). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `work` holding the folder's lock (`.lab-data/lock`, made with O_EXCL), so two pulls or
 * syncs into one folder never interleave. A lock whose process is gone is taken over; one held
 * by a running process makes this one stop with `busy` (it names the process), writing nothing.
 */
export async function withFolderLock<T>(
  folder: string,
  work: () => Promise<T>,
  busy: (pid: number) => Error,
): Promise<T> {
  const lock = path.join(await ensureLocalFolder(folder), 'lock');
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) {
        const holder = Number(await fs.readFile(lock, 'utf8').catch(() => ''));
        throw busy(holder);
      }
      const holder = Number(await fs.readFile(lock, 'utf8').catch(() => ''));
      if (Number.isInteger(holder) && holder > 0 && running(holder)) {
        throw busy(holder);
      }
      await fs.rm(lock, { force: true });
    }
  }
  try {
    return await work();
  } finally {
    await fs.rm(lock, { force: true });
  }
}

/** Records the times of files restored just now, so the next verify trusts them without hashing. */
export async function recordFileTimes(
  folder: string,
  times: ReadonlyArray<{
    readonly origin: string;
    readonly reportId: string;
    readonly sha256: string;
    readonly mtimeMs: number;
  }>,
): Promise<void> {
  const state = await readLocalState(folder);
  const labs = { ...state.labs };
  // Each lab's files copied once, not once a file: ten thousand restored files are one pass.
  const copied = new Set<string>();
  for (const { origin, reportId, sha256, mtimeMs } of times) {
    if (!copied.has(origin)) {
      copied.add(origin);
      labs[origin] = { ...labs[origin], files: { ...labs[origin]?.files } };
    }
    labs[origin]!.files[reportId] = { sha256, mtime_ms: mtimeMs };
  }
  await writeLocalState(folder, { version: 1, labs });
}
