import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Report } from '../api/records';
import { parseBaseUrl } from '../connection/baseUrl';
import { errorText } from '../errors/errorText';
import { LOCAL_FOLDER, localFolder, writeLocal } from '../sync/localState';
import type { ManifestEntry, SyncManifest } from '../sync/manifestModel';
import { resolveSince } from './savedSearches';

// A subset of a folder's reports, chosen by the fields its manifest records (like git-lfs's
// --include, DVC's targets). It lives here rather than in sync/ because it reads "since" as the
// listings do (savedSearches.ts); pull, status and verify get a manifest restricted to it.

/** The committed file beside the manifest that names selections (never the manifest itself: merges and determinism stay untouched). */
export const PROFILES_FILE = 'lab-data-profiles.json';

/** Fields that take several values, any of which selects (OR within a field). */
export const LIST_FIELDS = [
  'lab',
  'client',
  'project',
  'status',
  'type',
  'sample',
  'report',
] as const;
type ListField = (typeof LIST_FIELDS)[number];

/** What selects reports, as given on a command line or in a profile; every field given must hold (AND across fields). */
export type SelectionCriteria = {
  readonly [field in ListField]?: readonly string[];
} & {
  /** Published at or after: a date (2026-01-31), a timestamp with its zone, or an age (30d, today). */
  readonly since?: string;
  /** Published at or before: as `since`; a date alone includes that whole day (UTC). */
  readonly until?: string;
};

/** A problem with a selection or a profile file, in words a person can act on. */
export class SelectionError extends Error {
  override readonly name = 'SelectionError';
}

/** One set of criteria, checked and with its times resolved, and how it is said ("profile 'mine'", "--client C-1001"). */
interface Rule {
  readonly said: string;
  readonly lists: ReadonlyArray<readonly [ListField, ReadonlySet<string>]>;
  readonly sinceMs?: number;
  readonly untilMs?: number;
}

/** A selection: every rule must hold (a profile, then the flags that narrow it). */
export interface Selection {
  readonly rules: readonly Rule[];
}

/** What a rule looks at of a report, whether recorded in a manifest or listed by a lab. */
interface Facts {
  readonly lab: string;
  readonly origin: string;
  readonly report: string;
  readonly client?: string;
  readonly project?: string;
  readonly status?: string;
  readonly type?: string;
  readonly samples?: readonly string[];
  readonly published_at?: string;
}

/** Whether a `--lab` value is an address (its origin is compared) rather than a section's name. */
function isAddress(value: string): boolean {
  return value.includes('://');
}

function originOf(value: string, said: string): string {
  try {
    return parseBaseUrl(value).origin;
  } catch (error) {
    throw new SelectionError(`${said}: ${errorText(error)}`);
  }
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A "since" or "until" in milliseconds, read as `sync --since` reads it: a date, a timestamp with
 * its zone, `today`, or an age (`24h`, `30d`, `2w`, `1m`, `1y`). An `until` date alone ends with
 * its day (UTC), so `--until 2026-01-31` includes the 31st.
 */
export function resolveTime(value: string, now: Date, name: string, endOfDay = false): number {
  const text = value.trim();
  let resolved: string;
  try {
    resolved = resolveSince(/^\d+[hdwmy]$/i.test(text) ? `-${text}` : text, now, name);
  } catch (error) {
    throw new SelectionError(errorText(error));
  }
  const ms = Date.parse(resolved);
  return endOfDay && DATE_ONLY.test(text) ? ms + 86_400_000 - 1 : ms;
}

/** How a lab is kept in a rule: by its name, or by the origin of the address given. */
function labKey(value: string, said: string): string {
  return isAddress(value) ? `origin ${originOf(value, said)}` : `name ${value}`;
}

function ruleHolds(rule: Rule, facts: Facts): boolean {
  for (const [field, values] of rule.lists) {
    const holds =
      field === 'lab'
        ? values.has(`name ${facts.lab}`) || values.has(`origin ${facts.origin}`)
        : field === 'sample'
          ? (facts.samples ?? []).some((sample) => values.has(sample))
          : values.has(String(facts[field] ?? ''));
    if (!holds) {
      return false;
    }
  }
  if (rule.sinceMs !== undefined || rule.untilMs !== undefined) {
    const published = facts.published_at === undefined ? NaN : Date.parse(facts.published_at);
    if (
      Number.isNaN(published) ||
      (rule.sinceMs !== undefined && published < rule.sinceMs) ||
      (rule.untilMs !== undefined && published > rule.untilMs)
    ) {
      return false;
    }
  }
  return true;
}

function holds(selection: Selection, facts: Facts): boolean {
  return selection.rules.every((rule) => ruleHolds(rule, facts));
}

function entryFacts(lab: string, origin: string, entry: ManifestEntry): Facts {
  return { ...entry, lab, origin, report: entry.report_id };
}

/** Whether a report a lab lists (one the folder may not record yet) is of the selection. */
export function selectsReport(
  selection: Selection,
  lab: string,
  origin: string,
  report: Report,
): boolean {
  return holds(selection, {
    lab,
    origin,
    report: report.report_id,
    client: report.client_id,
    project: report.project_id,
    status: report.status,
    type: report.report_type,
    samples: report.sample_ids,
    published_at: report.published_at,
  });
}

/** A manifest restricted to a selection, and what it left out. */
export interface SelectedManifest {
  /** Only the selected entries; a lab none of whose reports is selected is left out. */
  readonly manifest: SyncManifest;
  readonly total: number;
  readonly selected: number;
  /** The recorded bytes of the selected reports. */
  readonly bytes: number;
}

/** The manifest of the selected reports only: what pull, status and verify are given. */
export function selectEntries(manifest: SyncManifest, selection: Selection): SelectedManifest {
  // No rule selects every entry: each lab's section is kept as it is, not copied (ten thousand
  // entries copied cost more than the stats).
  const everything = selection.rules.length === 0;
  const labs: Record<string, SyncManifest['labs'][string]> = {};
  let total = 0;
  let selected = 0;
  let bytes = 0;
  for (const lab in manifest.labs) {
    const section = manifest.labs[lab]!;
    const files: Record<string, ManifestEntry> = {};
    let any = false;
    for (const id in section.files) {
      const entry = section.files[id]!;
      total++;
      if (everything || holds(selection, entryFacts(lab, section.origin, entry))) {
        if (!everything) {
          files[id] = entry;
        }
        selected++;
        bytes += entry.bytes;
        any = true;
      }
    }
    if (any) {
      labs[lab] = everything ? section : { ...section, files };
    }
  }
  return { manifest: { ...manifest, labs }, total, selected, bytes };
}

/** Whether some entry of the manifest records a field (a field none records could select nothing). */
function recorded(manifest: SyncManifest, field: ListField | 'published_at'): boolean {
  if (field === 'lab' || field === 'report') {
    return true;
  }
  const key = field === 'sample' ? 'samples' : field;
  for (const lab in manifest.labs) {
    const files = manifest.labs[lab]!.files;
    for (const id in files) {
      if (files[id]![key] !== undefined) {
        return true;
      }
    }
  }
  return false;
}

function labsOf(manifest: SyncManifest): string {
  return Object.entries(manifest.labs)
    .map(([name, section]) => `"${name}" at ${section.origin}`)
    .join(', ');
}

/**
 * Checks criteria against the manifest they select from, and resolves their times: a lab it
 * lacks (by name or address), or a field none of its reports records, is said here, not
 * discovered later as a selection of nothing.
 */
export function ruleOf(
  said: string,
  criteria: SelectionCriteria,
  manifest: SyncManifest,
  now: Date,
): Rule {
  const lists: Array<readonly [ListField, ReadonlySet<string>]> = [];
  for (const field of LIST_FIELDS) {
    const values = criteria[field];
    if (values === undefined || values.length === 0) {
      continue;
    }
    if (!recorded(manifest, field)) {
      throw new SelectionError(
        `${said} selects by ${field}, which no report in the manifest records (the manifest was written before it was kept, or the lab does not send it).`,
      );
    }
    if (field === 'lab') {
      for (const value of values) {
        const found = Object.entries(manifest.labs).some(([name, section]) =>
          isAddress(value) ? originOf(value, said) === section.origin : name === value,
        );
        if (!found) {
          throw new SelectionError(
            `${said} names the lab "${value}", which the manifest does not have ${isAddress(value) ? 'at that address' : 'by that name'} (its labs: ${labsOf(manifest) || 'none'}).`,
          );
        }
      }
    }
    lists.push([
      field,
      new Set(field === 'lab' ? values.map((value) => labKey(value, said)) : values),
    ]);
  }
  if (
    (criteria.since !== undefined || criteria.until !== undefined) &&
    !recorded(manifest, 'published_at')
  ) {
    throw new SelectionError(
      `${said} selects by publication date, which no report in the manifest records.`,
    );
  }
  const sinceMs =
    criteria.since === undefined ? undefined : resolveTime(criteria.since, now, `${said}: since`);
  const untilMs =
    criteria.until === undefined
      ? undefined
      : resolveTime(criteria.until, now, `${said}: until`, true);
  if (sinceMs !== undefined && untilMs !== undefined && sinceMs > untilMs) {
    throw new SelectionError(
      `${said}: "since" ${criteria.since} is after "until" ${criteria.until}.`,
    );
  }
  return { said, lists, sinceMs, untilMs };
}

/** One named selection of the profile file. */
export interface Profile {
  readonly name: string;
  readonly description?: string;
  readonly criteria: SelectionCriteria;
}

/** The profile file: its profiles, and the one that applies when none is named. */
export interface Profiles {
  readonly file: string;
  readonly profiles: ReadonlyMap<string, Profile>;
  readonly default?: string;
}

const PROFILE_KEYS: ReadonlySet<string> = new Set([
  ...LIST_FIELDS,
  'since',
  'until',
  'description',
]);
const FILE_KEYS: ReadonlySet<string> = new Set(['version', 'default', 'profiles']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= 200;
}

function profileOf(name: string, value: unknown, where: string): Profile {
  const said = `${where}: profile "${name}"`;
  if (!isObject(value)) {
    throw new SelectionError(`${said} must be an object of fields, e.g. { "client": ["C-1001"] }.`);
  }
  const criteria: Record<string, unknown> = {};
  for (const [key, given] of Object.entries(value)) {
    if (!PROFILE_KEYS.has(key)) {
      throw new SelectionError(
        `${said} has an unknown field "${key}" (known: ${[...PROFILE_KEYS].join(', ')}).`,
      );
    }
    if (key === 'since' || key === 'until' || key === 'description') {
      if (!nonEmptyText(given)) {
        throw new SelectionError(`${said}: "${key}" must be text, e.g. "2026-01-31" or "30d".`);
      }
      criteria[key] = given.trim();
      continue;
    }
    const values = typeof given === 'string' ? [given] : given;
    if (!Array.isArray(values) || values.length === 0 || !values.every(nonEmptyText)) {
      throw new SelectionError(
        `${said}: "${key}" must be a list of one or more values, e.g. ["A", "B"] (or one value as text).`,
      );
    }
    criteria[key] = values.map((text) => text.trim());
  }
  const { description, ...rest } = criteria;
  return {
    name,
    ...(typeof description === 'string' ? { description } : {}),
    criteria: rest as SelectionCriteria,
  };
}

/**
 * Reads the profile file's text strictly: an unknown key, a value of the wrong type or a default
 * naming no profile is an error naming the file and the place, never a profile quietly ignored.
 */
export function parseProfiles(text: string, file: string): Profiles {
  const where = path.basename(file);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SelectionError(`${where} is not JSON: ${errorText(error)}.`);
  }
  if (!isObject(parsed)) {
    throw new SelectionError(`${where} must hold an object: { "version": 1, "profiles": { … } }.`);
  }
  for (const key of Object.keys(parsed)) {
    if (!FILE_KEYS.has(key)) {
      throw new SelectionError(
        `${where} has an unknown key "${key}" (known: ${[...FILE_KEYS].join(', ')}).`,
      );
    }
  }
  if (parsed.version !== 1) {
    throw new SelectionError(
      `${where} has version ${JSON.stringify(parsed.version) ?? 'none'}; this lab-data reads version 1.`,
    );
  }
  if (!isObject(parsed.profiles)) {
    throw new SelectionError(`${where} needs "profiles": an object of named profiles.`);
  }
  const profiles = new Map<string, Profile>();
  for (const [name, value] of Object.entries(parsed.profiles)) {
    if (!nonEmptyText(name)) {
      throw new SelectionError(`${where}: a profile needs a name of 1 to 200 characters.`);
    }
    profiles.set(name, profileOf(name, value, where));
  }
  const chosen = parsed.default;
  if (chosen !== undefined && (typeof chosen !== 'string' || !profiles.has(chosen))) {
    throw new SelectionError(
      `${where}: "default" must name one of its profiles (${[...profiles.keys()].join(', ') || 'none'}), not ${JSON.stringify(chosen)}.`,
    );
  }
  return { file, profiles, ...(chosen !== undefined ? { default: chosen } : {}) };
}

/** The folder's profile file, or undefined when it has none. */
export async function readProfiles(folder: string): Promise<Profiles | undefined> {
  const file = path.join(folder, PROFILES_FILE);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw new SelectionError(`${PROFILES_FILE} cannot be read: ${errorText(error)}.`);
  }
  return parseProfiles(text, file);
}

/** The clone's own profile: a name in `.lab-data/` (never committed), set by `lab-data profile use`. */
export const CLONE_PROFILE_FILE = 'profile';
/** How the clone's profile file is said: relative to the manifest's folder. */
export const CLONE_PROFILE_SAID = `${LOCAL_FOLDER}/${CLONE_PROFILE_FILE}`;
/** The variable that names a profile for a shell or a CI job (the command line's alone). */
export const PROFILE_VARIABLE = 'LAB_DATA_PROFILE';

/** Where the profile that applies was named, strongest first. */
export type ProfileSource = 'flag' | 'environment' | 'clone' | 'default';

/** The name in the clone's `.lab-data/profile`, or undefined when it has none (or an empty one). */
export async function readCloneProfile(folder: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await fs.readFile(path.join(localFolder(folder), CLONE_PROFILE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw new SelectionError(`${CLONE_PROFILE_SAID} cannot be read: ${errorText(error)}.`);
  }
  const name = text.trim();
  return name === '' ? undefined : name;
}

/**
 * Makes `name` the clone's own profile (undefined forgets it): refused, naming the profile file,
 * when that file has no such profile. Written into `.lab-data/`, which git ignores.
 */
export async function useCloneProfile(folder: string, name: string | undefined): Promise<void> {
  if (name === undefined) {
    await fs.rm(path.join(localFolder(folder), CLONE_PROFILE_FILE), { force: true });
    return;
  }
  const profiles = await readProfiles(folder);
  if (!profiles?.profiles.has(name)) {
    throw new SelectionError(noProfile(name, profiles));
  }
  await writeLocal(folder, CLONE_PROFILE_FILE, `${name}\n`);
}

function noProfile(name: string, profiles: Profiles | undefined): string {
  return profiles
    ? `${PROFILES_FILE} has no profile "${name}" (its profiles: ${[...profiles.profiles.keys()].join(', ') || 'none'}).`
    : `There is no profile "${name}": the folder has no ${PROFILES_FILE}.`;
}

/** How a profile's source is said after its name: "named by LAB_DATA_PROFILE". */
export function profileSourceSaid(source: ProfileSource): string {
  switch (source) {
    case 'flag':
      return 'named by --profile';
    case 'environment':
      return `named by ${PROFILE_VARIABLE}`;
    case 'clone':
      return `this clone's, named in ${CLONE_PROFILE_SAID}`;
    default:
      return `the default of ${PROFILES_FILE}`;
  }
}

/**
 * The one rule of which profile applies: `--profile` > LAB_DATA_PROFILE > the clone's
 * `.lab-data/profile` > the profile file's default; none with `all`. Both clients ask it (the
 * extension has no variable and no flag, only the clone's file).
 */
export function profileNameOf(
  request: Pick<SelectionRequest, 'profile' | 'environment' | 'clone' | 'all'>,
  profiles: Profiles | undefined,
): { readonly name: string; readonly source: ProfileSource } | undefined {
  if (request.all) {
    return undefined;
  }
  const given: ReadonlyArray<readonly [string | undefined, ProfileSource]> = [
    [request.profile, 'flag'],
    [request.environment, 'environment'],
    [request.clone, 'clone'],
    [profiles?.default, 'default'],
  ];
  for (const [name, source] of given) {
    if (name !== undefined && name.trim() !== '') {
      return { name: name.trim(), source };
    }
  }
  return undefined;
}

/** What a command was asked to select. */
export interface SelectionRequest {
  /** `--profile NAME`. */
  readonly profile?: string;
  /** LAB_DATA_PROFILE: the command line's alone. */
  readonly environment?: string;
  /** The clone's own profile ({@link readCloneProfile}). */
  readonly clone?: string;
  /** `--all`: no profile, not even the default (flags still apply). */
  readonly all?: boolean;
  /** The flags, and how each is said. */
  readonly flags: SelectionCriteria;
  readonly flagsSaid: string;
}

/** The selection a command applies, how it came about, and what it left out. */
export interface Chosen extends SelectedManifest {
  readonly selection?: Selection;
  /** The profile that applies, and where it was named. */
  readonly profile?: { readonly name: string; readonly source: ProfileSource };
  /** How the selection is said: "profile 'mine' and --since 30d". */
  readonly said?: string;
}

function hasCriteria(criteria: SelectionCriteria): boolean {
  return Object.values(criteria).some((value) => value !== undefined && value.length !== 0);
}

/**
 * The selection of a command: the profile {@link profileNameOf} chooses (none with `all`); then the
 * flags, which narrow it further. No profile and no flags select every report. A selection of
 * none is an error: a CI step that checks nothing must not pass.
 */
export function chooseSelection(
  manifest: SyncManifest,
  profiles: Profiles | undefined,
  request: SelectionRequest,
  now = new Date(),
): Chosen {
  if (request.all && request.profile !== undefined) {
    throw new SelectionError(
      'Give --profile or --all, not both: --all selects without any profile.',
    );
  }
  const named = profileNameOf(request, profiles);
  const rules: Rule[] = [];
  let profile: Chosen['profile'];
  if (named !== undefined) {
    const found = profiles?.profiles.get(named.name);
    if (!found) {
      throw new SelectionError(
        `${noProfile(named.name, profiles)}${named.source === 'default' ? '' : ` It was ${profileSourceSaid(named.source)}.`}`,
      );
    }
    profile = named;
    rules.push(ruleOf(`${PROFILES_FILE}: profile "${named.name}"`, found.criteria, manifest, now));
  }
  if (hasCriteria(request.flags)) {
    rules.push(ruleOf(request.flagsSaid, request.flags, manifest, now));
  }
  if (rules.length === 0) {
    return selectEntries(manifest, { rules });
  }
  const selection: Selection = { rules };
  const selected = selectEntries(manifest, selection);
  const said = [
    ...(profile ? [`profile "${profile.name}"`] : []),
    ...(hasCriteria(request.flags) ? [request.flagsSaid] : []),
  ].join(' with ');
  if (selected.selected === 0) {
    throw new SelectionError(
      `The selection (${said}) selects none of the ${selected.total} reports in the manifest; nothing was done.${profile !== undefined && profile.source !== 'flag' ? ` (Profile "${profile.name}" is ${profileSourceSaid(profile.source)}; --all selects without it.)` : ''}`,
    );
  }
  return { ...selected, selection, profile, said };
}

/**
 * The selection of a folder as both clients ask it: its profile file and the clone's own profile
 * read (neither with `all`), then {@link chooseSelection}.
 */
export async function selectionOfFolder(
  folder: string,
  manifest: SyncManifest,
  request: Omit<SelectionRequest, 'clone'>,
  now = new Date(),
): Promise<Chosen> {
  if (request.all) {
    // --all names no profile: the files are not read (a broken one does not stop it).
    return chooseSelection(manifest, undefined, request, now);
  }
  const [profiles, clone] = await Promise.all([readProfiles(folder), readCloneProfile(folder)]);
  return chooseSelection(manifest, profiles, { ...request, clone }, now);
}
