import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import { serverText } from '../../core/errors/serverText';
import {
  reportLine,
  sampleLine,
  saveConfirmation,
  toolLimit,
  toolList,
  type ToolList,
} from '../../core/derived/chatText';
import { LabApiError } from '../../core/errors/errors';
import type { LabApi } from '../../core/api/labApi';
import type { FilterName } from '../../core/api/labDefinition';
import type { Page } from '../../core/api/pagination';
import type { ListFilters } from '../../core/api/query';
import type { JsonObject } from '../../core/api/records';
import { resolveSince } from '../../core/derived/savedSearches';
import { Commands, SETTINGS_SECTION, Settings, Tools } from '../constants';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import { phrase } from '../ui/phrase';
import { errorText } from '../../core/errors/errorText';

/** A tool's failure, told to the model as text it can relay (never a stack). */
class ToolRefusal extends Error {}

interface SearchReportsInput {
  readonly publishedSince?: string;
  readonly status?: string;
  readonly clientId?: string;
  readonly projectId?: string;
  readonly lab?: string;
  readonly limit?: number;
}

interface GetReportInput {
  readonly id: string;
  readonly lab?: string;
}

interface ListSamplesInput {
  readonly receivedSince?: string;
  readonly lab?: string;
  readonly limit?: number;
}

interface SaveReportPdfInput {
  readonly ids: readonly string[];
  readonly lab?: string;
}

/** A string field of a tool's input (the schema is not enforced by VS Code). */
function optionalText(input: unknown, key: string): string | undefined {
  const value = (input as Record<string, unknown> | undefined)?.[key];
  if (value === undefined || value === null || value === '') {
    return undefined;
  }
  if (typeof value !== 'string' || value.length > 200) {
    throw new ToolRefusal(`"${key}" must be text of at most 200 characters.`);
  }
  return value.trim();
}

/**
 * The four Lab Data tools for chat (`contributes.languageModelTools`). Each validates its input,
 * asks one signed-in lab through the same `LabApi` the views use, and answers with concise text (a
 * line per record) plus the JSON of what it returned, at most `limit` records. Failures come back
 * as a sentence the model can relay (signed out, forbidden, rate-limited until …). Every result
 * passes through the log's redaction, so no token can appear in it.
 */
export class LabTools {
  /** Tool calls so far (diagnostics for tests). */
  invocations = 0;

  constructor(
    private readonly labs: Labs,
    private readonly log: Logger,
  ) {}

  register(): vscode.Disposable[] {
    return [
      vscode.lm.registerTool<SearchReportsInput>(Tools.searchReports, {
        prepareInvocation: (options) => ({
          invocationMessage: vscode.l10n.t(
            'Searching reports of {0}…',
            this.labLabel(options.input),
          ),
        }),
        invoke: (options, token) => this.run(() => this.searchReports(options.input, token)),
      }),
      vscode.lm.registerTool<GetReportInput>(Tools.getReport, {
        prepareInvocation: (options) => ({
          invocationMessage: vscode.l10n.t(
            'Getting report {0}…',
            serverText(options.input?.id, 80),
          ),
        }),
        invoke: (options, token) => this.run(() => this.getReport(options.input, token)),
      }),
      vscode.lm.registerTool<ListSamplesInput>(Tools.listSamples, {
        prepareInvocation: (options) => ({
          invocationMessage: vscode.l10n.t('Listing samples of {0}…', this.labLabel(options.input)),
        }),
        invoke: (options, token) => this.run(() => this.listSamples(options.input, token)),
      }),
      vscode.lm.registerTool<SaveReportPdfInput>(Tools.saveReportPdf, {
        prepareInvocation: (options) => this.confirmSave(options.input),
        invoke: (options) => this.run(() => this.saveReportPdf(options.input)),
      }),
    ];
  }

  /** The confirmation shown before saving files into the workspace. */
  confirmSave(input: SaveReportPdfInput): vscode.PreparedToolInvocation {
    const ids = Array.isArray(input?.ids) ? input.ids : [];
    const lab = this.labLabel(input);
    const folder = vscode.workspace
      .getConfiguration(SETTINGS_SECTION)
      .get<string>(Settings.downloadFolder, 'lab-reports');
    const { title, message } = saveConfirmation(ids, lab, serverText(folder, 100));
    return {
      invocationMessage: vscode.l10n.t('Saving {0} report PDF(s) from {1}…', ids.length, lab),
      confirmationMessages: { title, message: new vscode.MarkdownString().appendText(message) },
    };
  }

  private labLabel(input: { lab?: unknown } | undefined): string {
    return typeof input?.lab === 'string' && input.lab.trim()
      ? serverText(input.lab, 60)
      : this.labs.signedIn.length === 1
        ? this.labs.signedIn[0]!.lab.name
        : vscode.l10n.t('your lab');
  }

  /** Runs a tool body, turning every failure into text and redacting the result. */
  private async run(body: () => Promise<string[]>): Promise<vscode.LanguageModelToolResult> {
    this.invocations++;
    let parts: string[];
    try {
      await this.labs.ready;
      parts = await body();
    } catch (error) {
      parts = [this.explain(error)];
      if (!(error instanceof ToolRefusal)) {
        this.log.info('Chat', `A tool call failed: ${parts[0]}`);
      }
    }
    return new vscode.LanguageModelToolResult(
      parts.map((part) => new vscode.LanguageModelTextPart(this.log.redact(part))),
    );
  }

  private explain(error: unknown): string {
    if (error instanceof ToolRefusal) {
      return error.message;
    }
    if (error instanceof LabApiError) {
      if (error.code === 'rateLimited' && error.retryAt) {
        return `The lab is limiting requests until ${error.retryAt.toISOString()}; try again after that.`;
      }
      if (error.code === 'unauthorized') {
        return `The lab no longer accepts the stored access token; ask the user to run "Lab Data: Sign In". (${phrase(error)})`;
      }
      return phrase(error);
    }
    return error instanceof Error ? serverText(error.message, 300) : 'The tool failed.';
  }

  /** The signed-in lab a call is for: the one named, or the only one signed in. */
  private api(input: { lab?: unknown } | undefined): LabApi {
    const name = optionalText(input, 'lab');
    const signedIn = this.labs.signedIn;
    if (name !== undefined) {
      const connection = this.labs.get(name);
      if (!connection) {
        const known = this.labs.all.map((lab) => lab.lab.name);
        throw new ToolRefusal(
          `There is no lab named "${serverText(name, 60)}". ${known.length > 0 ? `Labs: ${known.join(', ')}.` : 'No lab is set up.'}`,
        );
      }
      if (!connection.api) {
        throw new ToolRefusal(
          `Not signed in to ${connection.lab.name}. Ask the user to run "Lab Data: Sign In" first.`,
        );
      }
      return connection.api;
    }
    if (signedIn.length === 0) {
      throw new ToolRefusal(
        'Not signed in to any lab. Ask the user to run "Lab Data: Sign In" first.',
      );
    }
    if (signedIn.length > 1) {
      throw new ToolRefusal(
        `Several labs are signed in (${signedIn.map((connection) => connection.lab.name).join(', ')}); call the tool again with "lab" set to one of them.`,
      );
    }
    return signedIn[0]!.api!;
  }

  private requireFilters(api: LabApi, filters: readonly FilterName[]): void {
    const missing = filters.filter((filter) => !api.lab.filters.includes(filter));
    if (missing.length > 0) {
      throw new ToolRefusal(
        `${api.lab.name} does not offer the ${missing.join(', ')} filter; leave it out.`,
      );
    }
  }

  private since(value: string | undefined, name: string): string | undefined {
    if (value === undefined) {
      return undefined;
    }
    try {
      return resolveSince(value, new Date(), name);
    } catch (error) {
      throw new ToolRefusal(errorText(error));
    }
  }

  private async searchReports(
    input: SearchReportsInput,
    token: vscode.CancellationToken,
  ): Promise<string[]> {
    const api = this.api(input);
    const limit = this.limit(input);
    const filters: ListFilters = {
      publishedSince: this.since(optionalText(input, 'publishedSince'), 'published-since date'),
      status: optionalText(input, 'status'),
      clientId: optionalText(input, 'clientId'),
      projectId: optionalText(input, 'projectId'),
    };
    const needed: Array<[keyof ListFilters, FilterName]> = [
      ['publishedSince', 'published_since'],
      ['status', 'status'],
      ['clientId', 'client_id'],
      ['projectId', 'project_id'],
    ];
    this.requireFilters(
      api,
      needed.filter(([key]) => filters[key] !== undefined).map(([, filter]) => filter),
    );
    const described = needed
      .filter(([key]) => filters[key] !== undefined)
      .map(([key, filter]) => `${filter} ${String(filters[key])}`)
      .join(', ');
    const heading = `Reports of ${api.lab.name}${described ? ` (${described})` : ''}, newest first:`;
    return this.listed(
      await collect(
        (options) => api.iterateReports({ ...filters, pageSize: limit }, options),
        limit,
        token,
      ),
      api.lab.name,
      heading,
      reportLine,
      limit,
    );
  }

  private async getReport(
    input: GetReportInput,
    token: vscode.CancellationToken,
  ): Promise<string[]> {
    const id = optionalText(input, 'id');
    if (id === undefined) {
      throw new ToolRefusal('"id" is required: the report id, for example RPT-2026-000123.');
    }
    const api = this.api(input);
    try {
      const report = await api.getReport(id, toAbortSignal(token));
      return [
        `Report of ${api.lab.name}: ${reportLine(report)}`,
        JSON.stringify({ lab: api.lab.name, record: report.raw }),
      ];
    } catch (error) {
      if (error instanceof LabApiError && error.code === 'notFound') {
        throw new ToolRefusal(
          `${api.lab.name} has no report "${serverText(id, 80)}", or it is outside the user's access scope.`,
        );
      }
      throw error;
    }
  }

  private async listSamples(
    input: ListSamplesInput,
    token: vscode.CancellationToken,
  ): Promise<string[]> {
    const api = this.api(input);
    const limit = this.limit(input);
    const receivedSince = this.since(optionalText(input, 'receivedSince'), 'received-since date');
    if (receivedSince !== undefined) {
      this.requireFilters(api, ['received_since']);
    }
    const heading = `Samples of ${api.lab.name}${receivedSince ? ` received since ${receivedSince}` : ''}:`;
    return this.listed(
      await collect(
        (options) => api.iterateSamples({ receivedSince, pageSize: limit }, options),
        limit,
        token,
      ),
      api.lab.name,
      heading,
      sampleLine,
      limit,
    );
  }

  private async saveReportPdf(input: SaveReportPdfInput): Promise<string[]> {
    const given = (input as { ids?: unknown } | undefined)?.ids;
    if (
      !Array.isArray(given) ||
      given.length === 0 ||
      given.length > 50 ||
      !given.every((id) => typeof id === 'string' && id.trim() !== '' && id.length <= 200)
    ) {
      throw new ToolRefusal('"ids" must be a list of 1 to 50 report ids.');
    }
    const api = this.api(input);
    const ids = [...new Set(given.map((id: string) => id.trim()))];
    const saved = await vscode.commands.executeCommand<vscode.Uri[] | undefined>(
      Commands.saveReportPdf,
      { lab: api.lab.name, ids },
    );
    const paths = (saved ?? []).map((uri) => vscode.workspace.asRelativePath(uri, false));
    const lines = [
      `Saved ${paths.length} of ${ids.length} report PDF(s) from ${api.lab.name}:`,
      ...paths.map((file) => `- ${file}`),
    ];
    if (paths.length < ids.length) {
      lines.push(
        `${ids.length - paths.length} were not saved (already saved and kept, no file available, or cancelled); the Lab Data log has the details.`,
      );
    }
    return [lines.join('\n'), JSON.stringify({ lab: api.lab.name, saved: paths })];
  }

  private limit(input: { limit?: unknown } | undefined): number {
    try {
      return toolLimit(input?.limit);
    } catch (error) {
      throw new ToolRefusal(`${errorText(error)}.`);
    }
  }

  private listed<T extends { raw: JsonObject }>(
    found: Collected<T>,
    lab: string,
    heading: string,
    lineOf: (record: T) => string,
    limit: number,
  ): string[] {
    const list: ToolList = toolList(
      lab,
      heading,
      found.records,
      lineOf,
      limit,
      found.total,
      found.more,
    );
    return [list.text, JSON.stringify(list.json)];
  }
}

interface Collected<T> {
  readonly records: T[];
  readonly total?: number;
  readonly more: boolean;
}

/** Reads pages until `limit` records are in hand (the lab may cap its pages below what we ask). */
async function collect<T>(
  pages: (options: { signal: AbortSignal; maxPages: number }) => AsyncGenerator<Page<T>>,
  limit: number,
  token: vscode.CancellationToken,
): Promise<Collected<T>> {
  const records: T[] = [];
  let total: number | undefined;
  let more = false;
  for await (const page of pages({ signal: toAbortSignal(token), maxPages: limit })) {
    records.push(...page.items);
    total ??= page.totalCount;
    more = page.hasMore;
    if (records.length >= limit) {
      more = more || records.length > limit;
      break;
    }
  }
  return { records, total, more };
}
