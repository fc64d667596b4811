import * as path from 'node:path';
import * as vscode from 'vscode';
import { serverText } from '../../core/errors/serverText';
import { scanText, type ScanHit } from '../../core/uses/scan';
import { placesOf } from '../../core/uses/uses';
import type { AmendedUse, ImpactState } from './impactState';

/** The diagnostics' source and code: the quick fix and the CodeLens know theirs by these. */
export const IMPACT_SOURCE = 'Lab Data';
export const AMENDED_CODE = 'amended';

/** How long typing is let settle before a document's places are found again. */
const TYPING_SETTLE_MS = 300;

/** One place a consumer names (or reads) a report amended since it used it. */
export interface AmendedSite {
  readonly uri: vscode.Uri;
  readonly range: vscode.Range;
  readonly use: AmendedUse;
}

/** "revision 1 → 2" words: the revision the consumer used, and the one recorded now. */
export function amendmentTitle(use: AmendedUse): string {
  const { affected } = use;
  const id = serverText(affected.use.id, 80);
  const used = serverText(affected.use.revision ?? '?', 40);
  const now = serverText(affected.currentRevision ?? '?', 40);
  if (affected.use.revision === affected.currentRevision) {
    return vscode.l10n.t(
      '{0} changed: another file of revision {1} than the one this used',
      id,
      now,
    );
  }
  return affected.publishedAt !== undefined
    ? vscode.l10n.t(
        '{0} was amended: revision {1} → {2}, published {3}',
        id,
        used,
        now,
        serverText(affected.publishedAt, 40).slice(0, 10),
      )
    : vscode.l10n.t('{0} was amended: revision {1} → {2}', id, used, now);
}

function isNotebook(file: string): boolean {
  return file.toLowerCase().endsWith('.ipynb');
}

/**
 * A warning in the Problems panel on each line of a script, or of a notebook's cell, that reads or
 * names a report whose recorded revision is not the one it used (the core's impact, placed by the
 * core's scan: on an open document, of its text as it is now). Follows the impact, the notebooks
 * opened and closed, and typing (settled).
 */
export class ImpactDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('labData.amended');
  private readonly changed = new vscode.EventEmitter<void>();
  /** The sites changed (for the CodeLens). */
  readonly onDidChange = this.changed.event;
  private readonly sites = new Map<string, AmendedSite[]>();
  private readonly disposables: vscode.Disposable[] = [this.collection, this.changed];
  private typing: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly state: ImpactState) {
    const render = (): void => this.render();
    this.disposables.push(
      state.onDidChange(render),
      vscode.workspace.onDidOpenNotebookDocument(render),
      vscode.workspace.onDidCloseNotebookDocument(render),
      vscode.workspace.onDidOpenTextDocument(render),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length === 0 || !this.concerns(event.document)) {
          return;
        }
        clearTimeout(this.typing);
        this.typing = setTimeout(render, TYPING_SETTLE_MS);
      }),
    );
    this.render();
  }

  /** The sites in a document (a file, or a notebook's cell). */
  sitesIn(uri: vscode.Uri): readonly AmendedSite[] {
    return this.sites.get(uri.toString()) ?? [];
  }

  private concerns(document: vscode.TextDocument): boolean {
    const file =
      document.uri.scheme === 'vscode-notebook-cell'
        ? vscode.workspace.notebookDocuments.find((notebook) =>
            notebook.getCells().some((cell) => cell.document === document),
          )?.uri.fsPath
        : document.uri.scheme === 'file'
          ? document.uri.fsPath
          : undefined;
    return file !== undefined && this.state.amendedIn(file).length > 0;
  }

  private render(): void {
    this.sites.clear();
    const byFile = new Map<string, AmendedUse[]>();
    for (const use of this.state.all) {
      byFile.set(use.file, [...(byFile.get(use.file) ?? []), use]);
    }
    for (const [file, uses] of byFile) {
      for (const site of isNotebook(file)
        ? this.notebookSites(file, uses)
        : this.fileSites(file, uses)) {
        const key = site.uri.toString();
        this.sites.set(key, [...(this.sites.get(key) ?? []), site]);
      }
    }
    this.collection.clear();
    for (const [key, sites] of this.sites) {
      this.collection.set(
        vscode.Uri.parse(key),
        sites.map((site) => {
          const diagnostic = new vscode.Diagnostic(
            site.range,
            vscode.l10n.t(
              '{0} since this used it. Run it again, then Record Report Uses.',
              amendmentTitle(site.use),
            ),
            vscode.DiagnosticSeverity.Warning,
          );
          diagnostic.source = IMPACT_SOURCE;
          diagnostic.code = AMENDED_CODE;
          return diagnostic;
        }),
      );
    }
    this.changed.fire();
  }

  private fileSites(file: string, uses: readonly AmendedUse[]): AmendedSite[] {
    const uri = vscode.Uri.file(file);
    const open = vscode.workspace.textDocuments.find(
      (document) => document.uri.scheme === 'file' && path.resolve(document.uri.fsPath) === file,
    );
    const pattern = this.state.patternFor(file);
    const live = open && pattern ? scanText(file, open.getText(), pattern) : undefined;
    return uses.flatMap((use) =>
      (live ? placesOf(use.affected.use.id, live) : use.places).map((place) => ({
        uri,
        range: lineRange(open, place.line),
        use,
      })),
    );
  }

  private notebookSites(file: string, uses: readonly AmendedUse[]): AmendedSite[] {
    const notebook = vscode.workspace.notebookDocuments.find(
      (candidate) => candidate.uri.scheme === 'file' && path.resolve(candidate.uri.fsPath) === file,
    );
    if (!notebook || notebook.cellCount === 0) {
      // Not open: on the notebook's file (the Problems panel lists it until it is opened).
      const uri = vscode.Uri.file(file);
      return uses.map((use) => ({ uri, range: lineRange(undefined, 0), use }));
    }
    const pattern = this.state.patternFor(file);
    const live: ScanHit[] | undefined = pattern
      ? notebook.getCells().flatMap((cell) =>
          scanText('cell', cell.document.getText(), pattern).map((hit) => ({
            ...hit,
            cell: cell.index,
          })),
        )
      : undefined;
    return uses.flatMap((use) =>
      (live ? placesOf(use.affected.use.id, live) : use.places).map((place) => {
        const cell = notebook.cellAt(Math.min(place.cell ?? 0, notebook.cellCount - 1));
        return { uri: cell.document.uri, range: lineRange(cell.document, place.line), use };
      }),
    );
  }

  dispose(): void {
    clearTimeout(this.typing);
    this.disposables.forEach((disposable) => disposable.dispose());
  }
}

/** A line's text as a range (the whole line when the document is open; else its start). */
function lineRange(document: vscode.TextDocument | undefined, line: number): vscode.Range {
  if (document && line < document.lineCount) {
    const text = document.lineAt(line);
    return new vscode.Range(
      line,
      text.firstNonWhitespaceCharacterIndex,
      line,
      Math.max(text.range.end.character, text.firstNonWhitespaceCharacterIndex),
    );
  }
  return new vscode.Range(line, 0, line, 0);
}
