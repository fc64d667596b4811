import * as assert from 'node:assert/strict';
import { entriesLost } from '../../../../core/sync/lostMerge';
import type { ManifestEntry, SyncManifest } from '../../../../core/sync/manifest';

function entry(id: string): ManifestEntry {
  return {
    report_id: id,
    file: `${id}.pdf`,
    revision: '1',
    bytes: 10,
    sha256: 'a'.repeat(64),
    source: `/api/v1/reports/${id}/file`,
  };
}

/** A manifest with one section per origin given, each holding the ids given. */
function manifest(sections: Record<string, string[]>): SyncManifest {
  return {
    version: 3,
    labs: Object.fromEntries(
      Object.entries(sections).map(([origin, ids], index) => [
        `Lab ${index}`,
        { origin, files: Object.fromEntries(ids.map((id) => [id, entry(id)])) },
      ]),
    ),
  };
}

const A = 'https://lab.example.com';
const B = 'https://vpn.lab.example.com';

describe('a merge that lost entries of the manifest (lostMerge)', () => {
  it('names entries both parents record and entries one side added, when the merge lacks them', () => {
    const lost = entriesLost({
      base: manifest({ [A]: ['R-1'] }),
      ours: manifest({ [A]: ['R-1', 'R-2'] }),
      theirs: manifest({ [A]: ['R-1', 'R-3'], [B]: ['R-9'] }),
      merged: manifest({ [A]: ['R-2'] }),
    });
    assert.deepEqual(
      lost.map((each) => `${each.origin} ${each.reportId}`),
      [`${A} R-1`, `${A} R-3`, `${B} R-9`],
    );
  });

  it('takes a removal on one side for a removal, and a merge that kept everything for none', () => {
    const base = manifest({ [A]: ['R-1', 'R-2'] });
    const ours = manifest({ [A]: ['R-1', 'R-2', 'R-4'] });
    const theirs = manifest({ [A]: ['R-2'] });
    assert.deepEqual(
      entriesLost({ base, ours, theirs, merged: manifest({ [A]: ['R-2', 'R-4'] }) }),
      [],
    );
  });

  it('keys entries by address: the same id at another address is another entry', () => {
    const lost = entriesLost({
      base: manifest({}),
      ours: manifest({ [A]: ['R-1'] }),
      theirs: manifest({ [B]: ['R-1'] }),
      merged: manifest({ [A]: ['R-1'] }),
    });
    assert.deepEqual(
      lost.map((each) => each.origin),
      [B],
    );
  });
});
