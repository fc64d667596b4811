import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { MockLabServer } from '../../mock/server';
import { activateExtension, eventually, rows, startLab } from '../helpers';

/** The preview tabs the window restored. */
function previewTabs(): vscode.Uri[] {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .map((tab) => tab.input)
    .filter(
      (input): input is vscode.TabInputCustom =>
        input instanceof vscode.TabInputCustom && input.viewType === 'labData.pdfPreview',
    )
    .map((input) => input.uri);
}

/** The reload's lab: the one the main suite left configured, at its address again (that lab stopped with the host). */
async function labAgain(): Promise<MockLabServer> {
  const baseUrl = vscode.workspace
    .getConfiguration('labData')
    .inspect<string>('baseUrl')?.globalValue;
  assert.ok(baseUrl, 'the first phase left a lab configured');
  // The same data as the first phase's lab (`startLab`'s), so its report ids are there.
  return startLab({ port: Number(new URL(baseUrl).port) });
}

describe('after a window reload, the work left open', () => {
  it('a restored preview tab shows its report again, or offers "Preview Again" in place (never an error page), and one click draws it', async function () {
    this.timeout(180_000);
    const api = await activateExtension();
    const [uri] = await eventually(() => {
      const tabs = previewTabs();
      assert.ok(tabs.length > 0, 'the window restored the preview tab');
      return tabs;
    }, 30_000);
    // Restored while its lab was down (the lab of the first phase stopped with its host): the
    // preview says so in place and offers to fetch it again; VS Code's error page has no viewer.
    const first = await eventually(async () => {
      const state = api.previews.state(uri!);
      assert.ok(
        state && (state.status === 'shown' || state.status === 'offered'),
        `the restored preview shows the report or offers it again (now: ${JSON.stringify(state)})`,
      );
      return state;
    }, 60_000);
    assert.equal(first.error, undefined);
    if (first.status === 'offered') {
      assert.match(first.offer ?? '', /could not be fetched again: .+ Preview Again$/);
      const lab = await labAgain();
      try {
        // "Preview Again", as a person presses it until the lab, back, is asked again (a lab that
        // just failed is given a few seconds before it is: until then the offer says it is down).
        await eventually(async () => {
          const state = api.previews.state(uri!);
          if (state?.status === 'offered') {
            assert.ok(await api.previews.press(uri!, 'previewAgain'), 'Preview Again pressed');
          }
          assert.equal(state?.status, 'shown', JSON.stringify(state));
          assert.equal(state?.painted, true, 'page 1 has drawn pixels');
        }, 90_000);
      } finally {
        await lab.stop();
      }
    } else {
      assert.equal(first.painted, true, 'page 1 has drawn pixels');
    }
    const tab = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .find(
        (candidate) =>
          candidate.input instanceof vscode.TabInputCustom &&
          candidate.input.uri.toString() === uri!.toString(),
      );
    assert.match(tab?.label ?? '', /^RPT-.+ \(preview\)$/);
  });

  it("the Reports view's filter survived: the view shows it and lists the lab with it", async () => {
    const api = await activateExtension();
    const lab = await labAgain();
    try {
      assert.equal((await api.getState()).signedIn, true);
      lab.takeRequests();
      // One lab: its rows are the view's top level.
      const filterRow = await eventually(async () => {
        await vscode.commands.executeCommand('labData.refresh').then(undefined, () => undefined);
        const shown = await rows(api, 'reports');
        const row = shown.find(
          (candidate) => candidate.item.contextValue === 'labData.filter.reports',
        );
        assert.ok(
          row,
          `a "Filtered by" row for ${JSON.stringify((await api.getState()).labs)} among ${shown.map((one) => `${one.label} (${one.item.contextValue})`).join(', ')}`,
        );
        return row;
      }, 30_000);
      assert.match(filterRow.label, /^Filtered by: .*30 days/i);
      assert.match(filterRow.label, /status amended/);
      const listed = lab.takeRequests().filter((request) => request.path === '/api/v1/reports');
      assert.ok(listed.length > 0, 'the view listed the reports');
      listed.forEach((request) => {
        assert.equal(request.query.status, 'amended');
        assert.ok(request.query.published_since, 'published since 30 days ago');
      });
    } finally {
      await lab.stop();
    }
  });
});
