import * as vscode from 'vscode';

/**
 * Read-only text documents the extension writes and keeps only the newest `kept` of, by address:
 * the user can read, select and copy them, and closing one never asks to save. Keeping a text at
 * an address already kept replaces it (an open tab shows the new text); an older text's tab reads
 * `goneText` once it is no longer kept. Check Connection's reports and a preview's text are two.
 */
export class KeptTexts implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly kept: number,
    private readonly goneText: () => string,
  ) {}

  /** Keeps `text` at `uri`, the newest; the oldest beyond `kept` goes. */
  protected keep(uri: vscode.Uri, text: string): vscode.Uri {
    const key = uri.toString();
    // The newest last, so the oldest is the first to go.
    this.texts.delete(key);
    this.texts.set(key, text);
    for (const old of [...this.texts.keys()].slice(0, Math.max(0, this.texts.size - this.kept))) {
      this.texts.delete(old);
    }
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? this.goneText();
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}
