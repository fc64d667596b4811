import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { consumerPath, lastReads, readReads } from '../../../../core/uses/reads';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

function line(fields: Record<string, unknown>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : 1))),
  );
}

describe('core/uses/reads: the readers’ log', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-reads-'));
  });
  afterEach(async () => {
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('reads every good line, skips and counts broken ones (half a line, not JSON, wrong fields), keeps an unknown consumer as none', async () => {
    const good = {
      at: '2026-11-01T10:00:00Z',
      consumer: 'analysis/a.py',
      lab: 'https://lab.example.com',
      report_id: 'RPT-1',
      revision: '1',
      sha256: A,
    };
    await fs.mkdir(path.join(folder, '.lab-data'));
    await fs.writeFile(
      path.join(folder, '.lab-data', 'reads.jsonl'),
      [
        line(good),
        'not json',
        line({ ...good, sha256: 'short' }),
        line({ ...good, consumer: null, revision: null }),
        line({ ...good, consumer: '../outside.py' }),
        '{"at": "2026-11-01T10:00:00Z", "consumer": "b.py", "lab"',
      ].join('\n'),
    );
    const log = await readReads(folder);
    assert.equal(log.skipped, 3);
    assert.equal(log.reads.length, 3);
    assert.deepEqual(log.reads[0], {
      at: good.at,
      consumer: 'analysis/a.py',
      lab: good.lab,
      reportId: 'RPT-1',
      revision: '1',
      sha256: A,
    });
    assert.equal(log.reads[1]!.consumer, undefined);
    assert.equal(log.reads[1]!.revision, undefined);
    assert.equal(log.reads[2]!.consumer, undefined, 'a path outside the repository is no consumer');
    assert.deepEqual(await readReads(path.join(folder, 'none')), { reads: [], skipped: 0 });
  });

  it('consumer paths: relative with /, never absolute, .. or control characters', () => {
    assert.equal(consumerPath('analysis\\a.py'), 'analysis/a.py');
    assert.equal(consumerPath('./a/../b.R'), 'b.R');
    for (const bad of ['/etc/passwd', '../x.py', 'C:\\x.py', '', '.', 'a\u0000.py']) {
      assert.equal(consumerPath(bad), undefined, bad);
    }
  });

  it('each consumer’s last read of each report, by time; reads without a consumer left out', () => {
    const read = (at: string, revision: string, consumer?: string) => ({
      at,
      ...(consumer !== undefined ? { consumer } : {}),
      lab: 'L',
      reportId: 'RPT-1',
      revision,
      sha256: revision === '1' ? A : B,
    });
    const last = lastReads([
      read('2026-11-02T00:00:00Z', '2', 'a.py'),
      read('2026-11-01T00:00:00Z', '1', 'a.py'),
      read('2026-11-01T00:00:00Z', '1', 'b.py'),
      read('2026-11-03T00:00:00Z', '3'),
    ]);
    assert.deepEqual(
      last.map((each) => `${each.consumer} ${each.revision}`),
      ['a.py 2', 'b.py 1'],
    );
  });
});
