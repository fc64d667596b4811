/**
 * Run as a child process by "failed writes" (safeWriter.test.ts), inside whatever limit the parent
 * set up (a full tmpfs in a private mount namespace, `ulimit -f`, a read-only mount): saves one
 * report over an earlier file of the same name, then five reports in one bulk run, into the
 * folder given as the first argument, and prints what happened as JSON.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { saveReports } from '../../../../core/sync/bulkSave';
import { LabApiError } from '../../../../core/errors/errors';
import { startMockLab } from '../../helpers';

async function main(): Promise<void> {
  const folder = process.argv[2]!;
  const lab = await startMockLab({ reports: 12, pdfBytes: 96 * 1024 });
  try {
    const api = lab.api();
    const reports = (await api.listReports({ pageSize: 50 })).items
      .filter((report) => report.download_available)
      .slice(0, 6);
    const [first, ...rest] = reports;
    const earlier = await fs
      .readFile(path.join(folder, 'earlier.pdf'), 'utf8')
      .catch(() => undefined);
    let single: { code?: string; message: string } | { saved: number };
    try {
      const saved = await api.downloadReportFile(first!.report_id, {
        folder,
        fileName: 'earlier.pdf',
        root: folder,
        ifExists: 'overwrite',
      });
      single = { saved: saved.bytes };
    } catch (error) {
      single = {
        code: error instanceof LabApiError ? error.code : undefined,
        message: error instanceof Error ? error.message : String(error),
      };
    }
    const run = await saveReports(rest, {
      api,
      target: { folder: path.join(folder, 'bulk'), root: folder, template: '${report_id}.pdf' },
      signal: new AbortController().signal,
      concurrency: 2,
    });
    const listing = async (dir: string): Promise<string[]> =>
      (await fs.readdir(dir).catch(() => [] as string[])).sort();
    process.stdout.write(
      JSON.stringify({
        single,
        bulk: {
          saved: run.saved.length,
          failed: run.failed.length,
          cancelled: run.cancelled,
          messages: [
            ...new Set(
              run.failed.map((f) => (f.error instanceof Error ? f.error.message : String(f.error))),
            ),
          ],
        },
        files: await listing(folder),
        bulkFiles: await listing(path.join(folder, 'bulk')),
        earlierIntact:
          earlier === undefined
            ? undefined
            : (await fs.readFile(path.join(folder, 'earlier.pdf'), 'utf8')) === earlier,
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
