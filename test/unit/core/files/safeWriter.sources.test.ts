import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { LabApiError } from '../../../../core/errors/errors';
import { writeFileSafely } from '../../../../core/files/safeWriter';
import { assertFolderHolds, makeFolder, sentence, within } from '../connection/faultHarness';

const EARLIER = Buffer.from('%PDF-1.4 the earlier copy\n%%EOF\n');
const brokenOff = (): Error =>
  Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });

// Issue 38: the writer listens to its source only once the folder is ready and the temporary file
// open. A source that failed, closed or ended before that has no events left to give: the writer
// must judge it by its state, or it waits for ever with the temporary file open.
describe('writeFileSafely with a source that finished before the writer listened', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await makeFolder();
    await fs.writeFile(path.join(folder, 'R-1.pdf'), EARLIER);
  });
  afterEach(() => fs.rm(folder, { recursive: true, force: true }));

  const write = (source: Readable): Promise<unknown> =>
    writeFileSafely({ folder, fileName: 'R-1.pdf', source, ifExists: 'overwrite' });

  it('a source that broke off while the folder was being prepared fails as a broken transfer; the earlier file stays, nothing open', async () => {
    const source = new PassThrough();
    source.on('error', () => undefined); // as undici's bodies have
    source.write('%PDF-1.7 the first bytes');
    const writing = write(source);
    source.destroy(brokenOff());
    const { error } = await within(2_000, writing, 'the write');
    assert.ok(error instanceof LabApiError, String(error));
    assert.match(error.message, sentence('transferBroken'));
    await assertFolderHolds(folder, 'R-1.pdf', EARLIER, 'after the failed write');
  });

  it('a source already failed and closed fails as a broken transfer', async () => {
    const source = new PassThrough();
    source.on('error', () => undefined);
    source.destroy(brokenOff());
    await new Promise((resolve) => source.once('close', resolve));
    const { error } = await within(2_000, write(source), 'the write');
    assert.ok(error instanceof LabApiError, String(error));
    assert.match(error.message, sentence('transferBroken'));
    await assertFolderHolds(folder, 'R-1.pdf', EARLIER, 'after the failed write');
  });

  it('a source already closed without its end (no error) fails as a broken transfer', async () => {
    const source = new PassThrough();
    source.destroy();
    await new Promise((resolve) => source.once('close', resolve));
    const { error } = await within(2_000, write(source), 'the write');
    assert.ok(error instanceof LabApiError, String(error));
    assert.match(error.message, sentence('transferBroken'));
    await assertFolderHolds(folder, 'R-1.pdf', EARLIER, 'after the failed write');
  });

  it('a source that already ended is written (empty) instead of waited for', async () => {
    const source = Readable.from([]);
    source.resume();
    await new Promise((resolve) => source.once('end', resolve));
    const { value, error } = await within(2_000, write(source), 'the write');
    assert.equal(error, undefined, String(error));
    assert.equal((value as { bytes: number }).bytes, 0);
    await assertFolderHolds(folder, 'R-1.pdf', Buffer.alloc(0), 'after the write');
  });
});
