import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { findIds } from '../derived/idPatterns';

/** The files whose text may name a report: scripts, notebooks and prose. */
export const SCANNED_EXTENSIONS = ['.py', '.r', '.rmd', '.qmd', '.ipynb', '.md'] as const;

/** The scan's cache, in the manifest folder's `.lab-data/` (this machine's, never committed). */
export const SCAN_CACHE_FILE_NAME = 'uses-scan.json';

/** A file larger than this (a notebook full of images) is not read. */
const MAX_BYTES = 32 * 1024 * 1024;
/** Files read at once. */
const READ_AT_ONCE = 16;

/**
 * One place a file names an id: its line (0-based), in a notebook its cell (0-based) and the line
 * in that cell's source, or `output` when the id is in the cell's outputs (its line is then the
 * line of that output's text, not of the cell).
 */
export interface ScanHit {
  readonly id: string;
  readonly line: number;
  readonly cell?: number;
  readonly output?: true;
}

/** Whether the scan reads this file (by its extension, case aside). */
export function isScanned(file: string): boolean {
  const lower = file.toLowerCase();
  return SCANNED_EXTENSIONS.some((extension) => lower.endsWith(extension));
}

/**
 * The repository a manifest's folder belongs to: the nearest folder at or above it holding
 * `.git` (a folder, or a worktree's file); the folder itself when there is none.
 */
export async function repositoryTop(folder: string): Promise<string> {
  let at = path.resolve(folder);
  for (;;) {
    if (
      await fs.stat(path.join(at, '.git')).then(
        () => true,
        () => false,
      )
    ) {
      return at;
    }
    const up = path.dirname(at);
    if (up === at) {
      return path.resolve(folder);
    }
    at = up;
  }
}

async function walk(root: string, relative = '', found: string[] = []): Promise<string[]> {
  const entries = await fs
    .readdir(path.join(root, relative), { withFileTypes: true })
    .catch(() => []);
  for (const entry of entries) {
    const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== '.git' && entry.name !== 'node_modules' && entry.name !== '.lab-data') {
        await walk(root, name, found);
      }
    } else if (entry.isFile() && isScanned(entry.name)) {
      found.push(name);
    }
  }
  return found;
}

/**
 * The files of a repository the scan reads, relative to `root` with `/`: what git tracks or would
 * track (`git ls-files -co --exclude-standard`, so `.gitignore` is respected); without git, a walk
 * that skips `.git`, `node_modules` and `.lab-data`.
 */
export async function scannedFiles(root: string): Promise<string[]> {
  let listed: string[] | undefined;
  try {
    const { stdout } = await promisify(execFile)(
      'git',
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      { cwd: root, maxBuffer: 256 * 1024 * 1024 },
    );
    listed = stdout.split('\0').filter((file) => file !== '' && isScanned(file));
  } catch {
    listed = undefined;
  }
  const files = listed ?? (await walk(root));
  return [...new Set(files)].sort();
}

function joined(value: unknown): string {
  return typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.filter((part): part is string => typeof part === 'string').join('')
      : '';
}

function linesOf(text: string, pattern: RegExp, cell?: number, output?: boolean): ScanHit[] {
  const hits: ScanHit[] = [];
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    starts.push(at + 1);
  }
  let line = 0;
  for (const match of findIds(text, [{ kind: 'report', pattern }])) {
    while (line + 1 < starts.length && starts[line + 1]! <= match.start) {
      line += 1;
    }
    hits.push({
      id: match.id,
      line,
      ...(cell !== undefined ? { cell } : {}),
      ...(output ? { output: true as const } : {}),
    });
  }
  return hits;
}

/** The text parts of a notebook cell: its source first, then its outputs' text (streams, text data, errors). */
function cellTexts(cell: Record<string, unknown>): string[] {
  const texts = [joined(cell.source)];
  for (const output of Array.isArray(cell.outputs) ? (cell.outputs as unknown[]) : []) {
    if (typeof output !== 'object' || output === null) {
      continue;
    }
    const { text, data, traceback } = output as Record<string, unknown>;
    texts.push(joined(text));
    if (Array.isArray(traceback)) {
      texts.push(traceback.filter((part) => typeof part === 'string').join('\n'));
    }
    if (typeof data === 'object' && data !== null) {
      for (const [type, value] of Object.entries(data)) {
        if (type.startsWith('text/') || type === 'application/json') {
          texts.push(
            typeof value === 'object' && !Array.isArray(value)
              ? JSON.stringify(value)
              : joined(value),
          );
        }
      }
    }
  }
  return texts;
}

/**
 * Where a file's text names an id the pattern recognises. A notebook's cells are read one by one
 * (sources and outputs), each hit placed in its cell; a notebook that is not JSON is read as text.
 */
export function scanText(file: string, text: string, pattern: RegExp): ScanHit[] {
  if (file.toLowerCase().endsWith('.ipynb')) {
    let notebook: unknown;
    try {
      notebook = JSON.parse(text);
    } catch {
      notebook = undefined;
    }
    const cells = (notebook as { cells?: unknown } | undefined)?.cells;
    if (Array.isArray(cells)) {
      return cells.flatMap((cell, index) =>
        typeof cell === 'object' && cell !== null
          ? cellTexts(cell as Record<string, unknown>).flatMap((part, at) =>
              linesOf(part, pattern, index, at > 0),
            )
          : [],
      );
    }
  }
  return linesOf(text, pattern);
}

interface CachedFile {
  readonly size: number;
  readonly mtimeMs: number;
  readonly hits: readonly ScanHit[];
}

/** Bumped when what a hit holds changes, so a cache of an older scan is read again. */
const CACHE_FORMAT = 2;

interface ScanCache {
  readonly pattern: string;
  readonly files: Record<string, CachedFile>;
}

async function readCache(file: string, pattern: string): Promise<Record<string, CachedFile>> {
  try {
    const cache = JSON.parse(await fs.readFile(file, 'utf8')) as ScanCache;
    return cache.pattern === pattern && typeof cache.files === 'object' && cache.files !== null
      ? cache.files
      : {};
  } catch {
    return {};
  }
}

/** What a scan found and how much it read. */
export interface RepositoryScan {
  /** Per file (relative to the root, `/`), where it names ids; files naming none are left out. */
  readonly hits: ReadonlyMap<string, readonly ScanHit[]>;
  readonly files: number;
  /** Files read this time (the others came from the cache, unchanged by size and time). */
  readonly read: number;
}

/**
 * Scans a repository's scripts, notebooks and prose for ids the pattern recognises. Incremental:
 * a file whose size and modification time are those in the cache (`cacheFile`, keyed also by the
 * pattern) is not read again. The cache is rewritten when anything changed.
 */
export async function scanRepository(
  root: string,
  pattern: RegExp,
  cacheFile?: string,
): Promise<RepositoryScan> {
  const files = await scannedFiles(root);
  const key = `${CACHE_FORMAT} ${pattern.source}`;
  const cached = cacheFile ? await readCache(cacheFile, key) : {};
  const next: Record<string, CachedFile> = {};
  let read = 0;
  let next_index = 0;
  const worker = async (): Promise<void> => {
    while (next_index < files.length) {
      const file = files[next_index++]!;
      const full = path.join(root, file);
      const stat = await fs.stat(full).catch(() => undefined);
      if (!stat?.isFile()) {
        continue;
      }
      const known = cached[file];
      if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) {
        next[file] = known;
        continue;
      }
      read += 1;
      const text = stat.size > MAX_BYTES ? '' : await fs.readFile(full, 'utf8').catch(() => '');
      next[file] = { size: stat.size, mtimeMs: stat.mtimeMs, hits: scanText(file, text, pattern) };
    }
  };
  await Promise.all(Array.from({ length: READ_AT_ONCE }, worker));
  const changed = read > 0 || Object.keys(cached).length !== Object.keys(next).length;
  if (cacheFile && changed) {
    // Written only where its folder is (the caller made it): never a folder deleted meanwhile.
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    try {
      await fs.writeFile(temporary, JSON.stringify({ pattern: key, files: next }));
      await fs.rename(temporary, cacheFile);
    } catch (error) {
      // The folder went away while it was scanned: there is nothing to keep a cache for.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw error;
      }
    }
  }
  const hits = new Map<string, readonly ScanHit[]>();
  for (const file of files) {
    const found = next[file]?.hits;
    if (found && found.length > 0) {
      hits.set(file, found);
    }
  }
  return { hits, files: Object.keys(next).length, read };
}
