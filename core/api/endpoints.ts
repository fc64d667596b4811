import { labError } from '../errors/messages';
import { pathSegment } from './query';

/** The endpoints a lab may rename (spec §9.2: names are placeholders each provider confirms per tenant). */
export type EndpointName =
  'reports' | 'report' | 'reportFile' | 'clients' | 'client' | 'projects' | 'samples';
export type EndpointTemplates = Readonly<Record<EndpointName, string>>;

export const DEFAULT_ENDPOINTS: EndpointTemplates = {
  reports: '/api/v1/reports',
  report: '/api/v1/reports/{report_id}',
  reportFile: '/api/v1/reports/{report_id}/file',
  clients: '/api/v1/clients',
  client: '/api/v1/clients/{client_id}',
  projects: '/api/v1/projects',
  samples: '/api/v1/samples',
};

export const ENDPOINT_NAMES = Object.keys(DEFAULT_ENDPOINTS) as EndpointName[];

type Placeholder = 'report_id' | 'client_id';

/** Which placeholder each endpoint must carry (exactly that one, or none for lists). */
const REQUIRED_PLACEHOLDER: Readonly<Record<EndpointName, Placeholder | undefined>> = {
  reports: undefined,
  report: 'report_id',
  reportFile: 'report_id',
  clients: undefined,
  client: 'client_id',
  projects: undefined,
  samples: undefined,
};

const PLACEHOLDER = /\{([^{}]*)\}/g;

/**
 * Why a path template is unusable, or undefined when it is fine. A template is a path below the
 * lab's base URL: it starts with `/`, holds no scheme, host, query, fragment, backslash or dot
 * segment (percent-encoded ones included), and only the placeholder its endpoint needs.
 */
export function endpointTemplateProblem(name: EndpointName, template: unknown): string | undefined {
  if (typeof template !== 'string' || template.length === 0) {
    return `endpoint "${name}" must be a path such as ${DEFAULT_ENDPOINTS[name]}`;
  }
  if (template.length > 300) {
    return `endpoint "${name}" is longer than 300 characters`;
  }
  if (!template.startsWith('/') || template.startsWith('//')) {
    return `endpoint "${name}" must start with a single "/" (a path on the lab's own address, no host)`;
  }
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(template)) {
    return `endpoint "${name}" contains spaces, control characters or backslashes`;
  }
  if (/[?#]/.test(template)) {
    return `endpoint "${name}" must not contain a query (?) or fragment (#)`;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(template.slice(1)) || /\/\//.test(template)) {
    return `endpoint "${name}" must not contain a scheme or host`;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(template.replace(PLACEHOLDER, 'x'));
  } catch {
    return `endpoint "${name}" has a broken percent-encoding`;
  }
  if (
    decoded.split(/[/\\]/).some((segment) => segment === '.' || segment === '..') ||
    /[\\?#]/.test(decoded) ||
    decoded.includes('//')
  ) {
    return `endpoint "${name}" must not contain "." or ".." segments (percent-encoded ones included)`;
  }
  const placeholders = [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
  const unknown = placeholders.find(
    (placeholder) => placeholder !== 'report_id' && placeholder !== 'client_id',
  );
  if (unknown !== undefined) {
    return `endpoint "${name}" has an unknown placeholder {${unknown.slice(0, 40)}}; only {report_id} and {client_id} exist`;
  }
  if (
    template.replace(PLACEHOLDER, '').includes('{') ||
    template.replace(PLACEHOLDER, '').includes('}')
  ) {
    return `endpoint "${name}" has an unbalanced brace`;
  }
  const required = REQUIRED_PLACEHOLDER[name];
  if (required === undefined && placeholders.length > 0) {
    return `endpoint "${name}" is a list and takes no placeholder`;
  }
  if (required !== undefined && (placeholders.length !== 1 || placeholders[0] !== required)) {
    return `endpoint "${name}" must contain {${required}} exactly once`;
  }
  return undefined;
}

/**
 * Validates a lab's `endpoints` setting over the defaults. Returns every problem found, so one
 * error row can say all of them; an empty list means the templates are usable.
 */
export function parseEndpoints(value: unknown): {
  endpoints: EndpointTemplates;
  problems: string[];
} {
  if (value === undefined || value === null) {
    return { endpoints: DEFAULT_ENDPOINTS, problems: [] };
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      endpoints: DEFAULT_ENDPOINTS,
      problems: ['"endpoints" must be an object of path templates'],
    };
  }
  const problems: string[] = [];
  const endpoints: Record<EndpointName, string> = { ...DEFAULT_ENDPOINTS };
  for (const [key, template] of Object.entries(value as Record<string, unknown>)) {
    if (!(ENDPOINT_NAMES as string[]).includes(key)) {
      problems.push(`"${key.slice(0, 40)}" is not an endpoint; use ${ENDPOINT_NAMES.join(', ')}`);
      continue;
    }
    const problem = endpointTemplateProblem(key as EndpointName, template);
    if (problem) {
      problems.push(problem);
    } else {
      endpoints[key as EndpointName] = template as string;
    }
  }
  return { endpoints, problems };
}

/** The request paths of one lab: its base path plus its (validated) endpoint templates, ids filled in as one segment each. */
export class LabPaths {
  constructor(
    /** Path of the lab's base URL, e.g. `` or `/lims`. */
    private readonly basePath: string,
    private readonly templates: EndpointTemplates,
  ) {}

  reports(): string {
    return this.fill('reports');
  }

  report(reportId: string): string {
    return this.fill('report', { report_id: pathSegment(reportId, 'report') });
  }

  reportFile(reportId: string): string {
    return this.fill('reportFile', { report_id: pathSegment(reportId, 'report') });
  }

  clients(): string {
    return this.fill('clients');
  }

  client(clientId: string): string {
    return this.fill('client', { client_id: pathSegment(clientId, 'client') });
  }

  projects(): string {
    return this.fill('projects');
  }

  samples(): string {
    return this.fill('samples');
  }

  private fill(name: EndpointName, values: Partial<Record<Placeholder, string>> = {}): string {
    const path = this.templates[name].replace(PLACEHOLDER, (_match, key: Placeholder) => {
      const value = values[key];
      if (value === undefined) {
        throw labError('invalidInput', 'endpointPlaceholder', { endpoint: name, placeholder: key });
      }
      return value;
    });
    return `${this.basePath}${path}`;
  }
}
