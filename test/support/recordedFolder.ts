import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Writes a folder as `lab-data` leaves it: three small PDFs (`<prefix>-001` to `-003`) and a
 * manifest recording their sizes and SHA-256, from a lab no test starts (verify asks no lab).
 * Returns the manifest's text and the 0-based line of each report's entry in it.
 */
export async function recordedFolder(
  folder: string,
  prefix: string,
): Promise<{ readonly text: string; readonly lineOf: (id: string) => number }> {
  await fs.mkdir(folder, { recursive: true });
  const reports: Record<string, unknown> = {};
  for (const n of [1, 2, 3]) {
    const id = `${prefix}-00${n}`;
    const bytes = `%PDF-1.4 report ${id}\n`;
    await fs.writeFile(path.join(folder, `${id}.pdf`), bytes);
    reports[id] = {
      bytes: bytes.length,
      file: `${id}.pdf`,
      revision: '1',
      source: `/api/v1/reports/${id}/file`,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
  }
  const text = `${JSON.stringify(
    { labs: { 'https://lab.invalid': { name: 'Tasks lab', reports } }, version: 3 },
    null,
    2,
  )}\n`;
  await fs.writeFile(path.join(folder, 'lab-data-sync.json'), text);
  const lines = text.split('\n');
  return { text, lineOf: (id) => lines.findIndex((line) => line.includes(`"${id}": {`)) };
}
