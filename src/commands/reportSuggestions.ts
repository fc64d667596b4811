import type * as vscode from 'vscode';
import type { Report } from '../core/api/records';
import { serverText } from '../core/errors/serverText';
import type { Choice } from '../ui/prompts';
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
export function reportSuggestions(recent: readonly string[], loaded: readonly Report[], recentLabel: string): Choice[] {
  const byId = new Map(loaded.map((report) => [report.report_id, report]));
  const choices: Choice[] = [];
  const seen = new Set<string>();
  const add = (id: string, description: string | undefined): void => {
    if (!seen.has(id) && choices.length < MAX_SUGGESTIONS) {
      seen.add(id);
      choices.push({ id, label: serverText(id, 120), description });
    }
  };
  const describe = (report: Report | undefined): string | undefined => (report ? [report.report_type, localDate(report.published_at)].filter(Boolean).map((part) => serverText(part, 80)).join(' · ') : undefined);
  recent.forEach((id) => add(id, [recentLabel, describe(byId.get(id))].filter(Boolean).join(' · ')));
  loaded.forEach((report) => add(report.report_id, describe(report)));
  return choices;
}
