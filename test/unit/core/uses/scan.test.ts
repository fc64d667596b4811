import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { IdShapes } from '../../../../core/derived/idPatterns';
import { repositoryTop, scanRepository, scanText, scannedFiles } from '../../../../core/uses/scan';

function pattern(): RegExp {
  const shapes = new IdShapes();
  shapes.learn(['RPT-2026-000001', 'RPT-2025-000420']);
  return shapes.pattern!;
}

async function write(root: string, file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await fs.writeFile(path.join(root, file), text);
}

const NOTEBOOK = JSON.stringify({
  cells: [
    { cell_type: 'markdown', source: ['# Intro\n', 'no id here\n'] },
    {
      cell_type: 'code',
      source: ['import labdata\n', 'p = labdata.path("RPT-2026-000001")\n'],
      outputs: [
        { output_type: 'stream', text: ['read RPT-2026-000002\n'] },
        { output_type: 'execute_result', data: { 'text/plain': ["'RPT-2026-000003'"] } },
      ],
    },
  ],
});

describe('core/uses/scan: report ids named in a repository', () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-scan-'));
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('finds ids by line in scripts, and by cell and line in a notebook’s sources, and marks those in its outputs', () => {
    assert.deepEqual(
      scanText('a.py', 'x = 1\ny = "RPT-2026-000001"  # RPT-2026-000009\n', pattern()),
      [
        { id: 'RPT-2026-000001', line: 1 },
        { id: 'RPT-2026-000009', line: 1 },
      ],
    );
    assert.deepEqual(scanText('n.ipynb', NOTEBOOK, pattern()), [
      { id: 'RPT-2026-000001', line: 1, cell: 1 },
      { id: 'RPT-2026-000002', line: 0, cell: 1, output: true },
      { id: 'RPT-2026-000003', line: 0, cell: 1, output: true },
    ]);
    assert.deepEqual(scanText('bad.ipynb', 'not json RPT-2026-000004', pattern()), [
      { id: 'RPT-2026-000004', line: 0 },
    ]);
    assert.deepEqual(
      scanText('a.R', 'XRPT-2026-0000011 RPT-2026-00001', pattern()),
      [],
      'only whole ids',
    );
  });

  it('in git: the kinds of file it reads, what .gitignore ignores left out (untracked files kept)', async () => {
    execFileSync('git', ['init', '--quiet'], { cwd: root });
    await write(root, '.gitignore', 'build/\n*.tmp.py\n');
    for (const file of ['a.py', 'b.R', 'c.Rmd', 'd.qmd', 'e.ipynb', 'f.md', 'sub/g.py']) {
      await write(root, file, 'RPT-2026-000001');
    }
    await write(root, 'build/h.py', 'RPT-2026-000001');
    await write(root, 'i.tmp.py', 'RPT-2026-000001');
    await write(root, 'j.txt', 'RPT-2026-000001');
    assert.deepEqual(await scannedFiles(root), [
      'a.py',
      'b.R',
      'c.Rmd',
      'd.qmd',
      'e.ipynb',
      'f.md',
      'sub/g.py',
    ]);
    assert.equal(await repositoryTop(path.join(root, 'sub')), root);
  });

  it('without git: a walk that skips .git, node_modules and .lab-data', async () => {
    await write(root, 'a.py', 'RPT-2026-000001');
    await write(root, 'node_modules/x/b.py', 'RPT-2026-000001');
    await write(root, 'lab-reports/.lab-data/c.md', 'RPT-2026-000001');
    await write(root, 'docs/d.md', 'RPT-2026-000001');
    assert.deepEqual(await scannedFiles(root), ['a.py', 'docs/d.md']);
    assert.equal(await repositoryTop(path.join(root, 'docs')), path.join(root, 'docs'));
  });

  it('is incremental: a second scan reads nothing; a changed file (size or time) is read again; a deleted one leaves the cache', async () => {
    await write(root, 'a.py', 'RPT-2026-000001\n');
    await write(root, 'b.py', 'nothing\n');
    await write(root, 'n.ipynb', NOTEBOOK);
    // The caller makes the cache's folder (currentUses: ensureLocalFolder); the scan never does.
    const cache = path.join(root, 'lab-reports', '.lab-data', 'uses-scan.json');
    await fs.mkdir(path.dirname(cache), { recursive: true });
    const first = await scanRepository(root, pattern(), cache);
    assert.equal(first.read, 3);
    assert.deepEqual([...first.hits.keys()], ['a.py', 'n.ipynb']);
    const second = await scanRepository(root, pattern(), cache);
    assert.equal(second.read, 0, 'nothing read again');
    assert.deepEqual(second.hits, first.hits);
    await write(root, 'b.py', 'now RPT-2026-000005\n');
    await fs.rm(path.join(root, 'a.py'));
    const third = await scanRepository(root, pattern(), cache);
    assert.equal(third.read, 1);
    assert.deepEqual([...third.hits.keys()], ['b.py', 'n.ipynb']);
    const cached = JSON.parse(await fs.readFile(cache, 'utf8')) as { files: object };
    assert.deepEqual(Object.keys(cached.files).sort(), ['b.py', 'n.ipynb']);
    const other = new IdShapes();
    other.learn(['S-0001']);
    assert.equal(
      (await scanRepository(root, other.pattern!, cache)).read,
      2,
      'another pattern reads all again',
    );
  });
});
