/**
 * Run as a child process by "the content cache on a full disk" (contentCache.test.ts), inside a
 * private mount namespace where the cache folder (the second argument) is a nearly full tmpfs:
 * saves five reports into the workspace folder (the first argument, on a disk with space) through
 * the core's bulk save with that cache, then frees the cache's disk and keeps a file again with a
 * new cache on the same folder (a later run), and prints what happened as JSON.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ContentCache } from '../../../../core/files/contentCache';
import { saveReports } from '../../../../core/sync/bulkSave';
import { startMockLab } from '../../helpers';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Every file below `folder`, as paths relative to it. */
async function filesIn(folder: string): Promise<string[]> {
  const entries = await fs.readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

async function main(): Promise<void> {
  const [workspace, cacheFolder] = process.argv.slice(2) as [string, string];
  const lab = await startMockLab({ reports: 12, pdfBytes: 96 * 1024 });
  try {
    const api = lab.api();
    const reports = (await api.listReports({ pageSize: 50 })).items
      .filter((report) => report.download_available)
      .slice(0, 5);
    const warnings: string[] = [];
    const cache = new ContentCache(cacheFolder, {
      shared: true,
      warn: (message) => warnings.push(message),
    });
    const run = await saveReports(reports, {
      api,
      target: { folder: workspace, root: workspace, template: '${report_id}.pdf' },
      signal: new AbortController().signal,
      concurrency: 2,
      cache,
    });
    const saved = await Promise.all(
      reports.map(async ({ report_id: id }) => {
        const expected = sha256(lab.server.pdfFor(id));
        const bytes = await fs.readFile(path.join(workspace, `${id}.pdf`)).catch(() => undefined);
        return { id, whole: bytes !== undefined && sha256(bytes) === expected, expected };
      }),
    );
    const cacheFilesWhenFull = (await filesIn(cacheFolder)).filter((name) => name !== 'filler');

    // Space again (the disk was cleaned up): the next run keeps its files.
    await fs.rm(path.join(cacheFolder, 'filler'));
    const later = new ContentCache(cacheFolder, {
      shared: true,
      warn: (message) => warnings.push(`later: ${message}`),
    });
    const first = saved[0]!;
    const file = path.join(workspace, `${first.id}.pdf`);
    const { size } = await fs.stat(file);
    await later.keep(file, first.expected, size);
    const laterKept = await later.has(first.expected, size);
    const out = path.join(workspace, 'restored');
    await fs.mkdir(out);
    const restored = await later.restore(first.expected, size, {
      folder: out,
      fileName: 'restored.pdf',
      ifExists: 'fail',
    });
    process.stdout.write(
      JSON.stringify({
        bulk: { saved: run.saved.length, failed: run.failed.length, cancelled: run.cancelled },
        saved: saved.map(({ id, whole: isWhole }) => ({ id, whole: isWhole })),
        workspaceFiles: (await fs.readdir(workspace)).filter((name) => name !== 'restored').sort(),
        warnings,
        writeProblem: cache.writeProblem,
        cacheFilesWhenFull,
        laterKept,
        restoredWhole:
          restored !== undefined &&
          sha256(await fs.readFile(path.join(out, 'restored.pdf'))) === first.expected,
        cacheFilesLater: await filesIn(cacheFolder),
      }),
    );
  } finally {
    await lab.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(2);
});
