import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { MockLabServer } from '../mock/server';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  activateExtension,
  eventually,
  ownNameOf,
  rows,
  signIn,
  signOutOfAll,
  startLab,
  type Row,
} from './helpers';

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('labData');

/**
 * Issue 50's pickers with two labs signed in: a picker that acts on one lab names it in its title,
 * a report row's accessible label names its lab, Find Report suggests an id once per lab that has
 * it (each with its own type and date), and Add Lab proposes a free name and says what comes next.
 */
describe('pickers that name their lab, Find Report in two labs, and Add Lab’s last words', () => {
  let api: LabDataExtensionApi;
  let meridian: MockLabServer;
  let harbor: MockLabServer;
  /** The first lab's name: the one it gives itself (signed in to by its address). */
  let own: string;
  const prompts = new FakePrompts();
  let restorePrompts: () => void;

  const labRow = async (view: 'reports' | 'samples', name: string): Promise<Row> => {
    // By the lab's name, not the row's label: a long name is shortened on its row.
    const found = (await rows(api, view)).find(
      (candidate) => (candidate.node as { labName?: string }).labName === name,
    );
    assert.ok(found, `${name} has a row in the ${view} view`);
    return found;
  };

  before(async () => {
    api = await activateExtension();
    restorePrompts = api.setPrompts(prompts);
    await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('labName', undefined, vscode.ConfigurationTarget.Global);
    // Two seeds: the same report ids in both labs, each with its own types and dates.
    [meridian, harbor] = await Promise.all([
      startLab({ seed: 5, reports: 60 }),
      startLab({ seed: 9, reports: 60 }),
    ]);
    own = ownNameOf(meridian);
    await signIn(meridian.baseUrl, LEAK_CHECK_TOKEN);
    await signIn(harbor.baseUrl, LEAK_CHECK_TOKEN, 'Harbor');
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => [lab.name, lab.signedIn]),
        [
          [own, true],
          ['Harbor', true],
        ],
      ),
    );
  });

  after(async () => {
    restorePrompts();
    await signOutOfAll(api);
    await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('labName', undefined, vscode.ConfigurationTarget.Global);
    await Promise.all([meridian.stop(), harbor.stop()]);
  });

  it('from a lab’s row, every picker names that lab in its title (Filter, Search, Find, Preview, Save PDF, Export, Filter and List Samples, Save Filter as Search)', async () => {
    const harborReports = await labRow('reports', 'Harbor');
    const harborSamples = await labRow('samples', 'Harbor');
    prompts.criteriaAnswers = [['status'], []];
    prompts.pickOneAnswers = [null];
    await vscode.commands.executeCommand('labData.filterReports', harborReports.node);
    assert.equal(prompts.criteriaOffered.at(-1)!.title, 'Lab Data: Filter Reports — Harbor');
    assert.equal(
      prompts.pickOneOffered.at(-1)!.title,
      'Lab Data: Filter Reports — Harbor: Status (1/1)',
    );
    prompts.choose = () => [];
    // From the row's menu, as VS Code passes it: (clicked row, selected rows).
    await vscode.commands.executeCommand('labData.searchReports', harborReports.node, [
      harborReports.node,
    ]);
    assert.equal(prompts.criteriaOffered.at(-1)!.title, 'Lab Data: Search Reports in Harbor');
    assert.equal(prompts.pagesTitles.at(-1), 'Lab Data: Search Reports in Harbor');
    prompts.reportIdAnswer = undefined;
    for (const [command, title] of [
      ['labData.findReport', 'Lab Data: Find Report in Harbor'],
      ['labData.previewReport', 'Lab Data: Preview Report — Harbor'],
      ['labData.saveReportPdf', 'Lab Data: Save Report PDF — Harbor'],
    ] as const) {
      await vscode.commands.executeCommand(command, harborReports.node);
      assert.equal(prompts.reportIdAsked.at(-1)?.title, title, command);
    }
    prompts.saveAnswers = [undefined];
    await vscode.commands.executeCommand('labData.exportReports', harborReports.node);
    assert.equal(prompts.saveAsked.at(-1)!.title, 'Export reports of Harbor');
    prompts.sinceAnswers = [undefined, undefined];
    await vscode.commands.executeCommand('labData.filterSamples', harborSamples.node);
    await vscode.commands.executeCommand('labData.listSamples', harborSamples.node);
    assert.deepEqual(prompts.sinceTitles.slice(-2), [
      'Lab Data: Filter Samples — Harbor',
      'Lab Data: List Samples — Harbor',
    ]);
    prompts.criteriaAnswers = [undefined];
    await vscode.commands.executeCommand('labData.saveFilterAsSearch', harborReports.node);
    assert.equal(
      prompts.criteriaOffered.at(-1)!.title,
      'Lab Data: Save Current Filter as Search — Harbor',
    );
  });

  it('a report row’s accessible label names its lab when several labs are shown', async () => {
    for (const name of [own, 'Harbor']) {
      const reports = await rows(api, 'reports', (await labRow('reports', name)).node);
      const report = reports.find((candidate) => candidate.node.ref?.kind === 'report');
      assert.ok(report, `${name} lists reports`);
      const label = report.item.accessibilityInformation?.label ?? '';
      assert.ok(label.startsWith(`Report ${report.id} in ${name}, `), label);
    }
  });

  it('Find Report suggests an id that two labs have twice, each with its own lab, type and date; choosing one takes that lab’s report', async () => {
    // Both labs' first pages loaded in the Reports view, as a person sees them.
    for (const name of [own, 'Harbor']) {
      await rows(api, 'reports', (await labRow('reports', name)).node);
    }
    const inMeridian = meridian.reportsFor(LEAK_CHECK_TOKEN).slice(0, 50);
    const inHarbor = harbor.reportsFor(LEAK_CHECK_TOKEN).slice(0, 50);
    const shared = inMeridian.find((report) =>
      inHarbor.some(
        (other) =>
          other.report_id === report.report_id &&
          (other.report_type !== report.report_type ||
            other.published_at.slice(0, 10) !== report.published_at.slice(0, 10)),
      ),
    );
    assert.ok(shared, 'an id both labs have, with another type or date');
    const harborOne = inHarbor.find((report) => report.report_id === shared.report_id)!;
    prompts.reportIdAnswer = undefined;
    await vscode.commands.executeCommand('labData.findReport');
    const offered = prompts.reportIdSuggested
      .at(-1)!
      .filter((choice) => choice.label === shared.report_id);
    assert.equal(offered.length, 2, 'one suggestion per lab');
    const [first, second] = offered;
    assert.ok(first!.description!.startsWith(own), first!.description);
    assert.ok(first!.description!.includes(shared.report_type), first!.description);
    assert.ok(second!.description!.startsWith('Harbor'), second!.description);
    assert.ok(second!.description!.includes(harborOne.report_type), second!.description);
    assert.notEqual(first!.description, second!.description!.replace('Harbor', own));
    // Harbor's suggestion is Harbor's report: no "which lab?" question.
    const asked = prompts.pickOneOffered.length;
    prompts.reportIdAnswer = second!.id;
    prompts.pickOneAnswers = [undefined];
    const found = await vscode.commands.executeCommand<{ report: Record<string, unknown> }>(
      'labData.findReport',
    );
    assert.equal(found.report.report_type, harborOne.report_type);
    assert.equal(found.report.published_at, harborOne.published_at);
    assert.ok(
      prompts.pickOneOffered.slice(asked).every((pick) => !/several labs/.test(pick.title)),
      'the lab was not asked',
    );
  });

  it('Add Lab proposes a free name when the lab’s own is taken, refuses a used one with a suggestion, and says the lab was added with what comes next', async () => {
    const third = await startLab({ seed: 3, reports: 10 });
    const shown: string[] = [];
    const window = vscode.window as unknown as {
      showInformationMessage: (...args: unknown[]) => Thenable<unknown>;
    };
    const original = window.showInformationMessage;
    window.showInformationMessage = (message: unknown, ...rest: unknown[]) => {
      shown.push([message, ...rest.filter((item) => typeof item === 'string')].join(' | '));
      return Promise.resolve(undefined);
    };
    try {
      prompts.textAsked.length = 0;
      prompts.textAnswers = [third.baseUrl, `${own} (2)`];
      prompts.pickOneAnswers = ['standard'];
      prompts.tokenAnswers = [LEAK_CHECK_TOKEN];
      const added = await vscode.commands.executeCommand<{ name: string }>('labData.addLab');
      assert.equal(added.name, `${own} (2)`);
      const name = prompts.textAsked.at(-1)!;
      assert.equal(name.value, `${own} (2)`, 'a free name is proposed: the lab’s own is taken');
      // Now that "(2)" is taken too, the next free one.
      assert.equal(name.validate(own), `There is already a lab named ${own}. Try “${own} (3)”.`);
      assert.equal(name.validate('Coastal lab'), undefined);
      await eventually(() =>
        assert.ok(
          shown.some((message) =>
            message.startsWith(
              `${own} (2) added and signed in: its reports are loading in the Reports view.`,
            ),
          ),
          shown.join('\n'),
        ),
      );
    } finally {
      window.showInformationMessage = original;
      await vscode.commands.executeCommand('labData.signOut', { name: `${own} (2)` });
      await third.stop();
    }
  });
});
