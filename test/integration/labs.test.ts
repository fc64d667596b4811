import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import { MockLabHost, MockLabServer } from '../mock/server';
import { labChoice } from '../../src/commands/labTarget';
import {
  FakePrompts,
  labDataLogFiles,
  activateExtension,
  eventually,
  ownNameOf,
  rows,
  signIn,
  signInOnly,
  startLab,
  workspaceFolder,
  writeWorkspaceSettings,
} from './helpers';

const BETA_ENDPOINTS = {
  reports: '/api/v1/certificates',
  report: '/api/v1/certificates/{report_id}',
  reportFile: '/api/v1/certificates/{report_id}/pdf',
};
const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('labData');

describe('several labs, each with its own token and endpoints', () => {
  let api: LabDataExtensionApi;
  let host: MockLabHost;
  let meridian: MockLabServer;
  let beta: MockLabServer;
  let evil: MockLabServer;
  const prompts = new FakePrompts();
  let restorePrompts: () => void;

  before(async () => {
    api = await activateExtension();
    restorePrompts = api.setPrompts(prompts);
    // Two tenants on one origin: different tokens, one with renamed endpoints and another list envelope.
    meridian = new MockLabServer({
      reports: 60,
      samples: 40,
      tokens: { 'meridian-token': { label: 'meridian' } },
    });
    beta = new MockLabServer({
      seed: 11,
      reports: 45,
      samples: 40,
      basePath: '/tenant-b',
      envelope: 'top-level',
      endpointNames: { reports: 'certificates', file: 'pdf' },
      tokens: { 'beta-token': { label: 'beta' } },
    });
    host = new MockLabHost([meridian, beta]);
    await host.start();
    evil = new MockLabServer({ reports: 5, samples: 5 });
    await evil.start();
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update(
      'labs',
      [
        { name: 'Meridian', baseUrl: meridian.baseUrl },
        {
          name: 'Beta',
          baseUrl: beta.baseUrl,
          endpoints: BETA_ENDPOINTS,
          filters: ['published_since'],
        },
        {
          name: 'Broken',
          baseUrl: `${meridian.baseUrl}/broken`,
          endpoints: { reports: '/api/%2e%2e/admin' },
        },
      ],
      vscode.ConfigurationTarget.Global,
    );
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => lab.name),
        ['Meridian', 'Beta', 'Broken'],
      ),
    );
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
  });

  after(async () => {
    restorePrompts();
    await fs.rm(path.join(workspaceFolder(), '.vscode'), { recursive: true, force: true });
    await fs.rm(path.join(workspaceFolder(), 'lab-reports'), { recursive: true, force: true });
    await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
    await host.stop();
    await evil.stop();
  });

  it('signs in to two labs by name, each with its own token; a misconfigured lab fails before any request', async () => {
    assert.deepEqual(await signIn(meridian.baseUrl, 'meridian-token', 'Meridian'), {
      name: 'Meridian',
      baseUrl: meridian.baseUrl,
      host: new URL(meridian.baseUrl).host,
    });
    assert.deepEqual(await signIn(beta.baseUrl, 'beta-token', 'Beta'), {
      name: 'Beta',
      baseUrl: beta.baseUrl,
      host: new URL(beta.baseUrl).host,
    });
    meridian.takeRequests();
    assert.equal(
      await signIn(`${meridian.baseUrl}/broken`, 'meridian-token', 'Broken'),
      undefined,
      'an invalid lab cannot be signed in to',
    );
    assert.equal(
      await signIn(beta.baseUrl, 'beta-token', 'Meridian'),
      undefined,
      'a defined lab keeps its own address',
    );
    assert.deepEqual(meridian.takeRequests(), [], 'neither made a request');
    const state = await api.getState();
    assert.deepEqual(
      state.labs.map((lab) => [lab.name, lab.signedIn]),
      [
        ['Meridian', true],
        ['Beta', true],
        ['Broken', false],
      ],
    );
    assert.match(
      state.labs[2]!.problem ?? '',
      /The lab "Broken" is set up wrongly in labData\.labs: endpoint "reports" must not contain "\." or "\.\." segments/,
    );
    const accounts = await vscode.authentication.getAccounts('labData');
    assert.deepEqual(
      accounts.map((account) => account.label).sort(),
      ['Beta', 'Meridian'],
      'one account per signed-in lab',
    );
  });

  it('lists the labs at the top of each view, each lab’s reports below it, through its own endpoints', async () => {
    meridian.takeRequests();
    beta.takeRequests();
    const top = await rows(api, 'reports');
    assert.deepEqual(
      top.map((row) => row.label),
      ['Meridian', 'Beta', 'Broken'],
    );
    assert.equal(top[0]!.item.description, new URL(meridian.baseUrl).host);
    assert.equal(top[2]!.item.description, 'misconfigured');
    const meridianReports = (await rows(api, 'reports', top[0]!.node)).filter((row) =>
      row.item.contextValue?.startsWith('labData.report'),
    );
    assert.deepEqual(
      meridianReports.map((row) => row.node.ref?.id),
      meridian
        .reportsFor('meridian-token')
        .slice(0, 50)
        .map((r) => r.report_id),
    );
    const betaReports = (await rows(api, 'reports', top[1]!.node)).filter((row) =>
      row.item.contextValue?.startsWith('labData.report'),
    );
    assert.deepEqual(
      betaReports.map((row) => row.node.ref?.id),
      beta
        .reportsFor('beta-token')
        .slice(0, 50)
        .map((r) => r.report_id),
    );
    assert.ok(
      betaReports.every(
        (row) => row.node.ref?.lab === 'Beta' && row.item.id?.startsWith('lab:Beta/'),
      ),
    );
    assert.deepEqual(
      beta.takeRequests().map((r) => r.path),
      ['/tenant-b/api/v1/certificates'],
      'the renamed endpoint',
    );
    assert.deepEqual(
      meridian.takeRequests().map((r) => r.path),
      ['/api/v1/reports'],
    );

    const broken = await rows(api, 'reports', top[2]!.node);
    assert.equal(broken.length, 1);
    assert.match(broken[0]!.label, /endpoint "reports" must not contain/);
    assert.equal((broken[0]!.item.iconPath as vscode.ThemeIcon).id, 'error');
    assert.deepEqual(
      [...meridian.requests, ...beta.requests].filter((r) => r.path.includes('/broken')),
      [],
      'the misconfigured lab sent nothing',
    );

    const clientsTop = await rows(api, 'clients');
    assert.deepEqual(
      clientsTop.map((row) => row.label),
      ['Meridian', 'Beta', 'Broken'],
    );
    await eventually(() => assert.match(api.statusText(), /3 labs/));
    assert.match(api.statusTooltip(), /2 of 3 labs signed in, 2 answering/);
    assert.match(api.statusTooltip(), /Meridian \(.+\): signed in/);
    assert.match(api.statusTooltip(), /Broken: misconfigured/);
  });

  it('sends each lab only its own token, on every request', async () => {
    // Every request each tenant has seen since it started, including those earlier tests drained.
    assert.deepEqual([...meridian.credentialsSeen.keys()], ['meridian']);
    assert.deepEqual([...beta.credentialsSeen.keys()], ['beta']);
    assert.ok(
      meridian.credentialsSeen.get('meridian')! > 1 && beta.credentialsSeen.get('beta')! > 1,
    );
    assert.deepEqual(
      [...evil.credentialsSeen.keys()],
      [],
      'nothing reached a lab nobody signed in to',
    );
  });

  it('opens and saves a report of the renamed-endpoint lab with { lab, id }', async () => {
    beta.takeRequests();
    const id = beta.reportsFor('beta-token').find((r) => r.download_available)!.report_id;
    const uri = (await vscode.commands.executeCommand('labData.openReportMetadata', {
      lab: 'Beta',
      id,
    })) as vscode.Uri;
    assert.ok(uri instanceof vscode.Uri);
    const document = await vscode.workspace.openTextDocument(uri);
    assert.equal(JSON.parse(document.getText()).report_id, id);
    const saved = (await vscode.commands.executeCommand('labData.saveReportPdf', {
      lab: 'Beta',
      id,
    })) as vscode.Uri;
    assert.ok(saved instanceof vscode.Uri);
    const bytes = await fs.readFile(saved.fsPath);
    assert.equal(
      createHash('sha256').update(bytes).digest('hex'),
      createHash('sha256').update(beta.pdfFor(id)).digest('hex'),
    );
    assert.deepEqual(
      beta.takeRequests().map((r) => r.path.replace(id, 'ID')),
      [
        '/tenant-b/api/v1/certificates/ID',
        '/tenant-b/api/v1/certificates/ID',
        '/tenant-b/api/v1/certificates/ID/pdf',
      ],
    );
  });

  it('without a lab argument, a command asks which lab when several are signed in', async () => {
    const asked = prompts.pickOneOffered.length;
    prompts.pickOneAnswers = ['Meridian'];
    prompts.reportIdAnswer = meridian.reportsFor('meridian-token')[0]!.report_id;
    const uri = (await vscode.commands.executeCommand('labData.openReportMetadata')) as vscode.Uri;
    assert.ok(uri instanceof vscode.Uri);
    assert.equal(new URLSearchParams(uri.query).get('lab'), 'Meridian');
    assert.deepEqual(
      prompts.pickOneOffered.slice(asked).map((offer) => offer.choices.map((choice) => choice.id)),
      [['Meridian', 'Beta']],
    );
  });

  it('Find Report and Preview Report look in every signed-in lab: no lab is asked first, only which lab when two have the id', async () => {
    const betaIds = new Set(beta.reportsFor('beta-token').map((report) => report.report_id));
    const meridianReports = meridian.reportsFor('meridian-token');
    const onlyMeridian = meridianReports.find((report) => !betaIds.has(report.report_id))!;
    const shared = meridianReports.find((report) => betaIds.has(report.report_id))!;
    assert.ok(onlyMeridian && shared, 'the two labs share some ids and not others');
    const offered = prompts.pickOneOffered.length;
    prompts.reportIdAnswer = onlyMeridian.report_id;
    prompts.pickOneAnswers = [undefined];
    const found = await vscode.commands.executeCommand<{ report: { report_id: string } }>(
      'labData.findReport',
    );
    assert.equal(found.report.report_id, onlyMeridian.report_id);
    assert.ok(
      prompts.pickOneOffered
        .slice(offered)
        .every((offer) => !offer.choices.some((choice) => choice.id === 'Beta')),
      'no lab was asked for: only Meridian has the id',
    );
    // Suggestions of both labs, each naming its lab.
    const suggested = prompts.reportIdSuggested.at(-1)!;
    assert.ok(suggested.some((choice) => /Meridian/.test(choice.description ?? '')));
    assert.ok(suggested.some((choice) => /Beta/.test(choice.description ?? '')));

    // An id both labs have: the lab is asked, each beside its report.
    const before = prompts.pickOneOffered.length;
    prompts.reportIdAnswer = shared.report_id;
    prompts.pickOneAnswers = ['Beta', undefined];
    const both = await vscode.commands.executeCommand<{
      report: { report_id: string; title: string };
    }>('labData.findReport');
    const question = prompts.pickOneOffered[before]!;
    assert.deepEqual(
      question.choices.map((choice) => choice.id),
      ['Meridian', 'Beta'],
    );
    assert.equal(
      both.report.title,
      beta.reportsFor('beta-token').find((report) => report.report_id === shared.report_id)!.title,
      "Beta's report",
    );

    // An id no signed-in lab has is said in the picker.
    prompts.reportIdAnswer = 'RPT-1999-999999';
    await vscode.commands.executeCommand('labData.findReport');
    assert.match(
      prompts.reportIdAsked.at(-1)!.problem ?? '',
      /^No lab you are signed in to has a report "RPT-1999-999999"\./,
    );

    // Preview Report with an id only Beta has goes to Beta, asks nothing, and its tab names the lab.
    const onlyBeta = beta
      .reportsFor('beta-token')
      .find(
        (report) =>
          report.download_available &&
          !meridianReports.some((other) => other.report_id === report.report_id),
      )!;
    const asked = prompts.pickOneOffered.length;
    const shown = await vscode.commands.executeCommand<{ pages: number }>('labData.previewReport', {
      id: onlyBeta.report_id,
    });
    assert.ok(shown.pages >= 1);
    assert.equal(prompts.pickOneOffered.length, asked, 'no lab asked');
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.equal(tab?.label, `${onlyBeta.report_id} (Beta, preview)`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a report id in code links to the lab that has it; one no signed-in lab has is plain text; hovers show each lab that has it', async () => {
    const betaIds = new Set(beta.reportsFor('beta-token').map((report) => report.report_id));
    const meridianReports = meridian.reportsFor('meridian-token');
    const onlyMeridian = meridianReports.find((report) => !betaIds.has(report.report_id))!;
    const shared = meridianReports.find((report) => betaIds.has(report.report_id))!;
    const year = onlyMeridian.report_id.slice(4, 8);
    const missing = `RPT-${year}-999999`;
    const document = await vscode.workspace.openTextDocument({
      language: 'python',
      content: `a = "${onlyMeridian.report_id}"\nb = "${shared.report_id}"\nc = "${missing}"\n`,
    });
    const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>(
      'vscode.executeLinkProvider',
      document.uri,
    );
    const target = (id: string): string | undefined => {
      const link = links.find((candidate) => document.getText(candidate.range) === id);
      return link && decodeURIComponent(link.target?.toString() ?? '');
    };
    assert.match(target(onlyMeridian.report_id) ?? '', /"lab":"Meridian"/, 'straight to Meridian');
    assert.ok(target(shared.report_id) !== undefined, 'an id of two labs is a link');
    assert.doesNotMatch(target(shared.report_id)!, /"lab":/, 'which lab is asked on opening');
    assert.equal(target(missing), undefined, 'an id no lab has is no link');
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      document.uri,
      new vscode.Position(1, 7),
    );
    const text = hovers
      .flatMap((hover) => hover.contents)
      .map((content) => (typeof content === 'string' ? content : content.value))
      .join('\n');
    assert.match(text, /· Meridian/);
    assert.match(text, /· Beta/);
  });

  it('saves each lab’s reports into a folder of its own while several labs are signed in (no template set)', async () => {
    const betaIds = new Set(beta.reportsFor('beta-token').map((report) => report.report_id));
    const shared = meridian
      .reportsFor('meridian-token')
      .find((report) => betaIds.has(report.report_id) && report.download_available)!;
    const fromBeta = beta.reportsFor('beta-token').find((r) => r.report_id === shared.report_id)!;
    assert.ok(fromBeta.download_available, 'both labs have a file for the shared id');
    const saved: string[] = [];
    for (const lab of ['Meridian', 'Beta']) {
      const uri = await vscode.commands.executeCommand<vscode.Uri>('labData.saveReportPdf', {
        lab,
        id: shared.report_id,
      });
      saved.push(path.relative(workspaceFolder(), uri.fsPath).split(path.sep).join('/'));
    }
    assert.deepEqual(saved, [
      `lab-reports/Meridian/${shared.report_id}.pdf`,
      `lab-reports/Beta/${shared.report_id}.pdf`,
    ]);
    const meridianFile = await fs.readFile(path.join(workspaceFolder(), saved[0]!));
    assert.equal(
      createHash('sha256').update(meridianFile).digest('hex'),
      createHash('sha256').update(meridian.pdfFor(shared.report_id)).digest('hex'),
      "Beta's file did not overwrite Meridian's",
    );
  });

  it('offers only the filters a lab confirmed', async () => {
    assert.deepEqual(
      await vscode.commands.executeCommand('labData.filterReports', {
        lab: 'Beta',
        publishedSince: '2025-01-01',
      }),
      { publishedSince: '2025-01-01T00:00:00Z' },
    );
    assert.equal(
      await vscode.commands.executeCommand('labData.filterReports', {
        lab: 'Beta',
        status: 'published',
      }),
      undefined,
      'Beta does not offer a status filter',
    );
    await vscode.commands.executeCommand('labData.clearReportsFilter');
  });

  it('reads no secret when the container opens and a client is expanded', async () => {
    const before = api.secretReads();
    const top = await rows(api, 'clients');
    const clients = await rows(api, 'clients', top[0]!.node);
    await rows(
      api,
      'clients',
      clients.find((row) => row.item.contextValue === 'labData.client')!.node,
    );
    for (const view of ['reports', 'samples'] as const) {
      const labsRows = await rows(api, view);
      await rows(api, view, labsRows[0]!.node);
    }
    const reads = api.secretReads() - before;
    console.log(
      `      SecretStorage reads for opening the container and expanding one client: ${reads}`,
    );
    assert.equal(reads, 0);
  });

  it('ignores labData.labs and labData.baseUrl from workspace settings, dotted or nested', async () => {
    const folder = path.join(workspaceFolder(), '.vscode');
    await fs.mkdir(folder, { recursive: true });
    const hostile = [{ name: 'Evil', baseUrl: evil.baseUrl }];
    for (const settings of [
      { 'labData.labs': hostile, 'labData.baseUrl': evil.baseUrl },
      { labData: { labs: hostile, baseUrl: evil.baseUrl } },
    ]) {
      // Once VS Code has delivered the file's settings, getState reads the labs rebuilt after them.
      await writeWorkspaceSettings(folder, settings);
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => lab.name),
        ['Meridian', 'Beta', 'Broken'],
        JSON.stringify(settings),
      );
      assert.deepEqual(
        (await rows(api, 'reports')).map((row) => row.label),
        ['Meridian', 'Beta', 'Broken'],
      );
    }
    assert.deepEqual(evil.requests, [], 'the workspace lab was never contacted');
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('a 401 from a lab signs out that lab only', async () => {
    meridian.revokeToken('meridian-token');
    await vscode.commands.executeCommand('labData.refresh');
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => [lab.name, lab.signedIn]),
        [
          ['Meridian', false],
          ['Beta', true],
          ['Broken', false],
        ],
      ),
    );
    const meridianRow = (await rows(api, 'reports'))[0]!;
    assert.match(String(meridianRow.item.description), /signed out/);
    const children = await rows(api, 'reports', meridianRow.node);
    assert.equal(children[0]!.label, 'Sign in to Meridian…');
    assert.equal(children[0]!.item.command?.command, 'labData.signIn');
    assert.equal(await vscode.commands.executeCommand('labData.signOut', { name: 'Beta' }), true);
  });

  it('signing in by a name not yet in labData.labs adds that lab and signs in to it (scripts, tasks, other extensions)', async () => {
    const riverside = new MockLabServer({
      seed: 5,
      reports: 12,
      samples: 5,
      tokens: { 'riverside-token': { label: 'riverside' } },
    });
    await riverside.start();
    try {
      assert.deepEqual(await signIn(riverside.baseUrl, 'riverside-token', 'Riverside'), {
        name: 'Riverside',
        baseUrl: riverside.baseUrl,
        host: new URL(riverside.baseUrl).host,
      });
      const entries =
        config().inspect<Array<{ name: string; baseUrl: string }>>('labs')?.globalValue ?? [];
      assert.deepEqual(
        entries.at(-1),
        { name: 'Riverside', baseUrl: riverside.baseUrl },
        'added to the user settings',
      );
      await eventually(async () =>
        assert.deepEqual(
          (await api.getState()).labs.find((lab) => lab.name === 'Riverside')?.signedIn,
          true,
        ),
      );
      assert.equal(
        riverside.takeRequests().at(-1)?.scope,
        'riverside',
        'checked with its own token',
      );
    } finally {
      await vscode.commands.executeCommand('labData.signOut', { name: 'Riverside' });
      const entries = config().inspect<Array<{ name: string }>>('labs')?.globalValue ?? [];
      await config().update(
        'labs',
        entries.filter((entry) => entry.name !== 'Riverside'),
        vscode.ConfigurationTarget.Global,
      );
      await riverside.stop();
    }
  });
});

describe('adding a lab without editing JSON, and several labs in one view', () => {
  let api: LabDataExtensionApi;
  let riverside: MockLabServer;
  let harbor: MockLabServer;
  const prompts = new FakePrompts();
  let restorePrompts: () => void;

  before(async () => {
    api = await activateExtension();
    restorePrompts = api.setPrompts(prompts);
    riverside = new MockLabServer({
      seed: 5,
      reports: 75,
      samples: 12,
      tokens: { 'riverside-token': { label: 'riverside' } },
    });
    harbor = new MockLabServer({
      seed: 9,
      reports: 30,
      samples: 8,
      basePath: '/harbor',
      endpointNames: { reports: 'certificates', file: 'pdf' },
      tokens: { 'harbor-token': { label: 'harbor' } },
    });
    await Promise.all([riverside.start(), harbor.start()]);
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    restorePrompts();
    for (const name of ['Riverside contract lab', 'Harbor']) {
      await vscode.commands.executeCommand('labData.signOut', { name });
    }
    await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
    await Promise.all([riverside.stop(), harbor.stop()]);
  });

  it('Add Lab… asks the address and the paths, checks the token, then the name, starting from the lab’s own; each checked as you type; then it is written and signed in', async () => {
    // Address, the standard paths, a wrong token first (the box stays open with the lab's reason), the right one, then a name of our own.
    prompts.textAnswers = [riverside.baseUrl, 'Riverside contract lab'];
    prompts.pickOneAnswers = ['standard'];
    prompts.tokenAnswers = ['not-a-riverside-token', 'riverside-token'];
    const added = await vscode.commands.executeCommand<
      { name: string; baseUrl: string } | undefined
    >('labData.addLab');
    assert.deepEqual(added, {
      name: 'Riverside contract lab',
      baseUrl: riverside.baseUrl,
      host: new URL(riverside.baseUrl).host,
    });
    assert.equal(prompts.tokenProblems.length, 1);
    assert.match(
      prompts.tokenProblems[0]!,
      /^The lab rejected this token \(.+\); nothing was stored\. Paste another token, or press Escape to stop\.$/,
    );
    assert.equal(prompts.textAsked.length, 2);
    const [address, name] = prompts.textAsked;
    assert.match(address!.title, /Add Lab \(1\/4\)/);
    assert.match(address!.validate('ftp://lab') ?? '', /https/i);
    assert.equal(address!.validate(riverside.baseUrl), undefined);
    assert.match(prompts.pickOneOffered.at(-1)!.title, /Add Lab \(2\/4\)/);
    assert.deepEqual(
      prompts.tokenTitles.map((title) => /\((\d)\/(\d)\)/.exec(title)?.slice(1).join('/')),
      ['3/4'],
      'the token box is a counted step too',
    );
    assert.equal(
      prompts.pickOneOffered.at(-1)!.current,
      'standard',
      'the standard paths are highlighted',
    );
    assert.match(name!.title, /Add Lab \(4\/4\)/);
    assert.equal(
      name!.value,
      riverside.reportsFor('riverside-token')[0]!.lab_name,
      'the name starts from the one the lab gives itself, not its address',
    );
    assert.match(name!.validate('') ?? '', /1 to 60 characters/);
    assert.equal(name!.validate('Coastal water lab'), undefined);
    const entries = config().inspect<Array<Record<string, unknown>>>('labs')?.globalValue ?? [];
    assert.deepEqual(
      entries,
      [{ name: 'Riverside contract lab', baseUrl: riverside.baseUrl }],
      'written to the user settings, no endpoints when standard',
    );
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => [lab.name, lab.signedIn]),
        [['Riverside contract lab', true]],
      ),
    );
  });

  it('Add Lab… takes the lab’s own paths, refuses a name in use and a path that is not one; Escape in the token box writes nothing', async () => {
    prompts.textAsked.length = 0;
    prompts.pickOneOffered.length = 0;
    const own = {
      reports: '/api/v1/certificates',
      report: '/api/v1/certificates/{report_id}',
      reportFile: '/api/v1/certificates/{report_id}/pdf',
    };
    const defaults = [
      '/api/v1/reports',
      '/api/v1/reports/{report_id}',
      '/api/v1/reports/{report_id}/file',
      '/api/v1/clients',
      '/api/v1/clients/{client_id}',
      '/api/v1/projects',
      '/api/v1/samples',
    ];
    const before = JSON.stringify(config().inspect('labs')?.globalValue);
    prompts.textAnswers = [
      harbor.baseUrl,
      own.reports,
      own.report,
      own.reportFile,
      ...defaults.slice(3),
    ];
    prompts.pickOneAnswers = ['own'];
    prompts.tokenAnswers = [];
    assert.equal(await vscode.commands.executeCommand('labData.addLab'), undefined);
    assert.equal(
      JSON.stringify(config().inspect('labs')?.globalValue),
      before,
      'Escape in the token box: nothing written',
    );
    const [, reports, report] = prompts.textAsked;
    assert.equal(reports!.value, '/api/v1/reports', 'each path starts from the spec’s');
    assert.match(reports!.validate('https://elsewhere.example/reports') ?? '', /single "\/"/);
    assert.match(report!.validate('/api/v1/certificates') ?? '', /\{report_id\}/);
    assert.match(report!.validate('/api/../admin/{report_id}') ?? '', /\.\./);
    assert.equal(prompts.textAsked.length, 8, 'the address and seven paths');
    // Again, through to the end: the lab's own paths are written, only those that differ; a name in use is refused as you type.
    prompts.textAsked.length = 0;
    prompts.textAnswers = [
      harbor.baseUrl,
      own.reports,
      own.report,
      own.reportFile,
      ...defaults.slice(3),
      'Harbor',
    ];
    prompts.pickOneAnswers = ['own'];
    prompts.tokenAnswers = ['harbor-token'];
    assert.deepEqual(await vscode.commands.executeCommand('labData.addLab'), {
      name: 'Harbor',
      baseUrl: harbor.baseUrl,
      host: new URL(harbor.baseUrl).host,
    });
    assert.match(
      prompts.textAsked.at(-1)!.validate('riverside CONTRACT lab') ?? '',
      /already a lab named/,
      'a name in use, in any case',
    );
    const entries = config().inspect<Array<Record<string, unknown>>>('labs')?.globalValue ?? [];
    assert.deepEqual(
      entries.at(-1),
      { name: 'Harbor', baseUrl: harbor.baseUrl, endpoints: own },
      'only the paths that differ are written',
    );
    assert.ok(
      harbor.takeRequests().some((request) => request.path === '/harbor/api/v1/certificates'),
      'checked through its own paths',
    );
    // Automation asks nothing; a name in use (in any case) is refused with one message, and nothing is written.
    const second = { ...own, clients: '/api/v1/customers' };
    assert.deepEqual(
      await vscode.commands.executeCommand('labData.addLab', {
        name: 'Harbor 2',
        baseUrl: harbor.baseUrl,
        endpoints: second,
        token: 'harbor-token',
      }),
      { name: 'Harbor 2', baseUrl: harbor.baseUrl, host: new URL(harbor.baseUrl).host },
    );
    const written = JSON.stringify(config().inspect('labs')?.globalValue);
    const logText = async (): Promise<string> =>
      (await Promise.all((await labDataLogFiles()).map((file) => fs.readFile(file, 'utf8')))).join(
        '\n',
      );
    assert.equal(
      await vscode.commands.executeCommand('labData.addLab', {
        name: 'harbor',
        baseUrl: harbor.baseUrl,
      }),
      undefined,
    );
    await eventually(async () =>
      assert.match(
        await logText(),
        /labData\.addLab failed: There is already a lab named Harbor; choose another name\./,
      ),
    );
    // The same address and paths as a lab already there is that lab: refused, naming it.
    assert.equal(
      await vscode.commands.executeCommand('labData.addLab', {
        name: 'Harbor again',
        baseUrl: harbor.baseUrl,
        endpoints: own,
      }),
      undefined,
    );
    await eventually(async () =>
      assert.match(
        await logText(),
        /labData\.addLab failed: The lab Harbor already has this address and these paths; sign in to it instead/,
      ),
    );
    // A wrong token writes nothing, so the same call can be tried again.
    assert.equal(
      await vscode.commands.executeCommand('labData.addLab', {
        name: 'Harbor 3',
        baseUrl: harbor.baseUrl,
        endpoints: { ...own, clients: '/api/v1/c3' },
        token: 'not-harbors',
      }),
      undefined,
    );
    assert.equal(
      JSON.stringify(config().inspect('labs')?.globalValue),
      written,
      'nothing written by the refused calls',
    );
    await vscode.commands.executeCommand('labData.signOut', { name: 'Harbor 2' });
    await config().update(
      'labs',
      (config().inspect<Array<{ name: string }>>('labs')?.globalValue ?? []).filter(
        (entry) => entry.name !== 'Harbor 2',
      ),
      vscode.ConfigurationTarget.Global,
    );
  });

  it('several labs: each root row is collapsed and shows its count and state, so the first lab’s long list never hides the next; pickers say an address once', async () => {
    await vscode.commands.executeCommand('labData.signOut', { name: 'Harbor' });
    await eventually(async () =>
      assert.deepEqual(
        (await api.getState()).labs.map((lab) => [lab.name, lab.signedIn]),
        [
          ['Riverside contract lab', true],
          ['Harbor', false],
        ],
      ),
    );
    await rows(api, 'reports');
    await eventually(async () => {
      const top = await rows(api, 'reports');
      // A name longer than a row can show is shortened there, so the lab's state stays in sight;
      // its whole name is what a screen reader says.
      assert.deepEqual(
        top.map((row) => row.label),
        ['Riverside contrac…', 'Harbor'],
      );
      assert.ok(
        top.every((row, index) =>
          row.item.accessibilityInformation?.label.startsWith(
            `Lab ${['Riverside contract lab', 'Harbor'][index]}`,
          ),
        ),
        JSON.stringify(top.map((row) => row.item.accessibilityInformation?.label)),
      );
      assert.ok(
        top.every((row) => row.item.collapsibleState === vscode.TreeItemCollapsibleState.Collapsed),
        'collapsed: both labs in sight',
      );
      assert.equal(
        top[0]!.item.description,
        `${riverside.reportsFor('riverside-token').length} reports · ${new URL(riverside.baseUrl).host}`,
      );
      assert.equal(top[1]!.item.description, `signed out · ${new URL(harbor.baseUrl).host}`);
    });
    await eventually(async () =>
      assert.equal(
        (await rows(api, 'samples'))[0]!.item.description,
        `${riverside.data.samples.length} samples · ${new URL(riverside.baseUrl).host}`,
      ),
    );
    // The count follows the filter.
    await vscode.commands.executeCommand('labData.filterReports', {
      lab: 'Riverside contract lab',
      clientId: riverside.data.clients[0]!.client_id,
    });
    await eventually(async () =>
      assert.equal(
        (await rows(api, 'reports'))[0]!.item.description,
        `${riverside.reportsFor('riverside-token').filter((report) => report.client_id === riverside.data.clients[0]!.client_id).length} reports match the filter · ${new URL(riverside.baseUrl).host}`,
      ),
    );
    await vscode.commands.executeCommand('labData.clearReportsFilter');
    // Two labs named after their host: a picker row says the address once.
    assert.deepEqual(await signIn(harbor.baseUrl, 'harbor-token', 'Harbor'), {
      name: 'Harbor',
      baseUrl: harbor.baseUrl,
      host: new URL(harbor.baseUrl).host,
    });
    prompts.pickOneOffered.length = 0;
    prompts.pickOneAnswers = [undefined];
    await vscode.commands.executeCommand('labData.signOut');
    const offered = prompts.pickOneOffered[0]!.choices;
    assert.deepEqual(
      offered.map((choice) => [choice.label, choice.description]),
      [
        ['Riverside contract lab', new URL(riverside.baseUrl).host],
        ['Harbor', new URL(harbor.baseUrl).host],
      ],
    );
    const named = labChoice({
      lab: { name: '127.0.0.1:47123', url: { host: '127.0.0.1:47123' } },
    } as never);
    assert.deepEqual(
      [named.label, named.description],
      ['127.0.0.1:47123', undefined],
      'a lab named after its host is not labelled twice',
    );
  });
});

describe('naming the lab one is signed in to', () => {
  /** Puts the settings back as a fresh window has them: no lab. */
  async function noLabs(): Promise<void> {
    await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
    await config().update('labName', undefined, vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
  }

  /** Each change of the Accounts menu's sessions, as account names: `+name` added, `-name` removed. */
  function watchAccounts(api: LabDataExtensionApi): { changes: string[]; dispose(): void } {
    const changes: string[] = [];
    const subscription = api.accounts.onDidChangeSessions((event) =>
      changes.push(
        ...(event.removed ?? []).map((session) => `-${session.account.label}`),
        ...(event.added ?? []).map((session) => `+${session.account.label}`),
      ),
    );
    return { changes, dispose: () => subscription.dispose() };
  }

  it('labData.signIn with { baseUrl, token } and no name: the lab is created under the name it gives itself, and its account has that name from the start; Sign Out in the Accounts menu signs out of it', async () => {
    const api = await activateExtension();
    const lab = await startLab({ reports: 8, samples: 4 });
    const ownName = ownNameOf(lab);
    const host = new URL(lab.baseUrl).host;
    const accounts = watchAccounts(api);
    try {
      await noLabs();
      assert.deepEqual(await signIn(lab.baseUrl, 'demo-full-access'), {
        name: ownName,
        baseUrl: lab.baseUrl,
        host,
      });
      assert.deepEqual(
        (await api.getState()).labs.map((each) => [each.name, each.signedIn]),
        [[ownName, true]],
      );
      // Still the one-lab shorthand (a sign-in elsewhere replaces it, as before), with its name.
      assert.equal(config().inspect('baseUrl')?.globalValue, lab.baseUrl);
      assert.equal(config().inspect('labName')?.globalValue, ownName);
      assert.equal(config().inspect('labs')?.globalValue, undefined);
      // Never an account under its address that a rename would leave behind in the Accounts menu.
      await eventually(() => assert.deepEqual(accounts.changes, [`+${ownName}`]));
      await eventually(async () =>
        assert.deepEqual(
          (await vscode.authentication.getAccounts('labData')).map((account) => account.label),
          [ownName],
        ),
      );
      const sessions = await api.accounts.getSessions(undefined, {});
      assert.deepEqual(
        sessions.map((session) => session.account.label),
        [ownName],
      );
      // What the Accounts menu's Sign Out does: the provider removes the session, and the lab's token goes.
      await api.accounts.removeSession(sessions[0]!.id);
      await eventually(async () =>
        assert.deepEqual(
          (await api.getState()).labs.map((each) => [each.name, each.signedIn]),
          [[ownName, false]],
        ),
      );
      assert.deepEqual(accounts.changes, [`+${ownName}`, `-${ownName}`]);
      await eventually(async () =>
        assert.deepEqual(await vscode.authentication.getAccounts('labData'), []),
      );
      assert.equal(
        await vscode.commands.executeCommand('labData.signOut', { name: ownName }),
        false,
        'nothing left to sign out of',
      );
    } finally {
      accounts.dispose();
      await vscode.commands.executeCommand('labData.signOut', { name: ownName });
      await noLabs();
      await lab.stop();
    }
  });

  it('the one-lab shorthand labData.baseUrl, called after its address until signed in to, takes the name the lab gives itself at sign-in (a person signing in to it is asked nothing more)', async () => {
    const api = await activateExtension();
    const prompts = new FakePrompts();
    const restorePrompts = api.setPrompts(prompts);
    const lab = await startLab({ reports: 8, samples: 4 });
    const ownName = ownNameOf(lab);
    const host = new URL(lab.baseUrl).host;
    const accounts = watchAccounts(api);
    try {
      await noLabs();
      await config().update('baseUrl', lab.baseUrl, vscode.ConfigurationTarget.Global);
      await eventually(async () =>
        assert.deepEqual(
          (await api.getState()).labs.map((each) => [each.name, each.signedIn]),
          [[host, false]],
        ),
      );
      // Signed in to by its name, as its "Sign in to …" row does: the token typed in the box.
      prompts.tokenAnswers = ['demo-full-access'];
      const result = await vscode.commands.executeCommand<{ name: string }>('labData.signIn', {
        lab: host,
      });
      assert.equal(result.name, ownName);
      assert.equal(prompts.textAsked.length, 0, 'nothing asked: the lab said its name');
      assert.deepEqual(
        (await api.getState()).labs.map((each) => [each.name, each.signedIn]),
        [[ownName, true]],
      );
      assert.equal(config().inspect('baseUrl')?.globalValue, lab.baseUrl);
      assert.equal(config().inspect('labName')?.globalValue, ownName);
      await eventually(() => assert.deepEqual(accounts.changes, [`+${ownName}`]));
      lab.takeRequests();
      await vscode.commands.executeCommand('labData.refresh');
      assert.ok(
        (await rows(api, 'reports')).some((row) =>
          row.item.contextValue?.startsWith('labData.report'),
        ),
        'signed in under its name',
      );
      assert.ok(lab.takeRequests().every((request) => request.status === 200));
    } finally {
      accounts.dispose();
      restorePrompts();
      for (const name of [ownName, host]) {
        await vscode.commands.executeCommand('labData.signOut', { name });
      }
      await noLabs();
      await lab.stop();
    }
  });

  it('a lab that sends no name: a person signing in by address is asked once (its address offered), automation keeps the address and asks nothing; a name another lab has is not taken', async () => {
    const api = await activateExtension();
    const prompts = new FakePrompts();
    const restorePrompts = api.setPrompts(prompts);
    const named = await startLab({ reports: 8, samples: 4 });
    // This token may not read reports (403), so the lab says no name.
    const silent = await startLab({ reports: 4, samples: 2, seed: 3 });
    const third = await startLab({ reports: 4, samples: 2, seed: 4 });
    const ownName = ownNameOf(named);
    const silentHost = new URL(silent.baseUrl).host;
    const thirdHost = new URL(third.baseUrl).host;
    const accounts = watchAccounts(api);
    try {
      await noLabs();
      assert.equal(
        ((await signIn(named.baseUrl, 'demo-full-access')) as { name: string }).name,
        ownName,
      );
      // A person: the address, then the token typed in the box (the palette's Sign In).
      prompts.tokenAnswers = ['demo-no-reports'];
      prompts.textAnswers = ['Coastal water lab'];
      const asked = await vscode.commands.executeCommand<{ name: string }>('labData.signIn', {
        baseUrl: silent.baseUrl,
      });
      assert.equal(asked.name, 'Coastal water lab');
      assert.equal(prompts.textAsked.length, 1, 'asked once');
      assert.match(prompts.textAsked[0]!.title, /Name the Lab/);
      assert.equal(prompts.textAsked[0]!.value, silentHost, 'its address offered');
      assert.equal(
        prompts.textAsked[0]!.validate(ownName.toUpperCase()),
        `There is already a lab named ${ownName.toUpperCase()}.`,
      );
      assert.equal(prompts.textAsked[0]!.validate(silentHost), undefined);
      assert.deepEqual(
        (await api.getState()).labs.map((each) => [each.name, each.signedIn]),
        [
          [ownName, true],
          ['Coastal water lab', true],
        ],
      );
      assert.deepEqual(config().inspect('labs')?.globalValue, [
        { name: 'Coastal water lab', baseUrl: silent.baseUrl },
      ]);
      await eventually(() =>
        assert.deepEqual(accounts.changes, [`+${ownName}`, '+Coastal water lab']),
      );
      // Automation (a token given) never waits on a question: the address it is.
      prompts.textAsked.length = 0;
      assert.deepEqual(await signIn(third.baseUrl, 'demo-no-reports'), {
        name: thirdHost,
        baseUrl: third.baseUrl,
        host: thirdHost,
      });
      assert.equal(prompts.textAsked.length, 0);
      await vscode.commands.executeCommand('labData.signOut', { name: thirdHost });
      await config().update(
        'labs',
        [{ name: 'Coastal water lab', baseUrl: silent.baseUrl }],
        vscode.ConfigurationTarget.Global,
      );
      // A person who keeps the address (Escape, or Enter on it): the lab is called after its address.
      prompts.tokenAnswers = ['demo-no-reports'];
      prompts.textAnswers = [undefined];
      const kept = await vscode.commands.executeCommand<{ name: string }>('labData.signIn', {
        baseUrl: third.baseUrl,
      });
      assert.equal(kept.name, thirdHost);
      assert.equal(prompts.textAsked.length, 1);
      assert.ok(
        (await api.getState()).labs.some((each) => each.name === thirdHost && each.signedIn),
      );
    } finally {
      accounts.dispose();
      restorePrompts();
      for (const name of [ownName, 'Coastal water lab', thirdHost]) {
        await vscode.commands.executeCommand('labData.signOut', { name });
      }
      await noLabs();
      await Promise.all([named.stop(), silent.stop(), third.stop()]);
    }
  });

  it('the demo’s lab is called by the name it gives itself, not its address', async () => {
    const api = await activateExtension();
    const lab = await startLab({ reports: 8, samples: 4 });
    const ownName = lab.reportsFor('demo-full-access')[0]!.lab_name;
    try {
      // The demo (LABDATA_DEMO_TOKEN): the shorthand lab, signed in and called by its own name.
      await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
      await config().update('labName', undefined, vscode.ConfigurationTarget.Global);
      await config().update('baseUrl', lab.baseUrl, vscode.ConfigurationTarget.Global);
      await eventually(async () =>
        assert.deepEqual(
          (await api.getState()).labs.map((each) => [each.name, each.signedIn]),
          [[new URL(lab.baseUrl).host, false]],
        ),
      );
      await api.demoSignIn('demo-full-access');
      await eventually(async () =>
        assert.deepEqual(
          (await api.getState()).labs.map((each) => [each.name, each.signedIn]),
          [[ownName, true]],
        ),
      );
    } finally {
      for (const name of [ownName, new URL(lab.baseUrl).host]) {
        await vscode.commands.executeCommand('labData.signOut', { name });
      }
      await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
      await config().update('labName', undefined, vscode.ConfigurationTarget.Global);
      await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
      await lab.stop();
    }
  });

  it('a labData.labs entry for the address labData.baseUrl signed in to keeps the sign-in, under the new name', async () => {
    const api = await activateExtension();
    const lab = await startLab({ reports: 8, samples: 4 });
    try {
      await signInOnly(lab.baseUrl, 'demo-full-access');
      await eventually(async () =>
        assert.deepEqual(
          (await api.getState()).labs.map((each) => [each.name, each.signedIn]),
          [[ownNameOf(lab), true]],
        ),
      );
      await config().update(
        'labs',
        [{ name: 'Riverside contract lab', baseUrl: lab.baseUrl }],
        vscode.ConfigurationTarget.Global,
      );
      await eventually(async () =>
        assert.deepEqual(
          (await api.getState()).labs.map((each) => [each.name, each.signedIn]),
          [['Riverside contract lab', true]],
        ),
      );
      lab.takeRequests();
      await vscode.commands.executeCommand('labData.refresh');
      const reports = (await rows(api, 'reports')).filter((row) =>
        row.item.contextValue?.startsWith('labData.report'),
      );
      assert.ok(reports.length > 0, 'its reports are listed, with the carried-over token');
      assert.ok(
        lab.takeRequests().every((request) => request.scope !== '(none)' && request.status === 200),
      );
    } finally {
      await vscode.commands.executeCommand('labData.signOut', { name: 'Riverside contract lab' });
      await config().update('labs', undefined, vscode.ConfigurationTarget.Global);
      await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
      await lab.stop();
    }
  });
});
