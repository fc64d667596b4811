import * as vscode from 'vscode';
import { CONNECTION_REPORT_SCHEME } from '../constants';

/** How many labs' reports stay readable; an older one's tab reads as "no longer kept". */
const KEPT = 20;

/**
 * Check Connection's reports as read-only text documents, one per lab (or address), replaced by
 * the next check of it: `labdata-connection:/Check Connection - Riverside.txt`, and
 * `…/Check Connection.txt` for a check of every lab. The user can read, select and copy them, and
 * closing one never asks to save.
 */
export class ConnectionReportDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** Keeps `text` as the report about `about` (a lab's name or an address; undefined: every lab) and gives its document's address. */
  show(about: string | undefined, text: string): vscode.Uri {
    const name = about === undefined ? '' : ` - ${about.replace(/[\\/]/g, '-')}`;
    const uri = vscode.Uri.from({
      scheme: CONNECTION_REPORT_SCHEME,
      path: `/Check Connection${name}.txt`,
    });
    const key = uri.toString();
    // The newest last, so the oldest is the first to go.
    this.texts.delete(key);
    this.texts.set(key, text);
    for (const old of [...this.texts.keys()].slice(0, Math.max(0, this.texts.size - KEPT))) {
      this.texts.delete(old);
    }
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return (
      this.texts.get(uri.toString()) ??
      vscode.l10n.t(
        'This connection report is no longer kept; run "Lab Data: Check Connection" again.',
      )
    );
  }

  dispose(): void {
    this.changed.dispose();
  }
}
