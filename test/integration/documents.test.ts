import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { LabNode } from '../../src/views/nodes';
import type { MockLabServer } from '../mock/server';
import { eventually, FakePrompts, signedInLab, type SignedInLab } from './helpers';

async function children(
  api: LabDataExtensionApi,
  view: keyof LabDataExtensionApi['views'],
  parent?: LabNode,
): Promise<Array<{ node: LabNode; item: vscode.TreeItem }>> {
  const provider = api.views[view];
  const nodes = (await provider.getChildren(parent)) ?? [];
  return Promise.all(nodes.map(async (node) => ({ node, item: await provider.getTreeItem(node) })));
}

async function openedJson(
  uri: vscode.Uri | undefined,
): Promise<{ document: vscode.TextDocument; json: unknown }> {
  assert.ok(uri, 'the command returned the document address');
  const document = vscode.workspace.textDocuments.find(
    (doc) => doc.uri.toString() === uri.toString(),
  );
  assert.ok(document, 'the document is open');
  return { document, json: JSON.parse(document.getText()) };
}

describe('metadata as JSON documents', () => {
  let lab: MockLabServer;
  let api: LabDataExtensionApi;
  let signedIn: SignedInLab;
  let restore: () => void;
  const prompts = new FakePrompts();

  before(async () => {
    signedIn = await signedInLab({ token: 'demo-full-access' });
    ({ api, lab } = signedIn);
    restore = api.setPrompts(prompts);
  });

  after(async () => {
    restore();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await signedIn.close();
  });

  it("opens a report by id as read-only JSON that equals the server's record, every field included", async () => {
    const report = lab.reportsFor('demo-full-access')[5]!;
    const uri = await vscode.commands.executeCommand<vscode.Uri>(
      'labData.openReportMetadata',
      report.report_id,
    );
    const { document, json } = await openedJson(uri);
    assert.ok(uri!.path.endsWith(`/${report.report_id}.json`));
    assert.equal(uri!.scheme, 'labdata');
    assert.equal(document.languageId, 'json');
    assert.deepEqual(json, report);
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), uri!.toString());
    assert.ok(
      'lab_name' in (json as object) && 'revision' in (json as object),
      'fields the spec does not name are shown',
    );
  });

  it('opens clients, projects, samples and reports from their tree items', async () => {
    const clients = await children(api, 'clients');
    const clientUri = await vscode.commands.executeCommand<vscode.Uri>(
      'labData.openReportMetadata',
      clients[0]!.node,
    );
    assert.deepEqual((await openedJson(clientUri)).json, lab.data.clients[0]);
    const projects = await children(api, 'clients', clients[0]!.node);
    const projectUri = await vscode.commands.executeCommand<vscode.Uri>(
      'labData.openReportMetadata',
      projects[0]!.node,
    );
    assert.deepEqual(
      (await openedJson(projectUri)).json,
      lab.data.projects.find((p) => p.client_id === lab.data.clients[0]!.client_id),
    );
    const samples = await children(api, 'samples');
    const sampleUri = await vscode.commands.executeCommand<vscode.Uri>(
      'labData.openReportMetadata',
      samples[0]!.node,
    );
    assert.deepEqual((await openedJson(sampleUri)).json, lab.data.samples[0]);
    const reports = await children(api, 'reports');
    const reportUri = await vscode.commands.executeCommand<vscode.Uri>(
      'labData.openReportMetadata',
      reports[0]!.node,
    );
    assert.deepEqual((await openedJson(reportUri)).json, lab.reportsFor('demo-full-access')[0]);
  });

  it('re-opening reads the server again', async () => {
    const report = lab.reportsFor('demo-full-access')[7]!;
    const uri = await vscode.commands.executeCommand<vscode.Uri>(
      'labData.openReportMetadata',
      report.report_id,
    );
    assert.equal(((await openedJson(uri)).json as { title: string }).title, report.title);
    const original = report.title;
    report.title = `${original} (corrected)`;
    try {
      await vscode.commands.executeCommand('labData.openReportMetadata', report.report_id);
      // The open document takes the new text through its content provider's change event.
      await eventually(async () =>
        assert.equal(
          ((await openedJson(uri)).json as { title: string }).title,
          `${original} (corrected)`,
        ),
      );
    } finally {
      report.title = original;
    }
  });

  it('asks for an id from the palette, and says plainly when there is no such report', async () => {
    const report = lab.reportsFor('demo-full-access')[2]!;
    prompts.reportIdAnswer = report.report_id;
    const uri = await vscode.commands.executeCommand<vscode.Uri>('labData.openReportMetadata');
    assert.deepEqual((await openedJson(uri)).json, report);
    const missing = await vscode.commands.executeCommand(
      'labData.openReportMetadata',
      'RPT-0000-000000',
    );
    assert.equal(missing, undefined, 'an unknown id opens nothing');
  });

  it('a record the lab could not give opens as plain text saying why, not as a broken JSON file; opened again once the lab answers, it is JSON', async () => {
    const report = lab.reportsFor('demo-full-access')[7]!;
    const find = (): vscode.TextDocument | undefined =>
      vscode.workspace.textDocuments.find(
        (doc) => doc.uri.scheme === 'labdata' && doc.uri.query.includes(`id=${report.report_id}`),
      );
    lab.setFaults({ status: { status: 400, times: Infinity } });
    let failed: vscode.TextDocument;
    try {
      await vscode.commands.executeCommand('labData.openReportMetadata', report.report_id);
      failed = await eventually(() => {
        const document = find();
        assert.ok(document, 'the document opened, saying why');
        assert.match(document.getText(), /could not fetch/);
        return document;
      });
    } finally {
      lab.setFaults({});
    }
    // The JSON checker would count each line of the explanation as an error.
    assert.equal(failed.languageId, 'plaintext');
    assert.equal(vscode.window.activeTextEditor?.document.languageId, 'plaintext');
    const uri = await vscode.commands.executeCommand<vscode.Uri>(
      'labData.openReportMetadata',
      report.report_id,
    );
    // The document takes the new text when VS Code has applied the read, a moment after it.
    await eventually(async () => {
      const { document, json } = await openedJson(uri);
      assert.deepEqual(json, report);
      assert.equal(document.languageId, 'json');
    });
  });
});
