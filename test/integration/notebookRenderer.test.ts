import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import { EXTENSION_ID, REPORT_CARD_MIME, REPORT_CARD_RENDERER_ID } from '../../src/constants';
import type { MockLabServer } from '../mock/server';
import { notebookWithCard } from '../support/reportCardNotebook';
import { eventually, signedInLab, workspaceFolder, type SignedInLab } from './helpers';

const DEMO_TOKEN = 'demo-full-access';
const NOTEBOOK = 'report-card.ipynb';

/** The active tab's label, when it is a Lab Data PDF preview. */
function previewTabLabel(): string | undefined {
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  return tab?.input instanceof vscode.TabInputCustom && tab.input.viewType === 'labData.pdfPreview'
    ? tab.label
    : undefined;
}

describe('report cards in notebooks', () => {
  let api: LabDataExtensionApi;
  let lab: MockLabServer;
  let labName: string;
  let signedIn: SignedInLab;
  let reportId: string;

  before(async () => {
    signedIn = await signedInLab({ reports: 20, token: DEMO_TOKEN });
    ({ api, lab, name: labName } = signedIn);
    reportId = lab
      .reportsFor(DEMO_TOKEN)
      .find(
        (candidate) =>
          candidate.download_available && candidate.report_id !== lab.multiPageReportId,
      )!.report_id;
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await fs.rm(path.join(workspaceFolder(), NOTEBOOK), { force: true });
    await signedIn.close();
  });

  it('package.json declares the report card renderer for the report MIME, its module bundled, reached by messages when the extension runs', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    const json = extension.packageJSON as {
      contributes: {
        notebookRenderer?: Array<{
          id: string;
          entrypoint: string;
          mimeTypes: string[];
          requiresMessaging?: string;
          displayName: string;
        }>;
      };
      activationEvents: string[];
    };
    const renderer = json.contributes.notebookRenderer?.find(
      (candidate) => candidate.id === REPORT_CARD_RENDERER_ID,
    );
    assert.ok(renderer, 'contributes.notebookRenderer names lab-data.report-card');
    assert.deepEqual(renderer.mimeTypes, [REPORT_CARD_MIME]);
    assert.equal(renderer.requiresMessaging, 'optional');
    assert.equal(
      renderer.displayName,
      'Lab Data Report Card',
      'its name comes from package.nls.json',
    );
    const module = await fs.readFile(
      path.join(extension.extensionPath, renderer.entrypoint),
      'utf8',
    );
    assert.match(module, /export\s*\{[^}]*\bactivate\b/, 'an ES module exporting activate');
    assert.ok(json.activationEvents.includes(`onRenderer:${REPORT_CARD_RENDERER_ID}`));
  });

  it('a stored notebook whose output holds the report MIME opens with the card in that output', async () => {
    const card = {
      id: reportId,
      title: 'Water chemistry <b>not markup</b>',
      lab: labName,
      origin: new URL(lab.baseUrl).origin,
      status: 'amended',
      revision: '2',
      amended: true,
      verified: true,
    };
    const file = vscode.Uri.file(path.join(workspaceFolder(), NOTEBOOK));
    await fs.writeFile(file.fsPath, notebookWithCard(card));
    const notebook = await vscode.workspace.openNotebookDocument(file);
    const editor = await vscode.window.showNotebookDocument(notebook);
    assert.equal(editor.notebook.notebookType, 'jupyter-notebook');
    const item = notebook
      .cellAt(0)
      .outputs[0]?.items.find((candidate) => candidate.mime === REPORT_CARD_MIME);
    assert.ok(item, `the output holds ${REPORT_CARD_MIME}`);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(item.data)), card);
  });

  it("a card's Preview ({ type: 'preview', lab, id }) opens the report's preview tab, by the lab's name or, for a name this window does not know, by its address", async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const shown = await api.notebooks.receive({ type: 'preview', lab: labName, id: reportId });
    assert.deepEqual(shown, { pages: 1 });
    assert.equal(previewTabLabel(), `${reportId} (preview)`);
    assert.equal(api.previews.state(api.previews.uriOf(labName, reportId))?.status, 'shown');

    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const byAddress = await api.notebooks.receive({
      type: 'preview',
      lab: 'The name in a colleague manifest',
      origin: new URL(lab.baseUrl).origin,
      id: reportId,
    });
    assert.deepEqual(byAddress, { pages: 1 });
    await eventually(() => assert.equal(previewTabLabel(), `${reportId} (preview)`));
  });

  it('a message that is not a preview of a plain id opens nothing', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const message of [
      { type: 'open', id: reportId },
      { type: 'preview' },
      { type: 'preview', id: `${reportId}\u001b[2J` },
      { type: 'preview', id: 42 },
      'preview',
      null,
    ]) {
      assert.equal(await api.notebooks.receive(message), undefined, JSON.stringify(message));
    }
    assert.equal(vscode.window.tabGroups.all.flatMap((group) => group.tabs).length, 0);
  });
});
