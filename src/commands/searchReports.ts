import * as vscode from 'vscode';
import type { Report } from '../../core/api/records';
import { acrossLabs, type LabAnswer, type LabQuestion } from '../../core/api/acrossLabs';
import { answerTimeoutMs } from '../../core/connection/httpClient';
import { LabApiError } from '../../core/errors/errors';
import { serverText } from '../../core/errors/serverText';
import type { LabConnection } from '../labs/labConnection';
import { commandTargets, type CommandTargets } from '../ui/commandTargets';
import type { PickPart } from '../ui/prompts';
import { titleFor } from '../ui/prompts/labTitles';
import { phrase } from '../ui/phrase';
import { serverPart, type ReportFilter } from '../views/reportsTree';
import { askReportFilter, filterFromArgs, type ReportFilterArgs } from './filters';
import { labForCommand, unlessKnownDown } from './labTarget';
import {
  act,
  chooseAction,
  locallyFiltered,
  parseAction,
  summaryOf,
  type PaletteServices,
  type ReportAction,
} from './palette';

/** A report found by a search, and the lab it came from. */
interface Found {
  readonly lab: string;
  readonly report: Report;
}

/**
 * How long a lab may take to send its first page before the picker names it as not answering
 * (it is still asked): just past one answer timeout, by which a lab that sends nothing has failed.
 */
function lateAfterMs(): number {
  return answerTimeoutMs() + 1000;
}

/**
 * The labs a search asks: the one whose row was clicked, else every signed-in lab (the view's
 * toolbar and the palette), so a search never silently leaves a lab out.
 */
async function labsToSearch(
  services: PaletteServices,
  targets: CommandTargets,
): Promise<LabConnection[]> {
  const signedIn = services.labs.signedIn;
  if ((targets.clicked && targets.lab !== undefined) || signedIn.length === 0) {
    const one = await labForCommand(
      services.labs,
      services.prompts.current,
      targets.clicked ? targets.lab : undefined,
    );
    return one?.api ? [one] : [];
  }
  return signedIn.filter((connection) => connection.api);
}

/** What the picker says of a lab that has not answered or failed ("Stalled did not answer in 10 s"). */
export function labNote(answer: LabAnswer<unknown>): string | undefined {
  const seconds = Math.round(answerTimeoutMs() / 1000);
  if (answer.kind === 'late') {
    return vscode.l10n.t(
      '{0} has not answered in {1} s; still waiting',
      answer.lab,
      Math.round(answer.afterMs / 1000),
    );
  }
  if (answer.kind !== 'failed') {
    return undefined;
  }
  const error = answer.error;
  if (error instanceof LabApiError && error.code === 'timeout') {
    return vscode.l10n.t('{0} did not answer in {1} s', answer.lab, seconds);
  }
  return vscode.l10n.t('{0} failed: {1}', answer.lab, phrase(error));
}

/** Every lab's search results as the picker takes them: results as they come, and a note for a lab that does not answer. */
async function* pickParts(
  answers: AsyncIterable<LabAnswer<Found>>,
  known: readonly PickPart<Found>[],
): AsyncIterable<PickPart<Found>> {
  yield* known;
  const late = new Set<string>();
  for await (const answer of answers) {
    if (answer.kind === 'items') {
      if (late.delete(answer.lab)) {
        // It answered after all: no longer said to be missing.
        yield { source: answer.lab, note: '' };
      }
      yield { items: answer.items };
    } else {
      if (answer.kind === 'late') {
        late.add(answer.lab);
      }
      const note = labNote(answer);
      if (note) {
        yield { source: answer.lab, note };
      }
    }
  }
}

/** One lab's question: its reports that match `filter`, page by page. */
function question(connection: LabConnection, filter: ReportFilter): LabQuestion<Found> {
  const lab = connection.lab.name;
  const api = connection.api!;
  return {
    lab,
    ask: async function* (signal) {
      const pages = api.iterateReports(serverPart(filter), { signal });
      for await (const page of locallyFiltered(pages, filter)) {
        yield page.items.map((report) => ({ lab, report }));
      }
    },
  };
}

/** Runs `action` on the chosen reports, lab by lab. */
async function actOnEach(
  action: ReportAction,
  chosen: readonly Found[],
  connections: readonly LabConnection[],
  services: PaletteServices,
): Promise<unknown> {
  const results: unknown[] = [];
  for (const connection of connections) {
    const reports = chosen
      .filter((found) => found.lab === connection.lab.name)
      .map((found) => found.report)
      .filter((report) => action !== 'savePdf' || report.download_available !== false);
    if (reports.length > 0) {
      results.push(await act(action, reports, connection.api!, services));
    }
  }
  return results.length === 1 ? results[0] : results;
}

/** `labData.searchReports` called with options: one lab's matching reports without prompts, and the action given. */
async function searchWithArgs(
  services: PaletteServices,
  targets: CommandTargets,
): Promise<{ ids: string[]; action?: ReportAction; result?: unknown } | undefined> {
  const connection = await labForCommand(services.labs, services.prompts.current, targets.lab);
  const api = connection?.api;
  if (!api) {
    return undefined;
  }
  const given = targets.options as ReportFilterArgs & { action?: unknown };
  const filter = filterFromArgs(given, api);
  const action = parseAction(given.action);
  const reports: Report[] = [];
  for await (const page of locallyFiltered(api.iterateReports(serverPart(filter)), filter)) {
    reports.push(...page.items);
  }
  const ids = reports.map((report) => report.report_id);
  if (!action || reports.length === 0) {
    return { ids };
  }
  const chosen =
    action === 'savePdf'
      ? reports.filter((report) => report.download_available !== false)
      : reports;
  return { ids, action, result: await act(action, chosen, api, services) };
}

/**
 * `labData.searchReports`: published since, then status, client and project (or `{ lab?,
 * publishedSince, status, clientId, projectId, action? }` without prompts, in one lab); the
 * results of every signed-in lab (from a lab's row: that lab's) stream into one picker as each lab
 * sends them, a lab that does not answer named in its title without holding up the others; the
 * chosen reports get an action, in bulk. Returns the ids found (with arguments) or chosen.
 */
export async function searchReports(
  services: PaletteServices,
  ...args: unknown[]
): Promise<{ ids: string[]; action?: ReportAction; result?: unknown } | undefined> {
  const targets = commandTargets(args);
  if (targets.automated) {
    return searchWithArgs(services, targets);
  }
  const connections = await labsToSearch(services, targets);
  if (connections.length === 0) {
    return undefined;
  }
  if (connections.length === 1) {
    unlessKnownDown(connections[0]);
  }
  // A lab known not to answer is named at once and not asked again; the others are.
  const down = connections.filter((connection) => connection.knownFailure());
  const asked = connections.filter((connection) => !down.includes(connection));
  const prompts = services.prompts.current;
  const names = connections.map((connection) => connection.lab.name).join(', ');
  const title = titleFor(names, 'searchReports');
  // The criteria (and the clients and projects offered) are those of the first lab that answers.
  const filter = await askReportFilter((asked[0] ?? connections[0]!).api!, prompts, title);
  if (!filter) {
    return undefined;
  }
  const answers = acrossLabs(
    asked.map((connection) => question(connection, filter)),
    { deadlineMs: lateAfterMs() },
  );
  const known = down.map((connection) => ({
    source: connection.lab.name,
    note: labNote({ kind: 'failed', lab: connection.lab.name, error: connection.knownFailure() })!,
  }));
  const several = connections.length > 1;
  let chosen: Found[] | undefined;
  try {
    chosen = await prompts.pickFromPages(
      filter.reportType !== undefined
        ? vscode.l10n.t('{0}, type {1} (filtered by Lab Data)', title, filter.reportType)
        : title,
      pickParts(answers, known),
      ({ lab, report }) => ({
        id: report.report_id,
        label: serverText(report.report_id, 120),
        description: serverText(several ? `${lab} · ${summaryOf(report)}` : summaryOf(report), 200),
        detail:
          typeof report.raw.title === 'string' ? serverText(report.raw.title, 200) : undefined,
      }),
      true,
    );
  } finally {
    // The picker closed: a lab still asked is let go.
    answers.stop();
  }
  if (!chosen || chosen.length === 0) {
    return undefined;
  }
  const ids = chosen.map((found) => found.report.report_id);
  const action = await chooseAction(
    prompts,
    vscode.l10n.t('{0} report(s) chosen', chosen.length),
    chosen.length > 1,
  );
  if (!action) {
    return { ids };
  }
  return { ids, action, result: await actOnEach(action, chosen, connections, services) };
}
