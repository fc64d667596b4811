import * as vscode from 'vscode';
import { Commands } from '../constants';
import { amendmentTitle, type ImpactDiagnostics } from './impactDiagnostics';
import { revisionsArgs } from './usedRevisionDocuments';

/**
 * A CodeLens above each line the Problems panel marks as using an amended report:
 * "RPT-… was amended: revision 1 → 2, published …", which opens both revisions (the quick fix's action).
 */
export class ImpactLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly diagnostics: ImpactDiagnostics) {
    this.subscription = diagnostics.onDidChange(() => this.changed.fire());
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    return this.diagnostics.sitesIn(document.uri).map(
      (site) =>
        new vscode.CodeLens(site.range, {
          title: amendmentTitle(site.use),
          command: Commands.openAmendedRevisions,
          arguments: [revisionsArgs(site.use)],
        }),
    );
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
