import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { MockLabServer } from '../mock/server';
import { activateExtension, eventually, rows, signInOnly, startLab } from './helpers';

/** What browsing costs, counted in requests at the lab: the tree must not grow with the tenant. */
describe('performance in the extension host', () => {
  let api: LabDataExtensionApi;

  before(async () => {
    api = await activateExtension();
    // Counts below are the test's own: no visible view may fetch meanwhile.
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
  });

  /** Opens the container (the three views), expands one client and one of its projects; returns the requests each step made. */
  async function browse(lab: MockLabServer): Promise<{ opening: number; client: number; project: number }> {
    await signInOnly(lab.baseUrl, 'demo-full-access');
    await eventually(async () => assert.equal((await api.getState()).origin, new URL(lab.baseUrl).origin));
    await vscode.commands.executeCommand('labData.clearReportsFilter');
    await vscode.commands.executeCommand('labData.clearSamplesFilter');
    lab.takeRequests();
    await rows(api, 'reports');
    const clients = await rows(api, 'clients');
    await rows(api, 'samples');
    const opening = lab.takeRequests().length;
    const client = clients.find((row) => row.item.contextValue?.startsWith('labData.client'));
    assert.ok(client, 'a client row');
    const children = await rows(api, 'clients', client.node);
    const clientRequests = lab.takeRequests().length;
    const project = children.find((row) => row.item.contextValue?.startsWith('labData.project'));
    assert.ok(project, `a project row under ${client.label}`);
    await rows(api, 'clients', project.node);
    return { opening, client: clientRequests, project: lab.takeRequests().length };
  }

  it('the tree costs the same requests for a tenant of 50 reports as for one of 50,000', async function () {
    this.timeout(180_000);
    const small = await startLab({ reports: 54 });
    const large = await startLab({ reports: 54_389 });
    try {
      const tenants = [small, large].map((lab) => lab.reportsFor('demo-full-access').length);
      assert.ok(tenants[0]! >= 45 && tenants[0]! <= 60 && tenants[1]! >= 49_000, `tenants of ${tenants.join(' and ')} published reports`);
      const costs = [await browse(small), await browse(large)];
      assert.deepEqual(costs[1], costs[0], 'the same requests whatever the tenant holds');
      assert.deepEqual(costs[0], { opening: 3, client: 1, project: 1 }, 'one request per view, one per expanded row');
      const total = (cost: (typeof costs)[number]): number => cost.opening + cost.client + cost.project;
      console.log(`      tree (open, expand a client and a project): ${total(costs[0]!)} requests for ${tenants[0]} reports, ${total(costs[1]!)} for ${tenants[1]}`);
      // `npm run bench` reads these figures (with activate()'s time) from the file it names.
      if (process.env.LABDATA_BENCH_FILE) {
        const cases = [
          { case: 'activate() time', ours: `${api.activationMs.toFixed(1)} ms`, baseline: '—', ratio: '—', target: '≤ 50 ms', met: api.activationMs <= 50, details: { activationMs: api.activationMs } },
          { case: 'tree: open, expand a client and a project', ours: `${total(costs[0]!)} requests (${tenants[0]} reports), ${total(costs[1]!)} (${tenants[1]!.toLocaleString('en')})`, baseline: '—', ratio: '—', target: 'the same request count', met: total(costs[0]!) === total(costs[1]!), details: { costs, tenants } },
        ];
        await fs.mkdir(path.dirname(process.env.LABDATA_BENCH_FILE), { recursive: true });
        await fs.writeFile(process.env.LABDATA_BENCH_FILE, JSON.stringify(cases, null, 2));
      }
    } finally {
      await small.stop();
      await large.stop();
    }
  });
});
