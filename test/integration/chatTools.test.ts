import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { MockLabServer } from '../mock/server';
import {
  LEAK_CHECK_TOKEN,
  eventually,
  workspaceFolder,
  signedInLab,
  type SignedInLab,
} from './helpers';

interface ToolAnswer {
  readonly text: string;
  readonly json?: {
    lab: string;
    count?: number;
    total?: number;
    truncated?: boolean;
    records?: Array<Record<string, unknown>>;
    record?: Record<string, unknown>;
    saved?: string[];
  };
}

/** Calls a tool as chat would (no chat model is needed) and reads its text parts: the lines, then the JSON. */
async function invoke(name: string, input: object): Promise<ToolAnswer> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  const parts = result.content
    .filter(
      (part): part is vscode.LanguageModelTextPart => part instanceof vscode.LanguageModelTextPart,
    )
    .map((part) => part.value);
  assert.ok(parts.length >= 1, `${name} answered with text`);
  const all = parts.join('\n');
  assert.ok(!all.includes(LEAK_CHECK_TOKEN), 'no token in a tool result');
  return { text: parts[0]!, json: parts[1] === undefined ? undefined : JSON.parse(parts[1]) };
}

describe('asking the lab from chat (language-model tools)', () => {
  let api: LabDataExtensionApi;
  let lab: MockLabServer;
  let signedIn: SignedInLab;

  before(async () => {
    signedIn = await signedInLab({ reports: 120 });
    ({ api, lab } = signedIn);
  });

  after(async () => {
    await fs.rm(path.join(workspaceFolder(), 'lab-reports'), { recursive: true, force: true });
    await signedIn.close();
  });

  it('declares the four tools for chat, referencable in prompts', () => {
    const names = vscode.lm.tools
      .filter((tool) => tool.name.startsWith('labData_'))
      .map((tool) => tool.name)
      .sort();
    assert.deepEqual(names, [
      'labData_getReport',
      'labData_listSamples',
      'labData_saveReportPdf',
      'labData_searchReports',
    ]);
    for (const tool of vscode.lm.tools.filter((candidate) =>
      candidate.name.startsWith('labData_'),
    )) {
      assert.ok(tool.description.length > 80, `${tool.name} tells the model what it returns`);
      assert.ok(tool.inputSchema, `${tool.name} has an input schema`);
    }
  });

  it('searchReports returns the newest reports, respects limit, and says "Showing N of M"', async () => {
    const expected = lab.reportsFor(LEAK_CHECK_TOKEN);
    const five = await invoke('labData_searchReports', { limit: 5 });
    const lines = five.text.split('\n');
    assert.equal(lines.filter((line) => line.startsWith('- ')).length, 5);
    assert.equal(lines.at(-1), `Showing 5 of ${expected.length}`);
    assert.deepEqual(
      five.json?.records?.map((record) => record.report_id),
      expected.slice(0, 5).map((report) => report.report_id),
    );
    assert.equal(five.json?.total, expected.length);
    assert.equal(five.json?.truncated, true);
    assert.match(lines[1]!, new RegExp(`^- ${expected[0]!.report_id} · `));

    const amended = expected.filter((report) => report.status === 'amended');
    const filtered = await invoke('labData_searchReports', { status: 'amended', limit: 50 });
    assert.deepEqual(
      filtered.json?.records?.map((record) => record.report_id),
      amended.slice(0, 50).map((report) => report.report_id),
    );
    assert.equal(filtered.json?.truncated, amended.length > 50);

    const capped = await invoke('labData_searchReports', { limit: 500 });
    assert.equal(capped.json?.records?.length, 50, 'at most 50 records, whatever is asked');
    const byDefault = await invoke('labData_searchReports', {});
    assert.equal(byDefault.json?.records?.length, 20, '20 by default');

    const recent = await invoke('labData_searchReports', { publishedSince: '-30d', limit: 50 });
    const cutoff = Date.now() - 30 * 86_400_000;
    assert.ok(
      recent.json!.records!.every(
        (record) => Date.parse(String(record.published_at)) >= cutoff - 5000,
      ),
      'relative dates work in chat too',
    );
  });

  it('getReport and listSamples return the right records', async () => {
    const report = lab.reportsFor(LEAK_CHECK_TOKEN)[7]!;
    const one = await invoke('labData_getReport', { id: report.report_id });
    assert.equal(one.json?.record?.report_id, report.report_id);
    assert.match(one.text, new RegExp(`${report.report_id} · ${report.report_type}`));
    const missing = await invoke('labData_getReport', { id: 'RPT-1999-000001' });
    assert.match(missing.text, /has no report "RPT-1999-000001"/);

    const samples = await invoke('labData_listSamples', { limit: 3 });
    assert.equal(samples.json?.records?.length, 3);
    assert.match(samples.text, /Showing 3 of \d+$/);
    assert.equal(samples.text.split('\n').filter((line) => line.startsWith('- ')).length, 3);
  });

  it('saveReportPdf saves the files and returns their paths', async () => {
    const ids = lab
      .reportsFor(LEAK_CHECK_TOKEN)
      .filter((report) => report.download_available)
      .slice(0, 2)
      .map((report) => report.report_id);
    await fs.rm(path.join(workspaceFolder(), 'lab-reports'), { recursive: true, force: true });
    const saved = await invoke('labData_saveReportPdf', { ids });
    assert.deepEqual(saved.json?.saved?.sort(), ids.map((id) => `lab-reports/${id}.pdf`).sort());
    for (const id of ids) {
      assert.ok((await fs.stat(path.join(workspaceFolder(), 'lab-reports', `${id}.pdf`))).size > 0);
    }
    assert.match(saved.text, /^Saved 2 of 2 report PDF\(s\)/);
  });

  it('fails politely: bad input, an unknown lab, and when signed out', async () => {
    assert.match(
      (await invoke('labData_searchReports', { limit: 'ten' })).text,
      /limit must be a number/,
    );
    assert.match(
      (await invoke('labData_searchReports', { publishedSince: 'last tuesday' })).text,
      /not an ISO 8601 date/,
    );
    assert.match((await invoke('labData_getReport', {})).text, /"id" is required/);
    assert.match((await invoke('labData_saveReportPdf', { ids: [] })).text, /1 to 50 report ids/);
    assert.match(
      (await invoke('labData_searchReports', { lab: 'Nowhere' })).text,
      /There is no lab named "Nowhere"/,
    );
    lab.setFaults({ status: { status: 429, times: 1, retryAfter: '3600' } });
    assert.match(
      (await invoke('labData_searchReports', {})).text,
      /^The lab is limiting requests until \d{4}-\d{2}-\d{2}T[\d:.]+Z; try again after that\.$/,
    );
    lab.setFaults({});
    await vscode.commands.executeCommand('labData.signOut', {});
    await eventually(async () => assert.equal((await api.getState()).signedIn, false));
    const calls = api.newReports.toolCalls();
    for (const tool of [
      'labData_searchReports',
      'labData_getReport',
      'labData_listSamples',
      'labData_saveReportPdf',
    ]) {
      const answer = await invoke(
        tool,
        tool === 'labData_getReport'
          ? { id: 'RPT-1' }
          : tool === 'labData_saveReportPdf'
            ? { ids: ['RPT-1'] }
            : {},
      );
      assert.match(
        answer.text,
        /Not signed in to any lab\. Ask the user to run "Lab Data: Sign In" first\./,
        tool,
      );
    }
    assert.equal(api.newReports.toolCalls(), calls + 4);
  });
});
