import * as assert from 'node:assert/strict';
import { ConnectionReportDocuments } from '../../src/documents/connectionReports';
import { ReportTextDocuments } from '../../src/documents/reportTexts';

/** The one store of texts the extension writes (src/documents/keptTexts.ts), through both of its documents. */
describe('kept text documents', () => {
  it("a connection report replaces its lab's last one, tells an open tab, and the oldest beyond 20 reads as no longer kept", () => {
    const reports = new ConnectionReportDocuments();
    try {
      const changed: string[] = [];
      reports.onDidChange((uri) => changed.push(uri.toString()));
      const first = reports.show('Lab 0', 'first check');
      assert.equal(reports.provideTextDocumentContent(first), 'first check');
      assert.equal(reports.show('Lab 0', 'second check').toString(), first.toString());
      assert.equal(reports.provideTextDocumentContent(first), 'second check');
      for (let lab = 1; lab <= 20; lab++) {
        reports.show(`Lab ${lab}`, `check of lab ${lab}`);
      }
      assert.match(reports.provideTextDocumentContent(first), /no longer kept.*Check Connection/);
      const last = reports.show('Lab 20', 'again');
      assert.equal(reports.provideTextDocumentContent(last), 'again');
      assert.equal(changed.length, 23);
      assert.equal(reports.show('a/b\\c', 'x').path, '/Check Connection - a-b-c.txt');
      assert.equal(reports.show(undefined, 'every lab').path, '/Check Connection.txt');
    } finally {
      reports.dispose();
    }
  });

  it("a report's text is kept under its name, and only the newest ten stay", () => {
    const texts = new ReportTextDocuments();
    try {
      const first = texts.add('RPT-1', ['page one']);
      assert.equal(first.scheme, 'labdata-text');
      assert.match(texts.provideTextDocumentContent(first), /RPT-1[\s\S]*page one/);
      for (let report = 2; report <= 11; report++) {
        texts.add(`RPT-${report}`, [`page of ${report}`]);
      }
      assert.match(texts.provideTextDocumentContent(first), /no longer kept/);
      assert.match(texts.provideTextDocumentContent(texts.add('RPT-11', ['again'])), /again/);
    } finally {
      texts.dispose();
    }
  });
});
