import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  lineOfField,
  lineOfReport,
  MANIFEST_FILE_NAME,
  readManifest,
  type LabSection,
  type ManifestEntry,
  updateManifest,
} from '../../../../core/sync/manifest';

function entry(id: string): ManifestEntry {
  return {
    report_id: id,
    file: `${id}.pdf`,
    revision: '1',
    bytes: 10,
    sha256: 'b'.repeat(64),
    source: `/api/v1/reports/${id}/file`,
  };
}

const withEntry =
  (id: string) =>
  (section: LabSection): LabSection => ({
    ...section,
    files: { ...section.files, [id]: entry(id) },
  });

describe('writing one lab’s section of a manifest (updateManifest)', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'manifest-sections-'));
  });
  afterEach(async () => rm(folder, { recursive: true, force: true }));

  it('keeps a section of another address under the same lab name: the new section takes a name of its own', async () => {
    // A colleague's VPN address of the same lab, committed under the lab's name.
    await writeFile(
      path.join(folder, MANIFEST_FILE_NAME),
      `${JSON.stringify(
        {
          labs: {
            'https://vpn.meridian.example': {
              name: 'Meridian',
              reports: {
                'R-VPN': { file: 'R-VPN.pdf', sha256: 'a'.repeat(64), bytes: 10, revision: '1' },
              },
            },
          },
          version: 3,
        },
        null,
        2,
      )}\n`,
    );
    const mine = { name: 'Meridian', origin: 'https://meridian.example' };
    assert.equal(await updateManifest(folder, mine, withEntry('R-1')), true);
    const labs = (await readManifest(folder)).labs;
    const byOrigin = Object.fromEntries(
      Object.entries(labs).map(([name, section]) => [
        section.origin,
        { name, ids: Object.keys(section.files) },
      ]),
    );
    assert.deepEqual(byOrigin['https://vpn.meridian.example'], {
      name: 'Meridian',
      ids: ['R-VPN'],
    });
    assert.deepEqual(byOrigin['https://meridian.example']?.ids, ['R-1']);
    assert.equal(byOrigin['https://meridian.example']?.name, 'Meridian (meridian.example)');
    // A second write finds its section again by its address, under the name it was given.
    await updateManifest(folder, mine, withEntry('R-2'));
    const again = JSON.parse(await readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8')) as {
      labs: Record<string, { name: string; reports: Record<string, unknown> }>;
    };
    assert.deepEqual(Object.keys(again.labs['https://meridian.example']!.reports), ['R-1', 'R-2']);
    assert.deepEqual(Object.keys(again.labs['https://vpn.meridian.example']!.reports), ['R-VPN']);
  });
});

describe("the line of a report's entry in a manifest (lineOfReport), where its problems are shown", () => {
  const text = `${JSON.stringify(
    {
      version: 1,
      labs: {
        'https://lab.example': {
          name: 'lab',
          reports: {
            'RPT-1': { file: 'RPT-1.pdf', bytes: 10 },
            'RPT-10': { file: 'RPT-10.pdf', bytes: 12 },
          },
        },
      },
    },
    null,
    2,
  )}\n`;
  const lines = text.split('\n');

  it('finds the line naming the report as a key, not a longer id that starts the same, nor a value', () => {
    assert.equal(lines[lineOfReport(text, 'RPT-10')! - 1]!.trim(), '"RPT-10": {');
    assert.equal(lines[lineOfReport(text, 'RPT-1')! - 1]!.trim(), '"RPT-1": {');
    assert.equal(lineOfReport(text, 'RPT-1.pdf'), undefined, 'a file name is a value, not a key');
    assert.equal(lineOfReport(text, 'RPT-2'), undefined);
  });

  it("a field's line is after its report's line (lineOfField starts there)", () => {
    const report = lineOfReport(text, 'RPT-10')!;
    assert.equal(lineOfField(text, 'RPT-10', 'bytes'), report + 2);
    assert.equal(lineOfField(text, 'RPT-10', 'nothing'), report);
  });
});
