import { LabApiError } from '../errors/errors';
import { labError } from '../errors/messages';
import { toUtcTimestamp, type ListFilters } from '../api/query';
import { errorText } from '../errors/errorText';

/**
 * A search the user keeps in `labData.savedSearches`: a name and report filters, with an optional
 * lab (without one it applies to every lab). `publishedSince` may be relative, see {@link resolveSince}.
 */
export interface SavedSearch {
  readonly name: string;
  readonly lab?: string;
  readonly publishedSince?: string;
  readonly status?: string;
  readonly clientId?: string;
  readonly projectId?: string;
}

/** A setting entry that could not be used, and why (in English; shown in the log and on the search's row). */
export interface InvalidSavedSearch {
  readonly index: number;
  readonly name?: string;
  readonly error: LabApiError;
}

const RELATIVE = /^-\s*(\d{1,4})\s*(h|d|w|m|y)$/i;

/**
 * Resolves a "since" value at `now`: `today` (local midnight), `-24h`, `-7d`, `-2w`, `-1m`
 * (calendar months), `-1y`, or an ISO 8601 timestamp. Returns UTC `YYYY-MM-DDTHH:MM:SSZ`.
 * Month and year steps keep the day of the month, clamped to the target month's last day
 * (31 March minus one month is 28 or 29 February), in local time like `today`.
 */
export function resolveSince(value: string, now: Date, name = 'published-since date'): string {
  const text = value.trim();
  if (text.toLowerCase() === 'today') {
    return toUtcTimestamp(new Date(now.getFullYear(), now.getMonth(), now.getDate()), name);
  }
  const match = RELATIVE.exec(text);
  if (!match) {
    if (text.startsWith('-') || /^[+\d]+[a-z]$/i.test(text)) {
      throw labError('invalidInput', 'sinceNotRelative', { name, text: text.slice(0, 40) });
    }
    return toUtcTimestamp(text, name);
  }
  const amount = Number(match[1]);
  const unit = match[2]!.toLowerCase();
  if (unit === 'h' || unit === 'd' || unit === 'w') {
    const hours = unit === 'h' ? amount : unit === 'd' ? amount * 24 : amount * 24 * 7;
    return toUtcTimestamp(new Date(now.getTime() - hours * 3_600_000), name);
  }
  const months = unit === 'm' ? amount : amount * 12;
  const target = new Date(
    now.getFullYear(),
    now.getMonth() - months,
    1,
    now.getHours(),
    now.getMinutes(),
    now.getSeconds(),
  );
  const lastDay = new Date(target.getFullYear(), target.getMonth() + 1, 0).getDate();
  target.setDate(Math.min(now.getDate(), lastDay));
  return toUtcTimestamp(target, name);
}

/** Whether a "since" value moves with the clock (`today`, `-7d`, …) rather than naming a moment. */
export function isRelativeSince(value: string): boolean {
  const text = value.trim();
  return text.toLowerCase() === 'today' || RELATIVE.test(text);
}

const FIELDS = ['name', 'lab', 'publishedSince', 'status', 'clientId', 'projectId'] as const;

/**
 * Reads the `labData.savedSearches` setting. Each entry needs a name (unique, at most 100
 * characters) and string values; a `publishedSince` is checked now so a typo shows at once, and
 * resolved again at every refresh. Unknown keys are ignored so newer settings stay readable.
 */
export function parseSavedSearches(
  value: unknown,
  now = new Date(),
): { readonly searches: SavedSearch[]; readonly invalid: InvalidSavedSearch[] } {
  const searches: SavedSearch[] = [];
  const invalid: InvalidSavedSearch[] = [];
  if (!Array.isArray(value)) {
    return { searches, invalid };
  }
  const names = new Set<string>();
  value.forEach((entry: unknown, index) => {
    const name =
      typeof (entry as { name?: unknown } | null)?.name === 'string'
        ? (entry as { name: string }).name.trim() || undefined
        : undefined;
    const fail = (why: string): void =>
      void invalid.push({
        index,
        name,
        error: labError('invalidInput', 'savedSearchInvalid', {
          name: name ?? `#${index + 1}`,
          why,
        }),
      });
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      return fail('it is not an object');
    }
    if (!name || name.length > 100) {
      return fail('it needs a "name" of 1 to 100 characters');
    }
    const record = entry as Record<string, unknown>;
    const kept: Record<string, string> = {};
    for (const field of FIELDS) {
      const given = record[field];
      if (given === undefined || given === null || given === '') {
        continue;
      }
      if (typeof given !== 'string' || given.trim().length > 200) {
        return fail(`"${field}" must be text of at most 200 characters`);
      }
      kept[field] = given.trim();
    }
    const key = `${kept.lab ?? ''}\u0000${name.toLowerCase()}`;
    if (names.has(key)) {
      return fail('another saved search has the same name');
    }
    if (kept.publishedSince !== undefined) {
      try {
        resolveSince(kept.publishedSince, now);
      } catch (error) {
        return fail(errorText(error).replace(/\.$/, ''));
      }
    }
    names.add(key);
    searches.push({ ...kept, name } as SavedSearch);
  });
  return { searches, invalid };
}

/** The searches shown for a lab: those naming it, and those naming no lab. */
export function searchesForLab(searches: readonly SavedSearch[], lab: string): SavedSearch[] {
  return searches.filter((search) => search.lab === undefined || search.lab === lab);
}

/** The filters a saved search sends, with its date resolved at `now`. */
export function searchFilters(search: SavedSearch, now: Date): ListFilters {
  return {
    ...(search.publishedSince !== undefined
      ? { publishedSince: resolveSince(search.publishedSince, now) }
      : {}),
    ...(search.status !== undefined ? { status: search.status } : {}),
    ...(search.clientId !== undefined ? { clientId: search.clientId } : {}),
    ...(search.projectId !== undefined ? { projectId: search.projectId } : {}),
  };
}

/** The lab filters (spec names) a saved search needs, to check them against the filters a lab offers. */
export function filtersNeeded(
  search: SavedSearch,
): Array<'published_since' | 'status' | 'client_id' | 'project_id'> {
  return [
    search.publishedSince !== undefined && 'published_since',
    search.status !== undefined && 'status',
    search.clientId !== undefined && 'client_id',
    search.projectId !== undefined && 'project_id',
  ].filter(
    (filter): filter is 'published_since' | 'status' | 'client_id' | 'project_id' =>
      filter !== false,
  );
}
