import * as vscode from 'vscode';
import { CONNECTION_REPORT_SCHEME } from '../constants';
import { KeptTexts } from './keptTexts';

/** How many labs' reports stay readable; an older one's tab reads as "no longer kept". */
const KEPT = 20;

/**
 * Check Connection's reports as read-only text documents, one per lab (or address), replaced by
 * the next check of it: `labdata-connection:/Check Connection - Riverside.txt`, and
 * `…/Check Connection.txt` for a check of every lab (kept as `KeptTexts`).
 */
export class ConnectionReportDocuments extends KeptTexts {
  constructor() {
    super(KEPT, () =>
      vscode.l10n.t(
        'This connection report is no longer kept; run "Lab Data: Check Connection" again.',
      ),
    );
  }

  /** Keeps `text` as the report about `about` (a lab's name or an address; undefined: every lab) and gives its document's address. */
  show(about: string | undefined, text: string): vscode.Uri {
    const name = about === undefined ? '' : ` - ${about.replace(/[\\/]/g, '-')}`;
    return this.keep(
      vscode.Uri.from({ scheme: CONNECTION_REPORT_SCHEME, path: `/Check Connection${name}.txt` }),
      text,
    );
  }
}
