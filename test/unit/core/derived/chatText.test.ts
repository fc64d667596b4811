import { registerSecret, serverText } from '../../../../core/errors/serverText';
import * as assert from 'node:assert/strict';
import {
  reportLine,
  saveConfirmation,
  sampleLine,
  toolLimit,
  toolList,
} from '../../../../core/derived/chatText';
import { parseReport, parseSample } from '../../../../core/api/records';
import { SECRET_TOKEN } from '../../helpers';

describe('chat tool text', () => {
  it('makes server text one safe line: no controls, no bidi overrides, capped', () => {
    assert.equal(serverText('a\nb\r\n\tc\u0000d'), 'a b c d');
    assert.equal(serverText('evil\u202Egnp.exe\u2066x\u2069'), 'evilgnp.exex');
    assert.equal(serverText('x'.repeat(300), 10), `${'x'.repeat(9)}…`);
    assert.equal(serverText(42), '42');
    assert.equal(serverText({ an: 'object' }), '');
  });

  it('bounds limit to 1–50 with a default of 20', () => {
    assert.equal(toolLimit(undefined), 20);
    assert.equal(toolLimit(5), 5);
    assert.equal(toolLimit(500), 50);
    assert.equal(toolLimit(0), 1);
    assert.equal(toolLimit(7.9), 7);
    assert.throws(() => toolLimit('ten'), /limit/);
  });

  it('writes a report and a sample as the fields a person asks about', () => {
    const report = parseReport({
      report_id: 'RPT-1',
      report_type: 'Certificate of Analysis',
      title: 'Water\nsurvey',
      client_id: 'C-1',
      project_id: 'P-2',
      status: 'amended',
      published_at: '2026-11-20T13:50:12Z',
      download_available: true,
    })!;
    assert.equal(
      reportLine(report),
      'RPT-1 · Certificate of Analysis · "Water survey" · client C-1 · project P-2 · amended · published 2026-11-20 13:50 UTC · PDF available',
    );
    assert.equal(
      reportLine(parseReport({ report_id: 'RPT-2', download_available: false })!),
      'RPT-2 · no PDF',
    );
    const sample = parseSample({
      sample_id: 'S-9',
      sample_name: 'Well 4',
      matrix: 'Water',
      status: 'received',
      received_at: '2026-11-19T08:00:00Z',
    })!;
    assert.equal(
      sampleLine(sample),
      'S-9 · Well 4 · Water · received · received 2026-11-19 08:00 UTC',
    );
  });

  it('says "Showing N of M" and marks the JSON truncated only when there were more', () => {
    const records = [1, 2, 3].map((n) => parseReport({ report_id: `R-${n}` })!);
    const all = toolList('Lab', 'Reports:', records, reportLine, 20, 3, false);
    assert.equal(
      all.text,
      'Reports:\n- R-1 · PDF available\n- R-2 · PDF available\n- R-3 · PDF available',
    );
    assert.deepEqual(all.json, {
      lab: 'Lab',
      count: 3,
      total: 3,
      truncated: false,
      records: [{ report_id: 'R-1' }, { report_id: 'R-2' }, { report_id: 'R-3' }],
    });
    const some = toolList('Lab', 'Reports:', records, reportLine, 2, 14, true);
    assert.match(some.text, /\n- R-2 · PDF available\nShowing 2 of 14$/);
    assert.equal(some.json.truncated, true);
    assert.equal(some.json.total, 14);
    assert.equal(some.json.records.length, 2);
    const unknown = toolList('Lab', 'Reports:', records, reportLine, 3, undefined, true);
    assert.match(unknown.text, /Showing 3; more available$/);
    assert.equal('total' in unknown.json, false);
    assert.match(toolList('Lab', 'Reports:', [], reportLine, 3, 0, false).text, /None found\.$/);
  });

  it('asks before saving, naming the reports, the lab and the folder', () => {
    assert.deepEqual(saveConfirmation(['RPT-1'], 'Meridian', 'lab-reports'), {
      title: 'Save a report PDF?',
      message:
        'Save the PDF of report RPT-1 from Meridian into lab-reports in your workspace. An existing file is never replaced without asking.',
    });
    const many = saveConfirmation(
      Array.from({ length: 12 }, (_, n) => `R-${n}`),
      'Beta\u202E',
      'lab-reports',
    );
    assert.equal(many.title, 'Save 12 report PDFs?');
    assert.match(many.message, /R-0, R-1, .*R-9 and 2 more from Beta into/);
  });
});

describe('chat tool text from hostile records', () => {
  it('request ids from headers and bodies, names and ids in records are sanitised where they are shown', async () => {
    // The token the records were asked with is known to the sanitiser, as a LabApi made with it
    // makes it known (this test must not lean on another file having run first in its process).
    registerSecret(SECRET_TOKEN);
    const line = reportLine(
      parseReport({
        report_id: 'R-1\u202e',
        report_type: `Type\n${SECRET_TOKEN}`,
        title: 'x'.repeat(500),
      })!,
    );
    assert.ok(
      !line.includes(SECRET_TOKEN) && !line.includes('\n') && !line.includes('\u202e'),
      line,
    );
  });
});
