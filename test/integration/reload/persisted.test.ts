import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { activateExtension, handoffFile } from '../helpers';

describe('after a window reload', () => {
  it('the sign-in survived: the token is still in SecretStorage for the same origin', async () => {
    const { baseUrl } = JSON.parse(await fs.readFile(handoffFile(), 'utf8')) as { baseUrl: string };
    const api = await activateExtension();
    const state = await api.getState();
    assert.equal(state.baseUrl, baseUrl);
    assert.equal(state.signedIn, true, 'a new extension host read the token back from SecretStorage');
  });

  it('signing out removes it for good', async () => {
    const api = await activateExtension();
    assert.equal(await vscode.commands.executeCommand('labData.signOut'), true);
    assert.equal((await api.getState()).signedIn, false);
    await fs.rm(handoffFile(), { force: true });
  });
});
