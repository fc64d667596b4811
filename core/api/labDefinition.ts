import { parseBaseUrl, type LabBaseUrl } from '../connection/baseUrl';
import { DEFAULT_ENDPOINTS, LabPaths, parseEndpoints, type EndpointTemplates } from './endpoints';
import type { LabApiError } from '../errors/errors';
import { labError } from '../errors/messages';
import { MAX_PAGE_SIZE } from './query';
import { proxyProblem } from '../connection/network';
import { errorText } from '../errors/errorText';
import { serverText } from '../errors/serverText';

/** The filters of spec §4.9 a lab can confirm; the pickers offer only a lab's own. */
export const FILTER_NAMES = [
  'published_since',
  'status',
  'client_id',
  'project_id',
  'received_since',
  'updated_since',
] as const;
export type FilterName = (typeof FILTER_NAMES)[number];
/** Without a `filters` list, a lab is taken to offer every filter the spec names for reports and samples. */
export const DEFAULT_FILTERS: readonly FilterName[] = [
  'published_since',
  'status',
  'client_id',
  'project_id',
  'received_since',
];

export const MAX_CONCURRENCY = 16;
const NAME_SHAPE =
  /^[^\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]{1,60}$/u;

/** A usable lab: where it is, which paths it serves, and how it pages and filters. */
export interface LabDefinition {
  /** Unique; how users, commands and tree items refer to the lab. */
  readonly name: string;
  readonly url: LabBaseUrl;
  readonly endpoints: EndpointTemplates;
  readonly pageSize?: number;
  readonly maxConcurrentRequests?: number;
  readonly filters: readonly FilterName[];
  /** True for the lab `labData.baseUrl` defines (named `labData.labName`, else after its host), false for `labData.labs` entries. */
  readonly shorthand: boolean;
  /** A proxy of this lab's own (a lab behind another proxy than VS Code's): its requests take Lab Data's own connection. */
  readonly proxy?: string;
  /** Certificate files this lab's own connection trusts too (PEM paths), besides `labData.caCertificates`. */
  readonly caCertificates?: readonly string[];
}

/** The lab's name with its address after it ("Harbor (127.0.0.1:8443)"), or the address alone when the lab is named after it. */
export function nameWithAddress(lab: Pick<LabDefinition, 'name' | 'url'>): string {
  return lab.name === lab.url.host ? lab.name : `${lab.name} (${lab.url.host})`;
}

/** A lab entry that cannot be used; it is shown (with `error`) and sends no request. */
export interface InvalidLab {
  readonly name: string;
  /** The address as written, for display. */
  readonly baseUrl?: string;
  readonly error: LabApiError;
}

export interface LabDefinitions {
  readonly labs: readonly LabDefinition[];
  readonly invalid: readonly InvalidLab[];
}

/** The request paths of a lab. */
export function labPaths(lab: LabDefinition): LabPaths {
  return new LabPaths(lab.url.basePath, lab.endpoints);
}

/** A definition with the spec's defaults, for a bare base URL (tests, the one-lab shorthand). */
export function defaultLabDefinition(
  url: LabBaseUrl,
  name: string = url.host,
  shorthand = true,
): LabDefinition {
  return { name, url, endpoints: DEFAULT_ENDPOINTS, filters: DEFAULT_FILTERS, shorthand };
}

/** Why `name` cannot name a lab (empty, too long, control or invisible characters), or undefined. */
export function labNameProblem(name: string): string | undefined {
  return NAME_SHAPE.test(name.trim())
    ? undefined
    : 'A lab name is 1 to 60 characters without control characters';
}

/**
 * `name` when `taken` does not hold it, else the first of "name (2)", "name (3)", … that it does
 * not, cut to fit the 60 characters a lab name may have: the name proposed for a lab whose own name
 * another lab already has.
 */
export function freeLabName(name: string, taken: (candidate: string) => boolean): string {
  const base = name.trim();
  for (let count = 1; ; count++) {
    const suffix = count === 1 ? '' : ` (${count})`;
    const candidate = `${base.slice(0, 60 - suffix.length).trimEnd()}${suffix}`;
    if (!taken(candidate)) {
      return candidate;
    }
  }
}

/**
 * The name a lab gives itself in its records (a report's `lab_name`), cleaned as any server text
 * is, when it is one that can name a lab; else undefined (the caller names the lab otherwise).
 */
export function ownLabName(value: unknown): string | undefined {
  const name = typeof value === 'string' ? serverText(value, 60).trim() : '';
  return name && labNameProblem(name) === undefined ? name : undefined;
}

function integerIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/**
 * Validates one `labData.labs` entry. Every problem is collected, so the error row names them all;
 * one problem makes the whole lab unusable (it sends no request at all).
 */
export function parseLabDefinition(entry: unknown, index: number): LabDefinition | InvalidLab {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    const name = `#${index + 1}`;
    return {
      name,
      error: labError('invalidInput', 'labInvalid', {
        name,
        problems: 'each entry must be an object with "name" and "baseUrl"',
      }),
    };
  }
  const raw = entry as Record<string, unknown>;
  const problems: string[] = [];
  const nameText = typeof raw.name === 'string' ? raw.name.trim() : '';
  if (!NAME_SHAPE.test(nameText)) {
    problems.push('"name" must be 1 to 60 characters without control characters');
  }
  const name = nameText && NAME_SHAPE.test(nameText) ? nameText : `#${index + 1}`;
  let url: LabBaseUrl | undefined;
  if (typeof raw.baseUrl !== 'string') {
    problems.push('"baseUrl" is missing');
  } else {
    try {
      url = parseBaseUrl(raw.baseUrl);
    } catch (error) {
      problems.push(errorText(error).replace(/\.$/, ''));
    }
  }
  const { endpoints, problems: endpointProblems } = parseEndpoints(raw.endpoints);
  problems.push(...endpointProblems);
  if (raw.pageSize !== undefined && !integerIn(raw.pageSize, 1, MAX_PAGE_SIZE)) {
    problems.push(`"pageSize" must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  if (
    raw.maxConcurrentRequests !== undefined &&
    !integerIn(raw.maxConcurrentRequests, 1, MAX_CONCURRENCY)
  ) {
    problems.push(`"maxConcurrentRequests" must be a whole number from 1 to ${MAX_CONCURRENCY}`);
  }
  let filters: readonly FilterName[] = DEFAULT_FILTERS;
  if (raw.filters !== undefined) {
    if (
      !Array.isArray(raw.filters) ||
      raw.filters.some((filter) => !(FILTER_NAMES as readonly unknown[]).includes(filter))
    ) {
      problems.push(`"filters" must list only ${FILTER_NAMES.join(', ')}`);
    } else {
      filters = [...new Set(raw.filters as FilterName[])];
    }
  }
  let proxy: string | undefined;
  if (raw.proxy !== undefined) {
    const problem = typeof raw.proxy === 'string' ? proxyProblem(raw.proxy.trim()) : undefined;
    if (typeof raw.proxy !== 'string' || raw.proxy.trim() === '' || problem) {
      problems.push('"proxy" must be a proxy address such as http://proxy.example:3128');
    } else {
      proxy = raw.proxy.trim();
    }
  }
  let caCertificates: string[] | undefined;
  if (raw.caCertificates !== undefined) {
    if (
      !Array.isArray(raw.caCertificates) ||
      raw.caCertificates.some((file) => typeof file !== 'string' || file.trim() === '')
    ) {
      problems.push('"caCertificates" must list PEM files');
    } else {
      caCertificates = (raw.caCertificates as string[]).map((file) => file.trim());
    }
  }
  if (problems.length > 0 || !url) {
    return {
      name,
      baseUrl: typeof raw.baseUrl === 'string' ? raw.baseUrl.slice(0, 200) : undefined,
      error: labError('invalidInput', 'labInvalid', { name, problems: problems.join('; ') }),
    };
  }
  return {
    name,
    url,
    endpoints,
    pageSize: raw.pageSize as number | undefined,
    maxConcurrentRequests: raw.maxConcurrentRequests as number | undefined,
    filters,
    shorthand: false,
    ...(proxy ? { proxy } : {}),
    ...(caCertificates && caCertificates.length > 0 ? { caCertificates } : {}),
  };
}

export function isInvalidLab(value: LabDefinition | InvalidLab): value is InvalidLab {
  return 'error' in value;
}

/**
 * Every lab the user defined: the `labData.labs` entries, plus the lab `labData.baseUrl` names
 * (called `labData.labName`, else after its host) unless an entry already has that address or name. Both values must come
 * from the user's own settings; this function only validates them.
 */
export function parseLabDefinitions(
  labsSetting: unknown,
  baseUrlSetting: unknown,
  nameSetting?: unknown,
): LabDefinitions {
  const labs: LabDefinition[] = [];
  const invalid: InvalidLab[] = [];
  const entries = Array.isArray(labsSetting) ? labsSetting : [];
  const names = new Set<string>();
  entries.forEach((entry, index) => {
    const parsed = parseLabDefinition(entry, index);
    const key = parsed.name.toLowerCase();
    if (names.has(key)) {
      invalid.push({
        name: parsed.name,
        error: labError('invalidInput', 'labInvalid', {
          name: parsed.name,
          problems: 'another lab already has this name',
        }),
      });
      return;
    }
    names.add(key);
    (isInvalidLab(parsed) ? invalid : labs).push(parsed as never);
  });
  if (typeof baseUrlSetting === 'string' && baseUrlSetting.trim() !== '') {
    try {
      const url = parseBaseUrl(baseUrlSetting);
      const own = typeof nameSetting === 'string' ? nameSetting.trim() : '';
      const name = own && NAME_SHAPE.test(own) ? own : url.host;
      if (
        !names.has(name.toLowerCase()) &&
        !labs.some((lab) => lab.url.baseUrl === url.baseUrl && lab.endpoints === DEFAULT_ENDPOINTS)
      ) {
        labs.unshift(defaultLabDefinition(url, name));
      }
    } catch (error) {
      const problems = errorText(error).replace(/\.$/, '');
      invalid.unshift({
        name: 'labData.baseUrl',
        baseUrl: baseUrlSetting.slice(0, 200),
        error: labError('invalidInput', 'labInvalid', { name: 'labData.baseUrl', problems }),
      });
    }
  }
  return { labs, invalid };
}
