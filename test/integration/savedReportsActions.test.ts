import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApi } from '../../core/api/labApi';
import { defaultLabDefinition } from '../../core/api/labDefinition';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { listAllReports } from '../../core/sync/folderSync';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  eventually,
  signedInLab,
  workspaceFolder,
  type SignedInLab,
} from './helpers';

/** Another address of the same lab name (a colleague's VPN address): never reached by this test. */
const OTHER_ORIGIN = 'https://meridian-vpn.example';

/**
 * A manifest's section at another address, under the name of the user's own lab: the name never
 * chooses the lab. Preview and Compare on its rows ask the user's lab nothing until the user has
 * confirmed, in a dialog naming both addresses, that their lab serves it.
 */
describe('a saved report of a section at another address under the user’s lab’s name', function () {
  this.timeout(180_000);
  let signedIn: SignedInLab;
  let folder: string;
  let reportId: string;
  let prompts: FakePrompts;
  let restorePrompts: () => void;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('labData');

  before(async () => {
    signedIn = await signedInLab();
    const api = new LabApi({
      token: LEAK_CHECK_TOKEN,
      lab: defaultLabDefinition(parseBaseUrl(signedIn.lab.baseUrl)),
    });
    const report = (await listAllReports(api, {})).find((found) => found.download_available);
    await api.close();
    assert.ok(report);
    reportId = report.report_id;
    folder = path.join(await fs.mkdtemp(path.join(workspaceFolder(), 'vpn-section-')), 'reports');
    await fs.mkdir(folder);
    const manifest = {
      labs: {
        [OTHER_ORIGIN]: {
          name: signedIn.name,
          reports: {
            [reportId]: {
              bytes: 1000,
              file: `${reportId}.pdf`,
              sha256: '0'.repeat(64),
              revision: '1',
            },
          },
        },
      },
      version: 3,
    };
    await fs.writeFile(
      path.join(folder, 'lab-data-sync.json'),
      `${JSON.stringify(manifest, null, 2)}\n`,
    );
    prompts = new FakePrompts();
    restorePrompts = signedIn.api.setPrompts(prompts);
  });

  after(async () => {
    restorePrompts?.();
    await config().update('manifestLabs', undefined, vscode.ConfigurationTarget.Global);
    await signedIn?.close();
    await fs.rm(path.dirname(folder), { recursive: true, force: true });
  });

  const reportRow = async (): Promise<unknown> => {
    const provider = signedIn.api.savedReports.provider as vscode.TreeDataProvider<unknown>;
    const folderNode = await eventually(async () => {
      const found = ((await provider.getChildren()) ?? []).find(
        (node) => (node as { folder?: string }).folder === folder,
      );
      assert.ok(found, 'the view lists the folder');
      return found;
    });
    const labNode = ((await provider.getChildren(folderNode)) ?? [])[0];
    assert.ok(labNode);
    return ((await provider.getChildren(labNode)) ?? [])[0];
  };

  const askedFor = (id: string): string[] =>
    signedIn.lab.requests.filter((request) => request.path.includes(id)).map((r) => r.path);

  it('Preview and Compare ask the user’s lab of that name nothing', async () => {
    const row = await reportRow();
    assert.ok(row, 'the report row');
    signedIn.lab.takeRequests();
    await vscode.commands.executeCommand('labData.previewSavedReport', row);
    await vscode.commands.executeCommand('labData.compareWithLab', row);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.deepEqual(askedFor(reportId), [], 'no request for the report reached the user’s lab');
  });

  it('Add the Lab This Folder Uses: Enter cancels, it says a lab of that name is elsewhere, and “serves it” is confirmed naming both addresses', async () => {
    const own = new URL(signedIn.lab.baseUrl).origin;
    prompts.pickOneAnswers = [];
    const declined = await vscode.commands.executeCommand('labData.addLabFromManifest', {
      folder,
    });
    assert.equal(declined, undefined);
    const offered = prompts.pickOneOffered.at(-1)!;
    const current = offered.choices.find((choice) => choice.id === offered.current);
    assert.ok(current, 'Enter takes a row');
    assert.match(current.label, /Cancel/, 'Enter cancels');
    const addRow = offered.choices.find((choice) => /Add Lab/.test(choice.label))!;
    assert.match(addRow.detail ?? '', new RegExp(escape(own)), 'names your lab’s address');
    assert.deepEqual(config().inspect('manifestLabs')?.globalValue, undefined);

    prompts.pickOneAnswers = [signedIn.name];
    prompts.confirmAnswer = false;
    const asked = prompts.confirmAsked.length;
    const refused = await vscode.commands.executeCommand('labData.addLabFromManifest', { folder });
    assert.equal(refused, undefined);
    assert.equal(prompts.confirmAsked.length, asked + 1, 'serving it is confirmed');
    const question = prompts.confirmAsked.at(-1)!;
    const words = `${question.message} ${question.detail}`;
    assert.match(words, new RegExp(escape(OTHER_ORIGIN)));
    assert.match(words, new RegExp(escape(own)));
    assert.deepEqual(config().inspect('manifestLabs')?.globalValue, undefined);
    const row = await reportRow();
    signedIn.lab.takeRequests();
    await vscode.commands.executeCommand('labData.compareWithLab', row);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.deepEqual(askedFor(reportId), [], 'still nothing asked of the user’s lab');

    prompts.pickOneAnswers = [signedIn.name];
    prompts.confirmAnswer = true;
    const result = await vscode.commands.executeCommand('labData.addLabFromManifest', { folder });
    assert.deepEqual(result, {
      manifestLab: signedIn.name,
      origin: OTHER_ORIGIN,
      lab: signedIn.name,
      added: false,
    });
    assert.deepEqual(config().inspect('manifestLabs')?.globalValue, {
      [OTHER_ORIGIN]: signedIn.name,
    });
    // Confirmed: Preview of its missing file now asks the user's lab.
    signedIn.lab.takeRequests();
    await vscode.commands.executeCommand('labData.previewSavedReport', await reportRow());
    await eventually(async () => assert.ok(askedFor(reportId).length > 0, 'asked the user’s lab'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
