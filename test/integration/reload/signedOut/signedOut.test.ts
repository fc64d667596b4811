import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateExtension } from '../../helpers';

describe('after another window reload', () => {
  it('signing out removed it for good: a new extension host finds no token in SecretStorage', async () => {
    const api = await activateExtension();
    const configured = vscode.workspace
      .getConfiguration('labData')
      .inspect<string>('baseUrl')?.globalValue;
    assert.ok(configured, 'the lab stays configured: only its token went');
    const state = await api.getState();
    assert.equal(state.baseUrl, configured);
    assert.ok(api.secretReads() > 0, 'this extension host read SecretStorage');
    assert.equal(state.signedIn, false, 'no token came back after the reload');
    assert.equal(
      await vscode.commands.executeCommand('labData.signOut'),
      false,
      'nothing left to remove',
    );
  });
});
