import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import type { MetadataDocumentProvider, RecordKind } from '../documents/metadataDocuments';
import type { JsonObject } from '../core/records';
import type { PromptsHolder } from '../ui/prompts';
import { ClientNode, ProjectNode } from '../views/clientsTree';
import { ReportNode, SampleNode } from '../views/nodes';

function recordOf(arg: unknown): { kind: RecordKind; id: string; record?: JsonObject } | undefined {
  if (arg instanceof ReportNode) {
    return { kind: 'reports', id: arg.report.report_id };
  }
  if (arg instanceof ClientNode) {
    return { kind: 'clients', id: arg.client.client_id };
  }
  if (arg instanceof ProjectNode) {
    return { kind: 'projects', id: arg.project.project_id, record: arg.project.raw };
  }
  if (arg instanceof SampleNode) {
    return { kind: 'samples', id: arg.sample.id ?? JSON.stringify(arg.sample.raw).slice(0, 60), record: arg.sample.raw };
  }
  if (typeof arg === 'string' && arg.trim()) {
    return { kind: 'reports', id: arg.trim() };
  }
  return undefined;
}

/**
 * `labData.openReportMetadata`: opens a read-only JSON document of a report (a tree item or an id;
 * asks for an id without one), or of a client, project or sample tree item. Opening it again
 * reads the server again. Returns the document's Uri.
 */
export async function openReportMetadata(session: LabSession, documents: MetadataDocumentProvider, prompts: PromptsHolder, arg?: unknown): Promise<vscode.Uri | undefined> {
  let target = recordOf(arg);
  if (!target) {
    const id = await prompts.current.reportId();
    if (!id) {
      return undefined;
    }
    target = { kind: 'reports', id };
  }
  const host = session.current.lab?.host;
  if (!host || !session.current.signedIn) {
    await vscode.commands.executeCommand('labData.signIn');
    return undefined;
  }
  const uri = documents.uriFor(target.kind, target.id, host, target.record);
  if (vscode.workspace.textDocuments.some((doc) => doc.uri.toString() === uri.toString())) {
    documents.refresh(uri);
  }
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(document, { preview: false });
  return uri;
}
