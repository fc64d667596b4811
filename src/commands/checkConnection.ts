import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import { Commands, CONNECTION_REPORT_LANGUAGE } from '../constants';
import { defaultLabDefinition, labPaths, type LabDefinition } from '../../core/api/labDefinition';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { DEFAULT_TIMEOUTS } from '../../core/connection/httpClient';
import {
  checkConnection as runCheck,
  type CheckStepKind,
  type ConnectionCheck,
} from '../../core/connection/check/checkConnection';
import { connectionConclusion, renderConnectionReport } from '../../core/derived/connectionReport';
import type { LabApi } from '../../core/api/labApi';
import type { ConnectionReportDocuments } from '../documents/connectionReports';
import type { Labs } from '../labs/labs';
import type { NetworkSettings } from '../labs/networkSettings';
import type { Logger } from '../log';
import { commandTargets } from '../ui/commandTargets';
import { withNotificationProgress } from '../ui/progress';

export interface CheckConnectionServices {
  readonly labs: Labs;
  readonly network: NetworkSettings;
  readonly reports: ConnectionReportDocuments;
  readonly log: Logger;
  /** "Lab Data for VS Code <version> (VS Code <version>)". */
  readonly integration: string;
}

/** Where a check goes: a defined lab (with its client when signed in), or an address no lab has yet. */
interface CheckTarget {
  readonly name: string;
  readonly lab: LabDefinition;
  readonly api?: LabApi;
}

/** What each step waits for, in the progress notification. */
function waitingOn(kind: CheckStepKind, name: string): string {
  switch (kind) {
    case 'resolve':
      return vscode.l10n.t('{0}: looking up its address…', name);
    case 'proxy':
      return vscode.l10n.t('{0}: reading the proxy settings…', name);
    case 'connect':
      return vscode.l10n.t('{0}: connecting…', name);
    case 'tls':
      return vscode.l10n.t('{0}: checking its certificate…', name);
    case 'request':
      return vscode.l10n.t(
        '{0}: waiting for an answer (up to {1} s)…',
        name,
        DEFAULT_TIMEOUTS.headersMs / 1000,
      );
  }
}

/**
 * What to check: `{ lab }`, that lab; `{ baseUrl }` (from an error about that address, or Add
 * Lab's token box), the lab at that address when one is defined, else the address itself; nothing,
 * every lab.
 */
function targetsOf(labs: Labs, args: unknown[]): CheckTarget[] {
  const targets = commandTargets(args);
  const { baseUrl } = targets.options as { baseUrl?: unknown };
  const ofConnection = (connection: Labs['all'][number]): CheckTarget => ({
    name: connection.lab.name,
    lab: connection.lab,
    api: connection.api,
  });
  if (targets.lab !== undefined) {
    return [ofConnection(labs.require(targets.lab))];
  }
  if (typeof baseUrl === 'string' && baseUrl.trim() !== '') {
    const url = parseBaseUrl(baseUrl);
    const same = labs.all.filter((connection) => connection.lab.url.baseUrl === url.baseUrl);
    const sameOrigin = labs.all.filter((connection) => connection.lab.url.origin === url.origin);
    const defined = same[0] ?? (sameOrigin.length === 1 ? sameOrigin[0] : undefined);
    return defined
      ? [ofConnection(defined)]
      : [{ name: url.host, lab: defaultLabDefinition(url, url.host) }];
  }
  return labs.all.map(ofConnection);
}

/**
 * `labData.checkConnection` (`{ lab }` or `{ baseUrl }` optional, with `preserveFocus` from a token
 * box): checks the way to that lab (or
 * address), or to every lab, step by step (the core's {@link runCheck}), saying in a cancellable
 * notification what it waits for; writes the report to the log and shows it as a read-only
 * document, the same one each time for the same lab. Returns the report's text, which holds no
 * token and no proxy credential.
 */
export async function checkConnection(
  { labs, network, reports, log, integration }: CheckConnectionServices,
  ...args: unknown[]
): Promise<string> {
  const targets = targetsOf(labs, args);
  const checks = await withNotificationProgress(
    vscode.l10n.t('Lab Data: Checking the connection'),
    async (progress, token) => {
      const signal = toAbortSignal(token);
      // Every lab at once: a lab that does not answer costs the check one answer timeout, not one per lab.
      return Promise.all(
        targets.map(async (target) => {
          const api = target.api;
          const check = await runCheck({
            name: target.name,
            baseUrl: target.lab.url.baseUrl,
            network: network.optionsFor(target.lab),
            caFiles: network.caFilesFor(target.lab),
            transport: network.describeTransport(target.lab),
            env: process.env,
            // Signed out, the lab's reports path is asked without a token and its whole answer read.
            path: labPaths(target.lab).reports(),
            request: api ? (requestSignal) => api.checkReports(requestSignal) : undefined,
            onStep: (kind) => progress.report({ message: waitingOn(kind, target.name) }),
            signal,
          });
          progress.report({ increment: 100 / Math.max(1, targets.length) });
          return check;
        }),
      );
    },
  );
  const text = log.redact(
    withSummary(
      renderConnectionReport(failingFirst(checks), { integration, at: new Date() }),
      checks,
    ),
  );
  for (const line of text.trimEnd().split('\n')) {
    log.info('Check Connection', line);
  }
  const about = targets.length === 1 ? targets[0]!.name : undefined;
  // Its own language, whose default is to wrap long lines: the report fits whatever the editor's
  // width (beside VS Code 1.139's Chat view too), without changing how any other text wraps.
  const document = await vscode.languages.setTextDocumentLanguage(
    await vscode.workspace.openTextDocument(reports.show(about, text)),
    CONNECTION_REPORT_LANGUAGE,
  );
  // Asked from a token box, the report opens behind it and the keyboard stays in the box.
  const { preserveFocus } = commandTargets(args).options as { preserveFocus?: unknown };
  await vscode.window.showTextDocument(document, {
    preview: false,
    preserveFocus: preserveFocus === true,
  });
  return text;
}

/**
 * What a token box's Check Connection does: checks `baseUrl` (its lab, when one is defined there),
 * opens the report without taking the keyboard from the box, and gives the verdict in one line
 * for the box to show under the token.
 */
export async function checkFromTokenBox(baseUrl: string): Promise<string | undefined> {
  return verdictOf(
    await vscode.commands.executeCommand<string | undefined>(Commands.checkConnection, {
      baseUrl,
      preserveFocus: true,
    }),
  );
}

/** The labs whose check failed first, each group in the order the labs are defined. */
function failingFirst(checks: readonly ConnectionCheck[]): ConnectionCheck[] {
  return [...checks.filter((check) => !check.ok), ...checks.filter((check) => check.ok)];
}

/**
 * With several labs, the report opens with one line per lab under its title, failing labs first
 * ("✗ Lab B (https://…): the lab accepted the connection and sent nothing for 30 s."), so the
 * verdict of each is read without scrolling past the others' steps.
 */
function withSummary(report: string, checks: readonly ConnectionCheck[]): string {
  if (checks.length < 2) {
    return report;
  }
  const lines = failingFirst(checks).map(
    (check) =>
      `${check.ok ? '✓' : '✗'} ${check.lab} (${check.baseUrl}): ${connectionConclusion(check).sentence}`,
  );
  const [title, ...rest] = report.split('\n');
  return [title, '', ...lines, ...rest].join('\n');
}

/**
 * The verdict of a one-lab report (its sentence and its "Next:"), in one line: what the token box
 * shows under the token, where Check Connection was asked for, while the full report opens beside it.
 */
export function verdictOf(report: string | undefined): string | undefined {
  const lines = (report ?? '').split('\n').slice(1);
  const start = lines.findIndex((line) => line.trim() !== '');
  if (start < 0) {
    return undefined;
  }
  const end = lines.findIndex((line, index) => index > start && line.trim() === '');
  const verdict = lines
    .slice(start, end < 0 ? undefined : end)
    .map((line) => line.trim())
    .join(' ');
  return verdict === '' ? undefined : verdict;
}
