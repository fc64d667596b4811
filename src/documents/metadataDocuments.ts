import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import { documentName } from '../../core/files/fileNames';
import type { JsonObject } from '../../core/api/records';
import { METADATA_SCHEME, type RecordKind, type RecordRef } from '../ui/commandTargets';
import type { Labs } from '../labs/labs';
import { LabApiError, isCancellation } from '../../core/errors/errors';
import { phrase } from '../ui/phrase';

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
  /** Why a document's last read could not fetch its record, by the document's address. */
  private readonly failures = new Map<string, LabApiError>();
  /** Who waits for a document's next read to end (Open Metadata on a document already open). */
  private readonly readers = new Map<string, Array<() => void>>();

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

  /** Why the document at `uri` could not fetch its record the last time it was read; undefined when it could. */
  failureOf(uri: vscode.Uri): LabApiError | undefined {
    return this.failures.get(uri.toString());
  }

  /** Makes an open document read the server again. */
  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  /** Makes an open document read the server again, and resolves when that read has ended. */
  reread(uri: vscode.Uri): Promise<void> {
    const key = uri.toString();
    const read = new Promise<void>((resolve) =>
      this.readers.set(key, [...(this.readers.get(key) ?? []), resolve]),
    );
    this.changed.fire(uri);
    return read;
  }

  /**
   * The record as JSON; when the lab could not give it, the document says why in place (the lab,
   * the cause, how to try again) instead of an empty tab or a tab that never opens.
   */
  async provideTextDocumentContent(
    uri: vscode.Uri,
    token: vscode.CancellationToken,
  ): Promise<string> {
    const key = uri.toString();
    this.failures.delete(key);
    try {
      return await this.recordText(uri, token);
    } catch (error) {
      if (!(error instanceof LabApiError) || isCancellation(error)) {
        throw error;
      }
      this.failures.set(key, error);
      return failureText(uri, error);
    } finally {
      const readers = this.readers.get(key) ?? [];
      this.readers.delete(key);
      readers.forEach((resolve) => resolve());
    }
  }

  private async recordText(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
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

/** A document's text for a record the lab could not give: what failed, why, and how to try again. */
function failureText(uri: vscode.Uri, error: LabApiError): string {
  const query = new URLSearchParams(uri.query);
  return [
    `// ${vscode.l10n.t('Lab Data could not fetch {0} from {1}.', query.get('id') ?? uri.path, query.get('lab') ?? uri.authority)}`,
    `// ${phrase(error)}`,
    `// ${vscode.l10n.t('To try again, choose Retry in the notification or run "Lab Data: Open Metadata" again; "Lab Data: Check Connection" says what the lab does.')}`,
    '',
  ].join('\n');
}
