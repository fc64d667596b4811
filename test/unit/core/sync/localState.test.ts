import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LabApiError } from '../../../../core/errors/errors';
import { withFolderLock } from '../../../../core/sync/localState';

describe("localState: this machine's .lab-data folder", () => {
  let work: string;
  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-local-state-'));
  });
  afterEach(() => fs.rm(work, { recursive: true, force: true }));

  it('is never a link: a .lab-data pointing elsewhere is refused, named, and nothing is written where it points (issue 57)', async () => {
    const folder = path.join(work, 'reports');
    const elsewhere = path.join(work, 'elsewhere');
    await fs.mkdir(folder);
    await fs.mkdir(elsewhere);
    await fs.symlink(elsewhere, path.join(folder, '.lab-data'));
    let ran = false;
    const error = await withFolderLock(
      folder,
      async () => {
        ran = true;
      },
      () => new Error('busy'),
    ).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof LabApiError);
    assert.equal(error.text?.id, 'localFolderNotOwn');
    assert.ok(error.message.includes(path.join(folder, '.lab-data')), error.message);
    assert.equal(ran, false);
    assert.deepEqual(await fs.readdir(elsewhere), []);
  });
});
