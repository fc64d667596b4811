import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LabApi } from '../../core/api/labApi';
import { defaultLabDefinition } from '../../core/api/labDefinition';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { ContentCache } from '../../core/files/contentCache';
import { listAllReports } from '../../core/sync/folderSync';
import { syncedAsColleague } from '../support/colleagueFolder';
import type { MockLabServer } from '../mock/server';
import type { ConfirmOptions } from '../../src/ui/prompts';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  eventually,
  signIn,
  signedInLab,
  startLab,
  workspaceFolder,
  type SignedInLab,
} from './helpers';

interface RestoreSummary {
  restored: number;
  fromLab: number;
  failed: number;
  missingLabs: Array<{ name: string; origin: string; folder: string; offered: boolean }>;
}

/** Prompts that note, at the moment the address is confirmed, which requests the new lab had seen. */
class WatchingPrompts extends FakePrompts {
  requestsAtConfirm?: number;
  constructor(private readonly lab: MockLabServer) {
    super();
  }
  override async confirm(
    message: string,
    detail: string,
    action?: string,
    options?: ConfirmOptions,
  ): Promise<boolean> {
    this.requestsAtConfirm = this.lab.requests.length;
    return super.confirm(message, detail, action, options);
  }
}

/**
 * A colleague's folder whose manifest names a lab this machine does not have ("Coastal Lab", at its
 * address): the extension offers to add it with the manifest's address, shown and confirmed before
 * any token goes there; then Restore restores from it, and Sync proposes it first.
 */
describe('the lab a folder’s manifest names (labData.addLabFromManifest)', function () {
  this.timeout(120_000);
  const LAB = 'Coastal Lab';
  let signedIn: SignedInLab;
  let coastal: MockLabServer;
  let folder: string;
  let names: string[];
  let cacheBefore: unknown;
  let machineCache: string;
  /** A colleague's own cache, made for the set-up and removed after. */
  let colleagueCacheFolder: string;
  let prompts: WatchingPrompts;
  let restorePrompts: () => void;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('labData');

  before(async () => {
    signedIn = await signedInLab();
    coastal = await startLab({ seed: 11 });
    cacheBefore = config().inspect('cacheFolder')?.globalValue;
    machineCache = await fs.mkdtemp(path.join(tmpdir(), 'lab-from-manifest-cache-'));
    await config().update('cacheFolder', machineCache, vscode.ConfigurationTarget.Global);
    // The colleague's folder, synced with a lab they call "Coastal Lab"; its PDFs are not in the clone.
    folder = path.join(
      await fs.mkdtemp(path.join(workspaceFolder(), 'colleague-coastal-')),
      'lab-reports',
    );
    const api = new LabApi({
      token: LEAK_CHECK_TOKEN,
      lab: { ...defaultLabDefinition(parseBaseUrl(coastal.baseUrl)), name: LAB },
    });
    const reports = (await listAllReports(api, {}))
      .filter((report) => report.download_available)
      .slice(0, 5);
    colleagueCacheFolder = await fs.mkdtemp(path.join(tmpdir(), 'colleague-coastal-cache-'));
    const colleagueCache = new ContentCache(colleagueCacheFolder);
    await syncedAsColleague(api, folder, reports, colleagueCache);
    await api.close();
    names = (await fs.readdir(folder)).filter((name) => name.endsWith('.pdf'));
    assert.equal(names.length, 5);
    for (const name of names) {
      await fs.rm(path.join(folder, name));
    }
    // A fresh clone: no machine state of the colleague's.
    await fs.rm(path.join(folder, '.lab-data'), { recursive: true, force: true });
    coastal.takeRequests();
    prompts = new WatchingPrompts(coastal);
    restorePrompts = signedIn.api.setPrompts(prompts);
  });

  after(async () => {
    restorePrompts?.();
    await vscode.commands
      .executeCommand('labData.signOut', { name: LAB })
      .then(undefined, () => false);
    await config().update('cacheFolder', cacheBefore, vscode.ConfigurationTarget.Global);
    await config().update('manifestLabs', undefined, vscode.ConfigurationTarget.Global);
    await coastal?.stop();
    await signedIn?.close();
    await fs.rm(path.dirname(folder), { recursive: true, force: true });
    await fs.rm(machineCache, { recursive: true, force: true });
    await fs.rm(colleagueCacheFolder, { recursive: true, force: true });
  });

  const labsSetting = (): string => JSON.stringify(config().inspect('labs')?.globalValue ?? null);

  it('Restore names the lab this machine lacks and offers to add it, having sent that lab nothing', async () => {
    const summary = await vscode.commands.executeCommand<RestoreSummary>('labData.restoreReports', {
      folder,
    });
    assert.equal(summary.restored, 0);
    assert.equal(summary.failed, 5);
    assert.deepEqual(summary.missingLabs, [
      { name: LAB, origin: new URL(coastal.baseUrl).origin, folder, offered: true },
    ]);
    assert.deepEqual(coastal.requests, [], 'no request reached the lab the manifest names');
  });

  it('the Saved Reports view shows that lab as served by no lab of yours, and its row offers the same Add Lab', async () => {
    const provider = signedIn.api.savedReports.provider as vscode.TreeDataProvider<unknown>;
    const folderNode = await eventually(async () => {
      const found = ((await provider.getChildren()) ?? []).find(
        (node) => (node as { folder?: string }).folder === folder,
      );
      assert.ok(found, 'the view lists the folder');
      return found;
    });
    const labNode = ((await provider.getChildren(folderNode)) ?? []).find(
      (node) => (node as { section?: { lab: string } }).section?.lab === LAB,
    );
    assert.ok(labNode, 'the view lists the manifest’s lab');
    const item = await provider.getTreeItem(labNode);
    assert.equal(item.contextValue, 'labData.savedLab.unserved');
    assert.match(String(item.description), /no lab of yours/);
    const before = labsSetting();
    prompts.confirmAnswer = false;
    prompts.pickOneAnswers = [''];
    const asked = prompts.confirmAsked.length;
    const result = await vscode.commands.executeCommand('labData.addLabFromManifest', labNode);
    assert.equal(result, undefined);
    assert.equal(prompts.confirmAsked.length, asked + 1, 'the row asked to confirm the address');
    assert.match(prompts.confirmAsked.at(-1)!.message, new RegExp(escape(coastal.baseUrl)));
    assert.equal(labsSetting(), before);
    assert.deepEqual(coastal.requests, [], 'nothing sent to the manifest’s address');
  });

  it('declined: the address was shown, nothing is added and nothing is sent', async () => {
    const before = labsSetting();
    prompts.confirmAnswer = false;
    prompts.tokenAnswers = [LEAK_CHECK_TOKEN];
    // Enter takes Cancel; the person picks "Add Lab Coastal Lab…", ahead of "Meridian serves it".
    prompts.pickOneAnswers = [];
    const cancelled = await vscode.commands.executeCommand('labData.addLabFromManifest', {
      folder,
    });
    assert.equal(cancelled, undefined);
    const enter = prompts.pickOneOffered.at(-1)!;
    assert.equal(enter.choices[0]!.id, enter.current, 'the first row is the one Enter takes');
    assert.match(enter.choices[0]!.label, /Cancel/, 'and it cancels');
    assert.deepEqual(prompts.tokenTitles, [], 'the token was never asked');
    prompts.pickOneAnswers = [''];
    const result = await vscode.commands.executeCommand('labData.addLabFromManifest', { folder });
    assert.equal(result, undefined);
    const offered = prompts.pickOneOffered.at(-1)!;
    assert.equal(offered.choices[1]!.description, coastal.baseUrl, 'the full address is shown');
    const asked = prompts.confirmAsked.at(-1)!;
    assert.match(asked.message, new RegExp(escape(coastal.baseUrl)));
    assert.match(asked.detail, /comes from the repository/);
    assert.match(asked.detail, new RegExp(`sent to ${escape(new URL(coastal.baseUrl).origin)}`));
    assert.deepEqual(prompts.tokenTitles, [], 'the token was never asked');
    assert.equal(labsSetting(), before, 'nothing added to labData.labs');
    assert.deepEqual(coastal.requests, [], 'nothing sent to the manifest’s address');
  });

  it('Enter in the Add dialog (its default, first button) declines: no token is asked, nothing is added or sent', async () => {
    const before = labsSetting();
    prompts.confirmEnter = true;
    prompts.tokenAnswers = [LEAK_CHECK_TOKEN];
    prompts.pickOneAnswers = [''];
    try {
      const result = await vscode.commands.executeCommand('labData.addLabFromManifest', {
        folder,
      });
      assert.equal(result, undefined);
    } finally {
      prompts.confirmEnter = false;
    }
    const asked = prompts.confirmAsked.at(-1)!;
    assert.match(asked.message, new RegExp(escape(coastal.baseUrl)));
    assert.equal(asked.decline, 'Don’t Add', 'the first button does nothing');
    assert.deepEqual(prompts.tokenTitles, [], 'the token was never asked');
    assert.equal(labsSetting(), before, 'nothing added to labData.labs');
    assert.deepEqual(coastal.requests, [], 'nothing sent to the manifest’s address');
    prompts.tokenAnswers = [];
  });

  it('confirmed: no token reaches the lab before the confirmation; then it is added to the user’s labData.labs, and Restore restores from it', async () => {
    prompts.confirmAnswer = true;
    prompts.tokenAnswers = [LEAK_CHECK_TOKEN];
    prompts.requestsAtConfirm = undefined;
    prompts.pickOneAnswers = [''];
    const result = await vscode.commands.executeCommand('labData.addLabFromManifest', { folder });
    assert.deepEqual(result, {
      manifestLab: LAB,
      origin: new URL(coastal.baseUrl).origin,
      lab: LAB,
      added: true,
    });
    assert.equal(prompts.requestsAtConfirm, 0, 'nothing reached the lab before the confirmation');
    assert.ok(
      coastal.requests.some((request) => request.hadAuthorization),
      'the token was checked after it',
    );
    const labs = config().inspect<Array<Record<string, unknown>>>('labs')?.globalValue ?? [];
    assert.deepEqual(labs.at(-1), { name: LAB, baseUrl: coastal.baseUrl }, 'written globally');
    assert.equal(config().inspect('labs')?.workspaceValue, undefined);
    await eventually(async () =>
      assert.ok(
        (await signedIn.api.getState()).labs.some((lab) => lab.name === LAB && lab.signedIn),
      ),
    );
    const summary = await vscode.commands.executeCommand<RestoreSummary>('labData.restoreReports', {
      folder,
    });
    assert.equal(summary.restored, 5);
    assert.equal(summary.fromLab, 5);
    assert.equal(summary.failed, 0);
    assert.deepEqual(summary.missingLabs, []);
    assert.deepEqual(
      (await fs.readdir(folder)).filter((name) => name.endsWith('.pdf')).sort(),
      [...names].sort(),
    );
  });

  it('with two labs signed in, Sync’s “Which lab?” proposes the folder’s own lab first', async () => {
    assert.equal((await signedIn.api.getState()).labs.filter((lab) => lab.signedIn).length, 2);
    prompts.pickOneOffered.length = 0;
    // Escape at the lab question: nothing is synced.
    prompts.pickOneAnswers = [undefined];
    const result = await vscode.commands.executeCommand('labData.syncReports', { folder });
    assert.equal(result, undefined);
    const question = prompts.pickOneOffered.at(-1)!;
    assert.match(question.title, /Choose a Lab/);
    assert.equal(question.choices[0]!.id, LAB, 'the folder’s lab first');
    assert.equal(question.current, LAB, 'and Enter takes it');
    assert.match(question.choices[0]!.description ?? '', /this folder's lab/);
    assert.equal(question.choices[1]!.id, signedIn.name);
  });

  it('a lab of this machine at another address (an alias) serves the repository’s lab: confirmed in a dialog naming both addresses, remembered in the user’s labData.manifestLabs, and Restore uses it', async () => {
    // This machine reaches the colleague's lab as http://localhost:<port>, not 127.0.0.1.
    await vscode.commands.executeCommand('labData.signOut', { name: LAB });
    const labs = config().inspect<Array<{ name: string }>>('labs')?.globalValue ?? [];
    await config().update(
      'labs',
      labs.filter((lab) => lab.name !== LAB),
      vscode.ConfigurationTarget.Global,
    );
    const alias = 'Coastal (alias)';
    await signIn(coastal.baseUrlAt('localhost'), LEAK_CHECK_TOKEN, alias);
    await eventually(async () =>
      assert.deepEqual(
        (await signedIn.api.getState()).labs.filter((lab) => lab.signedIn).map((lab) => lab.name),
        [signedIn.name, alias],
      ),
    );
    const confirmations = prompts.confirmAsked.length;
    prompts.pickOneAnswers = [alias];
    prompts.confirmAnswer = true;
    const result = await vscode.commands.executeCommand('labData.addLabFromManifest', { folder });
    const origin = new URL(coastal.baseUrl).origin;
    assert.deepEqual(result, { manifestLab: LAB, origin, lab: alias, added: false });
    assert.equal(prompts.confirmAsked.length, confirmations + 1, 'serving it was confirmed');
    const asked = prompts.confirmAsked.at(-1)!;
    assert.match(`${asked.message} ${asked.detail}`, new RegExp(escape(origin)));
    assert.match(
      `${asked.message} ${asked.detail}`,
      new RegExp(escape(new URL(coastal.baseUrlAt('localhost')).origin)),
    );
    assert.equal(asked.decline, 'Not the Same Lab', 'Enter (the first button) does not join them');
    assert.deepEqual(config().inspect('manifestLabs')?.globalValue, { [origin]: alias });
    for (const name of names) {
      await fs.rm(path.join(folder, name));
    }
    await fs.rm(machineCache, { recursive: true, force: true });
    await fs.mkdir(machineCache);
    const summary = await vscode.commands.executeCommand<RestoreSummary>('labData.restoreReports', {
      folder,
    });
    assert.equal(summary.fromLab, 5, 'restored through the alias');
    assert.deepEqual(summary.missingLabs, []);
    await vscode.commands.executeCommand('labData.signOut', { name: alias });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
