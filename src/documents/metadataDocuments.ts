import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import { toAbortSignal } from '../cancellation';
import { LabApiError } from '../core/errors';
import { sanitizeFileName } from '../core/fileNames';
import type { JsonObject } from '../core/records';

export const METADATA_SCHEME = 'labdata';
export type RecordKind = 'reports' | 'clients' | 'projects' | 'samples';
const KINDS: readonly RecordKind[] = ['reports', 'clients', 'projects', 'samples'];

/**
 * Read-only JSON documents of lab records at `labdata://<host>/<kind>/<id>.json`, so VS Code picks
 * JSON mode and titles the tab by the id. Reports and clients are fetched on every read; projects
 * and samples have no single-record endpoint, so the record the tree showed is used.
 */
export class MetadataDocumentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly records = new Map<string, JsonObject>();

  constructor(private readonly session: LabSession) {}

  /** The document address of a record; `record` is kept for kinds the API cannot fetch one by one. */
  uriFor(kind: RecordKind, id: string, host: string, record?: JsonObject): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: METADATA_SCHEME, authority: host, path: `/${kind}/${sanitizeFileName(id, 'record')}.json`, query: new URLSearchParams({ id }).toString() });
    if (record && (kind === 'projects' || kind === 'samples')) {
      this.records.set(uri.toString(), record);
    }
    return uri;
  }

  /** Makes an open document read the server again. */
  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const kind = uri.path.split('/')[1] as RecordKind;
    const id = new URLSearchParams(uri.query).get('id');
    if (!KINDS.includes(kind) || !id) {
      throw new LabApiError('invalidInput', `${uri.toString()} is not a Lab Data record.`);
    }
    const api = await this.session.api();
    if (!api) {
      throw new LabApiError('unauthorized', 'Sign in to the lab to open its records.');
    }
    if (api.http.baseUrl.host !== uri.authority) {
      throw new LabApiError('invalidInput', `This record belongs to ${uri.authority}, but you are signed in to ${api.http.baseUrl.host}.`);
    }
    const signal = toAbortSignal(token);
    let record: JsonObject | undefined;
    switch (kind) {
      case 'reports':
        record = (await api.getReport(id, signal)).raw;
        break;
      case 'clients':
        record = (await api.getClient(id, signal)).raw;
        break;
      case 'projects':
        record = this.records.get(uri.toString());
        if (!record) {
          for await (const page of api.iterateProjects({}, { signal })) {
            record = page.items.find((project) => project.project_id === id)?.raw;
            if (record) {
              break;
            }
          }
        }
        break;
      case 'samples':
        record = this.records.get(uri.toString());
        break;
    }
    if (!record) {
      throw new LabApiError('notFound', `The lab has no ${kind.slice(0, -1)} ${id} in your scope${kind === 'samples' ? ' (open it again from the Samples view)' : ''}.`);
    }
    return `${JSON.stringify(record, null, 2)}\n`;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
