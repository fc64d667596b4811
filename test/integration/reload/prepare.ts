import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { signedInLab } from '../helpers';

/** The Reports view's filter left before the reload, and the report left previewed (checked after it). */
const LEFT_FILTER = { status: 'amended', publishedSince: '-30d' } as const;
const TOKEN = 'demo-full-access';

/**
 * The main suite's last steps (run after every other file of it, `test/integration/index.ts`): a
 * person's work left in the window before it reloads, which `openWork.test.ts` finds again after.
 */
describe('before a window reload', () => {
  it('leaves a report previewed in the active tab and the Reports view filtered, signed in', async () => {
    const signedIn = await signedInLab({ token: TOKEN });
    const { api, lab, name } = signedIn;
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const report = lab
        .reportsFor(TOKEN)
        .find(
          (candidate) =>
            candidate.download_available && candidate.report_id !== lab.multiPageReportId,
        )!;
      await vscode.commands.executeCommand('labData.filterReports', { lab: name, ...LEFT_FILTER });
      assert.deepEqual(
        await vscode.commands.executeCommand('labData.previewReport', {
          lab: name,
          id: report.report_id,
        }),
        { pages: 1 },
      );
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      assert.ok(
        tab?.input instanceof vscode.TabInputCustom &&
          tab.input.uri.toString() === api.previews.uriOf(name, report.report_id).toString(),
        'the preview is the active tab',
      );
    } finally {
      // The sign-in and the lab's address stay for the reload; the lab itself stops with this host.
      await signedIn.close({ keepSignedIn: true });
    }
  });
});
