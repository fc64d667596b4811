import * as vscode from 'vscode';
import type { LabApi } from '../../core/api/labApi';
import type { Report } from '../../core/api/records';
import { LabApiError } from '../../core/errors/errors';
import { serverText } from '../../core/errors/serverText';
import { phrase } from '../ui/phrase';
import type { Choice, Prompts } from '../ui/prompts';
import type { ReportsTreeProvider } from '../views/reportsTree';
import type { LabConnection } from '../labs/labConnection';
import { localDate } from '../views/recordText';
import { acrossLabs } from '../../core/api/acrossLabs';
import { answerTimeoutMs } from '../../core/connection/httpClient';

const KEY = 'labData.recentReportIds';
/** Recently used report ids kept per lab. */
export const RECENT_REPORTS_KEPT = 20;
/** Suggestions offered at most (the list narrows while typing). */
const MAX_SUGGESTIONS = 500;

/** Report ids a person used recently (found, opened), per lab, newest first; ids only, never a token. */
export class RecentReports {
  constructor(private readonly state: vscode.Memento) {}

  ids(lab: string): string[] {
    const kept = this.state.get<Record<string, unknown>>(KEY, {})[lab];
    return Array.isArray(kept) ? kept.filter((id): id is string => typeof id === 'string') : [];
  }

  async remember(lab: string, id: string): Promise<void> {
    const all = { ...this.state.get<Record<string, unknown>>(KEY, {}) };
    all[lab] = [id, ...this.ids(lab).filter((kept) => kept !== id)].slice(0, RECENT_REPORTS_KEPT);
    await this.state.update(KEY, all);
  }
}

/** The ids to suggest for a lab: recently used first, then the reports loaded in the Reports view. */
export function reportSuggestions(
  recent: readonly string[],
  loaded: readonly Report[],
  recentLabel: string,
): Choice[] {
  const byId = new Map(loaded.map((report) => [report.report_id, report]));
  const choices: Choice[] = [];
  const seen = new Set<string>();
  const add = (id: string, description: string | undefined): void => {
    if (!seen.has(id) && choices.length < MAX_SUGGESTIONS) {
      seen.add(id);
      choices.push({ id, label: serverText(id, 120), description });
    }
  };
  const describe = (report: Report | undefined): string | undefined =>
    report
      ? [report.report_type, localDate(report.published_at)]
          .filter(Boolean)
          .map((part) => serverText(part, 80))
          .join(' · ')
      : undefined;
  recent.forEach((id) =>
    add(id, [recentLabel, describe(byId.get(id))].filter(Boolean).join(' · ')),
  );
  loaded.forEach((report) => add(report.report_id, describe(report)));
  return choices;
}

/** "Not found" with what a report id looks like, so a partial or mistyped id gets a hint, not a dead end. */
export function notFoundHint(
  error: unknown,
  id: string,
  lab: string,
  example: string | undefined,
): unknown {
  if (!(error instanceof LabApiError) || error.code !== 'notFound') {
    return error;
  }
  const sentence = vscode.l10n.t('{0} has no report "{1}".', lab, serverText(id, 80));
  return new LabApiError('notFound', `${sentence} ${idHint(example)}`, {
    path: error.path,
    status: error.status,
    requestId: error.requestId,
  });
}

/** What a report id looks like: like `example` (a suggestion), else as the lab prints it. */
function idHint(example: string | undefined): string {
  return example
    ? vscode.l10n.t(
        'Report ids look like {0}; type part of one to choose from the reports already loaded.',
        serverText(example, 80),
      )
    : vscode.l10n.t(
        'Report ids are given whole, as the lab prints them on the report (for example RPT-2024-000123).',
      );
}

/** Where report-id suggestions come from: ids used recently, and the reports the Reports view has loaded. */
export interface ReportIdSources {
  readonly recent: RecentReports;
  readonly reportsTree: ReportsTreeProvider;
}

/**
 * Asks for a report of `api`'s lab the way Find Report does: ids suggested (recent first, then
 * those loaded), part of one accepted, and the id checked with the lab before the picker closes, so
 * one the lab does not know is a line in the picker, not an error after it. Resolves to the report,
 * or undefined when the person cancelled; the caller remembers it among the recent ones.
 */
export async function askForReport(
  prompts: Prompts,
  api: LabApi,
  sources: ReportIdSources,
  title: string,
): Promise<Report | undefined> {
  const lab = api.lab.name;
  const suggestions = reportSuggestions(
    sources.recent.ids(lab),
    sources.reportsTree.loadedReports(lab),
    vscode.l10n.t('recent'),
  );
  let found: Report | undefined;
  const id = await prompts.reportId(suggestions, {
    title,
    check: async (candidate) => {
      try {
        found = await api.getReport(candidate);
        return undefined;
      } catch (error) {
        found = undefined;
        return phrase(notFoundHint(error, candidate, lab, suggestions[0]?.id));
      }
    },
  });
  return id ? found : undefined;
}

/** A report and the signed-in lab it came from. */
export interface LabReport {
  readonly connection: LabConnection;
  readonly report: Report;
}

/**
 * How long the labs still asked get, once one lab has the report, before the answer goes on without
 * them: a lab that does not answer never holds up the report another lab already gave.
 */
export const LATE_LAB_GRACE_MS = 2000;

/**
 * The signed-in labs that have report `id`, asked all at once. A lab that could not answer (down,
 * limiting requests) is no match; its failure is kept, to be said when no lab has the id. Once one
 * lab has the report, the others get {@link LATE_LAB_GRACE_MS} more; those still silent are named
 * in `late` and left to finish on their own.
 */
export async function labsWithReport(
  connections: readonly LabConnection[],
  id: string,
  signal?: AbortSignal,
): Promise<{ found: LabReport[]; failures: unknown[]; late: string[] }> {
  const reports = new Map<string, Report>();
  const failures: unknown[] = [];
  const answered = new Set<string>();
  const answers = acrossLabs<Report>(
    connections.flatMap((connection) => {
      const api = connection.api;
      return api
        ? [
            {
              lab: connection.lab.name,
              ask: async function* (asked: AbortSignal) {
                yield [await api.getReport(id, asked)];
              },
            },
          ]
        : [];
    }),
    { deadlineMs: answerTimeoutMs(), signal },
  );
  let grace: ReturnType<typeof setTimeout> | undefined;
  try {
    for await (const answer of answers) {
      if (answer.kind === 'items' && answer.items[0]) {
        reports.set(answer.lab, answer.items[0]);
        grace ??= setTimeout(() => answers.stop(), LATE_LAB_GRACE_MS);
      } else if (answer.kind === 'failed') {
        answered.add(answer.lab);
        if (!(answer.error instanceof LabApiError && answer.error.code === 'notFound')) {
          failures.push(answer.error);
        }
      } else if (answer.kind === 'done') {
        answered.add(answer.lab);
      }
    }
  } finally {
    clearTimeout(grace);
  }
  return {
    // In the order the labs are defined, whichever answered first.
    found: connections.flatMap((connection) => {
      const report = reports.get(connection.lab.name);
      return report ? [{ connection, report }] : [];
    }),
    failures,
    late: connections
      .filter((connection) => connection.api && !answered.has(connection.lab.name))
      .map((connection) => connection.lab.name),
  };
}

/** Names the labs a lookup went on without, in the status bar, so a missing lab is never silent. */
function sayLate(late: readonly string[]): void {
  if (late.length > 0) {
    vscode.window.setStatusBarMessage(
      `$(warning) ${vscode.l10n.t('Not yet answered, so not searched: {0}', late.join(', '))}`,
      15_000,
    );
  }
}

/** No signed-in lab has `id`: said with what ids look like, or with why a lab could not answer. */
function noLabHas(id: string, failures: readonly unknown[], example: string | undefined): unknown {
  if (failures.length > 0) {
    return failures[0];
  }
  const sentence = vscode.l10n.t(
    'No lab you are signed in to has a report "{0}".',
    serverText(id, 80),
  );
  return new LabApiError('notFound', `${sentence} ${idHint(example)}`);
}

/**
 * The lab of a report several signed-in labs have: asked, each lab beside what it says about the
 * report; one lab needs no question. Undefined means cancel.
 */
export async function chooseLabOf(
  prompts: Prompts,
  found: readonly LabReport[],
  title: string,
): Promise<LabReport | undefined> {
  if (found.length <= 1) {
    return found[0];
  }
  const id = found[0]!.report.report_id;
  const picked = await prompts.pickOne(
    title,
    vscode.l10n.t('{0} is a report of several labs. Which one?', serverText(id, 80)),
    found.map(({ connection, report }) => ({
      id: connection.lab.name,
      label: connection.lab.name,
      description: [report.report_type, localDate(report.published_at), report.client_id]
        .filter(Boolean)
        .map((part) => serverText(part, 80))
        .join(' · '),
    })),
    false,
  );
  return found.find((candidate) => candidate.connection.lab.name === picked);
}

/**
 * A report whose id is given, in whichever signed-in lab has it (asking only when several do);
 * fails with "no lab you are signed in to has …" when none does.
 */
export async function reportInLabs(
  prompts: Prompts,
  connections: readonly LabConnection[],
  id: string,
  title: string,
  signal?: AbortSignal,
): Promise<LabReport | undefined> {
  const { found, failures, late } = await labsWithReport(connections, id, signal);
  sayLate(late);
  if (found.length === 0) {
    throw noLabHas(id, failures, undefined);
  }
  return chooseLabOf(prompts, found, title);
}

/**
 * Between a suggestion's report id and its lab in the ids the report-id picker hands back: an
 * invisible separator, which no report id or lab name holds, so the same id in two labs is two
 * suggestions, and the one chosen says its lab.
 */
const OF_LAB = '\u2063';

/** A suggestion's id split into the report id and its lab; typed text has no lab. */
function suggested(value: string): { id: string; lab?: string } {
  const at = value.indexOf(OF_LAB);
  return at < 0 ? { id: value } : { id: value.slice(0, at), lab: value.slice(at + 1) };
}

/**
 * The suggestions of several labs: each lab's own (recent first, then those loaded), each naming
 * its lab before its own type and date, so an id two labs have is offered twice, once per lab.
 */
export function suggestionsInLabs(
  connections: readonly LabConnection[],
  sources: ReportIdSources,
): Choice[] {
  return connections
    .flatMap((connection) => {
      const lab = connection.lab.name;
      return reportSuggestions(
        sources.recent.ids(lab),
        sources.reportsTree.loadedReports(lab),
        vscode.l10n.t('recent'),
      ).map((choice) => ({
        ...choice,
        id: `${choice.id}${OF_LAB}${lab}`,
        description: [serverText(lab, 60), choice.description].filter(Boolean).join(' · '),
      }));
    })
    .slice(0, MAX_SUGGESTIONS);
}

/**
 * Asks for a report of any of several signed-in labs, as {@link askForReport} asks for one lab's:
 * every lab's suggestions ({@link suggestionsInLabs}), a suggestion chosen looked up in its own
 * lab, and a typed id in every lab before the picker closes. An id several labs have, typed, is
 * then asked about (which lab).
 */
export async function askForReportInLabs(
  prompts: Prompts,
  connections: readonly LabConnection[],
  sources: ReportIdSources,
  title: string,
): Promise<LabReport | undefined> {
  const suggestions = suggestionsInLabs(connections, sources);
  const example = suggestions[0] && suggested(suggestions[0].id).id;
  let found: LabReport[] = [];
  const id = await prompts.reportId(suggestions, {
    title,
    check: async (candidate) => {
      const { id: wanted, lab } = suggested(candidate);
      const asked =
        lab === undefined
          ? connections
          : connections.filter((connection) => connection.lab.name === lab);
      const answer = await labsWithReport(asked, wanted);
      sayLate(answer.late);
      found = answer.found;
      return found.length > 0 ? undefined : phrase(noLabHas(wanted, answer.failures, example));
    },
  });
  return id ? chooseLabOf(prompts, found, title) : undefined;
}
