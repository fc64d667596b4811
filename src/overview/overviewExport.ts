import * as path from 'node:path';
import { Readable } from 'node:stream';
import * as vscode from 'vscode';
import { csvRow } from '../../core/derived/exportList';
import { overviewCsv, type ReportOverview } from '../../core/derived/overview';
import { isInside, writeFileSafely } from '../../core/files/safeWriter';

/** "Save as PNG / CSV": into the workspace's `lab-exports` folder (never outside it). */
export async function saveChart(
  lab: string,
  overview: ReportOverview | undefined,
  chart: string,
  format: 'png' | 'csv',
  dataUrl: string | undefined,
): Promise<void> {
  const root = vscode.workspace.workspaceFolders?.find((folder) => folder.uri.scheme === 'file')
    ?.uri.fsPath;
  if (!root || !overview) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Open a folder first: charts are saved into the workspace.'),
    );
    return;
  }
  const name = ['time', 'clients', 'status'].includes(chart) ? chart : 'time';
  let body: Buffer;
  if (format === 'png') {
    const match = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(dataUrl ?? '');
    if (!match) {
      return;
    }
    body = Buffer.from(match[1]!, 'base64');
  } else {
    body = Buffer.from(
      `${overviewCsv(overview, name as 'time' | 'clients' | 'status')
        .map(csvRow)
        .join('\r\n')}\r\n`,
      'utf8',
    );
  }
  const folder = path.join(root, 'lab-exports');
  const fileName = `overview-${lab.replace(/[^A-Za-z0-9._-]+/g, '_')}-${name}-${new Date().toISOString().slice(0, 10)}.${format}`;
  if (!isInside(path.join(folder, fileName), root)) {
    return;
  }
  const saved = await writeFileSafely({
    folder,
    fileName,
    root,
    source: Readable.from([body]),
    ifExists: 'overwrite',
  });
  const uri = vscode.Uri.file(saved.path);
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Saved {0}.', vscode.workspace.asRelativePath(uri)),
  );
}
