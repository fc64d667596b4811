import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateExtension } from '../helpers';

describe('after a window reload', () => {
  it('the sign-in survived: a new extension host reads the token back from SecretStorage', async () => {
    const api = await activateExtension();
    const configured = vscode.workspace
      .getConfiguration('labData')
      .inspect<string>('baseUrl')?.globalValue;
    assert.ok(configured, 'the first phase left a lab configured');
    const state = await api.getState();
    assert.equal(state.baseUrl, configured);
    assert.equal(state.signedIn, true);
  });

  it('what the user has seen survived: the lab\'s "new since" mark is from before this extension host started', async () => {
    const api = await activateExtension();
    const state = await api.getState();
    const mark = api.newReports.markOf(state.labs[0]!.name);
    assert.ok(mark, 'the lab has a mark');
    const hostStarted = Date.now() - process.uptime() * 1000;
    assert.ok(
      Date.parse(mark) < hostStarted,
      `the mark ${mark} was read back from globalState, not set at this start (${new Date(hostStarted).toISOString()})`,
    );
  });

  // Whether the sign-out lasts is checked after the next reload (reload/signedOut/).
  it('signs out of the lab it read back', async () => {
    const api = await activateExtension();
    assert.equal(await vscode.commands.executeCommand('labData.signOut'), true);
    assert.equal((await api.getState()).signedIn, false);
  });
});
