import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { BulkSummary } from '../../src/commands/saveAllReports';
import type { MockLabServer } from '../mock/server';
import {
  FakePrompts,
  LEAK_CHECK_TOKEN,
  eventually,
  labDataLogFiles,
  rows,
  signInOnly,
  workspaceFolder,
  signedInLab,
  type SignedInLab,
} from './helpers';

/** Everything the "Lab Data" log holds so far in this run. */
async function logText(): Promise<string> {
  const files = await labDataLogFiles();
  return (await Promise.all(files.map((file) => fs.readFile(file, 'utf8')))).join('\n');
}

const HOSTILE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('Save All, the trees, the log and the session when the lab misbehaves: failed writes, hostile text, a proxy’s 401', () => {
  let lab: MockLabServer;
  let api: LabDataExtensionApi;
  let signedIn: SignedInLab;
  let restore: () => void;
  let folder: string;

  before(async () => {
    signedIn = await signedInLab({ reports: 30 });
    ({ api, lab } = signedIn);
    folder = path.join(workspaceFolder(), 'lab-reports');
  });

  beforeEach(() => {
    restore = api.setPrompts(new FakePrompts());
    lab.setFaults({});
  });

  afterEach(() => restore());

  after(async () => {
    await fs.rm(folder, { recursive: true, force: true });
    await signedIn.close();
  });

  it('a write that fails is a failure, in plain words, counted as failed (not cancelled), and the file in the way is untouched', async () => {
    await fs.rm(folder, { recursive: true, force: true });
    await fs.writeFile(folder, 'not a folder');
    const summary = await vscode.commands.executeCommand<BulkSummary | undefined>(
      'labData.saveAllReports',
    );
    assert.ok(summary, 'the run finished with a summary');
    assert.equal(summary.saved, 0);
    assert.equal(summary.cancelled, false, 'a failed write is never "cancelled"');
    assert.ok(summary.failed > 0);
    assert.equal(
      summary.failed + summary.skipped,
      summary.listed,
      'every report is failed (or skipped for having no file), none cancelled',
    );
    assert.equal(await fs.readFile(folder, 'utf8'), 'not a folder');
    await eventually(async () =>
      assert.match(await logText(), /A file stands where a folder should be in/),
    );
    await fs.rm(folder, { force: true });
  });

  it('hostile text in records and error bodies reaches rows, tooltips and the log as one clean line without the token', async () => {
    const report = lab.data.reports.find((r) =>
      lab.reportsFor(LEAK_CHECK_TOKEN).some((visible) => visible.report_id === r.report_id),
    )!;
    const original = report.report_type;
    report.report_type = `Assay\u202e\nfdp.exe\u0007 ${LEAK_CHECK_TOKEN}`;
    lab.dataChanged();
    try {
      await vscode.commands.executeCommand('labData.refresh');
      const row = await eventually(async () => {
        const found = (await rows(api, 'reports')).find(
          (candidate) =>
            candidate.label === report.report_id &&
            String(candidate.item.description).includes('Assay'),
        );
        assert.ok(found, 'the report row is shown, with the hostile type in its description');
        return found;
      });
      const tooltip =
        row.item.tooltip instanceof vscode.MarkdownString
          ? row.item.tooltip.value
          : String(row.item.tooltip);
      for (const text of [
        row.label,
        String(row.item.description),
        tooltip,
        row.item.accessibilityInformation?.label ?? '',
      ]) {
        assert.ok(!text.includes(LEAK_CHECK_TOKEN), `no token in ${JSON.stringify(text)}`);
        assert.doesNotMatch(text.replace(/\n/g, ' '), HOSTILE);
      }
      assert.ok(!String(row.item.description).includes('\n'));
      // Tab titles made from ids the server sent.
      const labName = (await api.getState()).labs[0]!.name;
      const title = path.posix.basename(
        api.previews.uriOf(labName, `R-1\u202e\n${LEAK_CHECK_TOKEN}`).path,
      );
      assert.ok(
        !title.includes(LEAK_CHECK_TOKEN) && !HOSTILE.test(title) && !title.includes('\n'),
        title,
      );
      // An error body that echoes the credential, with a forged line and a bidi override.
      lab.setFaults({ echoToken: true, status: { status: 400, times: 5 } });
      await vscode.commands.executeCommand('labData.openReportMetadata', report.report_id);
      const log = await eventually(async () => {
        const text = await logText();
        assert.match(text, /forged line for credential Bearer \[redacted\]/);
        return text;
      });
      assert.ok(!log.includes(LEAK_CHECK_TOKEN), 'the log never holds the token');
      assert.doesNotMatch(log, /[\u202a-\u202e\u0007]/);
    } finally {
      report.report_type = original;
      lab.dataChanged();
    }
  });

  it("a proxy's 401 keeps you signed in; only the lab's own 401 signs you out", async () => {
    const id = lab.reportsFor(LEAK_CHECK_TOKEN)[0]!.report_id;
    lab.setFaults({
      status: {
        status: 401,
        times: 1,
        headers: { 'proxy-authenticate': 'Basic realm="corporate proxy"' },
      },
    });
    await vscode.commands.executeCommand('labData.openReportMetadata', id);
    assert.equal(lab.takeRequests().at(-1)?.status, 401);
    // The 401 was judged while the command ran; getState waits for a sign-out it began to end.
    assert.equal((await api.getState()).signedIn, true, 'still signed in after the proxy refused');
    lab.setFaults({ status: { status: 401, times: 1 } });
    await vscode.commands.executeCommand('labData.openReportMetadata', id);
    // The same wait shows the sign-out the lab's own 401 does begin, with no retrying.
    assert.equal((await api.getState()).signedIn, false, "the lab's own 401 signs out");
    await signInOnly(lab.baseUrl, LEAK_CHECK_TOKEN);
    assert.equal((await api.getState()).signedIn, true);
  });
});
