import * as assert from 'node:assert/strict';
import { LOCKFILE_VERSION, type SyncManifest } from '../../../../core/sync/manifestModel';
import { lockfileText } from '../../../../core/sync/lockfile';
import { parseManifest } from '../../../../core/sync/manifest';

describe('the manifest model', () => {
  it('is version 3, the version the lockfile writes and the reader gives back', () => {
    assert.equal(LOCKFILE_VERSION, 3);
    const empty: SyncManifest = { version: LOCKFILE_VERSION, labs: {} };
    const text = lockfileText(empty);
    assert.equal((JSON.parse(text) as { version: unknown }).version, 3);
    assert.equal(parseManifest(text).version, LOCKFILE_VERSION);
  });
});
