import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ContentCache } from '../../../../core/files/contentCache';
import type { ManifestEntry, SyncManifest } from '../../../../core/sync/manifest';
import { pushFolder, type PushResult } from '../../../../core/sync/push';

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Every file below `folder`, as paths relative to it (none when it is not there). */
async function filesIn(folder: string): Promise<string[]> {
  const entries = await fs
    .readdir(folder, { recursive: true, withFileTypes: true })
    .catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** The state of each report of a push, by report id. */
function states(result: PushResult): Record<string, string> {
  return Object.fromEntries(result.files.map((file) => [file.reportId, file.state]));
}

describe('pushing a folder to a cache (core: pushFolder)', () => {
  let work: string;
  let folder: string;
  let manifest: SyncManifest;
  const contents: Record<string, Buffer> = {};

  /** Writes a report file into the folder and records it, as a save does (with its time). */
  async function report(id: string, text: string): Promise<ManifestEntry> {
    const bytes = Buffer.from(`%PDF-1.7 ${text}`);
    contents[id] = bytes;
    const file = path.join(folder, `${id}.pdf`);
    await fs.writeFile(file, bytes);
    const { mtimeMs } = await fs.stat(file);
    return {
      report_id: id,
      file: `${id}.pdf`,
      bytes: bytes.length,
      sha256: sha(bytes),
      mtime_ms: mtimeMs,
      source: `/api/v1/reports/${id}/file`,
    };
  }

  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-push-'));
    folder = path.join(work, 'lab-reports');
    await fs.mkdir(folder);
    const entries = [
      await report('R-1', 'one'),
      await report('R-2', 'two'),
      await report('R-3', 'three'),
    ];
    manifest = {
      version: 3,
      labs: {
        Meridian: {
          origin: 'https://lab.example.com',
          files: Object.fromEntries(entries.map((entry) => [entry.report_id, entry])),
        },
      },
    };
  });
  afterEach(() => fs.rm(work, { recursive: true, force: true }));

  it('publishes every recorded file, each restorable from the cache; a second push copies nothing', async () => {
    const cache = new ContentCache(path.join(work, 'team-cache'), { shared: true });
    const progress: number[] = [];
    const first = await pushFolder(folder, manifest, cache, {
      onProgress: ({ done }) => progress.push(done),
    });
    assert.deepEqual(states(first), { 'R-1': 'pushed', 'R-2': 'pushed', 'R-3': 'pushed' });
    assert.equal(
      first.bytes,
      Object.values(contents).reduce((sum, bytes) => sum + bytes.length, 0),
    );
    assert.equal(first.cacheProblem, undefined);
    assert.deepEqual(progress, [1, 2, 3]);
    const stored = await filesIn(cache.folder);
    assert.equal(stored.length, 3, stored.join(', '));
    assert.ok(stored.every((name) => /^sha256\/[0-9a-f]{2}\/[0-9a-f]{64}$/.test(name)));

    const inodes = await Promise.all(
      stored.map(async (name) => (await fs.stat(path.join(cache.folder, name))).ino),
    );
    // Another process, another day: a fresh cache object on the same folder.
    const second = await pushFolder(folder, manifest, new ContentCache(cache.folder));
    assert.deepEqual(states(second), {
      'R-1': 'alreadyThere',
      'R-2': 'alreadyThere',
      'R-3': 'alreadyThere',
    });
    assert.equal(second.bytes, 0);
    assert.deepEqual(
      await Promise.all(
        stored.map(async (name) => (await fs.stat(path.join(cache.folder, name))).ino),
      ),
      inodes,
      'no file copied again',
    );

    const out = path.join(work, 'clone');
    await fs.mkdir(out);
    for (const [id, bytes] of Object.entries(contents)) {
      const restored = await cache.restore(sha(bytes), bytes.length, {
        folder: out,
        fileName: `${id}.pdf`,
        ifExists: 'fail',
      });
      assert.equal(restored?.sha256, sha(bytes), id);
    }
  });

  it('never pushes a changed file, even one whose size and time are as recorded; names a missing one', async () => {
    const changed = path.join(folder, 'R-1.pdf');
    const recorded = manifest.labs.Meridian!.files['R-1']!;
    // Same size, other bytes, and the recorded time put back: the size-and-time shortcut would trust it.
    await fs.writeFile(changed, Buffer.from(`%PDF-1.7 eno`));
    await fs.utimes(changed, new Date(recorded.mtime_ms!), new Date(recorded.mtime_ms!));
    await fs.appendFile(path.join(folder, 'R-2.pdf'), ' edited');
    await fs.rm(path.join(folder, 'R-3.pdf'));
    const cache = new ContentCache(path.join(work, 'cache'));
    const result = await pushFolder(folder, manifest, cache);
    assert.deepEqual(states(result), { 'R-1': 'changed', 'R-2': 'changed', 'R-3': 'missing' });
    assert.equal(result.bytes, 0);
    assert.deepEqual(await filesIn(cache.folder), [], 'nothing kept, no temporary file left');
  });

  it('counts a file the cache holds as there, whether or not the folder still has it', async () => {
    const cache = new ContentCache(path.join(work, 'cache'));
    await pushFolder(folder, manifest, cache);
    await fs.rm(path.join(folder, 'R-1.pdf'));
    await fs.appendFile(path.join(folder, 'R-2.pdf'), ' edited');
    const result = await pushFolder(folder, manifest, cache);
    assert.deepEqual(states(result), {
      'R-1': 'alreadyThere',
      'R-2': 'alreadyThere',
      'R-3': 'alreadyThere',
    });
  });

  it('replaces an entry of the wrong size (a truncated copy) with the checked file', async () => {
    const cache = new ContentCache(path.join(work, 'cache'));
    const entry = manifest.labs.Meridian!.files['R-1']!;
    const stored = path.join(cache.folder, 'sha256', entry.sha256.slice(0, 2), entry.sha256);
    await fs.mkdir(path.dirname(stored), { recursive: true });
    await fs.writeFile(stored, 'trunc');
    const result = await pushFolder(folder, manifest, cache);
    assert.equal(states(result)['R-1'], 'pushed');
    assert.deepEqual(await fs.readFile(stored), contents['R-1']);
    assert.equal((await fs.stat(stored)).mode & 0o777, 0o600, 'the default cache stays private');
  });

  it('copies the bytes two reports share once', async () => {
    const twin = { ...manifest.labs.Meridian!.files['R-1']!, report_id: 'R-9', file: 'R-9.pdf' };
    await fs.copyFile(path.join(folder, 'R-1.pdf'), path.join(folder, 'R-9.pdf'));
    const withTwin: SyncManifest = {
      version: 3,
      labs: {
        Meridian: {
          origin: 'https://lab.example.com',
          files: { ...manifest.labs.Meridian!.files, 'R-9': twin },
        },
      },
    };
    const cache = new ContentCache(path.join(work, 'cache'));
    const result = await pushFolder(folder, withTwin, cache, { concurrency: 4 });
    assert.deepEqual(states(result), {
      'R-1': 'pushed',
      'R-2': 'pushed',
      'R-3': 'pushed',
      'R-9': 'alreadyThere',
    });
    assert.equal((await filesIn(cache.folder)).length, 3);
  });

  it('stops at a cache that cannot be written, saying why, with nothing half-written in it', async () => {
    // Writes fail there even for root (who ignores permissions): a file stands where a folder would go.
    const entries = Object.values(manifest.labs.Meridian!.files);
    const cacheFolder = path.join(work, 'read-only');
    await fs.mkdir(path.join(cacheFolder, 'sha256'), { recursive: true });
    for (const entry of entries) {
      await fs.writeFile(path.join(cacheFolder, 'sha256', entry.sha256.slice(0, 2)), 'in the way');
    }
    const result = await pushFolder(folder, manifest, new ContentCache(cacheFolder), {
      concurrency: 1,
    });
    assert.ok(result.cacheProblem, 'the reason is told');
    assert.match(result.cacheProblem.message, /read-only|not a folder|a folder should be/i);
    assert.deepEqual(states(result), {
      'R-1': 'cacheUnwritable',
      'R-2': 'cacheUnwritable',
      'R-3': 'cacheUnwritable',
    });
    assert.equal(result.bytes, 0);
    assert.deepEqual(
      (await filesIn(cacheFolder)).filter((name) => name.split('/').length > 2),
      [],
      'no entry and no temporary file',
    );

    // A cache whose own folder cannot be made (its parent is a file).
    const blocked = path.join(work, 'a-file');
    await fs.writeFile(blocked, 'not a folder');
    const under = await pushFolder(folder, manifest, new ContentCache(path.join(blocked, 'cache')));
    assert.ok(under.cacheProblem);
    assert.ok(under.files.every((file) => file.state === 'cacheUnwritable'));
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      pushFolder(folder, manifest, new ContentCache(path.join(work, 'cache')), {
        signal: controller.signal,
      }),
    );
  });
});
