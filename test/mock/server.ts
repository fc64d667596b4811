import { createHash, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import * as zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import {
  generateMockData,
  HIDDEN_REPORT_STATUSES,
  VISIBLE_REPORT_STATUSES,
  type MockData,
  type MockDataOptions,
  type MockProject,
  type MockReport,
} from './data';
import { planPdf } from './pdf';

/** A data area a token may be provisioned for (spec section 5). */
export type DataArea = 'reports' | 'clients' | 'projects' | 'samples';

export interface TokenScope {
  readonly label: string;
  readonly state?: 'valid' | 'expired' | 'revoked';
  /** Limits the token to these clients (and their projects). */
  readonly clientIds?: readonly string[];
  /** Limits the token to these projects. */
  readonly projectIds?: readonly string[];
  readonly areas?: readonly DataArea[];
}

/** The demo tokens, documented in CONTRIBUTING.md ("The mock lab"). */
export const DEMO_TOKENS: Readonly<Record<string, TokenScope>> = {
  'demo-full-access': { label: 'full scope: every client, project and data area' },
  'demo-client-c1001': {
    label: 'client C-1001 (Riverside Water Authority) only',
    clientIds: ['C-1001'],
  },
  'demo-project-p2006': {
    label: 'project P-2006 (Former Fuel Depot Remediation) only',
    projectIds: ['P-2006'],
  },
  'demo-no-reports': {
    label: 'clients, projects and samples, but not the reports data area',
    areas: ['clients', 'projects', 'samples'],
  },
  'demo-expired': { label: 'expired (401)', state: 'expired' },
  'demo-revoked': { label: 'revoked (401)', state: 'revoked' },
};

export type Envelope =
  | 'data-meta'
  | 'array'
  | 'top-level'
  | 'nested-partial'
  | 'no-meta'
  /** Django REST Framework's page-number pagination: `count`, `next`, `previous`, `results` (absolute links). */
  | 'drf'
  /** A bare array, with an RFC 8288 `Link` header (`rel="next"`, `rel="prev"`). */
  | 'link-header';

/** Switches for faults; each counted fault applies to the next `times` matching requests. */
export interface MockFaults {
  latencyMs?: number;
  rateLimit?: { times: number; retryAfter?: string; path?: RegExp };
  /**
   * Allow this many requests a second (a token bucket holding one second's worth); beyond it,
   * 429 with `Retry-After` in whole seconds, as API gateways answer.
   */
  requestsPerSecond?: number;
  /** Fail the next `times` requests with `status` (Infinity: every time); `{ status: 503, times: Infinity }` is a lab down as a whole. */
  status?: {
    status: number;
    times: number;
    path?: RegExp;
    /** Only requests whose query (`?page=2&…`) matches, e.g. /[?&]page=[2-9]/ for a list failing from its second page. */
    query?: RegExp;
    retryAfter?: string;
    headers?: Readonly<Record<string, string>>;
  };
  /** Send this fraction of a file's body, then destroy the socket. */
  dropFileAt?: { fraction: number; times: number };
  /** Declare the full Content-Length, send less, and end the response cleanly. */
  shortFile?: { fraction: number; times: number };
  /** Answer JSON endpoints with a login page. */
  htmlInsteadOfJson?: { times: number };
  /**
   * Serve a file body that is not a PDF (but is labelled as one): an HTML page (the default), a
   * ZIP archive, nothing at all, or a PDF gzip-compressed without saying so (no Content-Encoding).
   */
  notPdf?: { times: number; body?: 'html' | 'zip' | 'empty' | 'gzip' };
  /** Serve a file without a length (chunked) that never ends: it grows until the client goes away. */
  endlessFile?: { times: number };
  /** Serve a chunked file body, then close the connection before its last chunk. */
  chunkedCut?: { fraction: number; times: number };
  /** Serve the report protected with this password (40-bit RC4, as older lab exports do). */
  protectPdf?: { times: number; password: string };
  /** Serve a file that starts like a PDF but is damaged inside (a viewer must say so). */
  corruptPdf?: { times: number };
  /** Label the file as text/html. */
  fileAsHtml?: { times: number };
  /**
   * Accept the request and never answer it: the next `times` requests (Infinity: a lab that never
   * answers), only those whose path matches `path` when given.
   */
  hangHeaders?: { times: number; path?: RegExp };
  /**
   * Send `200` and the endpoint's headers (JSON, or a PDF's for a file), then nothing (a stuck
   * service behind a proxy that answered for it): the next `times` requests, only those whose path
   * matches `path` when given.
   */
  hangBody?: { times: number; path?: RegExp };
  /** Send half a file, then go silent. */
  stallFileAt?: { fraction: number; times: number };
  malformedJson?: { times: number };
  oversizedJsonBytes?: number;
  /** Answer file requests with a redirect to this URL. */
  redirectFileTo?: string;
  /** Ignore `page` and always serve page 1 without metadata. */
  repeatFirstPage?: boolean;
  /** Pages never run out (distinct records, no metadata). */
  endlessPages?: boolean;
  /** Serve at most this many records a page whatever `page_size` asks, while the metadata still claims the size asked for. */
  pageSizeCap?: number;
  /** Ignore `page_size` and serve this many a page (a server's own default), claiming nothing about it. */
  ownPageSize?: number;
  /** Answer a page past the last one with 404 ("Invalid page."), as Django REST Framework does. */
  notFoundPastEnd?: boolean;
  /** Add this to the `total_count`/`count` the metadata reports (a stale or wrong count). */
  totalCountOffset?: number;
  /** Send files without Content-Length, ending the body by closing the connection. */
  closeDelimitedFiles?: boolean;
  /** Label files with this content type ('' for none) instead of application/pdf. */
  fileContentType?: string;
  /** Compress JSON and file bodies this way when the client accepts it. */
  compress?: 'gzip' | 'deflate' | 'deflate-raw' | 'br';
  /** Start JSON bodies with a UTF-8 byte-order mark. */
  jsonBom?: boolean;
  /** Error bodies in another common shape. */
  errorShape?: 'detail' | 'fields' | 'problem' | 'text';
  /** Error messages echo the request's Authorization header, with control and bidi characters around it. */
  echoToken?: boolean;
  /** The file endpoint refuses any Accept but a wildcard with 406. */
  refusePdfAccept?: boolean;
  /** Refuse HEAD requests with this status (405 Method Not Allowed, 501 Not Implemented), as some gateways do. */
  refuseHead?: 405 | 501;
}

/** Path segments a tenant renames (spec §9.2: endpoint names are placeholders confirmed per tenant). */
export type EndpointNames = Partial<Record<DataArea | 'file', string>>;

export interface MockServerOptions extends MockDataOptions {
  readonly port?: number;
  readonly host?: string;
  /** Serve HTTPS with this key and certificate (PEM), instead of HTTP. */
  readonly tls?: { readonly key: string; readonly cert: string };
  /** Renamed path segments, e.g. `{ reports: 'certificates', file: 'pdf' }`; the default names are then not served. */
  readonly endpointNames?: EndpointNames;
  /** Tenant variants: clients or project structures not enabled. */
  readonly tenant?: 'full' | 'no-clients' | 'no-projects';
  readonly envelope?: Envelope;
  /** Path before `/api/v1`, e.g. `/lims`. */
  readonly basePath?: string;
  /** Pad every PDF to about this many bytes (for large-file benchmarks). */
  readonly pdfBytes?: number;
  readonly tokens?: Readonly<Record<string, TokenScope>>;
  readonly maxPageSize?: number;
  readonly defaultPageSize?: number;
  readonly faults?: MockFaults;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** Label of the token's scope, or undefined when no known token was sent. */
  readonly scope?: string;
  readonly hadAuthorization: boolean;
  /** Which token arrived ({@link tokenFingerprint} of it, never the token), so a test can tell two labs' tokens apart. */
  readonly tokenFingerprint?: string;
  readonly accept?: string;
  readonly status: number;
  readonly requestId: string;
}

/** A short fingerprint of a token (SHA-256, 12 hex digits) for the request log: which token arrived, never the token. */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 12);
}

/** Pages of the mock's one long report (see `multiPageReportId`). */
export const MULTI_PAGE_COUNT = 60;

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/;

function parseSince(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) {
    return undefined;
  }
  const at = Date.parse(value);
  if (!TIMESTAMP.test(value) || Number.isNaN(at)) {
    throw new HttpProblem(400, 'invalid_filter', `${name} must be an ISO 8601 UTC timestamp`);
  }
  return at;
}

function take(fault: { times: number } | undefined): boolean {
  if (!fault || fault.times <= 0) {
    return false;
  }
  fault.times--;
  return true;
}

/**
 * The embedded mock lab: a faithful, realistic implementation of the read-only lab API
 * as docs/lab-api.md describes it, on `node:http`, with scoped tokens, tenant variants and fault
 * switches. Tests, the demo and the benchmarks all run against it.
 */
export class MockLabServer {
  readonly data: MockData;
  readonly requests: RecordedRequest[] = [];
  /**
   * How many requests carried each credential since the server started, never forgotten by
   * `takeRequests`: the scope label of a known token, `(none)` without one, `(unknown)` otherwise.
   */
  readonly credentialsSeen = new Map<string, number>();
  faults: MockFaults;
  private listener?: MockListener;
  private readonly tokens: Record<string, TokenScope>;
  private visibleReports: readonly MockReport[];
  /**
   * Filtered lists by token scope and query (page aside), as a real server's indexes would give
   * them: paging through 50,000 reports costs a slice per page, not a scan. Cleared when data changes.
   */
  private listings = new WeakMap<TokenScope, Map<string, object[]>>();

  /** Call after changing records in place (a test amending a report), so lists filter them afresh. */
  dataChanged(): void {
    this.listings = new WeakMap();
  }
  private sequence = 0;

  constructor(readonly options: MockServerOptions = {}) {
    this.data = generateMockData(options);
    this.tokens = { ...DEMO_TOKENS, ...options.tokens };
    this.faults = { ...options.faults };
    this.visibleReports = this.data.reports.filter((report) =>
      VISIBLE_REPORT_STATUSES.includes(report.status),
    );
  }

  /** Starts listening (a random loopback port unless `port` is given) and returns the base URL. */
  async start(): Promise<string> {
    this.listener = await MockListener.start([this], this.options);
    return this.baseUrl;
  }

  /** Serves this tenant from a listener shared with other tenants (see {@link MockLabHost}). */
  attach(listener: MockListener): void {
    this.listener = listener;
  }

  /** `http(s)://127.0.0.1:<port>[/basePath]`. */
  get baseUrl(): string {
    return this.baseUrlAt();
  }

  /** The base URL under another host name on the same port, e.g. `https://lab.test:<port>` (reached through the test proxy). */
  baseUrlAt(hostName?: string): string {
    if (!this.listener) {
      throw new Error('mock lab server is not running');
    }
    return `${this.listener.origin(hostName)}${this.options.basePath ?? ''}`;
  }

  /** Whether a request path belongs to this tenant. */
  serves(pathname: string): boolean {
    return pathname.startsWith(`${this.options.basePath ?? ''}/`);
  }

  /** Stops listening and closes every open connection. */
  async stop(): Promise<void> {
    const listener = this.listener;
    this.listener = undefined;
    await listener?.stop();
  }

  /** Revokes a token from now on (as a lab administrator would). */
  revokeToken(token: string): void {
    const scope = this.tokens[token];
    if (scope) {
      this.tokens[token] = { ...scope, state: 'revoked' };
    }
  }

  setFaults(faults: MockFaults): void {
    this.faults = { ...faults };
    this.bucket = { tokens: faults.requestsPerSecond ?? 0, at: performance.now() };
  }

  /** The `requestsPerSecond` fault's bucket. */
  private bucket = { tokens: 0, at: 0 };

  /** Takes a token from the bucket; when there is none, the seconds until there is one. */
  private takeToken(rate: number): number | undefined {
    const now = performance.now();
    this.bucket.tokens = Math.min(
      rate,
      this.bucket.tokens + ((now - this.bucket.at) / 1000) * rate,
    );
    this.bucket.at = now;
    if (this.bucket.tokens >= 1) {
      this.bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - this.bucket.tokens) / rate));
  }

  /** Requests seen since the last call, and forget them. */
  takeRequests(): RecordedRequest[] {
    return this.requests.splice(0, this.requests.length);
  }

  /**
   * The one report whose PDF has {@link MULTI_PAGE_COUNT} pages of text (the second newest with a
   * file), for previews: navigation, search and lazy rendering.
   */
  get multiPageReportId(): string | undefined {
    // Chosen once: a report published later never changes another report's file, as at a real lab.
    this.multiPage ??= this.visibleReports.filter((report) => report.download_available)[1]
      ?.report_id;
    return this.multiPage;
  }
  private multiPage?: string;

  /**
   * Publishes a report now, as a lab does during the day: a copy of the newest published report
   * with the next id, published at this moment (or `publishedAt`), visible to every request from
   * now on. Returns it.
   */
  publishReport(publishedAt?: Date): MockReport {
    const template =
      this.visibleReports.find((report) => report.download_available) ?? this.data.reports[0];
    if (!template) {
      throw new Error('the mock lab has no report to copy');
    }
    // Timestamps have whole seconds: a report published "now" is stamped with the next second, and
    // one published right after another still comes a second later, as ids and times ascend together.
    publishedAt ??= new Date(
      Math.max(
        Math.ceil(Date.now() / 1000) * 1000,
        Date.parse(this.visibleReports[0]?.published_at ?? template.published_at) + 1000,
      ),
    );
    const year = publishedAt.toISOString().slice(0, 4);
    const next =
      Math.max(0, ...this.data.reports.map((report) => Number(report.report_id.slice(-6)) || 0)) +
      1;
    const at = publishedAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const report: MockReport = {
      ...template,
      report_id: `RPT-${year}-${String(next).padStart(6, '0')}`,
      status: 'published',
      revision: 1,
      published_at: at,
      updated_at: at,
      download_available: true,
    };
    (this.data.reports as MockReport[]).unshift(report);
    this.visibleReports = [report, ...this.visibleReports];
    this.dataChanged();
    return report;
  }

  /** Reports a token may see, newest first. */
  reportsFor(token: string): MockReport[] {
    const scope = this.tokens[token];
    return scope
      ? this.visibleReports.filter((report) =>
          this.inScope(scope, report.client_id, report.project_id),
        )
      : [];
  }

  /**
   * Amends a report as a lab does: the next revision, status `amended`, updated now; its file
   * changes with it. With `publishNow` (the control request `POST /__mock/amend/<id>`), the new
   * revision is also published now (after every report listed so far, so a sync's watermark
   * brings it) and refers to the revision it replaces (`replaces`, as ISO/IEC 17025 7.8.8 asks).
   */
  amendReport(reportId: string, options: { readonly publishNow?: boolean } = {}): MockReport {
    const report = this.data.reports.find((candidate) => candidate.report_id === reportId);
    if (!report) {
      throw new Error(`no report ${reportId}`);
    }
    const replaced = report.revision;
    report.revision += 1;
    report.status = 'amended';
    report.updated_at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (options.publishNow) {
      const newest = Math.max(
        ...this.visibleReports.map((candidate) => Date.parse(candidate.published_at)),
      );
      const at = new Date(Math.max(Math.ceil(Date.now() / 1000) * 1000, newest + 1000))
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z');
      report.published_at = at;
      report.updated_at = at;
      report.replaces = { report_id: report.report_id, revision: replaced };
      this.visibleReports = [
        report,
        ...this.visibleReports.filter((candidate) => candidate !== report),
      ];
    }
    this.dataChanged();
    return report;
  }

  /** The mock's own control requests (no lab has them): `POST /__mock/amend/<report id>`. */
  private control(url: URL, request: http.IncomingMessage, response: http.ServerResponse): boolean {
    const amend = /^\/__mock\/amend\/([^/]+)$/.exec(url.pathname);
    if (!amend || request.method !== 'POST') {
      return false;
    }
    let report: MockReport;
    try {
      report = this.amendReport(decodeURIComponent(amend[1]!), { publishNow: true });
    } catch {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'no such report' }));
      return true;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(report));
    return true;
  }

  /** The exact bytes served for a report's file. */
  pdfFor(reportId: string): Buffer {
    const report = this.data.reports.find((candidate) => candidate.report_id === reportId);
    if (!report) {
      throw new Error(`no report ${reportId}`);
    }
    return Buffer.concat([...this.planPdf(report).chunks()]);
  }

  private planPdf(report: MockReport, password?: string): ReturnType<typeof planPdf> {
    const client = this.data.clients.find((candidate) => candidate.client_id === report.client_id);
    const project = this.data.projects.find(
      (candidate) => candidate.project_id === report.project_id,
    );
    const lines = [
      `Report ${report.report_id}  (revision ${report.revision}, ${report.status})`,
      `Published ${report.published_at}`,
      `Client: ${client?.name ?? report.client_id} (${report.client_id})`,
      `Project: ${project?.name ?? report.project_id} (${report.project_id})`,
      '',
      'Samples:',
      ...report.sample_ids.map((id) => {
        const sample = this.data.samples.find((candidate) => candidate.sample_id === id);
        return sample
          ? `  ${id}  ${sample.sample_name}  received ${sample.received_at}  ${sample.analyses.join(', ')}`
          : `  ${id}`;
      }),
      '',
      `${report.lab_name}. Results relate only to the samples tested. This report shall not be`,
      // A sentence broken over two lines, as a long one is in a real report (the preview finds it whole).
      'reproduced except in full without the written approval of the laboratory.',
    ];
    return planPdf(
      `${report.report_type} - ${report.report_id}`,
      lines,
      this.options.pdfBytes ?? 0,
      report.report_id === this.multiPageReportId ? MULTI_PAGE_COUNT - 1 : 0,
      password,
    );
  }

  private inScope(scope: TokenScope, clientId: string, projectId?: string): boolean {
    if (scope.clientIds && !scope.clientIds.includes(clientId)) {
      return false;
    }
    if (scope.projectIds && (projectId === undefined || !scope.projectIds.includes(projectId))) {
      return false;
    }
    return true;
  }

  private projectVisible(scope: TokenScope, project: MockProject): boolean {
    return this.inScope(scope, project.client_id, project.project_id);
  }

  /** Serves one request (the listener calls this). */
  /** Requests being answered now, and the most there were at once since the last {@link takeMaxInFlight}. */
  private inFlight = 0;
  private maxInFlight = 0;

  /** The most requests that were in flight at once since the last call (for concurrency bounds). */
  takeMaxInFlight(): number {
    const most = this.maxInFlight;
    this.maxInFlight = this.inFlight;
    return most;
  }

  async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    response.once('close', () => this.inFlight--);
    const requestId = `req-${++this.sequence}-${randomBytes(4).toString('hex')}`;
    const url = new URL(request.url ?? '/', 'http://mock.invalid');
    const query = Object.fromEntries(url.searchParams);
    const auth = request.headers.authorization;
    const token = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
    const scope = token !== undefined ? this.tokens[token] : undefined;
    const credential = scope?.label ?? (auth === undefined ? '(none)' : '(unknown)');
    this.credentialsSeen.set(credential, (this.credentialsSeen.get(credential) ?? 0) + 1);
    const record = (status: number): void => {
      this.requests.push({
        method: request.method ?? 'GET',
        path: url.pathname,
        query,
        scope: scope?.label,
        hadAuthorization: auth !== undefined,
        tokenFingerprint: token !== undefined ? tokenFingerprint(token) : undefined,
        accept: request.headers.accept,
        status,
        requestId,
      });
    };
    response.setHeader('x-request-id', requestId);
    const faults = this.faults;
    if (faults.latencyMs) {
      await new Promise((resolve) => setTimeout(resolve, faults.latencyMs));
    }
    if (
      (!faults.hangHeaders?.path || faults.hangHeaders.path.test(url.pathname)) &&
      take(faults.hangHeaders)
    ) {
      record(0);
      return; // never answer; the client's timeout must end it
    }
    if (
      (!faults.hangBody?.path || faults.hangBody.path.test(url.pathname)) &&
      take(faults.hangBody)
    ) {
      record(200);
      // The headers the endpoint would send: a file's are a PDF's.
      const file = url.pathname.endsWith(`/${this.options.endpointNames?.file ?? 'file'}`);
      response.writeHead(200, { 'content-type': file ? 'application/pdf' : 'application/json' });
      response.flushHeaders();
      return; // headers, then never the body; the client's timeout must end it
    }
    if (this.control(url, request, response)) {
      record(response.statusCode);
      return;
    }
    try {
      const prefix = `${this.options.basePath ?? ''}/api/v1`;
      if (!url.pathname.startsWith(`${prefix}/`)) {
        throw new HttpProblem(404, 'not_found', 'no such endpoint');
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        response.setHeader('allow', 'GET');
        throw new HttpProblem(405, 'method_not_allowed', 'this API is read-only');
      }
      if (request.method === 'HEAD' && faults.refuseHead) {
        response.setHeader('allow', 'GET');
        throw new HttpProblem(faults.refuseHead, 'method_not_allowed', 'HEAD is not served here');
      }
      if (!scope || scope.state === 'expired' || scope.state === 'revoked') {
        response.setHeader('www-authenticate', 'Bearer realm="lab", error="invalid_token"');
        const why = !auth
          ? 'missing credential'
          : scope?.state === 'expired'
            ? 'token expired'
            : scope?.state === 'revoked'
              ? 'token revoked'
              : 'invalid credential';
        throw new HttpProblem(401, 'unauthorized', why);
      }
      const waitSeconds = faults.requestsPerSecond
        ? this.takeToken(faults.requestsPerSecond)
        : undefined;
      if (waitSeconds !== undefined) {
        response.setHeader('retry-after', String(waitSeconds));
        throw new HttpProblem(
          429,
          'rate_limited',
          `at most ${faults.requestsPerSecond} requests a second`,
        );
      }
      const rateFault = faults.rateLimit;
      if (rateFault && (!rateFault.path || rateFault.path.test(url.pathname)) && take(rateFault)) {
        response.setHeader('retry-after', rateFault.retryAfter ?? '1');
        throw new HttpProblem(429, 'rate_limited', 'rate limit reached');
      }
      const statusFault = faults.status;
      if (
        statusFault &&
        (!statusFault.path || statusFault.path.test(url.pathname)) &&
        (!statusFault.query || statusFault.query.test(url.search)) &&
        take(statusFault)
      ) {
        if (statusFault.retryAfter) {
          response.setHeader('retry-after', statusFault.retryAfter);
        }
        for (const [name, value] of Object.entries(statusFault.headers ?? {})) {
          response.setHeader(name, value);
        }
        throw new HttpProblem(
          statusFault.status,
          'injected',
          `injected failure ${statusFault.status}`,
        );
      }
      const route = url.pathname
        .slice(prefix.length)
        .split('/')
        .filter(Boolean)
        .map(decodeURIComponent);
      const status = await this.route(
        route,
        url.searchParams,
        scope,
        response,
        request.headers.accept,
      );
      record(status);
    } catch (error) {
      const problem =
        error instanceof HttpProblem ? error : new HttpProblem(500, 'internal', 'service error');
      record(problem.status);
      this.sendProblem(response, problem, requestId, auth);
    }
  }

  /** Serves one route; returns the status sent. */
  private async route(
    route: string[],
    query: URLSearchParams,
    scope: TokenScope,
    response: http.ServerResponse,
    accept?: string,
  ): Promise<number> {
    const [segment, id, subSegment, ...rest] = route;
    if (rest.length > 0) {
      throw new HttpProblem(404, 'not_found', 'no such endpoint');
    }
    // Renamed endpoints: only the tenant's own names are served.
    const names: Record<DataArea | 'file', string> = {
      reports: 'reports',
      clients: 'clients',
      projects: 'projects',
      samples: 'samples',
      file: 'file',
      ...this.options.endpointNames,
    };
    const resource =
      (Object.keys(names) as Array<DataArea | 'file'>).find(
        (key) => key !== 'file' && names[key] === segment,
      ) ?? `unknown:${segment}`;
    const sub =
      subSegment === undefined
        ? undefined
        : subSegment === names.file
          ? 'file'
          : `unknown:${subSegment}`;
    const area = resource as DataArea;
    if (
      !['reports', 'clients', 'projects', 'samples'].includes(area) ||
      (area !== 'reports' && sub !== undefined) ||
      ((area === 'projects' || area === 'samples') && id !== undefined)
    ) {
      throw new HttpProblem(404, 'not_found', 'no such endpoint');
    }
    if (area === 'clients' && this.options.tenant === 'no-clients') {
      throw new HttpProblem(404, 'not_enabled', 'client records are not exposed for this tenant');
    }
    if (area === 'projects' && this.options.tenant === 'no-projects') {
      throw new HttpProblem(
        404,
        'not_enabled',
        'project structures are not enabled for this tenant',
      );
    }
    if (scope.areas && !scope.areas.includes(area)) {
      throw new HttpProblem(
        403,
        'forbidden',
        `the ${area} data area is outside this token's scope`,
      );
    }
    if (area === 'reports' && id !== undefined) {
      const report = this.visibleReports.find(
        (candidate) =>
          candidate.report_id === id &&
          this.inScope(scope, candidate.client_id, candidate.project_id),
      );
      if (!report) {
        throw new HttpProblem(
          404,
          'not_found',
          'report not found or not available within the token scope',
        );
      }
      if (sub === undefined) {
        return this.sendJsonChecked(response, 200, report);
      }
      if (sub !== 'file') {
        throw new HttpProblem(404, 'not_found', 'no such endpoint');
      }
      return this.sendFile(report, response, accept);
    }
    if (area === 'clients' && id !== undefined) {
      const client = this.data.clients.find(
        (candidate) =>
          candidate.client_id === id &&
          this.inScope(
            scope,
            candidate.client_id,
            scope.projectIds
              ? this.data.projects.find(
                  (p) =>
                    p.client_id === candidate.client_id && scope.projectIds!.includes(p.project_id),
                )?.project_id
              : undefined,
          ),
      );
      if (!client) {
        throw new HttpProblem(
          404,
          'not_found',
          'client not found or not available within the token scope',
        );
      }
      return this.sendJsonChecked(response, 200, client);
    }
    return this.sendList(area, query, scope, response);
  }

  private listRecords(area: DataArea, query: URLSearchParams, scope: TokenScope): object[] {
    const key = `${area}?${[...query]
      .filter(([name]) => name !== 'page')
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => `${name}=${value}`)
      .join('&')}`;
    let byQuery = this.listings.get(scope);
    if (!byQuery) {
      byQuery = new Map();
      this.listings.set(scope, byQuery);
    }
    let records = byQuery.get(key);
    if (!records) {
      records = this.filterRecords(area, query, scope);
      byQuery.set(key, records);
    }
    return records;
  }

  private filterRecords(area: DataArea, query: URLSearchParams, scope: TokenScope): object[] {
    const publishedSince = parseSince(query, 'published_since');
    const updatedSince = parseSince(query, 'updated_since');
    const receivedSince = parseSince(query, 'received_since');
    const status = query.get('status');
    const clientId = query.get('client_id');
    const projectId = query.get('project_id');
    if (clientId !== null && scope.clientIds && !scope.clientIds.includes(clientId)) {
      throw new HttpProblem(403, 'forbidden', 'client_id is outside this token scope');
    }
    if (
      clientId !== null &&
      scope.projectIds &&
      !this.data.projects.some(
        (p) => p.client_id === clientId && scope.projectIds!.includes(p.project_id),
      )
    ) {
      throw new HttpProblem(403, 'forbidden', 'client_id is outside this token scope');
    }
    if (projectId !== null && scope.projectIds && !scope.projectIds.includes(projectId)) {
      throw new HttpProblem(403, 'forbidden', 'project_id is outside this token scope');
    }
    if (
      projectId !== null &&
      scope.clientIds &&
      !this.data.projects.some(
        (p) => p.project_id === projectId && scope.clientIds!.includes(p.client_id),
      )
    ) {
      throw new HttpProblem(403, 'forbidden', 'project_id is outside this token scope');
    }
    const since = (value: string, limit: number | undefined): boolean =>
      limit === undefined || Date.parse(value) >= limit;
    const matches = (record: {
      client_id: string;
      project_id?: string;
      status: string;
      updated_at: string;
    }): boolean =>
      (clientId === null || record.client_id === clientId) &&
      (projectId === null || record.project_id === projectId) &&
      (status === null || record.status === status) &&
      since(record.updated_at, updatedSince);
    switch (area) {
      case 'reports':
        if (
          status !== null &&
          (HIDDEN_REPORT_STATUSES.includes(status) || !VISIBLE_REPORT_STATUSES.includes(status))
        ) {
          throw new HttpProblem(
            400,
            'invalid_filter',
            `status must be one of: ${VISIBLE_REPORT_STATUSES.join(', ')}`,
          );
        }
        return this.visibleReports.filter(
          (r) =>
            this.inScope(scope, r.client_id, r.project_id) &&
            matches(r) &&
            since(r.published_at, publishedSince),
        );
      case 'clients':
        return this.data.clients.filter(
          (c) =>
            (scope.clientIds ? scope.clientIds.includes(c.client_id) : true) &&
            (scope.projectIds
              ? this.data.projects.some(
                  (p) => p.client_id === c.client_id && scope.projectIds!.includes(p.project_id),
                )
              : true) &&
            matches(c),
        );
      case 'projects':
        return this.data.projects.filter((p) => this.projectVisible(scope, p) && matches(p));
      case 'samples':
        return this.data.samples.filter(
          (s) =>
            this.inScope(scope, s.client_id, s.project_id) &&
            matches(s) &&
            since(s.received_at, receivedSince),
        );
    }
  }

  private sendList(
    area: DataArea,
    query: URLSearchParams,
    scope: TokenScope,
    response: http.ServerResponse,
  ): number {
    const maxPageSize = this.options.maxPageSize ?? 200;
    const pageText = query.get('page') ?? '1';
    const sizeText = query.get('page_size') ?? String(this.options.defaultPageSize ?? 50);
    if (!/^\d+$/.test(pageText) || Number(pageText) < 1) {
      throw new HttpProblem(400, 'invalid_pagination', 'page must be a positive integer');
    }
    if (!/^\d+$/.test(sizeText) || Number(sizeText) < 1 || Number(sizeText) > maxPageSize) {
      throw new HttpProblem(
        400,
        'invalid_pagination',
        `page_size must be an integer from 1 to ${maxPageSize}`,
      );
    }
    const faults = this.faults;
    const asked = Number(sizeText);
    const pageSize = faults.ownPageSize ?? Math.min(asked, faults.pageSizeCap ?? asked);
    let page = Number(pageText);
    const all = this.listRecords(area, query, scope);
    if (faults.endlessPages) {
      const idField = {
        reports: 'report_id',
        clients: 'client_id',
        projects: 'project_id',
        samples: 'sample_id',
      }[area];
      const records = all
        .slice(0, pageSize)
        .map((record, index) => ({ ...record, [idField]: `endless-${page}-${index}` }));
      return this.sendJsonChecked(response, 200, { data: records });
    }
    if (faults.repeatFirstPage) {
      page = 1;
    }
    const lastPage = Math.max(1, Math.ceil(all.length / pageSize));
    if (faults.notFoundPastEnd && page > lastPage) {
      throw new HttpProblem(404, 'not_found', 'Invalid page.');
    }
    const records = all.slice((page - 1) * pageSize, page * pageSize);
    const count = all.length + (faults.totalCountOffset ?? 0);
    // A capped server still echoes the size asked for; one with its own size says nothing of it.
    const meta = {
      page,
      page_size: faults.ownPageSize ? undefined : asked,
      total_pages: Math.ceil(count / (faults.pageSizeCap ? asked : pageSize)),
      total_count: count,
    };
    if (faults.repeatFirstPage) {
      return this.sendJsonChecked(response, 200, { data: records });
    }
    const link = (to: number): string => {
      const secure = (response.req.socket as import('node:tls').TLSSocket).encrypted === true;
      const url = new URL(
        response.req.url ?? '/',
        `${secure ? 'https' : 'http'}://${response.req.headers.host ?? 'localhost'}`,
      );
      url.searchParams.set('page', String(to));
      return url.toString();
    };
    switch (this.options.envelope ?? 'data-meta') {
      case 'array':
        return this.sendJsonChecked(response, 200, records);
      case 'top-level':
        return this.sendJsonChecked(response, 200, { [area]: records, ...meta });
      case 'nested-partial':
        return this.sendJsonChecked(response, 200, {
          items: records,
          pagination: { page, page_size: pageSize },
        });
      case 'no-meta':
        return this.sendJsonChecked(response, 200, { results: records });
      case 'drf':
        return this.sendJsonChecked(response, 200, {
          count,
          next: page < lastPage ? link(page + 1) : null,
          previous: page > 1 ? link(page - 1) : null,
          results: records,
        });
      case 'link-header': {
        const links = [
          page < lastPage ? `<${link(page + 1)}>; rel="next"` : undefined,
          page > 1 ? `<${link(page - 1)}>; rel="prev"` : undefined,
          `<${link(1)}>; rel="first"`,
        ].filter(Boolean);
        response.setHeader('link', links.join(', '));
        return this.sendJsonChecked(response, 200, records);
      }
      default:
        return this.sendJsonChecked(response, 200, { data: records, meta });
    }
  }

  private sendJsonChecked(response: http.ServerResponse, status: number, body: unknown): number {
    if (take(this.faults.htmlInsteadOfJson)) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        '<!doctype html><html><body><form action="/login">Sign in to continue</form></body></html>',
      );
      return 200;
    }
    if (take(this.faults.malformedJson)) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"data": [ {"report_id": "RPT-1"');
      return 200;
    }
    if (this.faults.oversizedJsonBytes) {
      const filler = 'x'.repeat(this.faults.oversizedJsonBytes);
      this.sendJson(response, 200, { data: [], filler });
      return 200;
    }
    this.sendJson(response, status, body);
    return status;
  }

  /** An error body in the shape the faults ask for (the spec's own by default). */
  private sendProblem(
    response: http.ServerResponse,
    problem: HttpProblem,
    requestId: string,
    auth: string | undefined,
  ): void {
    const message = this.faults.echoToken
      ? `${problem.message}\n\u202eforged line\u202c\u0007 for credential ${auth ?? ''}`
      : problem.message;
    switch (this.faults.errorShape) {
      case 'detail':
        return this.sendJson(response, problem.status, { detail: message });
      case 'fields':
        return this.sendJson(response, problem.status, {
          status: [message],
          page_size: ['Ensure this value is less than or equal to 200.'],
        });
      case 'problem':
        return this.sendJson(
          response,
          problem.status,
          { type: 'about:blank', title: problem.code, detail: message, status: problem.status },
          'application/problem+json',
        );
      case 'text':
        response.writeHead(problem.status, { 'content-type': 'text/html; charset=utf-8' });
        response.end(
          `<html><head><title>${problem.status}</title></head><body><h1>Error</h1><p>${message}</p></body></html>`,
        );
        return;
      default:
        return this.sendJson(response, problem.status, {
          error: { code: problem.code, message, request_id: requestId },
        });
    }
  }

  private sendJson(
    response: http.ServerResponse,
    status: number,
    body: unknown,
    type = 'application/json; charset=utf-8',
  ): void {
    const text = Buffer.from(`${this.faults.jsonBom ? '\ufeff' : ''}${JSON.stringify(body)}`);
    const encoded = this.encode(response, text);
    response.writeHead(status, { 'content-type': type, 'content-length': encoded.length });
    response.end(encoded);
  }

  /** Compresses a body when the `compress` fault asks and the client accepts it (setting Content-Encoding). */
  private encode(response: http.ServerResponse, body: Buffer): Buffer {
    const coding = this.faults.compress;
    const accepted = String(response.req.headers['accept-encoding'] ?? '');
    if (!coding || !accepted.includes(coding === 'deflate-raw' ? 'deflate' : coding)) {
      return body;
    }
    response.setHeader('content-encoding', coding === 'deflate-raw' ? 'deflate' : coding);
    return coding === 'gzip'
      ? zlib.gzipSync(body)
      : coding === 'br'
        ? zlib.brotliCompressSync(body)
        : coding === 'deflate'
          ? zlib.deflateSync(body)
          : zlib.deflateRawSync(body);
  }

  private async sendFile(
    report: MockReport,
    response: http.ServerResponse,
    accept?: string,
  ): Promise<number> {
    if (!report.download_available) {
      throw new HttpProblem(404, 'not_available', 'no file download is available for this report');
    }
    const faults = this.faults;
    if (
      (accept && !/application\/pdf|\*\/\*|application\/\*/.test(accept)) ||
      (faults.refusePdfAccept && !accept?.includes('*/*'))
    ) {
      throw new HttpProblem(406, 'not_acceptable', 'this endpoint serves application/pdf');
    }
    if (faults.redirectFileTo) {
      response.writeHead(302, { location: faults.redirectFileTo });
      response.end();
      return 302;
    }
    if (take(faults.fileAsHtml)) {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html><body>Please sign in</body></html>');
      return 200;
    }
    if (take(faults.corruptPdf)) {
      // The header of a PDF, then bytes that hold no object at all: what a broken export leaves.
      const body = Buffer.concat([
        Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'),
        Buffer.alloc(4096, 0x5a),
        Buffer.from('\n%%EOF\n'),
      ]);
      response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
      response.end(body);
      return 200;
    }
    const notPdf = faults.notPdf?.body ?? 'html';
    if (take(faults.notPdf)) {
      const body = notPdfBody(notPdf, () => Buffer.concat([...this.planPdf(report).chunks()]));
      response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
      response.end(body);
      return 200;
    }
    const protect =
      faults.protectPdf && take(faults.protectPdf) ? faults.protectPdf.password : undefined;
    const plan = this.planPdf(report, protect);
    if (take(faults.endlessFile)) {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      for (let sent = 0; !response.destroyed && sent < ENDLESS_FILE_LIMIT;) {
        const chunk =
          sent === 0
            ? Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(64 * 1024 - 9, 0x20)])
            : Buffer.alloc(64 * 1024, 0x20);
        sent += chunk.length;
        if (!response.write(chunk)) {
          await drainedOrClosed(response);
        }
      }
      response.destroy();
      return 200;
    }
    if (faults.chunkedCut && take(faults.chunkedCut)) {
      // Chunked, and the connection closes before the terminating chunk: an incomplete body.
      response.writeHead(200, {
        'content-type': 'application/pdf',
        'transfer-encoding': 'chunked',
      });
      const whole = Buffer.concat([...plan.chunks()]);
      response.write(whole.subarray(0, Math.floor(whole.length * faults.chunkedCut.fraction)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      response.socket?.end();
      return 200;
    }
    // A HEAD gets the headers a GET would (its Content-Length too), no body, and takes no fault of the body.
    const head = response.req.method === 'HEAD';
    const drop = !head && take(faults.dropFileAt) ? faults.dropFileAt!.fraction : undefined;
    const short = !head && take(faults.shortFile) ? faults.shortFile!.fraction : undefined;
    const stall = !head && take(faults.stallFileAt) ? faults.stallFileAt!.fraction : undefined;
    const cutAt = drop ?? short ?? stall;
    const headers: http.OutgoingHttpHeaders = {
      'content-type': faults.fileContentType ?? 'application/pdf',
      'content-length': plan.size,
      'content-disposition': `attachment; filename="${report.report_id.replace(/[^\x20-\x7e]|["\\]/g, '_')}.pdf"; filename*=UTF-8''${encodeURIComponent(report.report_id)}.pdf`,
    };
    if (faults.fileContentType === '') {
      delete headers['content-type'];
    }
    const accepted = String(response.req.headers['accept-encoding'] ?? '');
    if (
      faults.compress &&
      accepted.includes(faults.compress === 'deflate-raw' ? 'deflate' : faults.compress)
    ) {
      // Compressed files are sent whole (the mock's files are small when this fault is used).
      const whole = Buffer.concat([...plan.chunks()]);
      const body = this.encode(response, whole);
      response.writeHead(200, { ...headers, 'content-length': body.length });
      response.end(body);
      return 200;
    }
    if (faults.closeDelimitedFiles) {
      // No length and no chunks: the end of the body is the end of the connection, as many
      // frameworks send files. The body goes out whole, then the connection closes.
      response.useChunkedEncodingByDefault = false;
      response.shouldKeepAlive = false;
      delete headers['content-length'];
      response.writeHead(200, { ...headers, connection: 'close' });
      for (const chunk of plan.chunks()) {
        response.write(chunk);
      }
      response.end();
      return 200;
    }
    response.writeHead(200, headers);
    if (head) {
      response.end();
      return 200;
    }
    let sent = 0;
    const limit = cutAt === undefined ? Infinity : Math.floor(plan.size * cutAt);
    for (const chunk of plan.chunks()) {
      const piece = sent + chunk.length > limit ? chunk.subarray(0, limit - sent) : chunk;
      if (piece.length > 0 && !response.write(piece)) {
        await drainedOrClosed(response);
      }
      if (response.destroyed) {
        return 200;
      }
      sent += piece.length;
      if (sent >= limit) {
        break;
      }
    }
    if (cutAt !== undefined) {
      // Let the partial body reach the client first, so the fault happens mid-body, not before headers.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (drop !== undefined) {
      response.socket?.destroy();
    } else if (short !== undefined) {
      // Content-Length promised more than was sent; end the socket so the client sees it.
      response.socket?.end();
    } else if (stall !== undefined) {
      return 200; // stay silent; the client's idle timeout must end it
    } else {
      response.end();
    }
    return 200;
  }
}

/** How far an endless file goes before the mock gives up on a client that never stops reading. */
const ENDLESS_FILE_LIMIT = 64 * 1024 * 1024;

/** Waits until a response can take more, or is gone; its listeners go either way. */
function drainedOrClosed(response: http.ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

/** A body labelled application/pdf that is something else. */
function notPdfBody(kind: 'html' | 'zip' | 'empty' | 'gzip', pdf: () => Buffer): Buffer {
  switch (kind) {
    case 'zip':
      // A local file header ("PK\x03\x04") and stored bytes: an archive of the report, not the report.
      return Buffer.concat([
        Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]),
        Buffer.alloc(128 * 1024, 0x41),
      ]);
    case 'empty':
      return Buffer.alloc(0);
    case 'gzip':
      return zlib.gzipSync(pdf());
    default:
      return Buffer.from('<html><body>This is not the report you are looking for</body></html>');
  }
}

/** One listening socket (HTTP or HTTPS) serving one or several tenants, chosen by path prefix. */
export class MockListener {
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor(
    private readonly server: http.Server,
    private readonly secure: boolean,
  ) {
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(
    tenants: readonly MockLabServer[],
    options: { port?: number; host?: string; tls?: { key: string; cert: string } } = {},
  ): Promise<MockListener> {
    const handler = (request: http.IncomingMessage, response: http.ServerResponse): void => {
      const pathname = new URL(request.url ?? '/', 'http://mock.invalid').pathname;
      // The longest matching base path wins, so `/` and `/tenant-b` can share one origin.
      const tenant =
        [...tenants]
          .sort((a, b) => (b.options.basePath ?? '').length - (a.options.basePath ?? '').length)
          .find((candidate) => candidate.serves(pathname)) ?? tenants[0]!;
      tenant.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { code: 'internal', message: String(error) } }));
        } else {
          response.destroy();
        }
      });
    };
    const server = options.tls
      ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler)
      : http.createServer(handler);
    const listener = new MockListener(server, options.tls !== undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
    tenants.forEach((tenant) => tenant.attach(listener));
    return listener;
  }

  /** `scheme://host:port`, with the listening address or another host name. */
  origin(hostName?: string): string {
    const address = this.server.address() as AddressInfo;
    const host = hostName ?? (address.family === 'IPv6' ? `[${address.address}]` : address.address);
    return `${this.secure ? 'https' : 'http'}://${host}:${address.port}`;
  }

  async stop(): Promise<void> {
    if (!this.server.listening) {
      return;
    }
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Several tenants on one origin, each with its own base path, tokens, endpoint names and list
 * envelope (two labs at one address with different tokens are two labs).
 */
export class MockLabHost {
  private listener?: MockListener;

  constructor(
    readonly tenants: readonly MockLabServer[],
    private readonly options: {
      port?: number;
      host?: string;
      tls?: { key: string; cert: string };
    } = {},
  ) {}

  async start(): Promise<void> {
    this.listener = await MockListener.start(this.tenants, this.options);
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
  }
}
