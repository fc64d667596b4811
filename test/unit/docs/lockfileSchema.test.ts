import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Report } from '../../../core/api/records';
import {
  MANIFEST_FILE_NAME,
  manifestEntry,
  parseManifest,
  readManifest,
  writeManifest,
} from '../../../core/sync/manifest';
import { lockfileSchemaErrors } from '../../support/lockfileSchema';
import { namedLabApi, syncWithCore, updateWithCore } from '../../readers/coreWriter';
import { FULL, startMockLab, type MockLab } from '../helpers';

/** The manifest's text as written, held to the published schema. */
async function assertValid(folder: string): Promise<Record<string, unknown>> {
  const text = await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8');
  assert.deepEqual(lockfileSchemaErrors(text), [], `${folder}: ${text.slice(0, 2000)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

type Written = {
  labs: Record<string, { name?: string; reports: Record<string, Record<string, unknown>> }>;
};

describe('the published manifest schema (docs/lockfile.schema.json) and what the core writes', function () {
  this.timeout(120_000);
  let work: string;
  let labA: MockLab;
  let labB: MockLab;
  before(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-schema-'));
    labA = await startMockLab({ reports: 12 });
    labB = await startMockLab({ reports: 6, seed: 7 });
  });
  after(async () => {
    await labA?.close();
    await labB?.close();
    await fs.rm(work, { recursive: true, force: true });
  });

  it('two labs in one folder, nested file names, then an amendment taken: every manifest written is valid', async () => {
    const folder = path.join(work, 'two-labs');
    const a = namedLabApi(labA.baseUrl, 'Meridian', FULL);
    const b = namedLabApi(labB.baseUrl, 'Northwind', FULL);
    try {
      assert.ok((await syncWithCore(a, folder, '${project_id}/${report_id}.pdf')) > 0);
      const first = (await assertValid(folder)) as unknown as Written;
      assert.ok(
        Object.values(first.labs[a.origin]!.reports).some((entry) =>
          String(entry.file).includes('/'),
        ),
        'the nested template gives nested names',
      );
      assert.ok((await syncWithCore(b, folder, 'northwind/${report_id}.pdf')) > 0);
      const both = (await assertValid(folder)) as unknown as Written;
      assert.deepEqual(Object.keys(both.labs).sort(), [a.origin, b.origin].sort());
      const amended = Object.keys(both.labs[a.origin]!.reports)[0]!;
      labA.server.amendReport(amended);
      await updateWithCore(a, folder);
      const after = (await assertValid(folder)) as unknown as Written;
      assert.equal(after.labs[a.origin]!.reports[amended]!.revision, '2');
      assert.equal(after.labs[a.origin]!.reports[amended]!.status, 'amended');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a lab without revisions (updated_at kept), a file from elsewhere (source kept) and a version 2 manifest rewritten: valid', async () => {
    const folder = path.join(work, 'shapes');
    const raw = { report_id: 'R/1', status: 'published', updated_at: '2026-10-31T08:15:00Z' };
    const report = { report_id: 'R/1', status: 'published', raw } as unknown as Report;
    const entry = manifestEntry(
      report,
      { path: '', fileName: 'R_1.pdf', bytes: 3, sha256: 'a'.repeat(64), mtimeMs: 1 },
      '2026-11-01T00:00:00Z',
      '/elsewhere/R_1.pdf',
    );
    await writeManifest(folder, {
      version: 3,
      labs: { Lab: { origin: 'https://lab.example.com:8443', files: { 'R/1': entry } } },
    });
    const written = (await assertValid(folder)) as unknown as Written;
    const kept = written.labs['https://lab.example.com:8443']!.reports['R/1']!;
    assert.equal(kept.updated_at, '2026-10-31T08:15:00Z');
    assert.equal(kept.source, '/elsewhere/R_1.pdf');
    const v2 = parseManifest(
      JSON.stringify({
        version: 2,
        labs: {
          Old: {
            origin: 'https://old.example.com',
            files: {
              'R-2': {
                report_id: 'R-2',
                file: 'R-2.pdf',
                bytes: 5,
                sha256: 'b'.repeat(64),
                mtime_ms: 5,
                saved_at: '2025-01-01T00:00:00Z',
                source: '/api/v1/reports/R-2/file',
                metadata: { report_id: 'R-2', title: 'kept in .lab-data' },
              },
            },
          },
        },
      }),
    );
    await writeManifest(folder, v2);
    await assertValid(folder);
    assert.ok((await readManifest(folder)).labs.Old);
  });

  it('the schema is not vacuous: a leaving file name, a short SHA-256, version 4 and a stray field are each refused', () => {
    const good = {
      version: 3,
      labs: {
        'https://lab.example.com': {
          name: 'Lab',
          reports: { 'R-1': { file: 'a/R-1.pdf', sha256: 'c'.repeat(64), bytes: 1 } },
        },
      },
    };
    assert.deepEqual(lockfileSchemaErrors(JSON.stringify(good)), []);
    const entry = good.labs['https://lab.example.com'].reports['R-1'];
    const variants: Array<[string, unknown]> = [
      [
        'a leaving name',
        {
          ...good,
          labs: {
            'https://lab.example.com': { reports: { 'R-1': { ...entry, file: '../x.pdf' } } },
          },
        },
      ],
      [
        'a short hash',
        {
          ...good,
          labs: { 'https://lab.example.com': { reports: { 'R-1': { ...entry, sha256: 'abc' } } } },
        },
      ],
      ['version 4', { ...good, version: 4 }],
      [
        'a stray field',
        {
          ...good,
          labs: { 'https://lab.example.com': { reports: { 'R-1': { ...entry, mtime_ms: 1 } } } },
        },
      ],
      [
        'a lab by name, not origin',
        { ...good, labs: { Lab: good.labs['https://lab.example.com'] } },
      ],
    ];
    for (const [what, manifest] of variants) {
      assert.notDeepEqual(lockfileSchemaErrors(JSON.stringify(manifest)), [], what);
    }
  });
});
