import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Report } from '../../../../core/api/records';
import { reportFileName } from '../../../../core/sync/reportFiles';
import type { SavedFile } from '../../../../core/files/safeWriter';
import {
  afterSync,
  decideSync,
  deletedSinceLastSync,
  plannedFileName,
} from '../../../../core/sync/syncPlan';
import {
  MANIFEST_FILE_NAME,
  parseManifest,
  readManifest,
  sectionFor,
  withSection,
  writeManifest,
  type LabSection,
  type ManifestEntry,
} from '../../../../core/sync/manifest';

const report = (id: string, published: string, extra: Partial<Report> = {}): Report => ({
  report_id: id,
  published_at: published,
  download_available: true,
  raw: { report_id: id },
  ...extra,
});
const entry = (id: string, published: string, sha: string, file = `${id}.pdf`): ManifestEntry => ({
  report_id: id,
  file,
  published_at: published,
  bytes: 10,
  sha256: sha,
  saved_at: '2026-11-01T00:00:00Z',
  source: `/api/v1/reports/${id}/file`,
});
const saved = (id: string, sha = 'new'): SavedFile => ({
  path: `/x/${id}.pdf`,
  fileName: `${id}.pdf`,
  bytes: 42,
  sha256: sha,
});
const MERIDIAN = { name: 'Meridian', origin: 'https://lab.example.com' };

describe('sync planning', () => {
  it('decides each report from its manifest entry and the file on disk', () => {
    const r = report('R-1', '2026-11-02T00:00:00Z');
    assert.deepEqual(
      decideSync({ ...r, download_available: false }, undefined, 'R-1.pdf', undefined),
      { action: 'skip', reason: 'noFile' },
    );
    assert.deepEqual(decideSync(r, undefined, 'R-1.pdf', undefined), {
      action: 'download',
      fileName: 'R-1.pdf',
      ifExists: 'fail',
    });
    assert.deepEqual(decideSync(r, entry('R-1', '2026-11-02T00:00:00Z', 'aaa'), 'R-1.pdf', 'aaa'), {
      action: 'skip',
      reason: 'upToDate',
    });
    assert.deepEqual(
      decideSync(r, entry('R-1', '2026-10-01T00:00:00Z', 'aaa'), 'R-1.pdf', 'aaa'),
      { action: 'download', fileName: 'R-1.pdf', ifExists: 'overwrite' },
      'untouched and newer at the lab: refreshed',
    );
    assert.deepEqual(
      decideSync(r, entry('R-1', '2026-11-02T00:00:00Z', 'aaa'), 'R-1.pdf', 'edited'),
      { action: 'skip', reason: 'changedLocallyKept' },
    );
    assert.deepEqual(
      decideSync(r, entry('R-1', '2026-10-01T00:00:00Z', 'aaa'), 'R-1.pdf', 'edited'),
      { action: 'ask', fileName: 'R-1.pdf', reason: 'changedLocally' },
      'edited and newer at the lab: a person decides',
    );
    assert.deepEqual(decideSync(r, undefined, 'R-1.pdf', 'someone else'), {
      action: 'ask',
      fileName: 'R-1.pdf',
      reason: 'exists',
    });
  });

  it('keeps the file name it recorded, else uses the template (with ${lab})', () => {
    const section: LabSection = {
      origin: MERIDIAN.origin,
      files: { 'R-1': entry('R-1', 'x', 'a', 'renamed.pdf') },
    };
    const fromTemplate = (r: Report): string =>
      reportFileName(r, '${lab}_${report_id}.pdf', 'Meridian');
    assert.equal(plannedFileName(report('R-1', 'x'), section, fromTemplate), 'renamed.pdf');
    assert.equal(plannedFileName(report('R-2', 'x'), section, fromTemplate), 'Meridian_R-2.pdf');
  });

  it('fetches again what an earlier sync saved and was deleted since, without listing everything', async () => {
    const section: LabSection = {
      origin: MERIDIAN.origin,
      files: {
        'R-1': entry('R-1', 'a', 'x'),
        'R-2': entry('R-2', 'b', 'y'),
        'R-3': entry('R-3', 'c', 'z'),
      },
    };
    const missing = await deletedSinceLastSync(
      section,
      new Set(['R-3']),
      async (file) => file === 'R-2.pdf',
    );
    assert.deepEqual(
      missing.map((r) => r.report_id),
      ['R-1'],
      'R-2 is on disk; R-3 is listed anyway',
    );
  });

  it('records saved files and moves the watermark only when the run was complete', () => {
    const section: LabSection = {
      origin: MERIDIAN.origin,
      watermark: '2026-11-01T00:00:00Z',
      files: {},
    };
    const listed = [report('R-1', '2026-11-03T00:00:00Z'), report('R-2', '2026-11-02T00:00:00Z')];
    const done = afterSync(section, listed, [{ report: listed[0]!, file: saved('R-1') }], {
      complete: true,
      savedAt: 'now',
      sourceOf: (id) => `/api/v1/certificates/${id}/pdf`,
    });
    assert.equal(done.changed, true);
    assert.equal(done.section.watermark, '2026-11-03T00:00:00Z');
    assert.deepEqual(done.section.files['R-1'], {
      report_id: 'R-1',
      file: 'R-1.pdf',
      published_at: '2026-11-03T00:00:00Z',
      bytes: 42,
      sha256: 'new',
      saved_at: 'now',
      source: '/api/v1/certificates/R-1/pdf',
    });
    const failed = afterSync(section, listed, [], {
      complete: false,
      savedAt: 'now',
      sourceOf: (id) => id,
    });
    assert.deepEqual(
      failed,
      { section, changed: false },
      'a failure keeps the watermark, so the report is listed again',
    );
  });

  it('keeps one section per lab, adopts a 0.1.0 manifest of the same origin, and never mixes labs', async () => {
    const legacy = parseManifest(
      JSON.stringify({
        version: 1,
        lab: 'https://lab.example.com/api/v1',
        watermark: '2026-10-01T00:00:00Z',
        files: { 'R-9': entry('R-9', 'a', 'q') },
      }),
    );
    assert.equal(
      sectionFor(legacy, MERIDIAN).watermark,
      '2026-10-01T00:00:00Z',
      'the 0.1.0 manifest is adopted by the lab at its origin',
    );
    assert.deepEqual(sectionFor(legacy, { name: 'Other', origin: 'https://other.example' }), {
      origin: 'https://other.example',
      files: {},
    });
    const moved = withSection(legacy, MERIDIAN, {
      ...sectionFor(legacy, MERIDIAN),
      watermark: '2026-11-01T00:00:00Z',
    });
    assert.deepEqual(
      Object.keys(moved.labs),
      ['Meridian'],
      'the legacy section is replaced by the lab’s own',
    );
    const two = withSection(
      moved,
      { name: 'Beta', origin: 'https://beta.example.com' },
      { origin: 'https://beta.example.com', files: {} },
    );
    assert.deepEqual(Object.keys(two.labs), ['Beta', 'Meridian']);
    assert.deepEqual(
      Object.keys(
        withSection(
          two,
          { name: 'Meridian here', origin: 'https://lab.example.com' },
          moved.labs.Meridian!,
        ).labs,
      ),
      ['Beta', 'Meridian here'],
      'one section per origin, whatever a teammate calls the lab',
    );
    assert.equal(
      sectionFor(two, { name: 'Meridian', origin: 'https://moved.example' }).files['R-9'],
      undefined,
      'a lab that moved origin starts afresh',
    );

    const folder = await mkdtemp(path.join(tmpdir(), 'lab-data-manifest-'));
    try {
      await writeManifest(folder, two);
      assert.deepEqual(await readManifest(folder), two);
      assert.ok(!(await readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8')).includes('token'));
      await writeFile(path.join(folder, MANIFEST_FILE_NAME), '{ not json');
      await assert.rejects(readManifest(folder), /cannot be read/, 'never started afresh over it');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    assert.deepEqual(parseManifest(JSON.stringify({ version: 2, labs: { bad: { origin: 3 } } })), {
      version: 3,
      labs: {},
    });
  });
});
