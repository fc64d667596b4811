import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { MockLabServer } from '../mock/server';
import {
  LEAK_CHECK_TOKEN,
  activateExtension,
  eventually,
  labDataLogFiles,
  ownNameOf,
  signIn,
  signInOnly,
  signOutOfAll,
  startLab,
  workspaceFolder,
  writeWorkspaceSettings,
} from './helpers';

describe('sign-in, the token and SecretStorage', () => {
  let lab: MockLabServer;
  let other: MockLabServer;
  let api: LabDataExtensionApi;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('labData');

  before(async () => {
    api = await activateExtension();
    lab = await startLab();
    other = await startLab();
  });

  after(async () => {
    // Leaves no lab signed in and none configured, as it found a fresh window.
    await signOutOfAll(api);
    await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('labName', undefined, vscode.ConfigurationTarget.Global);
    await fs.rm(path.join(workspaceFolder(), '.vscode'), { recursive: true, force: true });
    await lab.stop();
    await other.stop();
  });

  it('signs in with { baseUrl, token } without asking anything, checking the token with one request; the lab is called by the name it gives itself', async () => {
    const api = await activateExtension();
    lab.takeRequests();
    const result = await signIn(`${lab.baseUrl}/api/v1/`, LEAK_CHECK_TOKEN);
    assert.deepEqual(result, {
      name: ownNameOf(lab),
      baseUrl: lab.baseUrl,
      host: new URL(lab.baseUrl).host,
    });
    const requests = lab.takeRequests();
    assert.equal(requests.length, 1);
    assert.equal(requests[0]!.scope, 'leak check (full scope)');
    const state = await api.getState();
    assert.equal(state.signedIn, true);
    assert.equal(state.origin, new URL(lab.baseUrl).origin);
    assert.equal(
      vscode.workspace.getConfiguration('labData').inspect('baseUrl')?.globalValue,
      lab.baseUrl,
    );
    // Still the one-lab shorthand, under its own name from the start.
    assert.equal(config().inspect('labName')?.globalValue, ownNameOf(lab));
    assert.deepEqual(
      state.labs.map((each) => [each.name, each.signedIn]),
      [[ownNameOf(lab), true]],
    );
  });

  it('keeps the token out of settings: only SecretStorage has it', async () => {
    const settingsFile = path.join(
      process.env.LABDATA_TEST_USER_DATA_DIR!,
      'User',
      'settings.json',
    );
    const settings = await eventually(async () => {
      const text = await fs.readFile(settingsFile, 'utf8');
      assert.match(text, /labData\.baseUrl/);
      return text;
    });
    assert.ok(!settings.includes(LEAK_CHECK_TOKEN));
    assert.ok(
      !JSON.stringify(vscode.workspace.getConfiguration('labData')).includes(LEAK_CHECK_TOKEN),
    );
  });

  it('a rejected token (401) stores nothing and leaves the earlier sign-in alone', async () => {
    const api = await activateExtension();
    const result = await signIn(other.baseUrl, 'demo-expired');
    assert.equal(result, undefined, 'the command reports failure by returning nothing');
    const requests = other.takeRequests();
    assert.deepEqual(
      requests.map((r) => r.status),
      [401],
    );
    const state = await api.getState();
    assert.equal(
      state.origin,
      new URL(lab.baseUrl).origin,
      'the base URL did not move to the failed lab',
    );
    assert.equal(state.signedIn, true);
  });

  it('never sends a token saved for one origin to another: a new base URL means signed out', async () => {
    const api = await activateExtension();
    await vscode.workspace
      .getConfiguration('labData')
      .update('baseUrl', other.baseUrl, vscode.ConfigurationTarget.Global);
    const state = await eventually(async () => {
      const current = await api.getState();
      assert.equal(current.origin, new URL(other.baseUrl).origin);
      return current;
    });
    assert.equal(state.signedIn, false);
    assert.equal(
      other.requests.filter((r) => r.hadAuthorization).length,
      0,
      'the other lab never saw an Authorization header',
    );
    await vscode.workspace
      .getConfiguration('labData')
      .update('baseUrl', lab.baseUrl, vscode.ConfigurationTarget.Global);
    await eventually(async () => assert.equal((await api.getState()).signedIn, true));
  });

  it('ignores a base URL set in workspace settings, dotted or nested', async () => {
    const api = await activateExtension();
    const folder = path.join(workspaceFolder(), '.vscode');
    await fs.mkdir(folder, { recursive: true });
    for (const settings of [
      { 'labData.baseUrl': other.baseUrl },
      { labData: { baseUrl: other.baseUrl } },
    ]) {
      // Once VS Code has delivered the file's settings, getState reads the labs rebuilt after them.
      await writeWorkspaceSettings(folder, settings);
      const state = await api.getState();
      assert.equal(state.origin, new URL(lab.baseUrl).origin, JSON.stringify(settings));
      assert.equal(state.signedIn, true);
    }
    assert.equal(other.requests.filter((r) => r.hadAuthorization).length, 0);
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('signs out, removing the token, and signs in again', async () => {
    const api = await activateExtension();
    assert.equal(await vscode.commands.executeCommand('labData.signOut'), true);
    assert.equal((await api.getState()).signedIn, false);
    assert.equal(
      await vscode.commands.executeCommand('labData.signOut'),
      false,
      'nothing left to remove',
    );
    await signIn(lab.baseUrl, LEAK_CHECK_TOKEN);
    assert.equal((await api.getState()).signedIn, true);
  });

  it('a sign-in without a name adds a lab beside a signed-in one, and replaces a signed-out one as 0.1.0 did', async () => {
    const api = await activateExtension();
    const config = (): vscode.WorkspaceConfiguration =>
      vscode.workspace.getConfiguration('labData');
    const otherHost = new URL(other.baseUrl).host;
    // Both mock labs call themselves alike: the second keeps its address, as no two labs share a name.
    const ownName = ownNameOf(lab);
    assert.equal(ownNameOf(other), ownName);
    try {
      assert.deepEqual(await signIn(other.baseUrl, LEAK_CHECK_TOKEN), {
        name: otherHost,
        baseUrl: other.baseUrl,
        host: otherHost,
      });
      assert.equal(
        config().inspect('baseUrl')?.globalValue,
        lab.baseUrl,
        'the signed-in lab stays',
      );
      assert.deepEqual(config().inspect('labs')?.globalValue, [
        { name: otherHost, baseUrl: other.baseUrl },
      ]);
      assert.deepEqual(
        (await api.getState()).labs.map((entry) => [entry.name, entry.signedIn]),
        [
          [ownName, true],
          [otherHost, true],
        ],
      );
      assert.equal(
        await vscode.commands.executeCommand('labData.signOut', { name: otherHost }),
        true,
      );
      await config().update('labs', undefined, vscode.ConfigurationTarget.Global);

      assert.equal(
        await vscode.commands.executeCommand('labData.signOut', { name: ownName }),
        true,
      );
      // The replaced lab gives its name up with its place: the new one takes the name it gives itself.
      assert.deepEqual(await signIn(other.baseUrl, LEAK_CHECK_TOKEN), {
        name: ownName,
        baseUrl: other.baseUrl,
        host: otherHost,
      });
      assert.equal(
        config().inspect('baseUrl')?.globalValue,
        other.baseUrl,
        'the signed-out shorthand lab was replaced',
      );
      assert.equal(config().inspect('labs')?.globalValue, undefined, 'and no lab was added');
      assert.equal(
        await vscode.commands.executeCommand('labData.signOut', { name: ownName }),
        true,
      );
    } finally {
      await signInOnly(lab.baseUrl, LEAK_CHECK_TOKEN);
    }
    assert.deepEqual(
      (await api.getState()).labs.map((entry) => [entry.name, entry.signedIn]),
      [[ownName, true]],
    );
  });

  it('writes no token to the "Lab Data" log after a sign-in, a 401 and a sign-out', async () => {
    await signIn(lab.baseUrl, 'demo-revoked'); // a 401
    await vscode.commands.executeCommand('labData.signOut');
    await signIn(lab.baseUrl, LEAK_CHECK_TOKEN);
    const files = await eventually(async () => {
      const found = await labDataLogFiles();
      assert.ok(found.length > 0, 'the host wrote a "Lab Data" log file');
      const text = (await Promise.all(found.map((file) => fs.readFile(file, 'utf8')))).join('\n');
      assert.match(
        text,
        /That token was rejected \(token revoked\)/,
        "the 401 was logged, with the lab's reason",
      );
      assert.match(text, /Signed in to/);
      assert.match(text, /Not signed in to/);
      return found;
    });
    const text = (await Promise.all(files.map((file) => fs.readFile(file, 'utf8')))).join('\n');
    assert.ok(!text.includes(LEAK_CHECK_TOKEN), 'the token never reaches the log');
    assert.ok(!/Bearer\s+(?!\[redacted\])\S/.test(text));
  });

  it("a lab that refuses the stored token later is signed out with a warning in the lab's own words", async () => {
    const token = 'lab_it_revocable_token_0077';
    const revocable = await startLab({ tokens: { [token]: { label: 'revocable' } } });
    const shown: string[] = [];
    const window = vscode.window as {
      showWarningMessage: (...args: unknown[]) => Thenable<unknown>;
    };
    const original = window.showWarningMessage;
    window.showWarningMessage = (message: unknown) => {
      shown.push(String(message));
      return Promise.resolve(undefined);
    };
    try {
      await signInOnly(revocable.baseUrl, token);
      revocable.revokeToken(token);
      // The next request (the Reports view's list) meets the lab's 401.
      await api.views.reports.getChildren();
      const name = ownNameOf(revocable);
      await eventually(() =>
        assert.deepEqual(shown, [
          `${name} no longer accepts your access token (the lab says: token revoked). Sign in again to continue.`,
        ]),
      );
    } finally {
      window.showWarningMessage = original;
      await signInOnly(lab.baseUrl, LEAK_CHECK_TOKEN);
      await revocable.stop();
    }
  });
});
