import { parseBaseUrl } from '../connection/baseUrl';
import type { LabPaths } from './endpoints';
import { LabApiError } from '../errors/errors';
import { HttpClient, type HttpClientOptions } from '../connection/httpClient';
import type { LabResponse } from '../connection/labAnswer';
import type { RetryListener } from '../connection/retryNotices';
import { defaultLabDefinition, labPaths, type LabDefinition } from './labDefinition';
import { parseListBody } from './listEnvelope';
import { serverText } from '../errors/serverText';
import { labError } from '../errors/messages';
import { nextPageLink } from './pageLinks';
import { NOTHING_SEEN, iteratePages, morePages, type Page, type PagingAnomaly } from './pagination';
import { buildListQuery, type ListQuery } from './query';
import {
  parseClient,
  parseProject,
  parseReport,
  parseSample,
  type Client,
  type Project,
  type Report,
  type Sample,
  isJsonObject,
} from './records';
import {
  writeFileSafely,
  type ExistingFilePolicy,
  type PreparedFolder,
  type SavedFile,
} from '../files/safeWriter';

export const DEFAULT_PAGE_SIZE = 50;
export const DEFAULT_CONCURRENCY = 4;
/** Report files: up to 256 KiB of a body may wait for the disk (four times the default), so the socket keeps flowing. */
const FILE_HIGH_WATER_MARK = 256 * 1024;
/** `labData.maxFileSizeMiB`'s default: the largest report file saved or previewed. */
export const DEFAULT_MAX_FILE_MIB = 2048;
export const DEFAULT_MAX_PDF_BYTES = DEFAULT_MAX_FILE_MIB * 1024 * 1024;
/** A preview holds the whole file in memory (and hands it to a webview), so it stops here whatever the setting says. */
export const MAX_PREVIEW_BYTES = 512 * 1024 * 1024;
/** The most `labData.maxFileSizeMiB` may allow: 1 TiB. */
const MAX_FILE_MIB_LIMIT = 1024 * 1024;

/** Bytes for a `labData.maxFileSizeMiB` value; anything that is not a positive number gets the default. */
export function maxFileBytes(mib: unknown): number {
  const value =
    typeof mib === 'number' && Number.isFinite(mib) && mib >= 1
      ? Math.min(Math.floor(mib), MAX_FILE_MIB_LIMIT)
      : DEFAULT_MAX_FILE_MIB;
  return value * 1024 * 1024;
}

export interface DownloadOptions {
  /** A folder path, or one prepared once for many files. */
  readonly folder: string | PreparedFolder;
  readonly fileName: string;
  readonly root?: string;
  readonly ifExists?: ExistingFilePolicy;
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (bytesWritten: number, totalBytes?: number) => void;
  /** Refuses the file before it takes its name unless its SHA-256 is right (see `writeFileSafely`). */
  readonly checkSha256?: (sha256: string) => LabApiError | undefined;
  /** False when no manifest entry will record the file's modification time (a restore). */
  readonly recordTime?: boolean;
  /**
   * The size recorded for the file (a manifest's `bytes`), when only that file will do: a
   * `Content-Length` of another size is refused before the body is read, and a body is never read
   * past it (a report recorded at 1 KB is not read to the size limit).
   */
  readonly expectedBytes?: number;
}

export interface IterateOptions {
  readonly maxPages?: number;
  /** Pages asked for at once once the total is known; the lab's request limit by default, 1 for one after another. */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  readonly onAnomaly?: (anomaly: PagingAnomaly) => void;
}

/**
 * The labels real servers put on a PDF: its own type, and the generic binary ones file endpoints
 * use (or none at all). Any of these is accepted only when the body starts as a PDF does
 * ({@link pdfHeadProblem}); HTML, JSON, text and everything else are refused before a byte is read.
 */
const PDF_CONTENT_TYPES: ReadonlySet<string> = new Set([
  'application/pdf',
  'application/x-pdf',
  'application/octet-stream',
  'binary/octet-stream',
  'application/force-download',
  'application/download',
  'application/x-download',
  '',
]);

type Parser<T> = (value: unknown) => T | undefined;

/** Checks the PDF magic at the start of a file (allowing a little leading junk, as readers do). */
export function pdfHeadProblem(head: Buffer): LabApiError | undefined {
  return head.subarray(0, 1024).includes('%PDF-')
    ? undefined
    : labError('invalidResponse', 'notPdf');
}

/** Everything a lab's API client is built from: the lab's definition and its token, plus HTTP options. */
export interface LabApiOptions extends Omit<
  HttpClientOptions,
  'baseUrl' | 'maxConcurrentRequests'
> {
  readonly lab: LabDefinition;
  /** Used when the lab sets no `maxConcurrentRequests` of its own. */
  readonly maxConcurrentRequests?: number;
  /** Used when the lab sets no `pageSize` of its own. */
  readonly pageSize?: number;
  /** The largest report file accepted (`labData.maxFileSizeMiB`), checked from `Content-Length` up front and while streaming. */
  readonly maxFileBytes?: number;
  /** Told when a list's paging cannot be trusted (every walk, whoever asked for it), so the user can be told. */
  readonly onPagingAnomaly?: (anomaly: PagingAnomaly) => void;
  /** Sees every report and sample the lab sends (lists and single reports), so ids can be learned and looked up without asking again. */
  readonly onRecords?: (records: {
    readonly reports?: readonly Report[];
    readonly samples?: readonly Sample[];
  }) => void;
}

/**
 * A method for every endpoint of one lab's API (spec section 4), at the paths its endpoint
 * templates give, on top of its own {@link HttpClient}. Lists return one typed page; `iterate…`
 * walks all pages. Callers ask this object, never its HTTP layer.
 */
export class LabApi {
  readonly lab: LabDefinition;
  readonly paths: LabPaths;
  readonly #http: HttpClient;
  private readonly defaultPageSize: number;
  /** The largest report file accepted, unless a call says otherwise. */
  readonly maxFileBytes: number;
  /** Requests this client sends at once (the lab's own limit, else the setting); listing uses as many. */
  readonly concurrency: number;
  private readonly onRecords: NonNullable<LabApiOptions['onRecords']>;
  private readonly onPagingAnomaly: NonNullable<LabApiOptions['onPagingAnomaly']>;

  constructor(options: LabApiOptions) {
    const {
      lab,
      pageSize,
      maxConcurrentRequests,
      maxFileBytes,
      onRecords,
      onPagingAnomaly,
      ...http
    } = options;
    this.onPagingAnomaly = onPagingAnomaly ?? (() => undefined);
    this.maxFileBytes = maxFileBytes ?? DEFAULT_MAX_PDF_BYTES;
    this.onRecords = onRecords ?? (() => undefined);
    this.lab = lab;
    this.paths = labPaths(lab);
    this.defaultPageSize = lab.pageSize ?? pageSize ?? DEFAULT_PAGE_SIZE;
    this.concurrency = lab.maxConcurrentRequests ?? maxConcurrentRequests ?? DEFAULT_CONCURRENCY;
    this.#http = new HttpClient({
      ...http,
      baseUrl: lab.url,
      labName: lab.name,
      maxConcurrentRequests: this.concurrency,
    });
  }

  /** A client for a bare base URL with the spec's default endpoints (the one-lab case, tests). */
  static forBaseUrl(baseUrl: string, options: Omit<LabApiOptions, 'lab'>): LabApi {
    return new LabApi({ ...options, lab: defaultLabDefinition(parseBaseUrl(baseUrl)) });
  }

  /** The lab's origin, the only place its token is sent. */
  get origin(): string {
    return this.lab.url.origin;
  }

  /** Tells `listener` of every retry this client makes until the returned function is called (a run's progress). */
  onRetry(listener: RetryListener): () => void {
    return this.#http.onRetry(listener);
  }

  /** Closes this client's connections. */
  close(): Promise<void> {
    return this.#http.close();
  }

  async listReports(
    query: ListQuery = {},
    signal?: AbortSignal,
    link?: string,
  ): Promise<Page<Report>> {
    const page = await this.listPage(
      this.paths.reports(),
      'reports',
      parseReport,
      query,
      signal,
      link,
    );
    this.onRecords({ reports: page.items });
    return page;
  }

  /**
   * One authenticated request for one report, as every list makes it, for Check Connection: the
   * status the lab answered with, its request id and how many records came back. Fails like any list.
   */
  async checkReports(signal?: AbortSignal): Promise<{
    readonly status: number;
    readonly requestId?: string;
    readonly records: number;
    readonly totalCount?: number;
  }> {
    const path = this.paths.reports();
    const { body, status, requestId } = await this.#http.getJsonResponse(
      path,
      buildListQuery({ page: 1, pageSize: 1 }),
      signal,
    );
    const { records, meta } = parseListBody(body, 'reports', path);
    return { status, requestId, records: records.length, totalCount: meta.total_count };
  }

  iterateReports(
    query: ListQuery = {},
    options: IterateOptions = {},
  ): AsyncGenerator<Page<Report>> {
    return this.iterate(
      (page, signal, link) => this.listReports({ ...query, page }, signal, link),
      (report) => report.report_id,
      query,
      options,
    );
  }

  async getReport(reportId: string, signal?: AbortSignal): Promise<Report> {
    return this.getReportAt(this.paths.report(reportId), signal);
  }

  /** A report's metadata from a path on the lab's origin recorded earlier (derived from a manifest's `source`). */
  async getReportAt(path: string, signal?: AbortSignal): Promise<Report> {
    const report = await this.getOne(path, parseReport, 'report', signal);
    this.onRecords({ reports: [report] });
    return report;
  }

  /** Refuses a file response that is not labelled as a PDF or declares more than `maxBytes`, before its body is read. */
  private static checkPdfResponse(response: LabResponse, maxBytes: number): void {
    const type = response.contentType.split(';')[0]!.trim().toLowerCase();
    if (!PDF_CONTENT_TYPES.has(type)) {
      throw labError(
        'invalidResponse',
        'notPdfType',
        { type: serverText(type, 60) || 'no content type' },
        {
          status: response.status,
          path: response.path,
          requestId: response.requestId,
        },
      );
    }
    if (response.contentLength !== undefined && response.contentLength > maxBytes) {
      throw labError(
        'invalidResponse',
        'fileTooLarge',
        { mib: Math.round(maxBytes / 1024 / 1024) },
        { path: response.path, requestId: response.requestId },
      );
    }
  }

  /**
   * Reads a report's PDF into memory (for previewing without saving), with the same checks as a
   * download: a PDF content type, the size cap from `Content-Length` up front and while reading,
   * `%PDF-` at the start, and every declared byte received.
   */
  async fetchReportFile(
    reportId: string,
    options: {
      readonly maxBytes?: number;
      readonly signal?: AbortSignal;
      readonly onProgress?: (bytes: number, total?: number) => void;
    } = {},
  ): Promise<Buffer> {
    const path = this.paths.reportFile(reportId);
    const maxBytes = options.maxBytes ?? this.maxFileBytes;
    return this.#http.getStream(
      {
        path,
        accept: 'application/pdf',
        signal: options.signal,
        highWaterMark: FILE_HIGH_WATER_MARK,
      },
      async (response) => {
        LabApi.checkPdfResponse(response, maxBytes);
        const details = { path: response.path, requestId: response.requestId };
        const chunks: Buffer[] = [];
        let received = 0;
        for await (const chunk of response.body as AsyncIterable<Buffer>) {
          received += chunk.length;
          if (received > maxBytes) {
            response.body.destroy();
            throw labError(
              'invalidResponse',
              'fileTooLarge',
              { mib: Math.round(maxBytes / 1024 / 1024) },
              details,
            );
          }
          chunks.push(chunk);
          options.onProgress?.(received, response.contentLength);
        }
        if (response.contentLength !== undefined && received !== response.contentLength) {
          throw labError(
            'invalidResponse',
            'transferShort',
            { received, expected: response.contentLength },
            details,
          );
        }
        const file = Buffer.concat(chunks, received);
        const problem = pdfHeadProblem(file);
        if (problem) {
          throw problem.with(details);
        }
        return file;
      },
    );
  }

  /**
   * The size in bytes a download of the report's file would write, asked with a HEAD request
   * (`Content-Length`); undefined when the lab refuses HEAD (405, 501), sends no length, or would
   * send the file content-encoded (its length is then not the file's).
   */
  async reportFileSize(reportId: string, signal?: AbortSignal): Promise<number | undefined> {
    try {
      const response = await this.#http.head({
        path: this.paths.reportFile(reportId),
        accept: 'application/pdf',
        signal,
      });
      return response.contentLength;
    } catch (error) {
      if (error instanceof LabApiError && (error.status === 405 || error.status === 501)) {
        return undefined;
      }
      throw error;
    }
  }

  /** Streams a report's PDF into `folder` through the safe writer. */
  async downloadReportFile(reportId: string, options: DownloadOptions): Promise<SavedFile> {
    return this.downloadFileAt(this.paths.reportFile(reportId), options);
  }

  /**
   * {@link downloadReportFile} from a path on the lab's origin recorded earlier (a manifest's
   * `source`), with the same checks; the token goes nowhere but the lab's origin whatever the path.
   */
  async downloadFileAt(path: string, options: DownloadOptions): Promise<SavedFile> {
    return this.#http.getStream(
      {
        path,
        accept: 'application/pdf',
        signal: options.signal,
        highWaterMark: FILE_HIGH_WATER_MARK,
      },
      async (response) => {
        const maxBytes = options.maxBytes ?? this.maxFileBytes;
        LabApi.checkPdfResponse(response, maxBytes);
        const recorded = options.expectedBytes;
        if (
          recorded !== undefined &&
          response.contentLength !== undefined &&
          response.contentLength !== recorded
        ) {
          throw labError(
            'invalidResponse',
            'sizeNotRecorded',
            { declared: response.contentLength, expected: recorded },
            { path: response.path, requestId: response.requestId },
          );
        }
        const boundByRecord =
          recorded !== undefined && response.contentLength === undefined && recorded < maxBytes;
        try {
          return await writeFileSafely({
            folder: options.folder,
            fileName: options.fileName,
            root: options.root,
            source: response.body,
            ifExists: options.ifExists,
            expectedBytes: response.contentLength,
            // A body without a length is not read past the recorded size either (one shorter is
            // another file: its SHA-256 says so).
            maxBytes: boundByRecord ? recorded : maxBytes,
            checkHead: pdfHeadProblem,
            checkSha256: options.checkSha256,
            recordTime: options.recordTime,
            signal: options.signal,
            onProgress: options.onProgress,
          });
        } catch (error) {
          if (
            boundByRecord &&
            error instanceof LabApiError &&
            error.text?.id === 'fileTooLargeGeneric'
          ) {
            throw labError(
              'invalidResponse',
              'transferLonger',
              { expected: recorded },
              { path: response.path, requestId: response.requestId },
            );
          }
          if (
            error instanceof LabApiError &&
            error.path === undefined &&
            error.code !== 'fileSystem' &&
            error.code !== 'fileExists'
          ) {
            throw error.with({ path: response.path, requestId: response.requestId });
          }
          throw error;
        }
      },
    );
  }

  listClients(query: ListQuery = {}, signal?: AbortSignal, link?: string): Promise<Page<Client>> {
    return this.listPage(this.paths.clients(), 'clients', parseClient, query, signal, link);
  }

  iterateClients(
    query: ListQuery = {},
    options: IterateOptions = {},
  ): AsyncGenerator<Page<Client>> {
    return this.iterate(
      (page, signal, link) => this.listClients({ ...query, page }, signal, link),
      (client) => client.client_id,
      query,
      options,
    );
  }

  getClient(clientId: string, signal?: AbortSignal): Promise<Client> {
    return this.getOne(this.paths.client(clientId), parseClient, 'client', signal);
  }

  /** Projects, locations, submitters or work orders; `clientId` limits them to one client. */
  listProjects(query: ListQuery = {}, signal?: AbortSignal, link?: string): Promise<Page<Project>> {
    return this.listPage(this.paths.projects(), 'projects', parseProject, query, signal, link);
  }

  iterateProjects(
    query: ListQuery = {},
    options: IterateOptions = {},
  ): AsyncGenerator<Page<Project>> {
    return this.iterate(
      (page, signal, link) => this.listProjects({ ...query, page }, signal, link),
      (project) => project.project_id,
      query,
      options,
    );
  }

  async listSamples(
    query: ListQuery = {},
    signal?: AbortSignal,
    link?: string,
  ): Promise<Page<Sample>> {
    const page = await this.listPage(
      this.paths.samples(),
      'samples',
      parseSample,
      query,
      signal,
      link,
    );
    this.onRecords({ samples: page.items });
    return page;
  }

  iterateSamples(
    query: ListQuery = {},
    options: IterateOptions = {},
  ): AsyncGenerator<Page<Sample>> {
    return this.iterate(
      (page, signal, link) => this.listSamples({ ...query, page }, signal, link),
      (sample) => sample.id ?? JSON.stringify(sample.raw),
      query,
      options,
    );
  }

  /**
   * One page of a list: page `query.page`, or the page at `link` (a next-page link the server gave,
   * already checked to be on the lab's origin). Whether more follow is judged from what came back.
   */
  private async listPage<T>(
    path: string,
    resource: string,
    parse: Parser<T>,
    query: ListQuery,
    signal?: AbortSignal,
    link?: string,
  ): Promise<Page<T>> {
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? this.defaultPageSize;
    const at = link === undefined ? undefined : new URL(link, this.origin);
    const { body, headers } = at
      ? await this.#http.getJsonResponse(at.pathname, Object.fromEntries(at.searchParams), signal)
      : await this.#http.getJsonResponse(
          path,
          buildListQuery({ ...query, page, pageSize }),
          signal,
        );
    const { records, meta, next: bodyNext } = parseListBody(body, resource, path);
    const items: T[] = [];
    for (const record of records) {
      const item = parse(record);
      if (item !== undefined) {
        items.push(item);
      }
    }
    const next = nextPageLink(
      bodyNext,
      headers.link,
      this.lab.url,
      at ?? new URL(path, this.origin),
    );
    if (next.foreign) {
      this.onPagingAnomaly({ kind: 'foreignLink', page });
    }
    const result = {
      items,
      page: meta.page ?? page,
      pageSize: meta.page_size ?? pageSize,
      totalPages: meta.total_pages,
      totalCount: meta.total_count,
      next: next.link,
      skipped: records.length - items.length,
    };
    return { ...result, hasMore: morePages(result, NOTHING_SEEN, meta.page_size, pageSize) };
  }

  private iterate<T>(
    fetchPage: (page: number, signal?: AbortSignal, link?: string) => Promise<Page<T>>,
    keyOf: (item: T) => string | undefined,
    query: ListQuery,
    options: IterateOptions,
  ): AsyncGenerator<Page<T>> {
    const concurrency = options.concurrency ?? this.concurrency;
    // Walking one page after another, the server's own next-page link is followed where it gave one.
    const links = new Map<number, string>();
    const fetchFollowing = async (page: number, signal?: AbortSignal): Promise<Page<T>> => {
      const result = await fetchPage(page, signal, links.get(page - 1));
      if (typeof result.next === 'string') {
        links.set(page, result.next);
      }
      return result;
    };
    const onAnomaly = (anomaly: PagingAnomaly): void => {
      options.onAnomaly?.(anomaly);
      this.onPagingAnomaly(anomaly);
    };
    return iteratePages(fetchFollowing, {
      startPage: query.page ?? 1,
      maxPages: options.maxPages,
      concurrency,
      keyOf,
      onAnomaly,
      signal: options.signal,
    });
  }

  private async getOne<T>(
    path: string,
    parse: Parser<T>,
    what: string,
    signal?: AbortSignal,
  ): Promise<T> {
    const body = await this.#http.getJson(path, undefined, signal);
    // Some servers wrap a single record as `{ "data": { … } }`.
    const record =
      parse(body) ?? (isJsonObject(body) && isJsonObject(body.data) ? parse(body.data) : undefined);
    if (record === undefined) {
      throw labError('invalidResponse', 'recordNoId', { what }, { path });
    }
    return record;
  }
}
