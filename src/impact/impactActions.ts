import * as vscode from 'vscode';
import { serverText } from '../../core/errors/serverText';
import { Commands } from '../constants';
import { AMENDED_CODE, IMPACT_SOURCE, type ImpactDiagnostics } from './impactDiagnostics';
import { revisionsArgs } from './usedRevisionDocuments';

/** The quick fix of a use of an amended report: "Open both revisions of RPT-…", side by side. */
export class ImpactActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly diagnostics: ImpactDiagnostics) {}

  provideCodeActions(
    document: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const sites = this.diagnostics.sitesIn(document.uri);
    return context.diagnostics
      .filter((each) => each.source === IMPACT_SOURCE && each.code === AMENDED_CODE)
      .flatMap((diagnostic) => {
        const site = sites.find(
          (candidate) =>
            candidate.range.start.line === diagnostic.range.start.line &&
            diagnostic.message.includes(candidate.use.affected.use.id),
        );
        if (!site) {
          return [];
        }
        const action = new vscode.CodeAction(
          vscode.l10n.t('Open both revisions of {0}', serverText(site.use.affected.use.id, 80)),
          vscode.CodeActionKind.QuickFix,
        );
        action.diagnostics = [diagnostic];
        action.isPreferred = true;
        action.command = {
          title: action.title,
          command: Commands.openAmendedRevisions,
          arguments: [revisionsArgs(site.use)],
        };
        return [action];
      });
  }
}
