import * as vscode from 'vscode';
import { LabApiError } from '../core/errors';
import { ClientNode, ProjectNode } from '../views/clientsTree';
import { ReportNode, SampleNode } from '../views/nodes';

/** The id a tree item stands for. */
function idOf(arg: unknown): string | undefined {
  if (arg instanceof ReportNode) {
    return arg.report.report_id;
  }
  if (arg instanceof ClientNode) {
    return arg.client.client_id;
  }
  if (arg instanceof ProjectNode) {
    return arg.project.project_id;
  }
  if (arg instanceof SampleNode) {
    return arg.sample.id;
  }
  return typeof arg === 'string' && arg.trim() ? arg.trim() : undefined;
}

/** `labData.copyId` (tree context menu): copies the id of a report, client, project or sample. */
export async function copyId(arg?: unknown): Promise<string> {
  const id = idOf(arg);
  if (!id) {
    throw new LabApiError('invalidInput', vscode.l10n.t('Choose a report, client, project or sample to copy its id.'));
  }
  await vscode.env.clipboard.writeText(id);
  vscode.window.setStatusBarMessage(vscode.l10n.t('Copied {0}', id), 3000);
  return id;
}
