import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { SyncSummary } from '../../src/commands/syncReports';
import type { MockLabServer } from '../mock/server';
import {
  FakePrompts,
  activateExtension,
  eventually,
  extensionPackageJson,
  rows,
  signIn,
  signOutOfAll,
  startLab,
  workspaceFolder,
  type Row,
} from './helpers';
import { DOUBLE_CLICK_MS } from '../../src/commands/rowOpens';
import { SHOWN_LAB_NAME_LENGTH, shownLabName } from '../../src/views/labRowNode';

const TOKEN = 'demo-full-access';
const LONG_NAME = 'Meridian Analytical Laboratories of Northern Europe';

const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('labData');

/**
 * Whether a `when` clause of package.json holds in `context`: the forms Lab Data's menus use
 * (`a == b`, `a != b`, `a =~ /re/`, `a > n`, `key`, `!key`, joined by `&&` and `||`).
 */
function holds(when: string | undefined, context: Record<string, string | number | boolean>) {
  if (!when) {
    return true;
  }
  const term = (text: string): boolean => {
    const [, key, op, value] = /^(\S+)\s*(==|!=|=~|>)\s*(.+)$/.exec(text.trim()) ?? [];
    if (!key) {
      const negated = text.trim().startsWith('!');
      const value = Boolean(context[text.trim().replace(/^!/, '')]);
      return negated ? !value : value;
    }
    const actual = context[key];
    switch (op) {
      case '==':
        return String(actual) === value!.trim();
      case '!=':
        return String(actual) !== value!.trim();
      case '>':
        return Number(actual) > Number(value);
      default: {
        const [, source, flags] = /^\/(.*)\/(\w*)$/.exec(value!.trim())!;
        return new RegExp(source!, flags).test(String(actual ?? ''));
      }
    }
  };
  return when.split('||').some((alternative) => alternative.split('&&').every(term));
}

/** The commands of a row's context menu (inline buttons apart, or only them), as package.json offers them. */
function menuOf(
  view: string,
  contextValue: string | undefined,
  where: 'inline' | 'menu',
): string[] {
  const { menus } = extensionPackageJson().contributes as unknown as {
    menus: Record<string, Array<{ command: string; when?: string; group?: string }>>;
  };
  return menus['view/item/context']!.filter(
    (entry) => (entry.group?.startsWith('inline') ?? false) === (where === 'inline'),
  )
    .filter((entry) =>
      holds(entry.when, {
        view,
        viewItem: contextValue ?? '',
        workspaceFolderCount: 1,
        isWorkspaceTrusted: true,
        listMultiSelection: false,
      }),
    )
    .map((entry) => entry.command);
}

/** The report rows among `list`. */
const reportRows = (list: Row[]): Row[] =>
  list.filter((r) => r.item.contextValue?.startsWith('labData.report'));

describe('rows say what they are at a glance, and offer what they need', () => {
  let api: LabDataExtensionApi;
  let meridian: MockLabServer;
  let single: MockLabServer;
  const before_ = { labs: undefined as unknown, baseUrl: undefined as unknown };

  /** The row of lab `name` at the top of a view. */
  async function labRow(view: 'reports' | 'clients', name: string): Promise<Row> {
    return eventually(async () => {
      const found = (await rows(api, view)).find((row) => row.node.id === `lab:${name}`);
      assert.ok(found, `the row of ${name}`);
      return found;
    });
  }

  before(async function () {
    this.timeout(60_000);
    api = await activateExtension();
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    before_.labs = config().inspect('labs')?.globalValue;
    before_.baseUrl = config().inspect('baseUrl')?.globalValue;
    // 53 made, 51 of them in the token's scope (with the suites' 300 samples): one more than the first page.
    meridian = await startLab({ reports: 53 });
    single = await startLab({ reports: 1, seed: 5 });
    await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await config().update(
      'labs',
      [
        { name: LONG_NAME, baseUrl: meridian.baseUrl },
        { name: 'Single', baseUrl: single.baseUrl },
      ],
      vscode.ConfigurationTarget.Global,
    );
    await eventually(async () =>
      assert.deepEqual((await api.getState()).labs.map((lab) => lab.name).sort(), [
        LONG_NAME,
        'Single',
      ]),
    );
    await signIn(meridian.baseUrl, TOKEN, LONG_NAME);
    await signIn(single.baseUrl, TOKEN, 'Single');
    await eventually(async () =>
      assert.ok((await api.getState()).labs.every((lab) => lab.signedIn)),
    );
  });

  after(async () => {
    await signOutOfAll(api);
    await config().update('labs', before_.labs, vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', before_.baseUrl, vscode.ConfigurationTarget.Global);
    await Promise.all([meridian.stop(), single.stop()]);
  });

  it('counts say "1 report" and "Load 1 more report"; the status bar says what of the labs', async () => {
    await eventually(async () =>
      assert.match(String((await labRow('reports', 'Single')).item.description), /^1 report · /),
    );
    assert.equal(meridian.reportsFor(TOKEN).length, 51);
    const loaded = await rows(api, 'reports', (await labRow('reports', LONG_NAME)).node);
    const more = loaded.find((row) => row.label === 'Load more…');
    assert.ok(more, loaded.map((row) => row.label).join(', '));
    assert.equal(more.item.accessibilityInformation?.label, 'Load 1 more report, 50 of 51 loaded');
    await eventually(() => assert.equal(api.statusText(), '$(beaker) 2 of 2 labs signed in'));
  });

  it('a report row leads with its day and type; the title comes last, where the width may cut it', async () => {
    const top = reportRows(
      await rows(api, 'reports', (await labRow('reports', 'Single')).node),
    )[0]!;
    const report = single.reportsFor(TOKEN)[0]!;
    const parts = String(top.item.description).split(' · ');
    assert.ok(
      parts[0]!.includes(report.published_at.slice(0, 4)),
      `day first: ${parts.join(' · ')}`,
    );
    assert.equal(parts[1], report.report_type, `then the type: ${parts.join(' · ')}`);
    assert.equal(parts.at(-1), report.title.slice(`${report.report_type}: `.length));
  });

  it('a client row offers Sync, which syncs that client’s reports, and "Syncing…" shows only once it is confirmed', async () => {
    const client = (await rows(api, 'clients', (await labRow('clients', 'Single')).node)).find(
      (row) => row.item.contextValue === 'labData.client',
    )!;
    assert.ok(
      menuOf('labData.clients', client.item.contextValue, 'menu').includes('labData.syncReports'),
      `Sync in a client row's menu: ${menuOf('labData.clients', client.item.contextValue, 'menu').join(', ')}`,
    );
    const clientId = client.node.ref!.id;
    const folder = path.join(workspaceFolder(), `client-sync-${process.pid}`);
    const statusWhileAsked: string[] = [];
    const prompts = new (class extends FakePrompts {
      override async pickOne(
        title: string,
        placeHolder: string,
        choices: Parameters<FakePrompts['pickOne']>[2],
        allowAny: boolean,
      ): Promise<string | null | undefined> {
        await super.pickOne(title, placeHolder, choices, allowAny);
        return /Sync/.test(title) ? '' : undefined;
      }
      override async confirm(message: string, detail: string): Promise<boolean> {
        statusWhileAsked.push(api.statusText());
        return super.confirm(message, detail);
      }
    })();
    prompts.folderAnswers.push(vscode.Uri.file(folder));
    const restore = api.setPrompts(prompts);
    single.takeRequests();
    try {
      const summary = await vscode.commands.executeCommand<SyncSummary>(
        'labData.syncReports',
        client.node,
      );
      const lists = single.takeRequests().filter((request) => request.path.endsWith('/reports'));
      assert.ok(lists.length > 0);
      assert.ok(
        lists.every((request) => request.query.client_id === clientId),
        `only the client's reports are listed: ${JSON.stringify(lists.map((r) => r.query))}`,
      );
      const ofClient = single.reportsFor(TOKEN).filter((report) => report.client_id === clientId);
      assert.equal(summary?.listed, ofClient.length);
      assert.equal(prompts.confirmAsked.length, 1);
      assert.match(prompts.confirmAsked[0]!.message, /reports of .* at Single into /);
      assert.deepEqual(statusWhileAsked, ['$(beaker) 2 of 2 labs signed in']);
    } finally {
      restore();
      await fs.rm(folder, { recursive: true, force: true });
    }
  });

  it('a double-click on a report row keeps its preview tab; a click leaves a preview tab', async () => {
    const node = reportRows(
      await rows(api, 'reports', (await labRow('reports', LONG_NAME)).node),
    ).find((row) => row.item.contextValue === 'labData.report.downloadable')!.node;
    const tab = () =>
      vscode.window.tabGroups.all
        .flatMap((group) => group.tabs)
        .find((candidate) => candidate.label.startsWith(node.ref!.id));
    await vscode.commands.executeCommand('labData.previewReport', node);
    assert.equal(tab()?.isPreview, true, 'one click: a preview tab');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // The first open's double-click window over: the next two runs are a double-click of their own.
    await new Promise((resolve) => setTimeout(resolve, DOUBLE_CLICK_MS + 100));
    // Two runs of the row's command in quick succession, as VS Code makes of a double-click.
    await Promise.all([
      vscode.commands.executeCommand('labData.previewReport', node),
      vscode.commands.executeCommand('labData.previewReport', node),
    ]);
    await eventually(() => assert.equal(tab()?.isPreview, false, 'a double-click: kept'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('two labs that share a long name stay told apart on their rows: the bracketed end Add Lab gives the second is kept', () => {
    assert.equal(shownLabName('Meridian Analytical Laboratories'), 'Meridian Analytic…');
    assert.equal(shownLabName('Meridian Analytical Laboratories (2)'), 'Meridian Anal… (2)');
    assert.ok(
      [...shownLabName('Meridian Analytical Laboratories (2)')].length <= SHOWN_LAB_NAME_LENGTH,
    );
    assert.equal(shownLabName('Harbor (2)'), 'Harbor (2)');
  });

  it('a long-named unreachable lab says "unreachable" before its name is cut, once, and offers Check Connection', async () => {
    await meridian.stop();
    await vscode.commands.executeCommand('labData.refresh');
    const row = await eventually(async () => {
      const found = await labRow('reports', LONG_NAME);
      assert.match(String(found.item.description), /^unreachable · /);
      return found;
    });
    assert.ok(row.label.length <= 18, `the name shown is short enough: "${row.label}"`);
    assert.ok(LONG_NAME.startsWith(row.label.replace(/…$/, '')), row.label);
    assert.match(
      row.item.accessibilityInformation!.label,
      new RegExp(`^Lab ${LONG_NAME}, unreachable`),
    );
    assert.ok(String(row.item.tooltip).startsWith(LONG_NAME), String(row.item.tooltip));
    for (const where of ['inline', 'menu'] as const) {
      assert.ok(
        menuOf('labData.reports', row.item.contextValue, where).includes('labData.checkConnection'),
        `Check Connection (${where}) on the unreachable lab's row`,
      );
    }
    assert.ok(
      menuOf('labData.reports', row.item.contextValue, 'menu').includes('labData.signOut'),
      'still signed in: Sign Out stays',
    );
    const mark = (await rows(api, 'reports', row.node))[0]!;
    assert.equal(mark.label, 'Unreachable: the rows below may be out of date');
    assert.ok(
      menuOf('labData.reports', mark.item.contextValue, 'inline').includes(
        'labData.checkConnection',
      ),
      'Check Connection on the "Unreachable" row',
    );
    const spokenMark = mark.item.accessibilityInformation!.label;
    assert.doesNotMatch(spokenMark, /Unreachable: Unreachable/, spokenMark);
    assert.doesNotMatch(String(mark.item.tooltip), /\.\./, String(mark.item.tooltip));
    await eventually(() => assert.equal(api.statusText(), '$(warning) 1 of 2 labs unreachable'));
  });
});
