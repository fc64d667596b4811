import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ManifestEntry, SyncManifest } from '../../../../core/sync/manifestModel';
import {
  affectedConsumers,
  currentUses,
  hasUses,
  impactOf,
  placesOf,
  readUses,
} from '../../../../core/uses/uses';
import { USES_FILE_NAME, usesText } from '../../../../core/uses/usesRecord';

const LAB = 'https://lab.example.com';
const SHA = (revision: string): string => revision.repeat(64).slice(0, 64);

function manifest(revisions: Record<string, string>): SyncManifest {
  const files: Record<string, ManifestEntry> = {};
  for (const [id, revision] of Object.entries(revisions)) {
    files[id] = {
      report_id: id,
      file: `${id}.pdf`,
      revision,
      bytes: 10,
      sha256: SHA(revision),
      source: `/api/v1/reports/${id}/file`,
      published_at: '2026-11-0' + revision + 'T00:00:00Z',
    };
  }
  return { version: 3, labs: { Meridian: { origin: LAB, files } } };
}

function read(consumer: string | null, id: string, revision: string, at: string): string {
  return JSON.stringify({ at, consumer, lab: LAB, report_id: id, revision, sha256: SHA(revision) });
}

describe('core/uses/uses: uses as they stand, and their impact', () => {
  let root: string;
  let folder: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-uses-'));
    execFileSync('git', ['init', '--quiet'], { cwd: root });
    folder = path.join(root, 'lab-reports');
    await fs.mkdir(path.join(folder, '.lab-data'), { recursive: true });
    await fs.writeFile(path.join(root, 'read.py'), 'import labdata\np = labdata.path(ID)\n');
    await fs.writeFile(path.join(root, 'named.py'), '\n# uses RPT-2026-000002 only by name\n');
    await fs.writeFile(path.join(root, 'other.R'), '# RPT-2026-000003\n');
    await fs.writeFile(path.join(root, 'notes.md'), 'RPT-2026-999999 is not recorded\n');
    await fs.writeFile(
      path.join(folder, '.lab-data', 'reads.jsonl'),
      [
        read('read.py', 'RPT-2026-000001', '1', '2026-11-01T00:00:00Z'),
        read('gone.py', 'RPT-2026-000001', '1', '2026-11-01T00:00:00Z'),
        read(null, 'RPT-2026-000003', '1', '2026-11-01T00:00:00Z'),
        '{"broken',
      ].join('\n'),
    );
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('reads and names, recorded ids only, consumers that exist only; impact lists who used an older revision', async () => {
    const before = manifest({
      'RPT-2026-000001': '1',
      'RPT-2026-000002': '1',
      'RPT-2026-000003': '1',
    });
    assert.equal(await hasUses(folder), true);
    const found = await currentUses(folder, before, { acknowledgeNamed: true });
    assert.equal(found.root, root);
    assert.equal(found.skippedReads, 1);
    assert.deepEqual(
      found.record.uses.map((use) => `${use.consumer} ${use.id} ${use.revision} ${use.how}`),
      [
        'named.py RPT-2026-000002 1 named',
        'other.R RPT-2026-000003 1 named',
        'read.py RPT-2026-000001 1 read',
      ],
    );
    assert.deepEqual(found.named.get('named.py'), [{ id: 'RPT-2026-000002', line: 1 }]);
    await fs.writeFile(path.join(folder, USES_FILE_NAME), usesText(found.record));
    assert.deepEqual(await readUses(folder), found.record);
    assert.deepEqual(impactOf(found.record, before), [], 'nothing amended: none affected');

    // The lab amends two reports and the folder records the new revisions.
    const after = manifest({
      'RPT-2026-000001': '2',
      'RPT-2026-000002': '2',
      'RPT-2026-000003': '1',
    });
    const now = await currentUses(folder, after, { acknowledgeNamed: false });
    const affected = impactOf(now.record, after);
    assert.deepEqual(affectedConsumers(affected), ['named.py', 'read.py']);
    assert.deepEqual(
      affected.map((each) => [
        each.use.id,
        each.use.revision,
        each.currentRevision,
        each.publishedAt,
      ]),
      [
        ['RPT-2026-000002', '1', '2', '2026-11-02T00:00:00Z'],
        ['RPT-2026-000001', '1', '2', '2026-11-02T00:00:00Z'],
      ],
    );
    assert.deepEqual(affectedConsumers(impactOf(now.record, after, { ids: ['RPT-2026-000001'] })), [
      'read.py',
    ]);
    assert.deepEqual(
      affectedConsumers(
        impactOf(found.record, before, {
          atLab: (_origin, id) => (id === 'RPT-2026-000003' ? { revision: '4' } : undefined),
        }),
      ),
      ['other.R'],
      'against the lab’s newest',
    );

    // read.py runs again (a new read); uses are recorded: none affected.
    await fs.appendFile(
      path.join(folder, '.lab-data', 'reads.jsonl'),
      `\n${read('read.py', 'RPT-2026-000001', '2', '2026-11-05T00:00:00Z')}\n`,
    );
    const rerun = await currentUses(folder, after, { acknowledgeNamed: false });
    assert.deepEqual(
      affectedConsumers(impactOf(rerun.record, after)),
      ['named.py'],
      'a name is acknowledged only by recording',
    );
    const recorded = await currentUses(folder, after, { acknowledgeNamed: true });
    assert.deepEqual(impactOf(recorded.record, after), []);
  });

  it('a colleague’s recorded later read is not undone by an older read here; a named use its file no longer names is dropped', async () => {
    const after = manifest({ 'RPT-2026-000001': '2', 'RPT-2026-000002': '1' });
    const previous = {
      uses: [
        {
          consumer: 'read.py',
          lab: LAB,
          id: 'RPT-2026-000001',
          revision: '2',
          sha256: SHA('2'),
          how: 'read' as const,
        },
        {
          consumer: 'other.R',
          lab: LAB,
          id: 'RPT-2026-000002',
          revision: '1',
          sha256: SHA('1'),
          how: 'named' as const,
        },
      ],
    };
    const found = await currentUses(folder, after, { acknowledgeNamed: true, previous });
    assert.deepEqual(
      found.record.uses.map((use) => `${use.consumer} ${use.id} ${use.revision} ${use.how}`),
      ['named.py RPT-2026-000002 1 named', 'read.py RPT-2026-000001 2 read'],
    );
  });

  it('a reading of the uses never makes .lab-data (it runs in the background, maybe under a folder being deleted); its scan cache goes where .lab-data is', async () => {
    await fs.rm(path.join(folder, '.lab-data'), { recursive: true });
    const recorded = manifest({ 'RPT-2026-000002': '1' });
    const found = await currentUses(folder, recorded, { acknowledgeNamed: true });
    assert.ok(found.record.uses.some((use) => use.consumer === 'named.py'));
    await assert.rejects(fs.lstat(path.join(folder, '.lab-data')), { code: 'ENOENT' });
    await fs.mkdir(path.join(folder, '.lab-data'));
    await currentUses(folder, recorded, { acknowledgeNamed: true });
    assert.ok(
      (await fs.readdir(path.join(folder, '.lab-data'))).some((name) =>
        name.startsWith('uses-scan'),
      ),
    );
  });

  it('places a use on each line naming its id (a notebook’s output on its cell’s first line), else on the first line', () => {
    const id = 'RPT-2026-000001';
    assert.deepEqual(
      placesOf(id, [
        { id, line: 3 },
        { id: 'RPT-2026-000002', line: 4 },
        { id, line: 7 },
        { id, line: 7 },
      ]),
      [
        { id, line: 3 },
        { id, line: 7 },
      ],
    );
    assert.deepEqual(
      placesOf(id, [
        { id, line: 1, cell: 2 },
        { id, line: 5, cell: 3, output: true },
      ]),
      [
        { id, line: 1, cell: 2 },
        { id, line: 0, cell: 3 },
      ],
    );
    assert.deepEqual(placesOf(id, undefined), [{ id, line: 0 }]);
    assert.deepEqual(placesOf(id, [{ id: 'RPT-2026-000002', line: 4 }]), [{ id, line: 0 }]);
  });
});
