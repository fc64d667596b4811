import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  STANDARD_CSV,
  csvField,
  csvRecord,
  decimalMark,
  needsOwnSpreadsheetCsv,
  spreadsheetCsv,
} from '../../../../core/derived/csvDialect';
import { exportRecords } from '../../../../core/derived/exportList';

describe('CSV dialects: the standard CSV and a locale’s spreadsheet CSV', () => {
  it('knows the decimal mark of de, fr and en, and takes a point for a locale Intl cannot read', () => {
    assert.equal(decimalMark('de'), ',');
    assert.equal(decimalMark('de-CH'), '.', 'Swiss German writes 4.5');
    assert.equal(decimalMark('fr'), ',');
    assert.equal(decimalMark('en'), '.');
    assert.equal(decimalMark('en-US'), '.');
    assert.equal(decimalMark('qps-ploc'), '.');
    assert.equal(decimalMark('not a locale!'), '.');
  });

  it('a spreadsheet in de or fr gets semicolons and a decimal comma; in en, commas and a point; all with a BOM', () => {
    assert.deepEqual(spreadsheetCsv('de'), {
      separator: ';',
      decimal: ',',
      byteOrderMark: true,
      locale: 'de',
    });
    assert.deepEqual(spreadsheetCsv('fr'), {
      separator: ';',
      decimal: ',',
      byteOrderMark: true,
      locale: 'fr',
    });
    assert.deepEqual(spreadsheetCsv('en'), {
      separator: ',',
      decimal: '.',
      byteOrderMark: true,
      locale: 'en',
    });
    assert.equal(needsOwnSpreadsheetCsv('de'), true);
    assert.equal(needsOwnSpreadsheetCsv('fr'), true);
    assert.equal(needsOwnSpreadsheetCsv('en'), false);
  });

  it('writes numbers with the locale’s decimal mark and quotes what holds its separator', () => {
    const de = spreadsheetCsv('de');
    assert.equal(csvField(4.5, de), '4,5');
    assert.equal(csvField(-0.25, de), '-0,25');
    assert.equal(csvField(1234567.5, de), '1234567,5', 'no grouping');
    assert.equal(csvField(12, de), '12');
    assert.equal(csvField('4.5', de), '4.5', 'text the lab sent stays as sent');
    assert.equal(csvField('a;b', de), '"a;b"');
    assert.equal(csvField('a,b', de), 'a,b', 'a comma needs no quotes when fields end at ";"');
    assert.equal(csvField(['S-1', 'S-2'], de), '"S-1; S-2"');
    assert.equal(csvRecord(['RPT-1', 4.5, true, null], de), 'RPT-1;4,5;true;\r\n');
    assert.equal(csvRecord(['RPT-1', 4.5, 'a,b'], spreadsheetCsv('fr')), 'RPT-1;4,5;a,b\r\n');
    assert.equal(csvRecord(['RPT-1', 4.5, 'a,b'], spreadsheetCsv('en')), 'RPT-1,4.5,"a,b"\r\n');
    assert.equal(csvRecord(['RPT-1', 4.5, 'a,b'], STANDARD_CSV), 'RPT-1,4.5,"a,b"\r\n');
  });

  it('writes a control a terminal acts on (ESC, BEL, NUL, DEL, C1) as its escape, and quotes a field with a line break as before', () => {
    assert.equal(
      csvField('Soil \u001b[31mred\u0007 bell\u0000 nul\u007f del\u009b c1'),
      'Soil \\u001b[31mred\\u0007 bell\\u0000 nul\\u007f del\\u009b c1',
    );
    assert.equal(csvField('one\r\ntwo\tthree'), '"one\r\ntwo\tthree"', 'CR, LF and tab stay');
    assert.equal(csvField(['S-\u001b1', 'S-2']), 'S-\\u001b1; S-2');
    assert.equal(csvField({ note: '\u0007' }), '"{""note"":""\\u0007""}"');
  });

  it('exports a list as a German spreadsheet CSV (BOM, ";", "4,5") and, by default, as the standard CSV', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'lab-data-csv-'));
    try {
      const pages = async function* () {
        yield [{ report_id: 'RPT-1', temperature_c: 4.5, note: 'Müller; Söhne' }];
        yield [{ report_id: 'RPT-2', temperature_c: 12 }];
      };
      const de = await exportRecords(pages(), {
        folder,
        fileName: 'de.csv',
        format: 'csv',
        csv: spreadsheetCsv('de'),
      });
      assert.equal(
        await readFile(de.file.path, 'utf8'),
        '\uFEFFreport_id;temperature_c;note\r\nRPT-1;4,5;"Müller; Söhne"\r\nRPT-2;12;\r\n',
      );
      const standard = await exportRecords(pages(), {
        folder,
        fileName: 'standard.csv',
        format: 'csv',
      });
      assert.equal(
        await readFile(standard.file.path, 'utf8'),
        'report_id,temperature_c,note\r\nRPT-1,4.5,Müller; Söhne\r\nRPT-2,12,\r\n',
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
