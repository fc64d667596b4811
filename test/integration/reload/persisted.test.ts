import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateExtension } from '../helpers';

describe('after a window reload', () => {
  it('the sign-in survived: a new extension host reads the token back from SecretStorage', async () => {
    const api = await activateExtension();
    const configured = vscode.workspace.getConfiguration('labData').inspect<string>('baseUrl')?.globalValue;
    assert.ok(configured, 'the first phase left a lab configured');
    const state = await api.getState();
    assert.equal(state.baseUrl, configured);
    assert.equal(state.signedIn, true);
  });

  it('signing out removes it for good', async () => {
    const api = await activateExtension();
    assert.equal(await vscode.commands.executeCommand('labData.signOut'), true);
    assert.equal((await api.getState()).signedIn, false);
  });
});
