import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { lockfileText } from '../../core/sync/lockfile';
import type { SyncManifest } from '../../core/sync/manifestModel';
import { parseUses } from '../../core/uses/usesRecord';
import { workspaceFolder } from './helpers';

const LAB = 'http://127.0.0.1:9';
const SHA = 'a'.repeat(64);

/** Record Report Uses writes the folder's lab-data-uses.json with the core's own call (as lab-data uses --record). */
describe('Record Report Uses (labData.recordUses)', function () {
  this.timeout(60_000);
  let repo: string;

  before(async () => {
    repo = await fs.mkdtemp(path.join(workspaceFolder(), 'uses-'));
    execFileSync('git', ['init', '--quiet'], { cwd: repo });
    const folder = path.join(repo, 'lab-reports');
    await fs.mkdir(path.join(folder, '.lab-data'), { recursive: true });
    const manifest: SyncManifest = {
      version: 3,
      labs: {
        Meridian: {
          origin: LAB,
          files: {
            'RPT-2026-000001': {
              report_id: 'RPT-2026-000001',
              file: 'RPT-2026-000001.pdf',
              revision: '1',
              bytes: 10,
              sha256: SHA,
              source: '/api/v1/reports/RPT-2026-000001/file',
            },
          },
        },
      },
    };
    await fs.writeFile(path.join(folder, 'lab-data-sync.json'), lockfileText(manifest));
    await fs.writeFile(path.join(repo, 'cites.py'), '# as in RPT-2026-000001\n');
    await fs.writeFile(path.join(repo, 'trend.ipynb'), '{"cells": []}');
    await fs.writeFile(
      path.join(folder, '.lab-data', 'reads.jsonl'),
      `${JSON.stringify({ at: '2026-12-01T00:00:00Z', consumer: 'trend.ipynb', lab: LAB, report_id: 'RPT-2026-000001', revision: '1', sha256: SHA })}\n`,
    );
  });
  after(async () => {
    await fs.rm(repo, { recursive: true, force: true });
  });

  it('records the script that names the report and the notebook that read it, and says how many', async () => {
    const folder = path.join(repo, 'lab-reports');
    const result = await vscode.commands.executeCommand<{
      folders: Array<{ folder: string; uses: number; consumers: number }>;
    }>('labData.recordUses', { folder });
    assert.deepEqual(result?.folders, [{ folder, uses: 2, consumers: 2 }]);
    const record = parseUses(await fs.readFile(path.join(folder, 'lab-data-uses.json'), 'utf8'));
    assert.deepEqual(
      record.uses.map((use) => `${use.consumer} ${use.id} ${use.revision} ${use.how}`),
      ['cites.py RPT-2026-000001 1 named', 'trend.ipynb RPT-2026-000001 1 read'],
    );
  });
});
