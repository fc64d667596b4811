import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import {
  checkConnection as runCheck,
  type ConnectionCheck,
} from '../../core/connection/connectionCheck';
import { renderConnectionReport } from '../../core/derived/connectionReport';
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

/**
 * `labData.checkConnection` (`{ lab }` optional): checks the way to the named lab, or to every lab,
 * step by step (the core's {@link runCheck}), writes the report to the log and opens it as a
 * read-only document. Returns the report's text, which holds no token and no proxy credential.
 */
export async function checkConnection(
  { labs, network, reports, log, integration }: CheckConnectionServices,
  ...args: unknown[]
): Promise<string> {
  const name = commandTargets(args).lab;
  const connections = name !== undefined ? [labs.require(name)] : labs.all;
  const checks = await withNotificationProgress(
    vscode.l10n.t('Lab Data: Checking the connection'),
    async (progress, token) => {
      const signal = toAbortSignal(token);
      const done: ConnectionCheck[] = [];
      for (const connection of connections) {
        progress.report({
          message: connection.lab.name,
          increment: 100 / Math.max(1, connections.length),
        });
        const api = connection.api;
        done.push(
          await runCheck({
            name: connection.lab.name,
            baseUrl: connection.lab.url.baseUrl,
            network: network.optionsFor(connection.lab),
            caFiles: network.caFilesFor(connection.lab),
            transport: network.describeTransport(connection.lab),
            env: process.env,
            request: api ? (requestSignal) => api.checkReports(requestSignal) : undefined,
            signal,
          }),
        );
      }
      return done;
    },
  );
  const text = log.redact(renderConnectionReport(checks, { integration, at: new Date() }));
  for (const line of text.trimEnd().split('\n')) {
    log.info('Check Connection', line);
  }
  const document = await vscode.workspace.openTextDocument(reports.add(text));
  await vscode.window.showTextDocument(document, { preview: false });
  return text;
}
