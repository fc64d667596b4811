import { promises as fs } from 'node:fs';
import { renderFileName } from '../files/fileNames';
import { sha256Each } from '../files/hashEach';
import type { Report } from '../api/records';

export const DEFAULT_FILE_NAME_TEMPLATE = '${report_id}.pdf';

/** The file name of a report's PDF from a template (`labData.fileNameTemplate`), safe on every OS. */
export function reportFileName(
  report: Report,
  template: string = DEFAULT_FILE_NAME_TEMPLATE,
  lab?: string,
): string {
  const published =
    report.published_at && /^\d{4}-\d{2}-\d{2}/.test(report.published_at)
      ? report.published_at.slice(0, 10)
      : undefined;
  return renderFileName(
    template || DEFAULT_FILE_NAME_TEMPLATE,
    {
      report_id: report.report_id,
      report_type: report.report_type,
      published_date: published,
      client_id: report.client_id,
      project_id: report.project_id,
      lab,
    },
    `${report.report_id}.pdf`,
  );
}

/** Whether something (a file, a link, a folder) is at `file`; never follows a link. */
export async function pathExists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}

/** SHA-256 of a file, every byte read ({@link sha256Each}); undefined when there is no file to read. */
export async function fileSha256(file: string): Promise<string | undefined> {
  return (await sha256Each([file]))[0];
}

/** The later of two ISO timestamps (either may be missing). */
export function laterTimestamp(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) {
    return b;
  }
  if (!b) {
    return a;
  }
  return Date.parse(b) > Date.parse(a) ? b : a;
}
