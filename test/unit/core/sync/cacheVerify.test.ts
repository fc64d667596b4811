import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ContentCache } from '../../../../core/files/contentCache';
import { checkCacheFiles } from '../../../../core/sync/cacheVerify';
import type { SyncManifest } from '../../../../core/sync/manifest';
import { pushFolder } from '../../../../core/sync/push';

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe("reading a cache's copies back (core: checkCacheFiles)", () => {
  it('tells good, corrupt (same size) and missing copies apart, and repairs a corrupt one from the folder', async () => {
    const work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-cacheverify-'));
    try {
      const folder = path.join(work, 'lab-reports');
      await fs.mkdir(folder);
      const files: Record<string, object> = {};
      const bytesOf: Record<string, Buffer> = {};
      for (const id of ['R-1', 'R-2', 'R-3']) {
        const bytes = Buffer.from(`%PDF-1.7 report ${id}`);
        bytesOf[id] = bytes;
        await fs.writeFile(path.join(folder, `${id}.pdf`), bytes);
        files[id] = {
          report_id: id,
          file: `${id}.pdf`,
          sha256: sha(bytes),
          bytes: bytes.length,
          source: `/v1/reports/${id}/file`,
          saved_at: '2026-01-01T00:00:00Z',
        };
      }
      const manifest = {
        version: 3,
        labs: { Lab: { origin: 'https://lab.example.com', files } },
      } as unknown as SyncManifest;
      const cache = new ContentCache(path.join(work, 'cache'), { shared: true });
      await pushFolder(folder, manifest, cache);
      const stored = (id: string): string => {
        const hash = sha(bytesOf[id]!);
        return path.join(work, 'cache', 'sha256', hash.slice(0, 2), hash);
      };
      const corrupt = Buffer.from(bytesOf['R-1']!);
      corrupt[2] = corrupt[2]! ^ 0xff;
      await fs.writeFile(stored('R-1'), corrupt);
      await fs.rm(stored('R-2'));

      const found = await checkCacheFiles(folder, manifest, cache);
      const state = (result: typeof found, id: string) =>
        result.files.find((file) => file.reportId === id)?.state;
      assert.equal(state(found, 'R-1'), 'corrupt');
      assert.equal(state(found, 'R-2'), 'missing');
      assert.equal(state(found, 'R-3'), 'good');

      const repaired = await checkCacheFiles(folder, manifest, cache, { repair: true });
      assert.equal(state(repaired, 'R-1'), 'repaired');
      assert.ok((await fs.readFile(stored('R-1'))).equals(bytesOf['R-1']!));
      assert.equal(state(await checkCacheFiles(folder, manifest, cache), 'R-1'), 'good');
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }
  });
});
