import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { labError } from '../../../../core/errors/messages';
import { isCancellation } from '../../../../core/errors/errors';
import { FolderRun, labWide } from '../../../../core/sync/folderRun';
import { readManifest } from '../../../../core/sync/manifest';

/** A manifest entry of report `id` whose SHA-256 is `sha` repeated. */
const entry = (id: string, sha: string) =>
  ({
    report_id: id,
    file: `${id}.pdf`,
    bytes: 1,
    sha256: sha.repeat(64),
    saved_at: '2026-01-01T00:00:00.000Z',
    source: `/api/v1/reports/${id}/file`,
  }) as never;

/** The one run beneath Save, Save All, Sync and pull: its workers, outage check and manifest record. */
describe('FolderRun, the run every folder command shares', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-folder-run-'));
  });
  afterEach(async () => {
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('runs at most `concurrency` items at once, results in order', async () => {
    const run = new FolderRun({ folder, concurrency: 3 });
    let running = 0;
    let most = 0;
    const results = await run.each([1, 2, 3, 4, 5, 6, 7], async (item) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return item * 10;
    });
    assert.deepEqual(results, [10, 20, 30, 40, 50, 60, 70]);
    assert.equal(most, 3);
  });

  it('remembers a failure of a lab as a whole for that lab only; a file-sized failure is not remembered', () => {
    const run = new FolderRun({ folder, concurrency: 1 });
    const refused = labError('unauthorized', 'unauthorized', { origin: 'https://a.example' });
    assert.ok(labWide(refused));
    assert.equal(run.failed('A', 'https://a.example', refused), refused);
    assert.equal(run.labFailure('A'), refused);
    assert.equal(run.labFailure('B'), undefined);
    const broken = labError('invalidResponse', 'badJson');
    run.failed('B', 'https://b.example', broken);
    assert.equal(run.labFailure('B'), undefined);
    const forbidden = labError('forbidden', 'forbidden');
    assert.ok(!labWide(forbidden), 'a 403 is about one record, not the lab');
    const down = labError('network', 'unreachable', { origin: 'https://a.example', reason: 'x' });
    assert.equal(
      run.failed('A', 'https://a.example', down),
      refused,
      'a later failure of the lab as a whole is told as the first one: one cause',
    );
    const full = labError('fileSystem', 'badJson', {}, { detail: 'ENOSPC' });
    run.failed('B', 'https://b.example', full);
    assert.equal(run.folderFailed(), full);
  });

  it('stops taking items when cancelled and waits for those under way before it resolves', async () => {
    const run = new FolderRun({ folder, concurrency: 2 });
    const finished: number[] = [];
    const results = await run.each([1, 2, 3, 4, 5], async (item) => {
      if (item === 2) {
        run.cancel();
      }
      await new Promise((resolve) => setImmediate(resolve));
      finished.push(item);
      return item;
    });
    assert.deepEqual(finished.sort(), [1, 2]);
    assert.deepEqual(results.slice(0, 2), [1, 2]);
    assert.equal(results[2], undefined);
    assert.ok(run.cancelled);
    assert.throws(() => run.failed('A', 'https://a.example', new Error('x')), /x/);
    try {
      run.failed('A', 'https://a.example', labError('cancelled', 'cancelled'));
      assert.fail('a cancellation is thrown again');
    } catch (error) {
      assert.ok(isCancellation(error));
    }
  });

  it("records each lab's changes in one manifest write, in the order they were made, when it ends", async () => {
    const run = new FolderRun({ folder, concurrency: 1 });
    const lab = { name: 'Lab', origin: 'https://lab.example' };
    run.record(lab, (section) => ({
      ...section,
      files: { ...section.files, R1: entry('R1', 'a') },
    }));
    run.record(lab, () => undefined);
    run.record(lab, (section) => ({
      ...section,
      files: { ...section.files, R1: entry('R1', 'b'), R2: entry('R2', 'c') },
    }));
    assert.equal(await readManifest(folder).then((m) => Object.keys(m.labs).length), 0);
    assert.equal(await run.finish(), true);
    const files = (await readManifest(folder)).labs.Lab?.files;
    assert.deepEqual(Object.keys(files ?? {}).sort(), ['R1', 'R2']);
    assert.equal(files?.R1?.sha256, 'b'.repeat(64));
    const idle = new FolderRun({ folder, concurrency: 1 });
    idle.record(lab, () => undefined);
    assert.equal(await idle.finish(), false, 'no change, no write');
  });

  it('sets many entries of a lab in one pass over its section, the last entry of an id winning, each lab its own', async () => {
    const run = new FolderRun({ folder, concurrency: 1 });
    const lab = { name: 'Lab', origin: 'https://lab.example' };
    const other = { name: 'Other', origin: 'https://other.example' };
    // The section's files are copied once for the batch, however many entries it holds.
    let copies = 0;
    const recordBefore = run.record.bind(run);
    run.record = (key, change) =>
      recordBefore(key, (section) => {
        copies += 1;
        return change(section);
      });
    for (let n = 0; n < 1000; n += 1) {
      run.recordEntry(lab, entry(`R${n}`, 'a'));
    }
    run.recordEntry(lab, entry('R7', 'b'));
    run.recordEntry(other, entry('R7', 'c'));
    assert.equal(await run.finish(), true);
    const manifest = await readManifest(folder);
    assert.equal(Object.keys(manifest.labs.Lab?.files ?? {}).length, 1000);
    assert.equal(manifest.labs.Lab?.files.R7?.sha256, 'b'.repeat(64));
    assert.deepEqual(Object.keys(manifest.labs.Other?.files ?? {}), ['R7']);
    assert.equal(manifest.labs.Other?.files.R7?.sha256, 'c'.repeat(64));
    assert.equal(copies, 2, 'one change a lab, not one an entry');
  });
});
