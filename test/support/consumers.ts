import type { ManifestEntry } from '../../core/sync/manifestModel';

/** One line of `.lab-data/reads.jsonl` as the Python and R readers write it (keys sorted). */
export function readLine(
  consumer: string,
  origin: string,
  entry: ManifestEntry,
  at = '2026-11-30T09:00:00Z',
): string {
  return JSON.stringify({
    at,
    consumer,
    lab: origin,
    report_id: entry.report_id,
    revision: entry.revision ?? null,
    sha256: entry.sha256,
  });
}

/** A notebook: a markdown cell, then a code cell whose second line reads the report and printed its id. */
export function notebook(id: string): string {
  return JSON.stringify({
    cells: [
      { cell_type: 'markdown', metadata: {}, source: ['# Nitrate trend\n'] },
      {
        cell_type: 'code',
        metadata: {},
        execution_count: 1,
        source: ['import labdata\n', `pdf = labdata.path("${id}")\n`, 'print(pdf.name)'],
        outputs: [{ output_type: 'stream', name: 'stdout', text: [`${id}.pdf\n`] }],
      },
    ],
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  });
}
