import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  MAX_FILE_NAME_BYTES,
  MAX_TEMPLATE_FOLDERS,
  foldedFileName,
  relativePathProblem,
  renderFileName,
  sanitizeFileName,
} from '../../../../core/files/fileNames';

describe('file names', () => {
  const hostile = [
    '../../x',
    '..\\x',
    '/etc/passwd',
    'C:\\x',
    'CON',
    'con.pdf',
    'LPT1.txt',
    'a\u0000b',
    'evil\u202Efdp.exe',
    'x'.repeat(300),
    '',
    '.',
    '..',
    'name. . ',
    ' lead',
    'a/b\\c:d*e?f"g<h>i|j',
    '\u0007bell',
    '.hidden',
  ];

  it('never lets a hostile name leave the folder or be unusable on any OS', () => {
    const folder = path.resolve('/tmp/lab-reports');
    for (const name of hostile) {
      const safe = sanitizeFileName(name);
      assert.ok(safe.length > 0, JSON.stringify(name));
      assert.ok(!/[\\/:*?"<>|\u0000-\u001f\u202e]/.test(safe), `${JSON.stringify(name)} → ${safe}`);
      assert.ok(
        safe !== '.' && safe !== '..' && !safe.startsWith('.'),
        `${JSON.stringify(name)} → ${safe}`,
      );
      assert.ok(!/[. ]$/.test(safe), `${JSON.stringify(name)} → ${safe}`);
      assert.ok(
        !/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i.test(safe),
        `${JSON.stringify(name)} → ${safe}`,
      );
      assert.ok(Buffer.byteLength(safe) <= MAX_FILE_NAME_BYTES);
      assert.equal(
        path.dirname(path.join(folder, safe)),
        folder,
        `${JSON.stringify(name)} → ${safe}`,
      );
    }
  });

  it('keeps ordinary names and the extension of long ones', () => {
    assert.equal(sanitizeFileName('RPT-2024-000123.pdf'), 'RPT-2024-000123.pdf');
    assert.equal(
      sanitizeFileName('Certificate of Analysis – Wasser.pdf'),
      'Certificate of Analysis – Wasser.pdf',
    );
    const long = sanitizeFileName(`${'é'.repeat(300)}.pdf`);
    assert.ok(long.endsWith('.pdf'));
    assert.ok(Buffer.byteLength(long) <= MAX_FILE_NAME_BYTES);
    assert.equal(sanitizeFileName('', 'fallback.pdf'), 'fallback.pdf');
  });

  it('fills templates with sanitised values so no field adds a separator', () => {
    const fields = {
      report_id: '../../etc/passwd',
      report_type: 'Certificate of Analysis',
      published_date: '2024-05-01',
      client_id: 'C/1',
    };
    assert.equal(renderFileName('${report_id}.pdf', { report_id: 'RPT-1' }), 'RPT-1.pdf');
    const rendered = renderFileName(
      '${client_id}_${report_type}_${published_date}_${report_id}.pdf',
      fields,
    );
    assert.ok(!rendered.includes('/') && !rendered.includes('\\'), rendered);
    assert.equal(rendered, 'C_1_Certificate of Analysis_2024-05-01____.._etc_passwd.pdf');
    assert.equal(renderFileName('${unknown}.pdf', {}), '_pdf');
    assert.equal(renderFileName('${report_id}', { report_id: '..' }), '__');
    assert.equal(renderFileName('${report_id}', { report_id: '' }), 'report.pdf');
  });
});

describe('file name templates with subfolders', () => {
  it('a template may put files in subfolders built from the record, each segment sanitised, never outside', () => {
    const fields = { report_id: 'R-1', client_id: 'C-7', report_type: 'Certificate of Analysis' };
    assert.equal(
      renderFileName('${client_id}/${report_type}/${report_id}.pdf', fields),
      'C-7/Certificate of Analysis/R-1.pdf',
    );
    assert.equal(
      renderFileName('${client_id}\\${report_id}.pdf', fields),
      'C-7/R-1.pdf',
      'a backslash separates too',
    );
    assert.equal(
      renderFileName('../../${client_id}/../${report_id}.pdf', fields),
      'C-7/R-1.pdf',
      '".." segments are dropped',
    );
    const climbing = renderFileName('${client_id}/${report_id}.pdf', {
      ...fields,
      client_id: '../../etc',
    });
    assert.equal(climbing.split('/').length, 2, `a value cannot add a separator: ${climbing}`);
    assert.ok(!climbing.startsWith('.'), `nor climb: ${climbing}`);
    assert.equal(
      renderFileName('${project_id}/${report_id}.pdf', fields),
      'R-1.pdf',
      'a folder left empty by a missing field is dropped',
    );
    assert.equal(
      renderFileName('/abs/${report_id}.pdf', fields),
      'abs/R-1.pdf',
      'no absolute path',
    );
    assert.equal(renderFileName('C:\\x\\${report_id}.pdf', fields), 'C_/x/R-1.pdf', 'no drive');
    assert.equal(
      renderFileName(`${'a/'.repeat(12)}\${report_id}.pdf`, fields).split('/').length,
      MAX_TEMPLATE_FOLDERS + 1,
    );
  });
});

describe('relative paths read from a manifest', () => {
  it('accepts a name exactly when sanitising leaves it as it is, plain ASCII names included', () => {
    const names = [
      'R-00001.pdf',
      'a_b-c.d.pdf',
      'x',
      '0',
      'CON',
      'con.pdf',
      'Lpt1.txt',
      'COM10.pdf',
      'console.pdf',
      '.hidden',
      'trailing.',
      'trailing ',
      'a b.pdf',
      'é.pdf',
      'e\u0301.pdf',
      'a\u202ecod.pdf',
      'a:b',
      '-',
      '_',
      `${'n'.repeat(MAX_FILE_NAME_BYTES)}`,
      `${'n'.repeat(MAX_FILE_NAME_BYTES + 1)}`,
      `${'n'.repeat(MAX_FILE_NAME_BYTES - 4)}.pdf`,
      `${'n'.repeat(MAX_FILE_NAME_BYTES - 3)}.pdf`,
    ];
    for (const name of names) {
      assert.equal(
        relativePathProblem(name) === undefined,
        sanitizeFileName(name, '') === name,
        JSON.stringify(name),
      );
      assert.equal(
        relativePathProblem(`folder/${name}`) === undefined,
        sanitizeFileName(name, '') === name,
        `folder/${JSON.stringify(name)}`,
      );
    }
    assert.equal(relativePathProblem('R-00001.pdf'), undefined);
    assert.match(relativePathProblem('con.pdf') ?? '', /reserved name/);
    assert.match(relativePathProblem('trailing.') ?? '', /trailing dot/);
    assert.match(relativePathProblem(`${'n'.repeat(MAX_FILE_NAME_BYTES + 1)}`) ?? '', /no system/);
  });
});

describe('file names as a case-insensitive file system compares them', () => {
  it('folds case, and Unicode to one form, so two names one such system would make one file compare equal', () => {
    assert.equal(foldedFileName('RPT-2024-000123.PDF'), 'rpt-2024-000123.pdf');
    assert.equal(foldedFileName('Cafe\u0301 Report.pdf'), foldedFileName('CAFÉ report.pdf'));
    assert.equal(foldedFileName('Ωmega.pdf'), 'ωmega.pdf');
    assert.notEqual(foldedFileName('a.pdf'), foldedFileName('b.pdf'));
  });
});
