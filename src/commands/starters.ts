import * as vscode from 'vscode';
import type { Prompts } from '../ui/prompts';

/** A starter file the walkthrough's steps open: its text ships in `media/starters/`. */
interface Starter {
  /** The file in `media/starters/`. */
  readonly media: string;
  /** Where saving it suggests, relative to the workspace folder. */
  readonly saveAs: string;
  readonly language: string;
}

const STARTERS = {
  python: { media: 'analysis.py', saveAs: 'analysis.py', language: 'python' },
  r: { media: 'analysis.R', saveAs: 'analysis.R', language: 'r' },
  ci: { media: 'lab-data.yml', saveAs: '.github/workflows/lab-data.yml', language: 'yaml' },
} as const satisfies Record<string, Starter>;

export type AnalysisLanguage = 'python' | 'r';

/**
 * `labData.newAnalysisScript`: a new, unsaved script that reads the saved reports through the
 * `labdata` reader, in Python or R (`'python'` or `'r'` given, else asked). Resolves with the
 * document's Uri; undefined when the question was cancelled.
 */
export async function newAnalysisScript(
  extensionUri: vscode.Uri,
  prompts: Prompts,
  language?: unknown,
): Promise<vscode.Uri | undefined> {
  const chosen =
    language === 'python' || language === 'r'
      ? language
      : await prompts.pickOne(
          vscode.l10n.t('New Analysis Script'),
          vscode.l10n.t('The language of the script that reads the saved reports'),
          [
            { id: 'python', label: 'Python', description: 'labdata.reports(), labdata.path()' },
            { id: 'r', label: 'R', description: 'reports(), report_path()' },
          ],
          false,
        );
  if (chosen !== 'python' && chosen !== 'r') {
    return undefined;
  }
  return openStarter(extensionUri, prompts, STARTERS[chosen]);
}

/**
 * `labData.newCiWorkflow`: a new, unsaved GitHub Actions workflow that runs `lab-data pull` and
 * `lab-data verify`, saved by the user as `.github/workflows/lab-data.yml`. Resolves with its Uri.
 */
export function newCiWorkflow(
  extensionUri: vscode.Uri,
  prompts: Prompts,
): Promise<vscode.Uri | undefined> {
  return openStarter(extensionUri, prompts, STARTERS.ci);
}

/**
 * Opens the starter's text as an untitled document whose Save suggests `saveAs` in the workspace
 * folder (asked when there are several; none: a plain untitled document). Nothing is written to
 * disk until the user saves; a second call while the first is still unsaved shows that one again.
 */
async function openStarter(
  extensionUri: vscode.Uri,
  prompts: Prompts,
  starter: Starter,
): Promise<vscode.Uri | undefined> {
  const bytes = await vscode.workspace.fs.readFile(
    vscode.Uri.joinPath(extensionUri, 'media', 'starters', starter.media),
  );
  const content = new TextDecoder().decode(bytes);
  const folders = vscode.workspace.workspaceFolders ?? [];
  const folder = folders.length > 1 ? await prompts.pickWorkspaceFolder(folders) : folders[0];
  if (folders.length > 1 && !folder) {
    return undefined;
  }
  const target = folder && vscode.Uri.joinPath(folder.uri, starter.saveAs);
  // A file of that name is the user's own: the starter is then a plain untitled document.
  const document =
    target && !(await exists(target))
      ? await untitledAt(target, content)
      : await vscode.workspace.openTextDocument({ language: starter.language, content });
  if (document.languageId !== starter.language) {
    await vscode.languages.setTextDocumentLanguage(document, starter.language);
  }
  await vscode.window.showTextDocument(document, { preview: false });
  return document.uri;
}

function exists(uri: vscode.Uri): Promise<boolean> {
  return Promise.resolve(vscode.workspace.fs.stat(uri)).then(
    () => true,
    () => false,
  );
}

/** An untitled document whose Save suggests `target`, holding `content` (once, if it is new). */
async function untitledAt(target: vscode.Uri, content: string): Promise<vscode.TextDocument> {
  const uri = target.with({ scheme: 'untitled' });
  const document = await vscode.workspace.openTextDocument(uri);
  if (document.getText() === '') {
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(0, 0), content);
    await vscode.workspace.applyEdit(edit);
  }
  return document;
}
