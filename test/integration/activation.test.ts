import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import {
  Commands,
  ContextKeys,
  EXTENSION_ID,
  Settings,
  SETTINGS_SECTION,
  Views,
} from '../../src/constants';
import { activateExtension, extensionPackageJson } from './helpers';

describe('extension activation and contract', () => {
  it('activates in a real VS Code extension host, only when used, and says how long activate() took', async () => {
    // Declared activation events (views, commands, the PDF editor, chat tools, links, a synced
    // folder): a window that has not used Lab Data yet has not loaded it.
    assert.equal(
      vscode.extensions.getExtension(EXTENSION_ID)!.isActive,
      false,
      'not active before anything used it',
    );
    assert.ok(
      !(extensionPackageJson() as { activationEvents?: string[] }).activationEvents?.some(
        (event) => event === '*' || event === 'onStartupFinished',
      ),
    );
    const api = await activateExtension();
    assert.ok(api.activationMs > 0);
    console.log(`      activate() took ${api.activationMs.toFixed(1)} ms`);
    assert.ok(vscode.extensions.getExtension(EXTENSION_ID)!.isActive);
    assert.equal(typeof api.getState, 'function');
    assert.match(vscode.version, /^1\.1\d\d\./);
    console.log(
      `      (VS Code ${vscode.version}, ${vscode.env.appName}, remote: ${vscode.env.remoteName ?? 'none'})`,
    );
  });

  it('registers every declared command, and declares every registered command', async () => {
    await activateExtension();
    const declared = extensionPackageJson()
      .contributes.commands.map((c) => c.command)
      .sort();
    const registered = (await vscode.commands.getCommands(true))
      .filter(
        (id) =>
          id.startsWith('labData.') &&
          !/^labData\.(reports|clients|samples|savedReports)\./.test(id),
      )
      .sort();
    assert.deepEqual(registered, declared);
    assert.deepEqual(
      Object.values(Commands).sort(),
      declared,
      'constants.ts and package.json agree',
    );
  });

  it('declares the view container and its four views, and VS Code created them', async () => {
    const contributes = extensionPackageJson().contributes;
    assert.deepEqual(
      contributes.viewsContainers.activitybar.map((c) => c.id),
      [Views.container],
    );
    assert.deepEqual(
      contributes.views[Views.container]!.map((v) => v.id),
      [Views.reports, Views.clients, Views.samples, Views.savedReports],
    );
    const commands = await vscode.commands.getCommands(true);
    for (const view of [Views.reports, Views.clients, Views.samples, Views.savedReports]) {
      assert.ok(commands.includes(`${view}.focus`), `VS Code created ${view}`);
    }
    assert.ok(commands.includes(`workbench.view.extension.${Views.container}`));
  });

  it('declares every setting the code reads, with the base URL application-scoped', () => {
    const properties = extensionPackageJson().contributes.configuration.properties;
    assert.deepEqual(
      Object.keys(properties).sort(),
      Object.values(Settings)
        .map((key) => `${SETTINGS_SECTION}.${key}`)
        .sort(),
    );
    assert.equal(properties['labData.baseUrl']!.scope, 'application');
    assert.ok(Object.values(ContextKeys).every((key) => key.startsWith('labData.')));
  });
});
