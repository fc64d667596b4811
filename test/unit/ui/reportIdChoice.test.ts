import * as assert from 'node:assert/strict';
import { acceptedReportId, type OfferedId } from '../../../src/ui/reportIdChoice';

const suggestions: OfferedId[] = [
  { id: 'RPT-2024-000101', label: 'RPT-2024-000101', description: 'Harbor · Water' },
  { id: 'RPT-2024-000102', label: 'RPT-2024-000102', description: 'Meridian, Harbor · Soil' },
  { id: 'RPT-2024-000120', label: 'RPT-2024-000120', description: 'Meridian · Air' },
];
const [harborOnly, shared, meridianOnly] = suggestions as [OfferedId, OfferedId, OfferedId];

describe('the report id Enter takes', () => {
  it('an id typed in full is that id, even while the picker still highlights what earlier text led to', () => {
    // "Harbor" typed first highlighted Harbor's first report; the id typed over it and Enter at once.
    assert.equal(acceptedReportId(shared.id, harborOnly, suggestions), shared.id);
    assert.equal(acceptedReportId(' rpt-2024-000102 ', harborOnly, suggestions), shared.id);
  });

  it('the highlighted suggestion when the text can have led to it (id, label, description or detail)', () => {
    assert.equal(acceptedReportId('Harbor', shared, suggestions), shared.id);
    assert.equal(acceptedReportId('0001', meridianOnly, suggestions), meridianOnly.id);
    assert.equal(acceptedReportId('', meridianOnly, suggestions), meridianOnly.id, 'nothing typed');
    const lead = { id: 'RPT-9', label: 'RPT-9', detail: 'Lead in water' };
    assert.equal(acceptedReportId('lead', lead, [...suggestions, lead]), 'RPT-9');
  });

  it('a stale highlight gives way to the one suggestion holding the text, else the text itself', () => {
    assert.equal(acceptedReportId('00012', harborOnly, suggestions), meridianOnly.id);
    assert.equal(acceptedReportId('RPT-2024-0009', harborOnly, suggestions), 'RPT-2024-0009');
    // The "find this id" line of shorter text, still highlighted when more was typed.
    const findShorter = { id: 'RPT-7', label: 'RPT-7', description: 'find this id' };
    assert.equal(acceptedReportId('RPT-77', findShorter, suggestions), 'RPT-77');
    // …and of longer text, still highlighted after a character was deleted (or the text is part of
    // its own description): only the text it offers is taken.
    const findLonger = { id: 'RPT-77', label: 'RPT-77', description: 'find this id' };
    assert.equal(acceptedReportId('RPT-7', findLonger, suggestions), 'RPT-7');
    assert.equal(acceptedReportId('this', findLonger, suggestions), 'this');
    assert.equal(acceptedReportId('rpt-77', findLonger, suggestions), 'RPT-77');
  });

  it('a highlight VS Code reported for this very text is taken, however loosely it matched', () => {
    // VS Code's own filter matches more loosely than "holds the text" (e.g. "RPT2024" for "RPT-2024-…").
    assert.equal(acceptedReportId('RPT2024102', shared, suggestions, true), shared.id);
    assert.equal(acceptedReportId('RPT2024102', shared, suggestions, false), 'RPT2024102');
  });

  it('text several suggestions hold, nothing highlighted: the text as typed; an error line is no choice', () => {
    assert.equal(acceptedReportId('RPT-2024', undefined, suggestions), 'RPT-2024');
    assert.equal(
      acceptedReportId('RPT-8', { id: '', label: '$(error) no such report' }, []),
      'RPT-8',
    );
    assert.equal(acceptedReportId('  ', undefined, suggestions), '');
  });
});
