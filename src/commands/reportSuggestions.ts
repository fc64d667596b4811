import * as vscode from 'vscode';
import type { LabApi } from '../../core/api/labApi';
import type { Report } from '../../core/api/records';
import { LabApiError } from '../../core/errors/errors';
import { serverText } from '../../core/errors/serverText';
import { phrase } from '../ui/phrase';
import type { Choice, Prompts } from '../ui/prompts';
import type { ReportsTreeProvider } from '../views/reportsTree';
import { localDate } from '../views/recordText';

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
  const hint = example
    ? vscode.l10n.t(
        'Report ids look like {0}; type part of one to choose from the reports already loaded.',
        serverText(example, 80),
      )
    : vscode.l10n.t(
        'Report ids are given whole, as the lab prints them on the report (for example RPT-2024-000123).',
      );
  return new LabApiError('notFound', `${sentence} ${hint}`, {
    path: error.path,
    status: error.status,
    requestId: error.requestId,
  });
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
