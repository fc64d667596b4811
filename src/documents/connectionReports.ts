import * as vscode from 'vscode';
import { CONNECTION_REPORT_SCHEME } from '../constants';

/** How many reports stay readable; an older one's tab reads as "no longer kept". */
const KEPT = 10;

/**
 * Check Connection's reports as read-only text documents (`labdata-connection:/Check Connection 3.txt`):
 * the user can read, select and copy them, and closing one never asks to save.
 */
export class ConnectionReportDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private count = 0;

  /** Keeps `text` and gives the address of its document. */
  add(text: string): vscode.Uri {
    this.count++;
    const uri = vscode.Uri.from({
      scheme: CONNECTION_REPORT_SCHEME,
      path: `/Check Connection ${this.count}.txt`,
    });
    this.texts.set(uri.toString(), text);
    for (const key of [...this.texts.keys()].slice(0, Math.max(0, this.texts.size - KEPT))) {
      this.texts.delete(key);
    }
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
}
