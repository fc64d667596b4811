import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import { documentName } from '../../core/files/fileNames';
import type { JsonObject } from '../../core/api/records';
import { METADATA_SCHEME, type RecordKind, type RecordRef } from '../ui/commandTargets';
import type { Labs } from '../labs/labs';

const FOLDERS: Readonly<Record<RecordKind, string>> = {
  report: 'reports',
  client: 'clients',
  project: 'projects',
  sample: 'samples',
};

/**
 * Read-only JSON documents of lab records at `labdata://<host>/<kind>/<id>.json?lab=…&id=…`, so
 * VS Code picks JSON mode and titles the tab by the id. Reports and clients are fetched on every
 * read; projects and samples have no single-record endpoint, so the record the tree showed is used.
 */
export class MetadataDocumentProvider
  implements vscode.TextDocumentContentProvider, vscode.Disposable
{
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly records = new Map<string, JsonObject>();

  constructor(private readonly labs: Labs) {}

  /** The document address of a record; the listed record is kept for kinds the API cannot fetch one by one. */
  uriFor(ref: RecordRef, host: string): vscode.Uri {
    const uri = vscode.Uri.from({
      scheme: METADATA_SCHEME,
      authority: host,
      path: `/${FOLDERS[ref.kind]}/${documentName(ref.id)}.json`,
      query: new URLSearchParams({ lab: ref.lab, id: ref.id }).toString(),
    });
    if (ref.record && (ref.kind === 'project' || ref.kind === 'sample')) {
      this.records.set(uri.toString(), ref.record);
    }
    return uri;
  }

  /** Makes an open document read the server again. */
  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  async provideTextDocumentContent(
    uri: vscode.Uri,
    token: vscode.CancellationToken,
  ): Promise<string> {
    await this.labs.ready;
    const folder = uri.path.split('/')[1];
    const kind = (Object.keys(FOLDERS) as RecordKind[]).find(
      (candidate) => FOLDERS[candidate] === folder,
    );
    const query = new URLSearchParams(uri.query);
    const id = query.get('id');
    const labName =
      query.get('lab') ??
      this.labs.all.find((connection) => connection.lab.url.host === uri.authority)?.lab.name;
    if (!kind || !id || labName === undefined) {
      throw new Error(vscode.l10n.t('{0} is not a Lab Data record.', uri.toString()));
    }
    const connection = this.labs.require(labName);
    const api = connection.api;
    if (!api) {
      throw new Error(vscode.l10n.t('Sign in to {0} to open its records.', labName));
    }
    if (connection.lab.url.host !== uri.authority) {
      throw new Error(
        vscode.l10n.t(
          'This record belongs to {0}, but the lab {1} is at {2}.',
          uri.authority,
          labName,
          connection.lab.url.host,
        ),
      );
    }
    const signal = toAbortSignal(token);
    let record: JsonObject | undefined;
    switch (kind) {
      case 'report':
        record = (await api.getReport(id, signal)).raw;
        break;
      case 'client':
        record = (await api.getClient(id, signal)).raw;
        break;
      case 'project':
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
      case 'sample':
        record = this.records.get(uri.toString());
        break;
    }
    if (!record) {
      throw new Error(
        kind === 'sample'
          ? vscode.l10n.t(
              'The lab has no sample {0} in your scope (open it again from the Samples view).',
              id,
            )
          : vscode.l10n.t('The lab has no {0} {1} in your scope.', kind, id),
      );
    }
    return `${JSON.stringify(record, null, 2)}\n`;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
