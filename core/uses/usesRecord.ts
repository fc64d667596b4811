import { byCodeUnit, stableJson } from '../sync/lockfile';

/** The committed record of uses, beside the manifest. */
export const USES_FILE_NAME = 'lab-data-uses.json';
export const USES_VERSION = 1;

/** How a use is known: the reader recorded a read (`read`), or the consumer's text names the id (`named`). */
export type UseKind = 'read' | 'named';

/** One consumer's use of one report: which revision and file it used, and how that is known. */
export interface ReportUse {
  readonly consumer: string;
  /** The lab's origin (the manifest section's). */
  readonly lab: string;
  readonly id: string;
  readonly revision?: string;
  readonly sha256: string;
  readonly how: UseKind;
}

/** The whole record: every use, sorted by consumer, lab, id. */
export interface UsesRecord {
  readonly uses: readonly ReportUse[];
}

/** The key a record holds one use under: one consumer, one report of one lab. */
export function useKey(use: Pick<ReportUse, 'consumer' | 'lab' | 'id'>): string {
  return `${use.consumer}\u0000${use.lab}\u0000${use.id}`;
}

function byUse(a: ReportUse, b: ReportUse): number {
  return byCodeUnit(a.consumer, b.consumer) || byCodeUnit(a.lab, b.lab) || byCodeUnit(a.id, b.id);
}

/** A record of these uses, one per consumer and report (the last given wins), sorted. */
export function usesRecord(uses: Iterable<ReportUse>): UsesRecord {
  const byKey = new Map<string, ReportUse>();
  for (const use of uses) {
    byKey.set(useKey(use), use);
  }
  return { uses: [...byKey.values()].sort(byUse) };
}

/**
 * The committed text: sorted keys, one consumer a block, one use a line, a trailing newline, and
 * nothing but the fields of {@link ReportUse} (no times, no machine's paths, never a token), so
 * two machines recording the same uses write the same bytes and a merge is line by line.
 */
export function usesText(record: UsesRecord): string {
  const consumers: Record<string, unknown[]> = {};
  for (const use of usesRecord(record.uses).uses) {
    (consumers[use.consumer] ??= []).push({
      how: use.how,
      id: use.id,
      lab: use.lab,
      revision: use.revision,
      sha256: use.sha256,
    });
  }
  return `${stableJson({ consumers, version: USES_VERSION })}\n`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Thrown for a record that cannot be read: the sentence says why. */
export class UsesRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsesRecordError';
  }
}

/** Reads the committed text (undefined or empty: no uses). Refuses conflict markers and unknown versions. */
export function parseUses(text: string | undefined): UsesRecord {
  if (text === undefined || text.trim() === '') {
    return { uses: [] };
  }
  const marker = /^(<{7}|={7}|>{7})/m.exec(text);
  if (marker) {
    const line = text.slice(0, marker.index).split('\n').length;
    throw new UsesRecordError(
      `${USES_FILE_NAME} holds git's conflict markers (line ${line}); lab-data merge-manifest merges it.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsesRecordError(`${USES_FILE_NAME} is not JSON (${(error as Error).message}).`);
  }
  if (!isObject(parsed) || parsed.version !== USES_VERSION || !isObject(parsed.consumers)) {
    throw new UsesRecordError(
      `${USES_FILE_NAME} is not a record of uses of version ${USES_VERSION}.`,
    );
  }
  const uses: ReportUse[] = [];
  for (const [consumer, list] of Object.entries(parsed.consumers)) {
    if (!Array.isArray(list)) {
      throw new UsesRecordError(`${USES_FILE_NAME}: ${consumer} does not hold a list of uses.`);
    }
    for (const item of list) {
      if (
        !isObject(item) ||
        typeof item.id !== 'string' ||
        typeof item.lab !== 'string' ||
        typeof item.sha256 !== 'string' ||
        (item.how !== 'read' && item.how !== 'named') ||
        (item.revision !== undefined && typeof item.revision !== 'string')
      ) {
        throw new UsesRecordError(`${USES_FILE_NAME}: a use of ${consumer} is not one.`);
      }
      uses.push({
        consumer,
        lab: item.lab,
        id: item.id,
        ...(item.revision !== undefined ? { revision: item.revision } : {}),
        sha256: item.sha256,
        how: item.how,
      });
    }
  }
  return usesRecord(uses);
}

/** Whether a parsed JSON text has the shape of a record of uses (not of a manifest). */
export function isUsesText(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) && isObject(parsed.consumers) && !('labs' in parsed);
  } catch {
    return false;
  }
}

/** Compares two revisions: numbers as numbers, anything else as text; a missing one is oldest. */
export function compareRevisions(a?: string, b?: string): number {
  if (a === undefined || b === undefined) {
    return a === b ? 0 : a === undefined ? -1 : 1;
  }
  const [x, y] = [Number(a), Number(b)];
  return Number.isFinite(x) && Number.isFinite(y) ? Math.sign(x - y) : byCodeUnit(a, b);
}

function same(a: ReportUse, b: ReportUse): boolean {
  return a.revision === b.revision && a.sha256 === b.sha256 && a.how === b.how;
}

/**
 * Which of two uses of one report by one consumer stands: the newer revision (a consumer that
 * used revision 2 on one branch has moved on from revision 1 on the other); at the same revision,
 * a `read` over a `named` (a read is observed, a name only inferred); else the one whose SHA-256
 * sorts first, so both sides of any merge, in either order, come to the same record.
 */
export function laterUse(a: ReportUse, b: ReportUse): ReportUse {
  const order = compareRevisions(a.revision, b.revision);
  if (order !== 0) {
    return order > 0 ? a : b;
  }
  if (a.how !== b.how) {
    return a.how === 'read' ? a : b;
  }
  return byCodeUnit(a.sha256, b.sha256) <= 0 ? a : b;
}

/**
 * Merges two records that grew from `base`, use by use (per consumer, per report): a use only one
 * side has is kept, unless the other side removed it since `base` (then the removal wins); a use
 * both sides have the same is kept; a use only one side changed since `base` takes that change;
 * a use both changed differently takes {@link laterUse}. It never fails and never conflicts.
 */
export function mergeUses(base: UsesRecord, ours: UsesRecord, theirs: UsesRecord): UsesRecord {
  const index = (record: UsesRecord): Map<string, ReportUse> =>
    new Map(record.uses.map((use) => [useKey(use), use]));
  const [b, o, t] = [index(base), index(ours), index(theirs)];
  const merged: ReportUse[] = [];
  for (const key of new Set([...o.keys(), ...t.keys()])) {
    const [was, mine, other] = [b.get(key), o.get(key), t.get(key)];
    if (!mine || !other) {
      const only = (mine ?? other)!;
      // Removed on the other side since the base, unchanged on this one: the removal wins.
      if (!(was && same(was, only))) {
        merged.push(only);
      }
      continue;
    }
    if (same(mine, other)) {
      merged.push(mine);
    } else if (was && same(was, mine)) {
      merged.push(other);
    } else if (was && same(was, other)) {
      merged.push(mine);
    } else {
      merged.push(laterUse(mine, other));
    }
  }
  return usesRecord(merged);
}
