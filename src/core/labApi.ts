import { HttpClient } from './httpClient';
import { LabApiError } from './errors';
import { parseListBody } from './listEnvelope';
import { hasMorePages, iteratePages, type Page, type PagingAnomaly } from './pagination';
import { buildListQuery, pathSegment, type ListQuery } from './query';
import { parseClient, parseProject, parseReport, parseSample, type Client, type Project, type Report, type Sample, isJsonObject } from './records';
import { writeFileSafely, type ExistingFilePolicy, type SavedFile } from './safeWriter';

export const DEFAULT_PAGE_SIZE = 50;
export const DEFAULT_MAX_PDF_BYTES = 512 * 1024 * 1024;

export interface DownloadOptions {
  readonly folder: string;
  readonly fileName: string;
  readonly root?: string;
  readonly ifExists?: ExistingFilePolicy;
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (bytesWritten: number, totalBytes?: number) => void;
}

export interface IterateOptions {
  readonly maxPages?: number;
  readonly signal?: AbortSignal;
  readonly onAnomaly?: (anomaly: PagingAnomaly) => void;
}

type Parser<T> = (value: unknown) => T | undefined;

/** Checks the PDF magic at the start of a file (allowing a little leading junk, as readers do). */
export function pdfHeadProblem(head: Buffer): string | undefined {
  return head.subarray(0, 1024).includes('%PDF-') ? undefined : 'The lab sent something that is not a PDF file; nothing was saved.';
}

/**
 * A method for every endpoint of the lab API (spec section 4), on top of the shared {@link HttpClient}.
 * Lists return one typed page; `iterate…` walks all pages.
 */
export class LabApi {
  constructor(
    readonly http: HttpClient,
    private readonly defaultPageSize: number = DEFAULT_PAGE_SIZE,
  ) {}

  listReports(query: ListQuery = {}, signal?: AbortSignal): Promise<Page<Report>> {
    return this.listPage('/reports', 'reports', parseReport, query, signal);
  }

  iterateReports(query: ListQuery = {}, options: IterateOptions = {}): AsyncGenerator<Page<Report>> {
    return this.iterate((page) => this.listReports({ ...query, page }, options.signal), (report) => report.report_id, query, options);
  }

  async getReport(reportId: string, signal?: AbortSignal): Promise<Report> {
    return this.getOne(`/reports/${pathSegment(reportId, 'report')}`, parseReport, 'report', signal);
  }

  /** Streams a report's PDF into `folder` through the safe writer. */
  async downloadReportFile(reportId: string, options: DownloadOptions): Promise<SavedFile> {
    const path = `/reports/${pathSegment(reportId, 'report')}/file`;
    return this.http.getStream({ path, accept: 'application/pdf', signal: options.signal }, async (response) => {
      const type = response.contentType.split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/pdf' && type !== 'application/octet-stream' && type !== 'application/x-pdf') {
        throw new LabApiError('invalidResponse', `The lab answered with ${type || 'no content type'} instead of a PDF; a proxy or login page may be in the way. Nothing was saved.`, {
          status: response.status,
          path: response.path,
          requestId: response.requestId,
        });
      }
      const maxBytes = options.maxBytes ?? DEFAULT_MAX_PDF_BYTES;
      if (response.contentLength !== undefined && response.contentLength > maxBytes) {
        throw new LabApiError('invalidResponse', `The report file is larger than the ${Math.round(maxBytes / 1024 / 1024)} MiB limit.`, { path: response.path, requestId: response.requestId });
      }
      try {
        return await writeFileSafely({
          folder: options.folder,
          fileName: options.fileName,
          root: options.root,
          source: response.body,
          ifExists: options.ifExists,
          expectedBytes: response.contentLength,
          maxBytes,
          checkHead: pdfHeadProblem,
          signal: options.signal,
          onProgress: options.onProgress,
        });
      } catch (error) {
        if (error instanceof LabApiError && error.path === undefined && error.code !== 'fileSystem' && error.code !== 'fileExists') {
          throw error.with({ path: response.path, requestId: response.requestId });
        }
        throw error;
      }
    });
  }

  listClients(query: ListQuery = {}, signal?: AbortSignal): Promise<Page<Client>> {
    return this.listPage('/clients', 'clients', parseClient, query, signal);
  }

  iterateClients(query: ListQuery = {}, options: IterateOptions = {}): AsyncGenerator<Page<Client>> {
    return this.iterate((page) => this.listClients({ ...query, page }, options.signal), (client) => client.client_id, query, options);
  }

  getClient(clientId: string, signal?: AbortSignal): Promise<Client> {
    return this.getOne(`/clients/${pathSegment(clientId, 'client')}`, parseClient, 'client', signal);
  }

  /** Projects, locations, submitters or work orders; `clientId` limits them to one client. */
  listProjects(query: ListQuery = {}, signal?: AbortSignal): Promise<Page<Project>> {
    return this.listPage('/projects', 'projects', parseProject, query, signal);
  }

  iterateProjects(query: ListQuery = {}, options: IterateOptions = {}): AsyncGenerator<Page<Project>> {
    return this.iterate((page) => this.listProjects({ ...query, page }, options.signal), (project) => project.project_id, query, options);
  }

  listSamples(query: ListQuery = {}, signal?: AbortSignal): Promise<Page<Sample>> {
    return this.listPage('/samples', 'samples', parseSample, query, signal);
  }

  iterateSamples(query: ListQuery = {}, options: IterateOptions = {}): AsyncGenerator<Page<Sample>> {
    return this.iterate((page) => this.listSamples({ ...query, page }, options.signal), (sample) => sample.id ?? JSON.stringify(sample.raw), query, options);
  }

  private async listPage<T>(path: string, resource: string, parse: Parser<T>, query: ListQuery, signal?: AbortSignal): Promise<Page<T>> {
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? this.defaultPageSize;
    const params = buildListQuery({ ...query, page, pageSize });
    const body = await this.http.getJson(path, params, signal);
    const { records, meta } = parseListBody(body, resource, `${this.http.baseUrl.apiPath}${path}`);
    const items: T[] = [];
    for (const record of records) {
      const item = parse(record);
      if (item !== undefined) {
        items.push(item);
      }
    }
    return {
      items,
      page: meta.page ?? page,
      pageSize: meta.page_size ?? pageSize,
      totalPages: meta.total_pages,
      totalCount: meta.total_count,
      hasMore: hasMorePages(meta, page, pageSize, records.length),
      skipped: records.length - items.length,
    };
  }

  private iterate<T>(fetchPage: (page: number) => Promise<Page<T>>, keyOf: (item: T) => string | undefined, query: ListQuery, options: IterateOptions): AsyncGenerator<Page<T>> {
    return iteratePages(fetchPage, { startPage: query.page ?? 1, maxPages: options.maxPages, keyOf, onAnomaly: options.onAnomaly, signal: options.signal });
  }

  private async getOne<T>(path: string, parse: Parser<T>, what: string, signal?: AbortSignal): Promise<T> {
    const body = await this.http.getJson(path, undefined, signal);
    // Some servers wrap a single record as `{ "data": { … } }`.
    const record = parse(body) ?? (isJsonObject(body) && isJsonObject(body.data) ? parse(body.data) : undefined);
    if (record === undefined) {
      throw new LabApiError('invalidResponse', `The lab's answer for this ${what} has no ${what} id.`, { path: `${this.http.baseUrl.apiPath}${path}` });
    }
    return record;
  }
}
