import * as assert from 'node:assert/strict';
import { formatBytes } from '../../../../core/files/sizes';

describe('sizes as people read them', () => {
  it('counts bytes up to 1023, then KB, MB and GB in binary multiples with one decimal', () => {
    assert.equal(formatBytes(0), '0 B');
    assert.equal(formatBytes(1023), '1023 B');
    assert.equal(formatBytes(1024), '1.0 KB');
    assert.equal(formatBytes(251_800), '245.9 KB');
    assert.equal(formatBytes(5 * 1024 * 1024), '5.0 MB');
    assert.equal(formatBytes(1.2 * 1024 ** 3), '1.2 GB');
  });

  it('stops at GB however large the size', () => {
    assert.equal(formatBytes(5 * 1024 ** 4), '5120.0 GB');
  });
});
