import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Report } from '../../../../core/api/records';
import { conflictSides, hasConflictMarkers, lockfileText } from '../../../../core/sync/lockfile';
import { LOCAL_FOLDER, savedMetadata } from '../../../../core/sync/localState';
import {
  MANIFEST_FILE_NAME,
  manifestEntry,
  parseManifest,
  readManifest,
  readManifestStrictly,
  writeManifest,
  type LabSection,
  type SyncManifest,
} from '../../../../core/sync/manifest';

const ORIGIN = 'https://lab.example.com';

function report(i: number): Report {
  const id = `RPT-2026-${String(i).padStart(6, '0')}`;
  const raw = {
    report_id: id,
    report_type: 'Water chemistry',
    client_id: 'C-1001',
    project_id: 'P-2001',
    sample_ids: ['S-000001', 'S-000002'],
    published_at: '2026-10-31T08:15:00Z',
    status: 'published',
    revision: 1,
    updated_at: '2026-10-31T08:15:00Z',
    title: 'A long title the lab sends that the lockfile does not need '.repeat(3),
    download_available: true,
  };
  return {
    report_id: id,
    report_type: raw.report_type,
    client_id: raw.client_id,
    project_id: raw.project_id,
    sample_ids: raw.sample_ids,
    published_at: raw.published_at,
    status: raw.status,
    download_available: true,
    raw,
  };
}

/** A section as one machine records it: times and save times of its own. */
function section(count: number, machine: number): LabSection {
  const files: Record<string, LabSection['files'][string]> = {};
  // Entries in a different order on each machine: the file must not care.
  const order = Array.from({ length: count }, (_, i) => (machine === 1 ? i : count - 1 - i));
  for (const i of order) {
    const r = report(i);
    files[r.report_id] = manifestEntry(
      r,
      {
        path: `/m${machine}/${r.report_id}.pdf`,
        fileName: `${r.report_id}.pdf`,
        bytes: 262144,
        sha256: String(i % 10).repeat(64),
        mtimeMs: 1_700_000_000_000 + machine * 1000 + i,
      },
      `2026-11-0${machine}T00:00:00Z`,
      `/api/v1/reports/${r.report_id}/file`,
    );
  }
  return { origin: ORIGIN, watermark: `2026-11-0${machine}T00:00:00Z`, files };
}

describe('the committed manifest, version 3 (lockfile)', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-lockfile-'));
  });
  afterEach(() => fs.rm(folder, { recursive: true, force: true }));

  it('is byte-identical for the same lab state on two machines, sorted, 2-space, with a trailing newline', () => {
    const one: SyncManifest = { version: 3, labs: { Meridian: section(50, 1) } };
    const two: SyncManifest = { version: 3, labs: { Meridian: section(50, 2) } };
    const text = lockfileText(one);
    assert.equal(text, lockfileText(two));
    assert.ok(text.endsWith('}\n'));
    assert.match(
      text,
      /^\{\n {2}"labs": \{\n {4}"https:\/\/lab\.example\.com": \{\n {6}"files_at"/,
    );
    assert.doesNotMatch(text, /mtime_ms|saved_at|watermark|metadata|title/);
    const ids = [...text.matchAll(/"(RPT-[^"]+)": \{/g)].map((match) => match[1]!);
    assert.deepEqual(ids, [...ids].sort());
  });

  it('holds at most 400 bytes a report', () => {
    const text = lockfileText({ version: 3, labs: { Meridian: section(1000, 1) } });
    const perReport = Buffer.byteLength(text) / 1000;
    assert.ok(perReport <= 400, `${perReport} bytes a report`);
  });

  it("keeps this machine's state beside it in .lab-data/ (git-ignored by itself) and joins it back on reading", async () => {
    const manifest: SyncManifest = { version: 3, labs: { Meridian: section(3, 1) } };
    await writeManifest(folder, manifest);
    const ignore = await fs.readFile(path.join(folder, LOCAL_FOLDER, '.gitignore'), 'utf8');
    assert.match(ignore, /^\*$/m);
    const read = await readManifest(folder);
    const entry = read.labs.Meridian!.files['RPT-2026-000001']!;
    assert.equal(entry.mtime_ms, 1_700_000_001_001);
    assert.equal(entry.saved_at, '2026-11-01T00:00:00Z');
    assert.equal(read.labs.Meridian!.watermark, '2026-11-01T00:00:00Z');
    assert.equal(
      (await savedMetadata(folder, ORIGIN, 'RPT-2026-000001'))?.title,
      report(1).raw.title,
      'the full metadata stays available for provenance',
    );
    // Another machine's commit brings another SHA-256: this machine's time no longer vouches for the file.
    const text = await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8');
    await fs.writeFile(
      path.join(folder, MANIFEST_FILE_NAME),
      text.replace('1'.repeat(64), 'f'.repeat(64)),
    );
    const after = (await readManifest(folder)).labs.Meridian!.files['RPT-2026-000001']!;
    assert.equal(after.sha256, 'f'.repeat(64));
    assert.equal(after.mtime_ms, undefined);
  });

  it('reads versions 1 and 2 and rewrites them as 3 on the next write, losing nothing a user relies on', async () => {
    const old = section(2, 1);
    await fs.writeFile(
      path.join(folder, MANIFEST_FILE_NAME),
      JSON.stringify({ version: 2, labs: { Meridian: old } }, null, 2),
    );
    const read = await readManifest(folder);
    assert.deepEqual(read.labs.Meridian, old);
    await writeManifest(folder, read);
    const text = await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8');
    assert.match(text, /"version": 3/);
    assert.deepEqual((await readManifest(folder)).labs.Meridian, {
      ...old,
      files: Object.fromEntries(
        Object.entries(old.files).map(([id, entry]) => {
          // The lab's update time is kept only where no revision tells an amendment.
          const rest: Record<string, unknown> = { ...entry };
          delete rest.metadata;
          delete rest.updated_at;
          return [id, rest];
        }),
      ),
    });
    assert.ok(await savedMetadata(folder, ORIGIN, 'RPT-2026-000000'));

    const v1 = { version: 1, lab: `${ORIGIN}/api/v1`, watermark: 'w', files: old.files };
    await fs.writeFile(path.join(folder, MANIFEST_FILE_NAME), JSON.stringify(v1));
    const legacy = await readManifest(folder);
    assert.equal(Object.values(legacy.labs)[0]!.origin, ORIGIN);
    await writeManifest(folder, legacy);
    assert.deepEqual(Object.keys((await readManifest(folder)).labs), [`legacy:${ORIGIN}`]);
  });

  it('a report id "__proto__" in a committed lockfile adds nothing and lists nothing of its own fields', async () => {
    const folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-lockfile-proto-'));
    try {
      const sha = 'a'.repeat(64);
      const text = `{"labs":{"${ORIGIN}":{"name":"Meridian","reports":{"R-1":{"bytes":1,"file":"R-1.pdf","sha256":"${sha}"},"__proto__":{"bytes":2,"file":"x.pdf","sha256":"${sha}"}}}},"version":3}`;
      await fs.writeFile(path.join(folder, MANIFEST_FILE_NAME), text);
      const { manifest, problems } = await readManifestStrictly(folder);
      assert.deepEqual(problems, []);
      const files = manifest!.labs.Meridian!.files;
      const ids: string[] = [];
      for (const id in files) {
        ids.push(id);
      }
      assert.deepEqual(ids, ['R-1'], 'no inherited "file", "sha256" or "report_id" entries');
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });

  it('refuses a version 4 manifest with a clear message and never starts afresh over it', async () => {
    const text = JSON.stringify({ version: 4, labs: {} });
    await fs.writeFile(path.join(folder, MANIFEST_FILE_NAME), text);
    await assert.rejects(readManifest(folder), /version 4, which is newer.*update Lab Data/);
    assert.deepEqual(
      (await readManifestStrictly(folder)).problems.map((p) => p.kind),
      ['version'],
    );
    assert.equal(await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8'), text);
  });

  it('names the fix for a manifest git left with conflict markers, and splits its two sides', async () => {
    const ours = lockfileText({ version: 3, labs: { Meridian: section(2, 1) } });
    const theirs = lockfileText({ version: 3, labs: { Meridian: section(3, 1) } });
    const marked = `<<<<<<< HEAD\n${ours}=======\n${theirs}>>>>>>> other\n`;
    assert.ok(hasConflictMarkers(marked));
    assert.ok(!hasConflictMarkers(ours));
    assert.throws(
      () => parseManifest(marked, 'reports'),
      /conflict markers.*lab-data merge-manifest --resolve reports/,
    );
    const sides = conflictSides(marked);
    assert.deepEqual(Object.keys(parseManifest(sides.ours).labs.Meridian!.files).length, 2);
    assert.deepEqual(Object.keys(parseManifest(sides.theirs).labs.Meridian!.files).length, 3);
  });
});
