import * as vscode from 'vscode';
import type { PdfPreviewProvider } from '../preview/pdfPreview';
import type { ReportTextDocuments } from '../documents/reportTexts';

/**
 * `labData.showReportText`: opens the text of the PDF in the active preview (or of the preview of
 * the URI given) as a read-only plain-text document: the screen-reader path
 * through a report, and a way to select and copy its words. Returns the document's Uri.
 */
export async function showReportText(
  previews: PdfPreviewProvider,
  texts: ReportTextDocuments,
  target?: unknown,
): Promise<vscode.Uri | undefined> {
  const uri = target instanceof vscode.Uri ? target : previews.activePreview();
  if (!uri) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Open a report in the PDF preview first; then show its text.'),
    );
    return undefined;
  }
  const { name, pages } = await previews.text(uri);
  const document = await vscode.workspace.openTextDocument(texts.add(name, pages));
  await vscode.window.showTextDocument(document, { preview: false });
  return document.uri;
}
