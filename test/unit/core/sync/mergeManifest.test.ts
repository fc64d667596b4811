import * as assert from 'node:assert/strict';
import type { ManifestEntry, SyncManifest } from '../../../../core/sync/manifest';
import { mergeManifests, separateFileNames } from '../../../../core/sync/mergeManifest';

const ORIGIN = 'https://lab.example.com';

function entry(id: string, revision: string, sha: string, file = `${id}.pdf`): ManifestEntry {
  return {
    report_id: id,
    file,
    revision,
    bytes: 10,
    sha256: sha.repeat(64).slice(0, 64),
    source: `/api/v1/reports/${id}/file`,
  };
}

function manifest(...entries: ManifestEntry[]): SyncManifest {
  return {
    version: 3,
    labs: {
      Meridian: {
        origin: ORIGIN,
        files: Object.fromEntries(entries.map((item) => [item.report_id, item])),
      },
    },
  };
}

const ids = (merged: SyncManifest): string[] => Object.keys(merged.labs.Meridian!.files);

describe('merging two manifests (the git merge driver)', () => {
  it('keeps different reports from both sides', () => {
    const base = manifest(entry('R-1', '1', 'a'));
    const merged = mergeManifests(
      base,
      manifest(entry('R-1', '1', 'a'), entry('R-2', '1', 'b')),
      manifest(entry('R-1', '1', 'a'), entry('R-3', '1', 'c')),
    );
    assert.deepEqual(merged.conflicts, []);
    assert.deepEqual(ids(merged.manifest), ['R-1', 'R-2', 'R-3']);
  });

  it('takes the newer revision of one report, whichever side has it', () => {
    const base = manifest(entry('R-1', '1', 'a'));
    for (const [ours, theirs] of [
      [entry('R-1', '2', 'b'), entry('R-1', '10', 'c')],
      [entry('R-1', '10', 'c'), entry('R-1', '2', 'b')],
    ] as const) {
      const merged = mergeManifests(base, manifest(ours), manifest(theirs));
      assert.deepEqual(merged.conflicts, []);
      assert.equal(
        merged.manifest.labs.Meridian!.files['R-1']!.revision,
        '10',
        'numbers compare as numbers',
      );
    }
  });

  it('honours a removal on one side of what the other left unchanged', () => {
    const base = manifest(entry('R-1', '1', 'a'), entry('R-2', '1', 'b'));
    const merged = mergeManifests(base, manifest(entry('R-1', '1', 'a')), base);
    assert.deepEqual(ids(merged.manifest), ['R-1']);
  });

  it('names a conflict: two files of one report at one revision', () => {
    const same = mergeManifests(
      manifest(),
      manifest(entry('R-1', '1', 'a')),
      manifest(entry('R-1', '1', 'b')),
    );
    assert.match(same.conflicts[0]!, /R-1: both sides record a different file at revision 1/);
  });

  it('gives the report whose id sorts later a second name when two claim one file name, whichever side has it', () => {
    for (const [ours, theirs] of [
      [entry('R-1', '1', 'a', 'sub/shared.pdf'), entry('R-2', '1', 'b', 'sub/SHARED.pdf')],
      [entry('R-2', '1', 'b', 'sub/SHARED.pdf'), entry('R-1', '1', 'a', 'sub/shared.pdf')],
    ] as const) {
      const merged = mergeManifests(manifest(), manifest(ours), manifest(theirs));
      assert.deepEqual(merged.conflicts, []);
      const files = merged.manifest.labs.Meridian!.files;
      assert.equal(files['R-1']!.file, 'sub/shared.pdf');
      assert.equal(files['R-2']!.file, 'sub/SHARED~R-2.pdf');
      assert.equal(files['R-2']!.sha256, 'b'.repeat(64), 'only the name changes');
      assert.deepEqual(merged.renamed, [
        {
          lab: 'Meridian',
          reportId: 'R-2',
          keptBy: 'R-1',
          from: 'sub/SHARED.pdf',
          to: 'sub/SHARED~R-2.pdf',
        },
      ]);
    }
  });

  it('makes a second name safe and free: an id with a slash, a name already taken', () => {
    const separated = separateFileNames(
      manifest(
        entry('A', '1', 'a', 'x.pdf'),
        entry('B/1', '1', 'b', 'x.pdf'),
        entry('C', '1', 'c', 'x~B_1.pdf'),
      ),
    );
    const files = separated.manifest.labs.Meridian!.files;
    assert.equal(files['B/1']!.file, 'x~B_1~2.pdf');
    assert.equal(files.C!.file, 'x~B_1.pdf');
    assert.equal(separated.renamed.length, 1);
    const clean = manifest(entry('A', '1', 'a'));
    assert.equal(
      separateFileNames(clean).manifest,
      clean,
      'nothing to separate: the same manifest',
    );
  });

  it('keeps labs only one side knows, by origin, whatever each side calls them', () => {
    const other: SyncManifest = {
      version: 3,
      labs: {
        'Lab B': { origin: 'https://b.example', files: { X: entry('X', '1', 'd') } },
        'Meridian (my name)': { origin: ORIGIN, files: { 'R-9': entry('R-9', '1', 'e') } },
      },
    };
    const merged = mergeManifests(manifest(), manifest(entry('R-1', '1', 'a')), other);
    assert.deepEqual(Object.keys(merged.manifest.labs).sort(), ['Lab B', 'Meridian']);
    assert.deepEqual(ids(merged.manifest), ['R-1', 'R-9']);
  });
});
