import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { lockfileSchemaErrors } from '../support/lockfileSchema';
import { makeFixtures, type Fixtures } from '../readers/makeFixtures';

type Written = {
  labs: Record<
    string,
    { reports: Record<string, { file: string; sha256: string; revision?: string }> }
  >;
};

describe('the readers’ fixtures: manifests the packed tool and the core wrote, held to the published schema', function () {
  this.timeout(600_000);
  let dir: string;
  let fixtures: Fixtures;
  before(async () => {
    dir = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-reader-fixtures-'));
    fixtures = await makeFixtures(dir);
  });
  after(async () => {
    await fixtures?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('every manifest written (packed tool: two labs, nested, amended; core: two labs, amended; 10,000 entries) validates, and index.json says what each holds', async () => {
    const index = JSON.parse(await fs.readFile(path.join(dir, 'index.json'), 'utf8')) as Fixtures;
    assert.deepEqual(Object.keys(index.cases).sort(), ['core', 'large', 'packed']);
    for (const [name, fixture] of Object.entries(index.cases)) {
      const text = await fs.readFile(fixture.manifest, 'utf8');
      assert.deepEqual(lockfileSchemaErrors(text), [], name);
      const written = JSON.parse(text) as Written;
      const entries = Object.values(written.labs).flatMap((section) =>
        Object.values(section.reports),
      );
      assert.equal(entries.length, fixture.reports, name);
      await fs.access(path.join(fixture.repo, '.git'));
      if (fixture.amended) {
        const entry = written.labs[fixture.amended.lab]!.reports[fixture.amended.report_id]!;
        assert.equal(entry.revision, '2', `${name}: the amended report is at revision 2`);
      }
    }
    assert.equal(index.cases.large!.reports, 10_000);
    assert.ok(index.cases.packed!.nested && index.cases.core!.nested);
    assert.ok(index.cases.packed!.shared_ids.length > 0, 'two labs share ids');
    assert.deepEqual(Object.keys(index.cases.packed!.labs).length, 2);
  });

  it('the folder cache and the team cache hold every recorded file of the packed case, by SHA-256', async function () {
    const packed = fixtures.cases.packed!;
    const written = JSON.parse(await fs.readFile(packed.manifest, 'utf8')) as Written;
    for (const section of Object.values(written.labs)) {
      for (const entry of Object.values(section.reports)) {
        const where = path.join('sha256', entry.sha256.slice(0, 2), entry.sha256);
        const cached = await fs.readFile(path.join(packed.folder_cache!, where));
        assert.equal(createHash('sha256').update(cached).digest('hex'), entry.sha256);
        if (fixtures.team_cache) {
          const response = await fetch(`${fixtures.team_cache.url}/${where}`, {
            headers: { authorization: `Bearer ${fixtures.team_cache.token}` },
          });
          assert.equal(response.status, 200, `${entry.file} in the team cache`);
          const bytes = Buffer.from(await response.arrayBuffer());
          assert.equal(createHash('sha256').update(bytes).digest('hex'), entry.sha256);
        }
      }
    }
    if (!fixtures.team_cache) {
      console.log('    (the team cache part skipped: nginx is not installed)');
      this.skip();
    }
  });
});
