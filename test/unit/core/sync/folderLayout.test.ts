import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Report } from '../../../../core/api/records';
import { decideByExistingFile, saveReports } from '../../../../core/sync/bulkSave';
import {
  PER_LAB_TEMPLATE,
  folderTemplate,
  missingFiles,
  nameBesideOtherLab,
  recordedLayout,
  recordedNames,
} from '../../../../core/sync/folderLayout';
import { listAllReports } from '../../../../core/sync/folderSync';
import { lockfileText } from '../../../../core/sync/lockfile';
import {
  MANIFEST_FILE_NAME,
  readManifest,
  type LabSection,
  type ManifestEntry,
  type SyncManifest,
} from '../../../../core/sync/manifest';
import { DEFAULT_FILE_NAME_TEMPLATE } from '../../../../core/sync/reportFiles';
import { FULL, startMockLab } from '../../helpers';
import { LabApi } from '../../../../core/api/labApi';
import { defaultLabDefinition } from '../../../../core/api/labDefinition';
import { parseBaseUrl } from '../../../../core/connection/baseUrl';

const entry = (id: string, file: string, sha = 'a'.repeat(64)): ManifestEntry => ({
  report_id: id,
  file,
  published_at: '2026-01-01T00:00:00Z',
  bytes: 10,
  sha256: sha,
  source: `/api/v1/reports/${id}/file`,
});
const section = (origin: string, ...entries: ManifestEntry[]): LabSection => ({
  origin,
  files: Object.fromEntries(entries.map((item) => [item.report_id, item])),
});
const manifestOf = (labs: Record<string, LabSection>): SyncManifest => ({ version: 3, labs });
const report = (id: string): Report => ({
  report_id: id,
  published_at: '2026-02-01T00:00:00Z',
  download_available: true,
  raw: { report_id: id },
});
const MERIDIAN = 'Meridian Analytical Laboratories';

describe('a folder’s layout and recorded names (core/sync/folderLayout)', () => {
  it('reads the layout from the manifest: flat stays flat, a folder per lab stays so, nothing recorded is undecided', () => {
    const flat = manifestOf({ [MERIDIAN]: section('https://m', entry('R-1', 'R-1.pdf')) });
    const perLab = manifestOf({
      [MERIDIAN]: section('https://m', entry('R-1', `${MERIDIAN}/R-1.pdf`)),
      Beta: section('https://b', entry('R-1', 'Beta/R-1.pdf'), entry('R-2', 'Beta/R-2.pdf')),
    });
    const byClient = manifestOf({ Beta: section('https://b', entry('R-1', 'C-9/R-1.pdf')) });
    assert.equal(recordedLayout(flat), 'flat');
    assert.equal(recordedLayout(perLab), 'perLab');
    assert.equal(
      recordedLayout(byClient),
      undefined,
      'a template of the user’s counts for neither',
    );
    assert.equal(recordedLayout(manifestOf({})), undefined);
    // The folder's layout wins over how many labs this machine has signed in.
    assert.equal(folderTemplate(flat, true), DEFAULT_FILE_NAME_TEMPLATE);
    assert.equal(folderTemplate(perLab, false), PER_LAB_TEMPLATE);
    // A new folder: a folder per lab only while several labs are signed in (the rule before).
    assert.equal(folderTemplate(undefined, true), PER_LAB_TEMPLATE);
    assert.equal(folderTemplate(manifestOf({}), false), DEFAULT_FILE_NAME_TEMPLATE);
  });

  it('names a report beside another lab’s file of the same name', () => {
    assert.equal(nameBesideOtherLab('R-1.pdf', 'Beta'), 'R-1 (Beta).pdf');
    assert.equal(nameBesideOtherLab('C-9/R-1.pdf', 'Be/ta'), 'C-9/R-1 (Be_ta).pdf');
  });

  it('counts missing files from one listing per folder, without reading a file', async () => {
    const folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-layout-'));
    try {
      await fs.mkdir(path.join(folder, 'Beta'));
      await fs.writeFile(path.join(folder, 'R-1.pdf'), 'x');
      await fs.writeFile(path.join(folder, 'Beta', 'R-1.pdf'), 'x');
      const manifest = manifestOf({
        [MERIDIAN]: section('https://m', entry('R-1', 'R-1.pdf'), entry('R-2', 'R-2.pdf')),
        Beta: section('https://b', entry('R-1', 'Beta/R-1.pdf'), entry('R-3', 'Gone/R-3.pdf')),
      });
      const missing = await missingFiles(folder, manifest);
      assert.deepEqual(
        missing.map((item) => `${item.lab}:${item.entry.file}`),
        [`${MERIDIAN}:R-2.pdf`, 'Beta:Gone/R-3.pdf'],
      );
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });

  it('a save writes a recorded report to its recorded file, whatever the template; a name another lab holds is never taken', async () => {
    const manifest = manifestOf({
      [MERIDIAN]: section('https://m', entry('R-1', 'certificates/R-1 old name.pdf')),
      Beta: section('https://b', entry('R-2', 'R-2.pdf')),
    });
    const own = recordedNames(manifest, manifest.labs[MERIDIAN]!);
    const target = { folder: '/nowhere', template: PER_LAB_TEMPLATE };
    const absent = (): Promise<boolean> => Promise.resolve(false);
    const never = (): Promise<never> => Promise.reject(new Error('asked'));
    const decide = (id: string) =>
      decideByExistingFile(report(id), target, MERIDIAN, never, absent, undefined, own);
    assert.deepEqual(await decide('R-1'), {
      action: 'download',
      fileName: 'certificates/R-1 old name.pdf',
      ifExists: 'fail',
    });
    // Beta's R-2.pdf is missing here (a fresh clone): Meridian's R-2 still does not take its name.
    const flat = { folder: '/nowhere', template: DEFAULT_FILE_NAME_TEMPLATE };
    assert.deepEqual(
      await decideByExistingFile(report('R-2'), flat, MERIDIAN, never, absent, undefined, own),
      { action: 'download', fileName: `R-2 (${MERIDIAN}).pdf`, ifExists: 'fail' },
    );
    assert.equal(((await decide('R-3')) as { fileName: string }).fileName, `${MERIDIAN}/R-3.pdf`);
    // Two labs at one origin share its section: an entry saved from the other lab's endpoint is not this lab's file.
    const shared = recordedNames(manifest, manifest.labs[MERIDIAN]!, (id) => `/tenant-b/${id}`);
    assert.deepEqual(
      await decideByExistingFile(report('R-1'), flat, 'Beta', never, absent, undefined, shared),
      { action: 'download', fileName: 'R-1.pdf', ifExists: 'fail' },
    );
    assert.ok(shared.othersFiles.has('certificates/r-1 old name.pdf'));
  });

  it('saveReports keeps a recorded report’s file and rewrites no other entry: the manifest’s bytes stay as they were', async function () {
    this.timeout(60_000);
    const lab = await startMockLab({ reports: 12 });
    const folder = await fs.mkdtemp(path.join(tmpdir(), 'lab-layout-save-'));
    try {
      const api = lab.api();
      const [first, second] = (await listAllReports(api, {})).filter(
        (candidate) => candidate.download_available !== false,
      );
      const save = (reports: Report[], template: string) =>
        saveReports(reports, {
          api,
          target: { folder, template },
          signal: new AbortController().signal,
          concurrency: 2,
        });
      await save([first!, second!], 'flat ${report_id}.pdf');
      const text = await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8');
      const recordedFile = `flat ${first!.report_id}.pdf`;
      await fs.rm(path.join(folder, recordedFile));
      // Saved again with another template (as a second lab signed in used to bring), by a machine
      // that calls the lab otherwise: same name, same manifest, its section's name kept.
      const otherName = new LabApi({
        token: FULL,
        lab: defaultLabDefinition(parseBaseUrl(lab.baseUrl), 'Meridian here'),
      });
      const again = await saveReports([first!], {
        api: otherName,
        target: { folder, template: PER_LAB_TEMPLATE },
        signal: new AbortController().signal,
        concurrency: 2,
      });
      await otherName.close();
      assert.deepEqual(
        again.saved.map((saved) => saved.file.fileName),
        [recordedFile],
      );
      assert.equal(await fs.readFile(path.join(folder, MANIFEST_FILE_NAME), 'utf8'), text);
      const manifest = await readManifest(folder);
      assert.equal(lockfileText(manifest), text);
      assert.deepEqual(
        (await fs.readdir(folder)).filter((name) => !name.startsWith('.')).sort(),
        [
          MANIFEST_FILE_NAME,
          `flat ${first!.report_id}.pdf`,
          `flat ${second!.report_id}.pdf`,
        ].sort(),
        'no folder per lab appeared',
      );
    } finally {
      await lab.close();
      await fs.rm(folder, { recursive: true, force: true });
    }
  });
});
