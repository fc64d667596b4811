import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import type { LabNode } from '../../src/views/nodes';
import { renderImageOnlyPdf } from '../mock/pdf';
import { MULTI_PAGE_COUNT, type MockLabServer } from '../mock/server';
import { FakePrompts, eventually, workspaceFolder, signedInLab, type SignedInLab } from './helpers';
import { DOUBLE_CLICK_MS } from '../../src/commands/rowOpens';

const DEMO_TOKEN = 'demo-full-access';

describe('previewing reports inside VS Code', () => {
  let api: LabDataExtensionApi;
  let lab: MockLabServer;
  let labName: string;
  let signedIn: SignedInLab;

  before(async () => {
    signedIn = await signedInLab({ reports: 60, token: DEMO_TOKEN });
    ({ api, lab, name: labName } = signedIn);
    await fs.rm(path.join(workspaceFolder(), 'lab-reports'), { recursive: true, force: true });
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await fs.rm(path.join(workspaceFolder(), 'preview-sample.pdf'), { force: true });
    await fs.rm(path.join(workspaceFolder(), 'scanned-report.pdf'), { force: true });
    await signedIn.close();
  });

  it('previews a one-page report without saving anything, resolving with its page count once page 1 is drawn', async () => {
    const report = lab
      .reportsFor(DEMO_TOKEN)
      .find(
        (candidate) =>
          candidate.download_available && candidate.report_id !== lab.multiPageReportId,
      )!;
    const started = Date.now();
    const result = await vscode.commands.executeCommand('labData.previewReport', {
      id: report.report_id,
    });
    const elapsed = Date.now() - started;
    assert.deepEqual(result, { pages: 1 });
    const uri = api.previews.uriOf(labName, report.report_id);
    console.log(
      `[preview] ${report.report_id} (1 page): command to first page ${elapsed} ms (editor opened to page 1 drawn: ${api.previews.state(uri)!.firstPageMs} ms)`,
    );
    const state = api.previews.state(uri)!;
    assert.equal(state.status, 'shown');
    assert.equal(state.painted, true, 'page 1 has drawn pixels');
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab!;
    assert.equal(tab.label, `${report.report_id} (preview)`);
    assert.ok(
      tab.input instanceof vscode.TabInputCustom && tab.input.viewType === 'labData.pdfPreview',
    );
    assert.equal(tab.isPreview, true, 'a preview tab, like a single click in Explorer');
    await assert.rejects(
      fs.stat(path.join(workspaceFolder(), 'lab-reports')),
      'nothing was written to the workspace',
    );
  });

  it('a preview tab opened from its address alone (as VS Code restores one after a window reload) fetches its report again, or says why in place with "Preview Again", which draws it', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    try {
      const [first, second] = lab
        .reportsFor(DEMO_TOKEN)
        .filter(
          (candidate) =>
            candidate.download_available && candidate.report_id !== lab.multiPageReportId,
        )
        .slice(3, 5);
      // The lab answers: the report is fetched again and drawn (nothing was held for this address).
      const restored = api.previews.uriOf(labName, first!.report_id);
      await vscode.commands.executeCommand('vscode.openWith', restored, 'labData.pdfPreview');
      await eventually(() => {
        const state = api.previews.state(restored);
        assert.equal(state?.status, 'shown', JSON.stringify(state));
        assert.equal(state?.painted, true, 'page 1 has drawn pixels');
      }, 30_000);
      // The lab refuses it this once: the tab says why, offers "Preview Again" (no error page), and one press draws it.
      lab.setFaults({ status: { status: 403, times: 1, path: /\/file$/ } });
      const offered = api.previews.uriOf(labName, second!.report_id);
      await vscode.commands.executeCommand('vscode.openWith', offered, 'labData.pdfPreview');
      const offer = await eventually(() => {
        const state = api.previews.state(offered);
        assert.equal(state?.status, 'offered', JSON.stringify(state));
        return state!.offer ?? '';
      }, 30_000);
      assert.match(
        offer,
        new RegExp(
          `^${second!.report_id} of ${labName} was open before the window reloaded, but it could not be fetched again: .+ Preview Again$`,
        ),
      );
      assert.ok(await api.previews.press(offered, 'previewAgain'), 'Preview Again pressed');
      await eventually(() => {
        const state = api.previews.state(offered);
        assert.equal(state?.status, 'shown', JSON.stringify(state));
        assert.equal(state?.painted, true, 'page 1 has drawn pixels');
      }, 30_000);
    } finally {
      lab.setFaults({});
      // The suites after this one find no preview open, whatever failed here.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it("Preview Report… asks as Find Report does: the lab's ids suggested, an unknown id said in the picker (no error), a known one previewed", async () => {
    const prompts = new FakePrompts();
    const restore = api.setPrompts(prompts);
    try {
      await vscode.commands.executeCommand('labData.findReport', {
        id: lab.reportsFor(DEMO_TOKEN)[2]!.report_id,
      });
      prompts.reportIdAnswer = 'NO-SUCH-REPORT';
      assert.equal(
        await vscode.commands.executeCommand('labData.previewReport'),
        undefined,
        'no rejection: the picker said it',
      );
      // The only lab is named too: the title reads the same once a second lab is added.
      assert.equal(prompts.reportIdAsked[0]!.title, `Lab Data: Preview Report — ${labName}`);
      assert.match(
        prompts.reportIdAsked[0]!.problem ?? '',
        /has no report "NO-SUCH-REPORT"\. Report ids look like RPT-/,
      );
      assert.ok(
        prompts.reportIdSuggested[0]!.some(
          (choice) => choice.id === lab.reportsFor(DEMO_TOKEN)[2]!.report_id,
        ),
        'a recently found id is suggested',
      );
      const report = lab
        .reportsFor(DEMO_TOKEN)
        .find(
          (candidate) =>
            candidate.download_available && candidate.report_id !== lab.multiPageReportId,
        )!;
      prompts.reportIdAnswer = report.report_id;
      assert.deepEqual(await vscode.commands.executeCommand('labData.previewReport'), { pages: 1 });
      assert.equal(prompts.reportIdAsked[1]!.problem, undefined);
    } finally {
      restore();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('previews the 60-page report as fast, drawing only pages near the view; navigation, zoom and search work', async () => {
    const id = lab.multiPageReportId!;
    const started = Date.now();
    assert.deepEqual(await vscode.commands.executeCommand('labData.previewReport', { id }), {
      pages: MULTI_PAGE_COUNT,
    });
    const uri = api.previews.uriOf(labName, id);
    console.log(
      `[preview] ${id} (${MULTI_PAGE_COUNT} pages): command to first page ${Date.now() - started} ms (editor opened to page 1 drawn: ${api.previews.state(uri)!.firstPageMs} ms)`,
    );
    const atStart = await api.previews.ask(uri, { type: 'getState' });
    assert.ok(
      atStart.drawn!.length < 6,
      `only the first pages are drawn (${atStart.drawn!.join(', ')})`,
    );

    const at30 = await api.previews.ask(uri, { type: 'goto', page: 30 });
    assert.equal(at30.page, 30);
    assert.ok(at30.drawn!.includes(30));
    const atEnd = await api.previews.ask(uri, { type: 'goto', page: MULTI_PAGE_COUNT });
    assert.equal(atEnd.page, MULTI_PAGE_COUNT);
    assert.ok(atEnd.drawn!.length <= 12, `at most 12 pages stay drawn (${atEnd.drawn!.length})`);

    const found = await api.previews.ask(uri, { type: 'find', query: 'annex 45, row' });
    assert.equal(found.matches, 30, 'every row of page 45 matches');
    assert.equal(found.matchIndex, 0);
    assert.equal(found.page, 45, 'the first match is shown');
    const next = await api.previews.ask(uri, { type: 'findNext' });
    assert.equal(next.matchIndex, 1);
    const back = await api.previews.ask(uri, { type: 'findPrevious' });
    assert.equal(back.matchIndex, 0);
    const wrapped = await api.previews.ask(uri, { type: 'find', query: 'shall not be reproduced' });
    assert.equal(wrapped.matches, 1, 'a phrase broken over two lines is found');
    assert.equal(wrapped.page, 1);
    const none = await api.previews.ask(uri, { type: 'find', query: 'no such words anywhere' });
    assert.equal(none.matches, 0);

    const fit = await api.previews.ask(uri, { type: 'zoom', value: 'page-fit' });
    assert.equal(fit.zoom, 'page-fit');
    const doubled = await api.previews.ask(uri, { type: 'zoom', value: '200' });
    assert.equal(doubled.zoom, '200');
    // Two requests at once, while the viewer also reports unasked (the pages a zoom scrolls to):
    // each gets its own answer, never the first state that comes.
    const [fitAgain, half] = await Promise.all([
      api.previews.ask(uri, { type: 'zoom', value: 'page-fit' }),
      api.previews.ask(uri, { type: 'zoom', value: '50' }),
    ]);
    assert.equal(fitAgain.zoom, 'page-fit');
    assert.equal(half.zoom, '50');
  });

  it("Show the Report's Text opens the previewed report's text, page by page, as a read-only plain-text document naming the report", async () => {
    const report = lab
      .reportsFor(DEMO_TOKEN)
      .find(
        (candidate) =>
          candidate.download_available && candidate.report_id !== lab.multiPageReportId,
      )!;
    await vscode.commands.executeCommand('labData.previewReport', { id: report.report_id });
    const preview = api.previews.uriOf(labName, report.report_id);
    await eventually(() => assert.equal(api.previews.state(preview)?.hasText, true), 20_000);
    // From the palette or the title bar: no argument, the active preview.
    const uri = await vscode.commands.executeCommand<vscode.Uri>('labData.showReportText');
    assert.equal(uri.scheme, 'labdata-text');
    assert.equal(path.posix.basename(uri.path), `${report.report_id} (text).txt`);
    const editor = vscode.window.activeTextEditor!;
    assert.equal(editor.document.uri.toString(), uri.toString(), 'the text is the active editor');
    assert.equal(editor.document.languageId, 'plaintext');
    const text = editor.document.getText();
    const lines = text.split('\n');
    assert.equal(
      lines[0],
      `The text of ${report.report_id}, as its PDF holds it (1 pages).`,
      'the first line names the report',
    );
    assert.equal(lines[2], '--- Page 1 of 1 ---');
    // The generated report's own lines, one per line, in order.
    assert.equal(lines[4], `${report.report_type} - ${report.report_id}`, text);
    const broken = lines.findIndex((line) => line.endsWith('This report shall not be'));
    assert.ok(broken > 4, `the sentence broken over two lines is there:\n${text}`);
    assert.equal(
      lines[broken + 1],
      'reproduced except in full without the written approval of the laboratory.',
    );
    assert.equal(
      editor.document.isUntitled,
      false,
      'a provided document: closing it never asks to save',
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a PDF of images only (a scan) says it has no text layer: in the viewer, and in its text document', async () => {
    const file = vscode.Uri.file(path.join(workspaceFolder(), 'scanned-report.pdf'));
    await fs.writeFile(file.fsPath, renderImageOnlyPdf());
    try {
      await vscode.commands.executeCommand('vscode.openWith', file, 'labData.pdfPreview');
      const state = await eventually(() => {
        const current = api.previews.state(file);
        assert.equal(current?.status, 'shown');
        assert.equal(current.hasText, false);
        return current;
      }, 20_000);
      assert.equal(state.painted, true, 'the image is drawn');
      const uri = await vscode.commands.executeCommand<vscode.Uri>('labData.showReportText', file);
      assert.equal(path.posix.basename(uri.path), 'scanned-report.pdf (text).txt');
      const document = await vscode.workspace.openTextDocument(uri);
      assert.equal(
        document.getText(),
        'scanned-report.pdf has no text layer: its pages are images (a scan, for example), so there is no text to show. The preview shows its pages.\n',
      );
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('a damaged PDF shows an error inside the viewer and the command rejects with the reason', async () => {
    const report = lab
      .reportsFor(DEMO_TOKEN)
      .filter((candidate) => candidate.download_available)[3]!;
    lab.setFaults({ corruptPdf: { times: 1 } });
    await assert.rejects(
      Promise.resolve(
        vscode.commands.executeCommand('labData.previewReport', { id: report.report_id }),
      ),
      /damaged or incomplete/,
    );
    const state = api.previews.state(api.previews.uriOf(labName, report.report_id))!;
    assert.equal(state.status, 'error');
    assert.ok(state.error);
  });

  it('a password-protected PDF asks for the password, again after a wrong one, and opens with the right one', async () => {
    const prompts = new FakePrompts();
    const restore = api.setPrompts(prompts);
    try {
      const [first, second] = lab
        .reportsFor(DEMO_TOKEN)
        .filter((candidate) => candidate.download_available)
        .slice(4, 6)
        .map((report) => report.report_id);
      lab.setFaults({ protectPdf: { times: 1, password: 'lab-secret' } });
      prompts.passwordAnswers.push('not it', 'lab-secret');
      assert.deepEqual(
        await vscode.commands.executeCommand('labData.previewReport', { id: first }),
        { pages: 1 },
      );
      assert.deepEqual(prompts.passwordAsked, [
        { name: first, incorrect: false },
        { name: first, incorrect: true },
      ]);
      lab.setFaults({ protectPdf: { times: 1, password: 'lab-secret' } });
      prompts.passwordAnswers.push(undefined);
      await assert.rejects(
        Promise.resolve(vscode.commands.executeCommand('labData.previewReport', { id: second })),
        /protected by a password/,
      );
      assert.equal(api.previews.state(api.previews.uriOf(labName, second!))?.status, 'error');
    } finally {
      restore();
      lab.setFaults({});
    }
  });

  it('a row click whose preview fails says why once: the command resolves, so VS Code shows no second notification', async () => {
    const nodes = (await api.views.reports.getChildren()) as LabNode[];
    const items = await Promise.all(
      nodes.map(async (node) => await api.views.reports.getTreeItem(node)),
    );
    const click = items.find(
      (item) => item.contextValue === 'labData.report.downloadable',
    )!.command!;
    const shown: string[] = [];
    const window = vscode.window as { showErrorMessage: (...args: unknown[]) => Thenable<unknown> };
    const original = window.showErrorMessage;
    window.showErrorMessage = (message: unknown) => {
      shown.push(String(message));
      return Promise.resolve(undefined);
    };
    try {
      lab.setFaults({ notPdf: { times: 1 } });
      // A rejection from a row's command is shown by VS Code as a second, identical notification.
      assert.equal(
        await vscode.commands.executeCommand(click.command, ...(click.arguments ?? [])),
        undefined,
      );
      assert.equal(shown.length, 1, `one notification: ${JSON.stringify(shown)}`);
      lab.setFaults({ notPdf: { times: 1 } });
      const id = items.find((item) => item.contextValue === 'labData.report.downloadable')!.label;
      await assert.rejects(
        Promise.resolve(vscode.commands.executeCommand('labData.previewReport', { id })),
        'a caller of its own still gets the reason',
      );
    } finally {
      window.showErrorMessage = original;
      lab.setFaults({});
    }
  });

  it('a report row previews on a click; a saved PDF opens with "Open With… Lab Data PDF Preview"', async () => {
    const nodes = (await api.views.reports.getChildren()) as LabNode[];
    const row = await Promise.all(
      nodes.map(async (node) => ({ node, item: await api.views.reports.getTreeItem(node) })),
    );
    const downloadable = row.find(
      ({ item }) => item.contextValue === 'labData.report.downloadable',
    )!;
    assert.equal(downloadable.item.command?.command, 'labData.previewReport');
    // A click on the row the test before clicked, after the tool's double-click window: a click of its own.
    await new Promise((resolve) => setTimeout(resolve, DOUBLE_CLICK_MS + 100));
    const clicked = await vscode.commands.executeCommand(
      downloadable.item.command!.command,
      ...(downloadable.item.command!.arguments ?? []),
    );
    assert.deepEqual(clicked, { pages: 1 });

    const file = vscode.Uri.file(path.join(workspaceFolder(), 'preview-sample.pdf'));
    await fs.writeFile(file.fsPath, lab.pdfFor(lab.multiPageReportId!));
    await vscode.commands.executeCommand('vscode.openWith', file, 'labData.pdfPreview');
    const shown = await eventually(() => {
      const state = api.previews.state(file);
      assert.equal(state?.status, 'shown');
      return state!;
    }, 20_000);
    assert.equal(shown.pages, MULTI_PAGE_COUNT);
  });

  it("a PDF opened as the Explorer or Quick Open opens it shows in Lab Data's preview, and Open With still offers the text editor", async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const file = vscode.Uri.file(path.join(workspaceFolder(), 'preview-sample.pdf'));
    await fs.writeFile(file.fsPath, lab.pdfFor(lab.multiPageReportId!));
    // What a click in the Explorer and Quick Open run: the editor the user's associations choose.
    await vscode.commands.executeCommand('vscode.open', file);
    const tab = await eventually(() => {
      const active = vscode.window.tabGroups.activeTabGroup.activeTab;
      assert.ok(active?.input instanceof vscode.TabInputCustom, 'a custom editor, not the text');
      return active.input;
    }, 20_000);
    assert.equal(tab.viewType, 'labData.pdfPreview');
    assert.equal(tab.uri.toString(), file.toString());
    await eventually(() => assert.equal(api.previews.state(file)?.status, 'shown'), 20_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('vscode.openWith', file, 'default');
    await eventually(() => {
      const active = vscode.window.tabGroups.activeTabGroup.activeTab;
      assert.ok(active?.input instanceof vscode.TabInputText, 'Open With… → Text Editor');
    }, 20_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
