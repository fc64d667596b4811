import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { MockLabServer } from '../mock/server';
import {
  FakePrompts,
  eventually,
  rows,
  activateExtension,
  signIn,
  signInOnly,
  signOutOfAll,
  startLab,
  type Row,
  signedInLab,
  type SignedInLab,
} from './helpers';

function find(list: Row[], label: string | RegExp): Row {
  const row = list.find((r) =>
    typeof label === 'string' ? r.label === label : label.test(r.label),
  );
  assert.ok(row, `a row ${label} among ${list.map((r) => r.label).join(', ')}`);
  return row;
}

const reportRows = (list: Row[]): Row[] =>
  list.filter((r) => r.item.contextValue?.startsWith('labData.report'));

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('labData');

/** A row's accessible label (what a screen reader says for it). */
const spoken = (row: Row): string => row.item.accessibilityInformation?.label ?? '';

describe('what every row says, and how a lab that is down or signed out shows', () => {
  let api: LabDataExtensionApi;
  let alpha: MockLabServer;
  let beta: MockLabServer;
  let gone: MockLabServer;
  const before_ = {
    labs: undefined as unknown,
    baseUrl: undefined as unknown,
    searches: undefined as unknown,
  };

  before(async function () {
    this.timeout(60_000);
    api = await activateExtension();
    // No look at the Reports view may mark the report published below as seen.
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    before_.labs = config().inspect('labs')?.globalValue;
    before_.baseUrl = config().inspect('baseUrl')?.globalValue;
    before_.searches = config().inspect('savedSearches')?.globalValue;
    alpha = await startLab({ reports: 120, samples: 80 });
    beta = await startLab({ reports: 10, seed: 3 });
    gone = await startLab({ reports: 30, seed: 7 });
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update(
      'labs',
      [
        { name: 'Alpha', baseUrl: alpha.baseUrl },
        { name: 'Beta', baseUrl: beta.baseUrl },
        {
          name: 'Broken',
          baseUrl: `${alpha.baseUrl}/broken`,
          endpoints: { reports: '/api/%2e%2e/admin' },
        },
        { name: 'Gone', baseUrl: gone.baseUrl },
      ],
      vscode.ConfigurationTarget.Global,
    );
    await config().update(
      'savedSearches',
      [{ name: 'Amended at Alpha', lab: 'Alpha', status: 'amended' }],
      vscode.ConfigurationTarget.Global,
    );
    await eventually(async () =>
      assert.deepEqual((await api.getState()).labs.map((lab) => lab.name).sort(), [
        'Alpha',
        'Beta',
        'Broken',
        'Gone',
      ]),
    );
    await signIn(alpha.baseUrl, 'demo-full-access', 'Alpha');
    await signIn(gone.baseUrl, 'demo-full-access', 'Gone');
    await eventually(async () =>
      assert.deepEqual((await api.getState()).labs.map((lab) => [lab.name, lab.signedIn]).sort(), [
        ['Alpha', true],
        ['Beta', false],
        ['Broken', false],
        ['Gone', true],
      ]),
    );
  });

  after(async () => {
    await signOutOfAll(api);
    await vscode.commands.executeCommand('labData.clearReportsFilter');
    await vscode.commands.executeCommand('labData.clearSamplesFilter');
    await config().update('savedSearches', before_.searches, vscode.ConfigurationTarget.Global);
    await config().update('labs', before_.labs, vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', before_.baseUrl, vscode.ConfigurationTarget.Global);
    await Promise.all([alpha.stop(), beta.stop(), gone.stop()]);
  });

  /** The row of lab `name` at the top of a view. */
  async function labRow(view: 'reports' | 'clients' | 'samples', name: string): Promise<Row> {
    return find(await rows(api, view), name);
  }

  it('a lab that cannot be reached says so before its count and host, its rows are marked as possibly out of date, and the status bar counts the labs that answer', async () => {
    const count = gone.reportsFor('demo-full-access').length;
    await eventually(async () =>
      assert.match(
        String((await labRow('reports', 'Gone')).item.description),
        new RegExp(`^${count} reports · `),
      ),
    );
    const goneReports = reportRows(
      await rows(api, 'reports', (await labRow('reports', 'Gone')).node),
    );
    assert.equal(goneReports.length, count);
    // Says what of the labs: how many are signed in (all of them answer).
    await eventually(() => assert.match(api.statusText(), /^\$\(beaker\) 2 of 4 labs signed in$/));
    await gone.stop();
    await vscode.commands.executeCommand('labData.refresh');
    const row = await eventually(async () => {
      const found = await labRow('reports', 'Gone');
      assert.match(String(found.item.description), /^unreachable · /, 'the state comes first');
      return found;
    });
    assert.equal((row.item.iconPath as vscode.ThemeIcon).id, 'debug-disconnect');
    assert.match(spoken(row), /^Lab Gone, unreachable/);
    const children = await rows(api, 'reports', row.node);
    assert.match(children[0]!.label, /^Unreachable: the rows below may be out of date$/);
    assert.equal(children[0]!.item.command?.command, 'labData.refresh');
    assert.match(spoken(children[0]!), /^Unreachable: the rows below may be out of date\. /);
    // Said once: no "Unreachable: Unreachable:", no "Cannot reach … Cannot reach", no "..".
    for (const said of [spoken(children[0]!), String(children[0]!.item.tooltip)]) {
      assert.ok(said.split(/unreachable/i).length <= 2, said);
      assert.ok(said.split('Cannot reach').length <= 2, said);
      assert.doesNotMatch(said, /\.\./, said);
    }
    assert.match(
      String(children[0]!.item.tooltip),
      /^Cannot reach the lab at .*Click to try again\.$/,
    );
    const rowTip = String(row.item.tooltip);
    assert.equal(rowTip.split('Cannot reach').length, 2, rowTip);
    assert.doesNotMatch(rowTip, /\.\./, rowTip);
    assert.equal(
      reportRows(children).length,
      count,
      'what was loaded stays listed, below the mark',
    );
    // Signed out and misconfigured labs: the state first too.
    assert.match(String((await labRow('reports', 'Beta')).item.description), /^signed out · /);
    assert.equal(String((await labRow('reports', 'Broken')).item.description), 'misconfigured');
    // One of the two signed-in labs answers.
    await eventually(() =>
      assert.match(api.statusText(), /^\$\(warning\) 1 of 4 labs unreachable$/),
    );
    assert.match(api.statusTooltip(), /2 of 4 labs signed in, 1 answering/);
  });

  it('every row of the three views has an accessible label saying what its icon and colour say', async () => {
    const source = alpha.reportsFor('demo-full-access');
    // Something new at Alpha: everything shown until now is seen, then the lab publishes one.
    await rows(api, 'reports', (await labRow('reports', 'Alpha')).node);
    await vscode.commands.executeCommand('labData.markAllSeen');
    const fresh = alpha.publishReport();
    await vscode.commands.executeCommand('labData.refresh');
    await vscode.commands.executeCommand('labData.filterSamples', {
      lab: 'Alpha',
      receivedSince: '2020-01-01',
    });
    const seen = new Map<string, Row[]>();
    const walk = async (
      view: 'reports' | 'clients' | 'samples',
      parent?: Row,
      depth = 0,
    ): Promise<void> => {
      const children = await rows(api, view, parent?.node);
      for (const child of children) {
        const kind = child.item.contextValue ?? '(none)';
        seen.set(kind, [...(seen.get(kind) ?? []), child]);
        assert.ok(
          spoken(child).trim(),
          `${view}: "${child.label}" (${kind}) has an accessible label`,
        );
      }
      if (depth >= 3) {
        return;
      }
      // Every lab, saved search and filter row; the first client and project (one of each is enough).
      const open = children.filter(
        (child) =>
          child.item.collapsibleState !== vscode.TreeItemCollapsibleState.None &&
          (/^labData\.(lab|savedSearch|filter)/.test(child.item.contextValue ?? '') ||
            child === children.find((c) => c.item.contextValue === child.item.contextValue)),
      );
      for (const child of open) {
        await walk(view, child, depth + 1);
      }
    };
    await eventually(async () => {
      seen.clear();
      await walk('reports');
      await walk('clients');
      await walk('samples');
      assert.ok(seen.has('labData.loadMore'), [...seen.keys()].join(', '));
    }, 30_000);

    // Labs: their state (signed in, signed out, misconfigured, unreachable) and count.
    const labs = [
      ...(seen.get('labData.lab.signedIn') ?? []),
      ...(seen.get('labData.lab.signedIn.unreachable') ?? []),
      ...(seen.get('labData.lab.signedOut') ?? []),
      ...(seen.get('labData.lab.invalid') ?? []),
    ].map(spoken);
    const total = alpha.reportsFor('demo-full-access').length;
    assert.ok(
      labs.some((label) => label.startsWith(`Lab Alpha, signed in, ${total} reports`)),
      labs.join('\n'),
    );
    assert.ok(
      labs.some((label) => /^Lab Beta, signed out/.test(label)),
      labs.join('\n'),
    );
    assert.ok(
      labs.some((label) => /^Lab Broken, misconfigured: /.test(label)),
      labs.join('\n'),
    );
    assert.ok(
      labs.some((label) => /^Lab Gone, unreachable/.test(label)),
      labs.join('\n'),
    );

    // Reports: id, title, type, day, a status other than published, no file, new.
    const reports = [
      ...(seen.get('labData.report.downloadable') ?? []),
      ...(seen.get('labData.report') ?? []),
    ];
    assert.ok(reports.length > 50);
    const facts = { amended: 0, noFile: 0, fresh: 0 };
    for (const row of reports) {
      const report = [fresh, ...source].find((candidate) => candidate.report_id === row.id);
      if (!report || row.node.ref?.lab !== 'Alpha') {
        continue; // Gone's reports come from another lab
      }
      const label = spoken(row);
      // Several labs are shown: the label names the lab after the id.
      assert.ok(label.startsWith(`Report ${report.report_id} in Alpha, `), label);
      const title = report.title.slice(`${report.report_type}: `.length);
      for (const part of [title, report.report_type, report.published_at.slice(0, 4)]) {
        assert.ok(label.includes(part), `"${part}" in "${label}"`);
      }
      if (report.status !== 'published') {
        const word = `${report.status[0]!.toUpperCase()}${report.status.slice(1)}`;
        assert.ok(label.includes(word), `"${word}" in "${label}"`);
        facts.amended += report.status === 'amended' ? 1 : 0;
      }
      if (!report.download_available) {
        assert.match(label, /, no file available$/);
        facts.noFile++;
      }
      if (
        report.report_id === fresh.report_id &&
        row.item.id?.startsWith('lab:Alpha/reports/report:')
      ) {
        assert.match(label, new RegExp(`^Report ${fresh.report_id} in Alpha, new, `));
        facts.fresh++;
      }
    }
    assert.ok(facts.amended > 0 && facts.noFile > 0 && facts.fresh === 1, JSON.stringify(facts));

    const one = (kind: string): string => {
      const found = seen.get(kind);
      assert.ok(found?.length, `a ${kind} row among ${[...seen.keys()].join(', ')}`);
      return spoken(found[0]!);
    };
    assert.match(
      one('labData.client'),
      new RegExp(`^Client ${alpha.data.clients[0]!.name}, ${alpha.data.clients[0]!.client_id}`),
    );
    assert.match(one('labData.project'), /^Project .+, P-\d+/);
    assert.match(one('labData.sample'), /^Sample S-\d{6}, /);
    assert.match(one('labData.savedSearch'), /^Saved search "Amended at Alpha": status Amended$/);
    // "Load more" says how many more there are.
    const more = (seen.get('labData.loadMore') ?? []).map(spoken);
    assert.ok(
      more.includes(`Load ${total - 50} more reports, 50 of ${total} loaded`),
      more.join('\n'),
    );
    // The filter row says its criteria and how many match; the count row says it alone.
    const filter = one('labData.filter.samples');
    const received = alpha.data.samples.filter(
      (sample) => sample.received_at >= '2020-01-01',
    ).length;
    assert.match(
      filter,
      new RegExp(`^Filtered by: received since .+; ${received} samples match the filter$`),
    );
    assert.ok(
      (seen.get('labData.filterPart') ?? []).some(
        (row) => spoken(row) === `${received} samples match the filter`,
      ),
    );
    // Messages say what their icon says: the sign-in row, a misconfigured lab's error, the unreachable mark.
    const messages = [
      ...(seen.get('labData.message') ?? []),
      // The unreachable mark has its own context value (its Check Connection action).
      ...(seen.get('labData.unreachable') ?? []),
    ].map(spoken);
    assert.ok(messages.includes('Sign in to Beta…'), messages.join('\n'));
    assert.ok(
      messages.some((label) => /^Error: .*endpoint "reports" must not contain/.test(label)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((label) => /^Unreachable: /.test(label)),
      messages.join('\n'),
    );
  });
});

describe('browsing the lab in the views', () => {
  let lab: MockLabServer;
  let api: LabDataExtensionApi;
  let signedIn: SignedInLab;

  /** Signs in afresh as `token` (lists loaded before are dropped) and forgets earlier requests. */
  async function as(token: string, server: MockLabServer = lab): Promise<void> {
    await signInOnly(server.baseUrl, token);
    await eventually(async () =>
      assert.equal((await api.getState()).origin, new URL(server.baseUrl).origin),
    );
    await vscode.commands.executeCommand('labData.clearReportsFilter');
    await vscode.commands.executeCommand('labData.clearSamplesFilter');
    server.takeRequests();
  }

  before(async () => {
    signedIn = await signedInLab({ reports: 160, token: 'demo-full-access' });
    ({ api, lab } = signedIn);
    // Request counts below are the tests' own: no visible view may fetch on its own meanwhile.
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
  });

  after(async () => {
    // The reload phase (test/integration/reload/) checks that this sign-in survives a window reload.
    await signedIn.close({ keepSignedIn: true });
  });

  it('opening the container costs one request per view, and expanding a client one more', async () => {
    await as('demo-full-access');
    await rows(api, 'reports');
    await rows(api, 'clients');
    await rows(api, 'samples');
    const opening = lab.takeRequests();
    assert.deepEqual(opening.map((r) => r.path).sort(), [
      '/api/v1/clients',
      '/api/v1/reports',
      '/api/v1/samples',
    ]);
    const client = find(await rows(api, 'clients'), 'Harbor Environmental Consulting');
    await rows(api, 'clients', client.node);
    const expanding = lab.takeRequests();
    assert.deepEqual(
      expanding.map((r) => r.path),
      ['/api/v1/projects'],
    );
    assert.deepEqual(expanding[0]!.query, { page: '1', page_size: '50', client_id: 'C-1003' });
    console.log(
      `      requests: ${opening.length} for opening the container, ${expanding.length} for expanding one client`,
    );
  });

  it('Reports shows the first page, newest first, with a "Load more" node counting loaded of total', async () => {
    await as('demo-full-access');
    const expected = lab.reportsFor('demo-full-access');
    const first = await rows(api, 'reports');
    const reports = reportRows(first);
    assert.deepEqual(
      reports.map((r) => r.id),
      expected.slice(0, 50).map((r) => r.report_id),
    );
    const more = find(first, 'Load more…');
    assert.equal(more.item.description, `50 of ${expected.length.toLocaleString()}`);
    const top = reports[0]!;
    const source = expected[0]!;
    // What tells reports apart first, before the default width cuts the row: the id as the label,
    // then the day, the type (and a status other than published), and last the title without its leading type.
    assert.equal(top.label, source.report_id);
    const project = source.title.slice(`${source.report_type}: `.length);
    assert.ok(
      source.title.startsWith(`${source.report_type}: `) && project.length > 0,
      'the mock titles read "<type>: <project>"',
    );
    const parts = String(top.item.description).split(' · ');
    assert.match(parts[0]!, /\d{4}/, `the day first: ${top.item.description}`);
    assert.equal(parts[1], source.report_type, 'then the type, once');
    assert.equal(
      parts.at(-1),
      project,
      `the title last, without the type: ${top.item.description}`,
    );
    assert.equal(parts.length, source.status === 'published' ? 3 : 4);
    const tooltip = (top.item.tooltip as vscode.MarkdownString).value;
    // Every field the lab sent, labelled (the metadata document keeps the exact JSON).
    for (const label of [
      'Report',
      'Type',
      'Samples',
      'Published',
      'Status',
      'PDF',
      'Client',
      'Project',
      'Title',
      'Revision',
      'Updated',
      'Lab',
    ]) {
      assert.ok(tooltip.includes(`**${label}**`), `tooltip labels ${label}: ${tooltip}`);
    }
    assert.equal(Object.keys(source).length, 12, 'the mock sends the twelve fields labelled above');
    assert.ok(
      !/published\\_at|download\\_available|\[\s*"/.test(tooltip),
      'no field names or JSON arrays',
    );
    const noFile = expected.slice(0, 50).find((r) => !r.download_available);
    if (noFile) {
      const row = reports.find((r) => r.id === noFile.report_id)!;
      assert.equal(row.item.contextValue, 'labData.report');
      assert.equal((row.item.iconPath as vscode.ThemeIcon).id, 'file');
    }
    assert.equal(
      top.item.contextValue,
      source.download_available ? 'labData.report.downloadable' : 'labData.report',
    );
    assert.equal(lab.takeRequests().length, 1, 'only the first page is fetched');

    await vscode.commands.executeCommand('labData.loadMore', more.node);
    const second = await rows(api, 'reports');
    assert.deepEqual(
      reportRows(second).map((r) => r.id),
      expected.slice(0, 100).map((r) => r.report_id),
    );
    assert.equal(
      find(second, 'Load more…').item.description,
      `100 of ${expected.length.toLocaleString()}`,
    );
    assert.deepEqual(
      lab.takeRequests().map((r) => r.query.page),
      ['2'],
      'Load more fetched exactly the next page',
    );
  });

  it('refresh is single-flight, keeps the loaded pages and the node ids', async () => {
    const before = await rows(api, 'reports');
    lab.takeRequests();
    await Promise.all([1, 2, 3].map(() => vscode.commands.executeCommand('labData.refresh')));
    const reportRequests = lab.takeRequests().filter((r) => r.path === '/api/v1/reports');
    assert.deepEqual(
      reportRequests.map((r) => r.query.page),
      ['1', '2'],
      'three clicks, one reload of the two pages shown',
    );
    const after = await rows(api, 'reports');
    assert.deepEqual(
      after.map((r) => r.item.id),
      before.map((r) => r.item.id),
    );
  });

  it('Clients shows clients → projects → reports for the full-scope token', async () => {
    await as('demo-full-access');
    const clients = await rows(api, 'clients');
    assert.deepEqual(
      clients.map((r) => r.label),
      lab.data.clients.map((c) => c.name),
    );
    const client = find(clients, 'Harbor Environmental Consulting');
    assert.equal(client.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    const projects = await rows(api, 'clients', client.node);
    assert.deepEqual(
      projects.map((r) => r.label),
      lab.data.projects.filter((p) => p.client_id === 'C-1003').map((p) => p.name),
    );
    const project = find(projects, 'Former Fuel Depot Remediation');
    const reports = reportRows(await rows(api, 'clients', project.node));
    assert.deepEqual(
      reports.map((r) => r.id),
      lab
        .reportsFor('demo-full-access')
        .filter((r) => r.project_id === 'P-2006')
        .slice(0, 50)
        .map((r) => r.report_id),
    );
  });

  it('a client-scoped token sees its client only, a project-scoped token its project only', async () => {
    await as('demo-client-c1001');
    const clients = await rows(api, 'clients');
    assert.deepEqual(
      clients.map((r) => r.label),
      ['Riverside Water Authority'],
    );
    const projects = await rows(api, 'clients', clients[0]!.node);
    assert.deepEqual(
      projects.map((r) => r.label),
      lab.data.projects.filter((p) => p.client_id === 'C-1001').map((p) => p.name),
    );
    assert.ok(
      reportRows(await rows(api, 'reports')).every((r) =>
        lab.reportsFor('demo-client-c1001').some((x) => x.report_id === r.id),
      ),
    );

    await as('demo-project-p2006');
    const scopedClients = await rows(api, 'clients');
    assert.deepEqual(
      scopedClients.map((r) => r.label),
      ['Harbor Environmental Consulting'],
    );
    const scopedProjects = await rows(api, 'clients', scopedClients[0]!.node);
    assert.deepEqual(
      scopedProjects.map((r) => r.label),
      ['Former Fuel Depot Remediation'],
    );
    const reports = reportRows(await rows(api, 'reports'));
    assert.deepEqual(
      reports.map((r) => r.id),
      lab
        .reportsFor('demo-project-p2006')
        .slice(0, 50)
        .map((r) => r.report_id),
    );
  });

  it('a tenant without client records shows projects at the top with a note; without projects, a note and the client’s reports', async () => {
    const noClients = await startLab({ tenant: 'no-clients' });
    const noProjects = await startLab({ tenant: 'no-projects' });
    try {
      await as('demo-full-access', noClients);
      const top = await rows(api, 'clients');
      assert.match(top[0]!.label, /does not share client records; showing projects/);
      assert.deepEqual(
        top.slice(1).map((r) => r.label),
        noClients.data.projects.map((p) => p.name),
      );
      const reports = reportRows(await rows(api, 'clients', top[1]!.node));
      assert.ok(reports.length > 0);

      await as('demo-full-access', noProjects);
      const clients = await rows(api, 'clients');
      const children = await rows(api, 'clients', find(clients, 'Riverside Water Authority').node);
      assert.match(children[0]!.label, /Projects are not enabled for this lab/);
      assert.deepEqual(
        reportRows(children).map((r) => r.id),
        noProjects
          .reportsFor('demo-full-access')
          .filter((r) => r.client_id === 'C-1001')
          .slice(0, 50)
          .map((r) => r.report_id),
      );
    } finally {
      await as('demo-full-access');
      await noClients.stop();
      await noProjects.stop();
    }
  });

  it('reopening the filter shows each value in force and offers it first, even one its list does not hold, so Enter through keeps the filter', async () => {
    await as('demo-full-access');
    const prompts = new FakePrompts();
    const restore = api.setPrompts(prompts);
    try {
      // A status no picker lists (set by automation), and a client the picker does list.
      await vscode.commands.executeCommand('labData.filterReports', {
        status: 'withdrawn',
        clientId: 'C-1001',
      });
      prompts.criteriaAnswers = [['status', 'client_id']];
      const kept = await vscode.commands.executeCommand('labData.filterReports');
      assert.deepEqual(
        kept,
        { status: 'withdrawn', clientId: 'C-1001' },
        'Enter at every step keeps the filter',
      );
      const criteria = prompts.criteriaOffered[0]!.criteria;
      assert.deepEqual(
        criteria.filter((criterion) => criterion.picked).map((criterion) => criterion.id),
        ['status', 'client_id'],
        'the criteria in force are checked',
      );
      assert.match(
        String(criteria.find((criterion) => criterion.id === 'client_id')!.description),
        /C-1001/,
      );
      const [status, client] = prompts.pickOneOffered;
      assert.deepEqual(
        status!.choices[0],
        { id: 'withdrawn', label: 'Withdrawn', description: 'current' },
        'a value the list does not hold comes first, as itself',
      );
      assert.equal(status!.current, 'withdrawn');
      assert.equal(client!.current, 'C-1001');
      assert.equal(
        client!.choices.filter((choice) => choice.id === 'C-1001').length,
        1,
        'a value the list holds is not added twice',
      );
    } finally {
      restore();
      await vscode.commands.executeCommand('labData.clearReportsFilter');
    }
  });

  it('filters produce the server-filtered list, with a "Filtered by" node that clears it', async () => {
    await as('demo-full-access');
    await vscode.commands.executeCommand('labData.filterReports', {
      publishedSince: '2025-06-01',
      status: 'published',
      clientId: 'C-1001',
    });
    const filtered = await rows(api, 'reports');
    assert.match(
      filtered[0]!.label,
      /^Filtered by: published since .+, status Published, client (Riverside Water Authority \(C-1001\)|C-1001)$/,
    );
    const expected = lab
      .reportsFor('demo-full-access')
      .filter(
        (r) =>
          r.published_at >= '2025-06-01T00:00:00Z' &&
          r.status === 'published' &&
          r.client_id === 'C-1001',
      );
    assert.deepEqual(
      reportRows(filtered).map((r) => r.id),
      expected.slice(0, 50).map((r) => r.report_id),
    );
    assert.deepEqual(lab.takeRequests().at(-1)!.query, {
      published_since: '2025-06-01T00:00:00Z',
      status: 'published',
      client_id: 'C-1001',
      page: '1',
      page_size: '50',
    });

    await vscode.commands.executeCommand('labData.filterReports', { publishedSince: '2099-01-01' });
    const empty = await rows(api, 'reports');
    assert.match(empty.at(-1)!.label, /^No reports published since /);

    // Reading the row never clears it: it has no click command, only its Clear Filter action.
    assert.equal(filtered[0]!.item.command, undefined);
    assert.equal(filtered[0]!.item.contextValue, 'labData.filter.reports');
    await vscode.commands.executeCommand('labData.clearReportsFilter', filtered[0]!.node);
    const cleared = await rows(api, 'reports');
    assert.equal(reportRows(cleared).length, 50);
    assert.ok(!cleared.some((r) => r.label.startsWith('Filtered by')));

    await vscode.commands.executeCommand('labData.filterSamples', { receivedSince: '2026-10-01' });
    const samples = await rows(api, 'samples');
    assert.match(samples[0]!.label, /^Filtered by: received since/);
    const expectedSamples = lab.data.samples.filter((s) => s.received_at >= '2026-10-01T00:00:00Z');
    assert.deepEqual(
      (await rows(api, 'samples', samples[0]!.node)).map((r) => r.label),
      [`${expectedSamples.length} samples match the filter`],
    );
    assert.deepEqual(
      samples.filter((r) => r.item.contextValue === 'labData.sample').map((r) => r.label),
      expectedSamples.slice(0, 50).map((s) => s.sample_id),
    );
    await vscode.commands.executeCommand('labData.clearSamplesFilter');
  });

  it('the reports of one project lead with their day and type, not the project name all their titles start with', async () => {
    await as('demo-full-access');
    const client = find(await rows(api, 'clients'), 'Harbor Environmental Consulting');
    const project = find(await rows(api, 'clients', client.node), 'Former Fuel Depot Remediation');
    const reports = reportRows(await rows(api, 'clients', project.node));
    const source = lab.reportsFor('demo-full-access').filter((r) => r.project_id === 'P-2006');
    assert.ok(
      reports.length > 1 &&
        source.every((r) => r.title.endsWith(': Former Fuel Depot Remediation')),
    );
    for (const row of reports) {
      const report = source.find((r) => r.report_id === row.id)!;
      const parts = String(row.item.description).split(' · ');
      assert.match(
        parts[0]!,
        new RegExp(report.published_at.slice(0, 4)),
        `the day first: ${row.item.description}`,
      );
      assert.equal(parts[1], report.report_type, `then the type: ${row.item.description}`);
      assert.ok(
        !String(row.item.description).includes('Former Fuel Depot'),
        `the project's name is its parent's label, not repeated: ${row.item.description}`,
      );
      assert.ok(
        spoken(row).includes('Former Fuel Depot Remediation'),
        'a screen reader still hears the title',
      );
    }
    // In the Reports view neighbours come from different projects: the day and type lead there too, the title follows.
    const top = reportRows(await rows(api, 'reports'))[0]!;
    const first = lab.reportsFor('demo-full-access')[0]!;
    const parts = String(top.item.description).split(' · ');
    assert.equal(parts[1], first.report_type, String(top.item.description));
    assert.equal(parts.at(-1), first.title.slice(`${first.report_type}: `.length));
  });

  it('the filter row lists each criterion and how many reports match on rows of their own, short enough for the default width', async () => {
    await as('demo-full-access');
    await vscode.commands.executeCommand('labData.filterReports', {
      publishedSince: '2025-06-01',
      status: 'published',
      clientId: 'C-1001',
    });
    const expected = lab
      .reportsFor('demo-full-access')
      .filter(
        (r) =>
          r.published_at >= '2025-06-01T00:00:00Z' &&
          r.status === 'published' &&
          r.client_id === 'C-1001',
      );
    const filter = (await rows(api, 'reports'))[0]!;
    assert.equal(filter.item.contextValue, 'labData.filter.reports');
    assert.equal(filter.item.collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
    const parts = await rows(api, 'reports', filter.node);
    assert.deepEqual(
      parts.map((r) => r.label).map((label) => label.replace(/since .+$/, 'since …')),
      [
        `${expected.length} reports match the filter`,
        'published since …',
        'status Published',
        /client Riverside/.test(parts[3]!.label)
          ? 'client Riverside Water Authority (C-1001)'
          : 'client C-1001',
      ],
    );
    assert.ok(
      parts.every(
        (r) => r.item.contextValue === 'labData.filterPart' && r.item.command === undefined,
      ),
    );
    assert.match(spoken(filter), new RegExp(`; ${expected.length} reports match the filter$`));
    assert.match(spoken(parts[1]!), /^Filter criterion: published since /);

    // A report type is applied by Lab Data to what it loaded: the count says so.
    const type = lab.reportsFor('demo-full-access')[0]!.report_type;
    await vscode.commands.executeCommand('labData.filterReports', { reportType: type });
    const typed = await rows(api, 'reports');
    const shown = reportRows(typed).length;
    assert.deepEqual(
      (await rows(api, 'reports', typed[0]!.node)).map((r) => r.label),
      [`${shown} of the 50 reports loaded match the filter`],
      'one criterion: the row says it whole, its only child the count',
    );
    await vscode.commands.executeCommand('labData.clearReportsFilter');
  });

  it('"Copy Id" on any row copies the id it stands for', async () => {
    await as('demo-full-access');
    const report = reportRows(await rows(api, 'reports'))[3]!;
    assert.equal(await vscode.commands.executeCommand('labData.copyId', report.node), report.id);
    assert.equal(await vscode.env.clipboard.readText(), report.id);
    const client = (await rows(api, 'clients'))[1]!;
    await vscode.commands.executeCommand('labData.copyId', client.node);
    assert.equal(await vscode.env.clipboard.readText(), lab.data.clients[1]!.client_id);
  });

  it('samples show a readable label, description and the whole record in the tooltip', async () => {
    const samples = (await rows(api, 'samples')).filter(
      (r) => r.item.contextValue === 'labData.sample',
    );
    const source = lab.data.samples[0]!;
    assert.equal(samples[0]!.label, source.sample_id);
    // The name holds the matrix ("OUT-35 Grain"), so the matrix is not said twice; the status is a word.
    assert.match(String(samples[0]!.item.description), new RegExp(`^${source.sample_name} · `));
    assert.equal(
      String(samples[0]!.item.description)
        .split(' · ')
        .filter((part) => part === source.matrix).length,
      0,
    );
    const tooltip = (samples[0]!.item.tooltip as vscode.MarkdownString).value;
    assert.ok(
      tooltip.includes('Temperature') &&
        tooltip.includes('Container') &&
        tooltip.includes('Analyses'),
      tooltip,
    );
    assert.ok(
      !tooltip.includes('temperature\\_c') && !tooltip.includes('received\\_at'),
      'labelled fields, not field names',
    );
    assert.equal(
      find(await rows(api, 'samples'), 'Load more…').item.description,
      `50 of ${lab.data.samples.length.toLocaleString()}`,
    );
  });

  it('403 on a node becomes a message node, not a popup', async () => {
    await as('demo-no-reports');
    const reports = await rows(api, 'reports');
    assert.equal(reports.length, 1);
    assert.match(reports[0]!.label, /Outside your access scope \(403\)/);
    assert.ok((await rows(api, 'clients')).length > 0, 'the other views still work');
  });

  it('a failed load shows "Couldn\'t load" with Retry, and Retry loads it', async () => {
    await as('demo-full-access');
    lab.setFaults({ status: { status: 500, times: Infinity, path: /\/samples$/ } });
    try {
      const failed = await rows(api, 'samples');
      assert.equal(failed.length, 1);
      assert.match(failed[0]!.label, /^Couldn't load: The lab's server failed \(HTTP 500\)/);
      assert.equal(failed[0]!.item.command?.command, 'labData.retry');
      lab.setFaults({});
      await vscode.commands.executeCommand(
        failed[0]!.item.command!.command,
        ...(failed[0]!.item.command!.arguments ?? []),
      );
      const loaded = await rows(api, 'samples');
      assert.equal(loaded.filter((r) => r.item.contextValue === 'labData.sample').length, 50);
    } finally {
      lab.setFaults({});
    }
  });

  it('the status bar shows the lab when signed in', async () => {
    await as('demo-full-access');
    // By its name, as every title names it (not by its host).
    const { name } = (await api.getState()).labs[0]!;
    await eventually(() => assert.equal(api.statusText(), `$(beaker) ${name}`));
  });

  it('the status bar shows when the lab limits requests, and when it cannot be reached', async () => {
    const flaky = await startLab();
    try {
      await as('demo-full-access', flaky);
      const { name } = (await api.getState()).labs[0]!;
      await rows(api, 'reports');
      flaky.setFaults({ rateLimit: { times: 1, retryAfter: '3' } });
      const refreshing = vscode.commands.executeCommand('labData.refresh');
      await eventually(() =>
        assert.match(
          api.statusText(),
          new RegExp(`^\\$\\(watch\\) ${name}: rate-limited until \\d`),
        ),
      );
      await refreshing;
      await eventually(() => assert.equal(api.statusText(), `$(beaker) ${name}`));
      await flaky.stop();
      await vscode.commands.executeCommand('labData.refresh');
      await eventually(() =>
        assert.equal(api.statusText(), `$(debug-disconnect) ${name}: unreachable`),
      );
      const [reason, ...more] = api.statusTooltip().split('\n');
      assert.match(reason!, /^Cannot reach the lab at https?:\/\/127\.0\.0\.1:\d+\b/);
      assert.equal(reason!.split('Cannot reach').length, 2, `said once: ${reason}`);
      assert.deepEqual(more, ['Click for the Lab Data menu.'], 'the reason, said once');
      const failed = await rows(api, 'reports');
      assert.match(failed.at(-1)!.label, /Cannot reach the lab/);
      assert.equal(reportRows(failed).length, 50, 'a failed refresh keeps what was shown');
    } finally {
      await as('demo-full-access');
      await flaky.stop();
    }
  });

  it('a 401 at any time signs out: the views empty into the signed-out welcome', async () => {
    const token = 'lab_it_revocable_token_0042';
    const revocable = await startLab({ tokens: { [token]: { label: 'revocable' } } });
    try {
      await as(token, revocable);
      assert.ok(reportRows(await rows(api, 'reports')).length > 0);
      revocable.revokeToken(token);
      await vscode.commands.executeCommand('labData.refresh');
      await eventually(async () => assert.equal((await api.getState()).signedIn, false));
      assert.deepEqual(await rows(api, 'reports'), []);
      assert.deepEqual(await rows(api, 'clients'), []);
      assert.match(api.statusText(), /signed out/);
    } finally {
      await as('demo-full-access');
      await revocable.stop();
    }
  });
});
