import * as vscode from 'vscode';
import { documentName } from '../../core/files/fileNames';
import { REPORT_TEXT_SCHEME } from '../constants';
import { KeptTexts } from './keptTexts';

/** How many texts stay readable; an older one's tab reads as "no longer kept". */
const KEPT = 10;

/**
 * The text of a previewed PDF as a read-only plain-text document
 * (`labdata-text:/RPT-2024-00001 (text).txt`): what its text layer holds, page by page, for
 * reading with a screen reader, selecting and copying like any text. A PDF of images only says so.
 * Opening the same report's text again replaces it (kept as `KeptTexts`).
 */
export class ReportTextDocuments extends KeptTexts {
  constructor() {
    super(KEPT, () =>
      vscode.l10n.t(
        'This text is no longer kept; run "Lab Data: Show the Report\'s Text" in the preview again.',
      ),
    );
  }

  /** Keeps the text of `name`'s pages and gives the address of its document. */
  add(name: string, pages: readonly string[]): vscode.Uri {
    return this.keep(
      vscode.Uri.from({
        scheme: REPORT_TEXT_SCHEME,
        path: `/${documentName(name.replace(/[\\/]/g, ' '), 'report')} (text).txt`,
      }),
      reportText(name, pages),
    );
  }
}

/** The document's text: a line naming the PDF, then each page under its number; or that it has no text layer. */
export function reportText(name: string, pages: readonly string[]): string {
  if (pages.every((page) => page.trim() === '')) {
    return `${vscode.l10n.t(
      '{0} has no text layer: its pages are images (a scan, for example), so there is no text to show. The preview shows its pages.',
      name,
    )}\n`;
  }
  const heading = vscode.l10n.t(
    'The text of {0}, as its PDF holds it ({1} pages).',
    name,
    pages.length,
  );
  const body = pages.map(
    (page, index) =>
      `${vscode.l10n.t('--- Page {0} of {1} ---', index + 1, pages.length)}\n\n${page.trim() === '' ? vscode.l10n.t('(no text on this page)') : page}`,
  );
  return `${heading}\n\n${body.join('\n\n')}\n`;
}
