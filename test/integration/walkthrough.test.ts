import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SignInResult } from '../../src/commands/signIn';
import type { SyncSummary } from '../../src/commands/syncReports';
import type { VerifySummary } from '../../src/provenance/savedReports';
import type { PushSummary } from '../../src/provenance/savedReportsActions';
import { EXTENSION_ID } from '../../src/constants';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  eventually,
  signedInLab,
  workspaceFolder,
  type SignedInLab,
} from './helpers';

interface Step {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly media: { readonly markdown: string };
  readonly completionEvents?: readonly string[];
}

/** A `command:` link of a step: its description's buttons and its media's links. */
interface StepLink {
  readonly step: string;
  readonly command: string;
  readonly args: unknown[];
}

const extensionUri = (): vscode.Uri => vscode.extensions.getExtension(EXTENSION_ID)!.extensionUri;

async function readText(...segments: string[]): Promise<string> {
  const bytes = await vscode.workspace.fs.readFile(
    vscode.Uri.joinPath(extensionUri(), ...segments),
  );
  return new TextDecoder().decode(bytes);
}

/** The walkthrough's steps as VS Code shows them: `%key%` strings from package.nls.json. */
async function walkthroughSteps(): Promise<Step[]> {
  const nls = JSON.parse(await readText('package.nls.json')) as Record<string, string>;
  const localized = (value: string): string =>
    value.replace(/^%(.+)%$/, (whole, key: string) => nls[key] ?? whole);
  const walkthroughs = (
    vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
      contributes: { walkthroughs: Array<{ id: string; steps: Step[] }> };
    }
  ).contributes.walkthroughs;
  assert.deepEqual(
    walkthroughs.map((walkthrough) => walkthrough.id),
    ['labData.gettingStarted'],
  );
  return walkthroughs[0]!.steps.map((step) => ({
    ...step,
    title: localized(step.title),
    description: localized(step.description),
  }));
}

function commandLinks(step: string, text: string): StepLink[] {
  return [...text.matchAll(/\(command:([\w.]+)(?:\?([^)\s]+))?\)/g)].map((match) => ({
    step,
    command: match[1]!,
    args:
      match[2] === undefined ? [] : [JSON.parse(decodeURIComponent(match[2])) as unknown].flat(),
  }));
}

async function stepLinks(steps: readonly Step[]): Promise<StepLink[]> {
  const links: StepLink[] = [];
  for (const step of steps) {
    links.push(...commandLinks(step.id, step.description));
    links.push(...commandLinks(step.id, await readText(step.media.markdown)));
  }
  return links;
}

function activeTabLabel(): string | undefined {
  return vscode.window.tabGroups.activeTabGroup.activeTab?.label;
}

/**
 * Help → Welcome's "Get started with Lab Data": every button of every step runs a registered
 * command, and each does what its step says when clicked (no argument but the link's own), the
 * questions answered through FakePrompts, against a mock lab.
 */
describe('the walkthrough: every step button runs its real command', function () {
  this.timeout(120_000);
  let signedIn: SignedInLab;
  let prompts: FakePrompts;
  let restorePrompts: () => void;
  let folder: string;

  before(async () => {
    signedIn = await signedInLab({ reports: 8 });
    folder = path.join(workspaceFolder(), 'lab-reports');
    await fs.rm(folder, { recursive: true, force: true });
  });

  beforeEach(() => {
    prompts = new FakePrompts();
    restorePrompts = signedIn.api.setPrompts(prompts);
  });

  afterEach(() => restorePrompts());

  after(async () => {
    // The starters are unsaved documents: closed without saving.
    for (const document of vscode.workspace.textDocuments.filter((d) => d.isUntitled)) {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await fs.rm(folder, { recursive: true, force: true });
    await signedIn.close();
  });

  it('has the steps an analyst takes, each with its media and a completion event', async () => {
    const steps = await walkthroughSteps();
    assert.deepEqual(
      steps.map((step) => step.id),
      ['signIn', 'browse', 'save', 'pythonAndR', 'ci', 'teamCache'],
    );
    const commands = await vscode.commands.getCommands(true);
    for (const step of steps) {
      assert.ok(step.title.trim() !== '' && !step.title.startsWith('%'), step.id);
      assert.ok((await readText(step.media.markdown)).startsWith('## '), step.media.markdown);
      assert.ok((step.completionEvents ?? []).length > 0, `${step.id} has a completion event`);
      for (const event of step.completionEvents ?? []) {
        const command = /^onCommand:(.+)$/.exec(event)?.[1];
        if (command !== undefined) {
          assert.ok(commands.includes(command), `${step.id}: ${event} names a registered command`);
        }
      }
    }
  });

  it("every step's command: link names a registered command; Lab Data's take no argument", async () => {
    const links = await stepLinks(await walkthroughSteps());
    const commands = await vscode.commands.getCommands(true);
    for (const link of links) {
      assert.ok(commands.includes(link.command), `${link.step}: ${link.command} is registered`);
      if (link.command.startsWith('labData.')) {
        assert.deepEqual(link.args, [], `${link.step}: ${link.command} runs as it is`);
      }
    }
    // Each step has a button, in its description.
    for (const step of await walkthroughSteps()) {
      assert.ok(commandLinks(step.id, step.description).length > 0, `${step.id} has a button`);
    }
  });

  it('each button, clicked in order, does what its step says without an error', async () => {
    const { lab, api } = signedIn;
    const downloadable = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter((report) => report.download_available);
    const errors = api.errorsShown().length;
    // What each button's command must have done; a new button needs its check here.
    const checks: Record<string, (result: unknown) => Promise<void> | void> = {
      'labData.signIn': async (result) => {
        assert.equal((result as SignInResult).baseUrl, lab.baseUrl);
        assert.equal(prompts.textAsked[0]?.value, lab.baseUrl, 'the address offered first');
        await eventually(async () => assert.ok((await api.getState()).signedIn));
      },
      'workbench.view.extension.labData': () => undefined,
      'labData.syncReports': async (result) => {
        const summary = result as SyncSummary;
        assert.equal(summary.folder, folder);
        assert.equal(summary.failed, 0);
        assert.equal(summary.files, downloadable.length);
        await fs.access(path.join(folder, 'lab-data-sync.json'));
      },
      'labData.newAnalysisScript': async (result) => {
        const document = await vscode.workspace.openTextDocument(result as vscode.Uri);
        assert.equal(document.uri.scheme, 'untitled');
        assert.equal(path.basename(document.uri.path), 'analysis.py');
        assert.equal(document.languageId, 'python');
        assert.match(document.getText(), /^import labdata$/m);
        assert.equal(
          vscode.window.activeTextEditor?.document.uri.toString(),
          document.uri.toString(),
        );
        assert.deepEqual(
          prompts.pickOneOffered.at(-1)?.choices.map((choice) => choice.id),
          ['python', 'r'],
        );
      },
      'labData.newCiWorkflow': async (result) => {
        const document = await vscode.workspace.openTextDocument(result as vscode.Uri);
        assert.equal(document.uri.scheme, 'untitled');
        assert.ok(document.uri.path.endsWith('/.github/workflows/lab-data.yml'), document.uri.path);
        assert.equal(document.languageId, 'yaml');
        assert.match(document.getText(), /run: lab-data pull && lab-data verify$/m);
        assert.match(document.getText(), /LAB_DATA_TOKEN: \$\{\{ secrets\.LAB_DATA_TOKEN \}\}/);
      },
      'labData.verifySavedReports': (result) => {
        const summary = result as VerifySummary;
        assert.ok(summary.folders.includes(folder), summary.folders.join(', '));
        assert.equal(summary.ok.length, downloadable.length);
        assert.equal(summary.missing.length + summary.changedLocally.length, 0);
      },
      'workbench.action.openSettings': () =>
        eventually(() => assert.match(activeTabLabel() ?? '', /Settings/)),
      'labData.pushToTeamCache': (result) => {
        const summary = result as PushSummary;
        assert.equal(summary.pushed + summary.alreadyThere, downloadable.length);
        assert.equal(summary.notPushed, 0);
      },
    };

    // Signed out first, as an analyst is on the first step.
    await vscode.commands.executeCommand('labData.signOut', { name: signedIn.name });
    await eventually(async () => assert.equal((await api.getState()).signedIn, false));
    prompts.textAnswers = [lab.baseUrl];
    prompts.tokenAnswers = [LEAK_CHECK_TOKEN];
    prompts.pickOneAnswers = [folder, 'python'];

    const ran: string[] = [];
    for (const link of await stepLinks(await walkthroughSteps())) {
      const check = checks[link.command];
      assert.ok(check, `${link.step}: what ${link.command} must do is checked here`);
      const result = await vscode.commands.executeCommand(link.command, ...link.args);
      await check(result);
      ran.push(`${link.step}: ${link.command}`);
    }
    assert.deepEqual(ran, [
      'signIn: labData.signIn',
      'browse: workbench.view.extension.labData',
      'save: labData.syncReports',
      'pythonAndR: labData.newAnalysisScript',
      'ci: labData.newCiWorkflow',
      'ci: labData.verifySavedReports',
      'teamCache: workbench.action.openSettings',
      'teamCache: labData.pushToTeamCache',
    ]);
    assert.deepEqual(api.errorsShown().slice(errors), [], 'no error shown');
  });

  it('New Analysis Script: R when asked for, and the language given as an argument asks nothing', async () => {
    prompts.pickOneAnswers = ['r'];
    const asked = await vscode.commands.executeCommand<vscode.Uri>('labData.newAnalysisScript');
    const script = await vscode.workspace.openTextDocument(asked);
    assert.equal(path.basename(script.uri.path), 'analysis.R');
    assert.equal(script.languageId, 'r');
    assert.match(script.getText(), /^library\(labdata\)$/m);
    const given = await vscode.commands.executeCommand<vscode.Uri>(
      'labData.newAnalysisScript',
      'python',
    );
    assert.equal(prompts.pickOneOffered.length, 1, 'asked only when no language was given');
    assert.equal(path.basename(given.path), 'analysis.py');
    prompts.pickOneAnswers = [undefined];
    assert.equal(
      await vscode.commands.executeCommand('labData.newAnalysisScript'),
      undefined,
      'Escape opens nothing',
    );
  });
});
