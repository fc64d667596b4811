import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LabApiError } from '../../../../core/errors/errors';
import { csvField, csvRow, exportRecords, withNames } from '../../../../core/derived/exportList';
import { IdShapes, findIds, userIdPattern } from '../../../../core/derived/idPatterns';
import {
  changesAtLab,
  verifiedState,
  verifyFolder,
  type VerifiedFile,
} from '../../../../core/sync/provenance';
import type { Report } from '../../../../core/api/records';
import { RecordLookup, RequestBudget } from '../../../../core/api/recordLookup';
import {
  manifestEntry,
  readManifest,
  recordSaved,
  updateManifest,
  type ManifestEntry,
} from '../../../../core/sync/manifest';
import { FULL, startMockLab, type MockLab } from '../../helpers';

const sha = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

describe('report and sample ids in text', () => {
  it('learns id shapes from listed ids and finds them in code, not inside longer words or numbers', () => {
    const shapes = new IdShapes();
    assert.equal(shapes.learn(['RPT-2026-000420', 'RPT-2025-000001', '12345', 'abc']), true);
    assert.equal(shapes.size, 1, 'plain numbers and words teach nothing');
    const text =
      'df = load("lab-reports/RPT-2026-000375.pdf")  # see RPT-2024-000001, not XRPT-2026-000375 or RPT-2026-0003751';
    const found = findIds(text, [{ kind: 'report', pattern: shapes.pattern! }]);
    assert.deepEqual(
      found.map((match) => match.id),
      ['RPT-2026-000375', 'RPT-2024-000001'],
    );
    assert.equal(text.slice(found[0]!.start, found[0]!.end), 'RPT-2026-000375');
  });

  it('keeps letters that every id shares, and generalises letters that vary', () => {
    const shapes = new IdShapes();
    shapes.learn(['S-003200']);
    assert.deepEqual(
      findIds('S-000001 T-000001', [{ kind: 'sample', pattern: shapes.pattern! }]).map(
        (match) => match.id,
      ),
      ['S-000001'],
    );
    shapes.learn(['T-000002']);
    assert.deepEqual(
      findIds('S-000001 T-000001', [{ kind: 'sample', pattern: shapes.pattern! }]).map(
        (match) => match.id,
      ),
      ['S-000001', 'T-000001'],
    );
  });

  it('takes a user pattern, and refuses one that is broken or matches empty text', () => {
    const pattern = userIdPattern('LIMS\\d{5}');
    assert.ok(pattern instanceof RegExp);
    assert.deepEqual(
      findIds('x LIMS12345 LIMS123456', [{ kind: 'report', pattern }]).map((match) => match.id),
      ['LIMS12345'],
    );
    assert.equal(typeof userIdPattern('('), 'string');
    assert.equal(userIdPattern('a*'), 'the pattern matches empty text');
  });
});

describe('looking ids up for hovers', () => {
  it('asks once per id in ten minutes (found and not found), shares one request per id, and respects a budget and a pause', async () => {
    let now = 0;
    const asked: string[] = [];
    let paused: string | undefined;
    const lookup = new RecordLookup<string>(
      async (id) => {
        asked.push(id);
        if (id === 'missing') {
          throw new LabApiError('notFound', 'no such report');
        }
        return `record ${id}`;
      },
      { budget: new RequestBudget(3, () => now), paused: () => paused, now: () => now },
    );
    const [a, b] = await Promise.all([lookup.lookup('A'), lookup.lookup('A')]);
    assert.deepEqual(
      [a, b],
      [
        { kind: 'found', record: 'record A' },
        { kind: 'found', record: 'record A' },
      ],
    );
    assert.deepEqual(await lookup.lookup('missing'), { kind: 'notFound' });
    await lookup.lookup('A');
    await lookup.lookup('missing');
    assert.deepEqual(asked, ['A', 'missing'], 'cached, found and not found');
    await lookup.lookup('B');
    assert.equal((await lookup.lookup('C')).kind, 'unavailable', 'over the budget of 3 a second');
    now += 1000;
    paused = 'rate-limited';
    assert.deepEqual(await lookup.lookup('C'), { kind: 'unavailable', reason: 'rate-limited' });
    paused = undefined;
    lookup.remember([['D', 'listed D']]);
    assert.deepEqual(await lookup.lookup('D'), { kind: 'found', record: 'listed D' });
    now += 10 * 60_000 + 1;
    await lookup.lookup('A');
    assert.deepEqual(asked, ['A', 'missing', 'B', 'A'], 'asked again after ten minutes');
  });
});

describe('provenance of saved reports', () => {
  let lab: MockLab;
  let folder: string;

  before(async () => {
    lab = await startMockLab({ reports: 30 });
  });

  after(async () => {
    await lab.close();
  });

  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'lab-data-verify-'));
  });

  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('records revision, status and the metadata as sent, and keeps what is known for a report known only by id', () => {
    const report: Report = {
      report_id: 'R-1',
      status: 'published',
      published_at: '2026-11-01T00:00:00Z',
      raw: {
        report_id: 'R-1',
        status: 'published',
        revision: 2,
        updated_at: '2026-11-02T00:00:00Z',
      },
    };
    const entry = manifestEntry(
      report,
      { path: '/x', fileName: 'R-1.pdf', bytes: 5, sha256: 'abc' },
      'now',
      '/api/v1/reports/R-1/file',
    );
    assert.equal(entry.revision, '2');
    assert.equal(entry.status, 'published');
    assert.equal(entry.updated_at, '2026-11-02T00:00:00Z');
    assert.deepEqual(entry.metadata, report.raw);
    const again = manifestEntry(
      { report_id: 'R-1', raw: { report_id: 'R-1' } },
      { path: '/x', fileName: 'R-1.pdf', bytes: 5, sha256: 'def' },
      'later',
      '/s',
      entry,
    );
    assert.equal(again.revision, '2');
    assert.equal(again.sha256, 'def');
  });

  it('names every change at the lab: revision, update, republication, status, file withdrawn', () => {
    const entry: ManifestEntry = {
      report_id: 'R',
      file: 'R.pdf',
      published_at: '2026-01-01T00:00:00Z',
      status: 'published',
      revision: '1',
      updated_at: '2026-01-01T00:00:00Z',
      bytes: 1,
      sha256: 'x',
      saved_at: 'now',
      source: '/s',
    };
    assert.deepEqual(
      changesAtLab(entry, {
        report_id: 'R',
        published_at: '2026-01-01T00:00:00Z',
        status: 'published',
        raw: { revision: '1', updated_at: '2026-01-01T00:00:00Z' },
      }),
      [],
    );
    assert.deepEqual(
      changesAtLab(entry, {
        report_id: 'R',
        published_at: '2026-02-01T00:00:00Z',
        status: 'amended',
        download_available: false,
        raw: { revision: '2', updated_at: '2026-02-01T00:00:00Z' },
      }),
      [
        'revision 1 → 2',
        'updated 2026-02-01T00:00:00Z',
        'published again 2026-02-01T00:00:00Z',
        'status published → amended',
        'no file available any more',
      ],
    );
  });

  it('verifies a folder against the files and the lab: ok, changed locally, changed at the lab, missing, unavailable', async () => {
    const api = lab.api(FULL);
    const reports = lab.server
      .reportsFor(FULL)
      .filter((report) => report.download_available)
      .slice(0, 5);
    const saved: Array<{
      report: Report;
      file: Awaited<ReturnType<typeof api.downloadReportFile>>;
    }> = [];
    for (const report of reports) {
      const file = await api.downloadReportFile(report.report_id, {
        folder,
        fileName: `${report.report_id}.pdf`,
      });
      saved.push({ report: await api.getReport(report.report_id), file });
    }
    const lab1 = { name: 'Meridian', origin: api.origin };
    await updateManifest(folder, lab1, (section) =>
      recordSaved(section, saved, 'now', (id) => api.paths.reportFile(id)),
    );
    await updateManifest(folder, { name: 'Gone', origin: 'https://gone.example' }, (section) =>
      recordSaved(
        section,
        [
          {
            report: { report_id: 'G-1', raw: { report_id: 'G-1' } },
            file: { path: '', fileName: 'G-1.pdf', bytes: 1, sha256: sha('g') },
          },
        ],
        'now',
        () => '/g',
      ),
    );
    await writeFile(path.join(folder, 'G-1.pdf'), 'g');
    await writeFile(path.join(folder, `${reports[1]!.report_id}.pdf`), 'annotated');
    await rm(path.join(folder, `${reports[2]!.report_id}.pdf`));
    const amended = lab.server.data.reports.find(
      (report) => report.report_id === reports[3]!.report_id,
    )!;
    const original = { ...amended };
    amended.status = 'amended';
    lab.server.dataChanged();
    try {
      const result = await verifyFolder(folder, {
        apiFor: (name, origin) => (name === 'Meridian' && origin === api.origin ? api : undefined),
        concurrency: 3,
      });
      assert.deepEqual(result.ok.sort(), [reports[0]!.report_id, reports[4]!.report_id].sort());
      assert.deepEqual(result.changedLocally, [reports[1]!.report_id]);
      assert.deepEqual(result.missing, [reports[2]!.report_id]);
      assert.deepEqual(result.changedAtLab, [reports[3]!.report_id]);
      assert.deepEqual(result.unavailable, ['G-1'], 'a lab nobody is signed in to is not asked');
      assert.equal(result.checked.length, 6);
    } finally {
      Object.assign(amended, original);
      lab.server.dataChanged();
    }
    const manifest = await readManifest(folder);
    assert.deepEqual(
      Object.keys(manifest.labs).sort(),
      ['Gone', 'Meridian'],
      'one change at a time kept both',
    );
  });

  it('updates to one manifest never lose each other', async () => {
    const file = (id: string) => ({
      report: { report_id: id, raw: { report_id: id } },
      file: { path: '', fileName: `${id}.pdf`, bytes: 1, sha256: 'x' },
    });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        updateManifest(folder, { name: 'L', origin: 'https://l' }, (section) =>
          recordSaved(section, [file(`R-${i}`)], 'now', () => '/s'),
        ),
      ),
    );
    assert.equal(Object.keys((await readManifest(folder)).labs.L!.files).length, 20);
  });
});

describe('exporting lists', () => {
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'lab-data-export-'));
  });

  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('quotes CSV as RFC 4180 asks', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(
      csvField(['S-1', 'S-2']),
      'S-1; S-2',
      'a list of plain values is one readable cell',
    );
    assert.equal(csvField(['a,b', 'c']), '"a,b; c"');
    assert.equal(csvField([]), '');
    assert.equal(
      csvField([{ id: 'S-1' }]),
      '"[{""id"":""S-1""}]"',
      'a list of records stays its JSON text',
    );
    assert.equal(csvField(undefined), '');
    assert.equal(csvRow([1, true, null]), '1,true,\r\n');
  });

  it('puts client and project names right beside their ids, in every row', () => {
    const names = {
      client: new Map([['C-1', 'Riverside']]),
      project: new Map([['P-1', 'Dam survey']]),
    };
    assert.deepEqual(
      Object.entries(
        withNames(
          { report_id: 'R-1', client_id: 'C-1', project_id: 'P-1', status: 'published' },
          names,
        ),
      ),
      [
        ['report_id', 'R-1'],
        ['client_id', 'C-1'],
        ['client_name', 'Riverside'],
        ['project_id', 'P-1'],
        ['project_name', 'Dam survey'],
        ['status', 'published'],
      ],
    );
    assert.deepEqual(
      withNames({ client_id: 'C-9' }, names),
      { client_id: 'C-9', client_name: '' },
      'an unknown id keeps the column, empty',
    );
    assert.deepEqual(
      withNames({ client_id: 'C-1', client_name: 'As the lab says' }, names),
      { client_id: 'C-1', client_name: 'As the lab says' },
      "the lab's own name is kept",
    );
    assert.deepEqual(
      withNames({ client_id: 'C-1' }, { client: new Map(), project: new Map() }),
      { client_id: 'C-1' },
      'no names at all, no column',
    );
  });

  it('writes a header of every field any record had, one row per record, and JSON Lines', async () => {
    const pages = async function* () {
      yield [{ id: 'A', n: 1 }];
      yield [{ id: 'B', extra: { x: 'y, z' } }];
    };
    const csv = await exportRecords(pages(), { folder, fileName: 'out.csv', format: 'csv' });
    assert.equal(csv.rows, 2);
    assert.equal(
      await readFile(csv.file.path, 'utf8'),
      'id,n,extra\r\nA,1,\r\nB,,"{""x"":""y, z""}"\r\n',
    );
    const jsonl = await exportRecords(pages(), { folder, fileName: 'out.jsonl', format: 'jsonl' });
    assert.deepEqual(
      (await readFile(jsonl.file.path, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
      [
        { id: 'A', n: 1 },
        { id: 'B', extra: { x: 'y, z' } },
      ],
    );
  });

  it('leaves no file at all when the export is cancelled or a page fails', async () => {
    const controller = new AbortController();
    const pages = async function* () {
      yield [{ id: 'A' }];
      controller.abort();
      yield [{ id: 'B' }];
    };
    await assert.rejects(
      exportRecords(pages(), {
        folder,
        fileName: 'out.csv',
        format: 'csv',
        signal: controller.signal,
      }),
    );
    const failing = async function* () {
      yield [{ id: 'A' }];
      throw new Error('connection dropped');
    };
    await assert.rejects(
      exportRecords(failing(), { folder, fileName: 'out.csv', format: 'csv' }),
      /connection dropped/,
    );
    assert.deepEqual(await readdir(folder), []);
  });
});

describe("one verified file's state (verifiedState), as lab-data verify and the lab-data tasks say it", () => {
  const file = (over: Partial<VerifiedFile>): VerifiedFile => ({
    lab: 'lab',
    reportId: 'RPT-1',
    file: 'RPT-1.pdf',
    entry: {} as ManifestEntry,
    local: 'same',
    atLab: [],
    ...over,
  });

  it('worst first: missing, then changed locally, then not checked at the lab, then changed at the lab', () => {
    assert.equal(verifiedState(file({})), 'ok');
    assert.equal(verifiedState(file({ local: 'missing', atLab: ['revision 1 → 2'] })), 'missing');
    assert.equal(verifiedState(file({ local: 'changed', unavailable: 'signed out' })), 'changed');
    assert.equal(
      verifiedState(file({ unavailable: 'signed out', atLab: ['revision 1 → 2'] })),
      'unchecked at lab',
    );
    assert.equal(verifiedState(file({ atLab: ['revision 1 → 2'] })), 'changed at lab');
  });
});
