/** The MIME type of a report card (the Python reader's `labdata.Report`, drawn by the extension's renderer). */
export const REPORT_CARD_MIME = 'application/vnd.labdata.report+json';

/**
 * A stored Jupyter notebook (`.ipynb` text) whose one code cell's output holds `card` as the report
 * MIME with a plain-text fallback, as `labdata.report(id)` leaves it: VS Code shows stored outputs
 * with no kernel.
 */
export function notebookWithCard(card: { readonly id: string } & Record<string, unknown>): string {
  return JSON.stringify({
    cells: [
      {
        cell_type: 'code',
        execution_count: 1,
        metadata: {},
        source: [`labdata.report("${card.id}")`],
        outputs: [
          {
            output_type: 'execute_result',
            execution_count: 1,
            metadata: {},
            data: { [REPORT_CARD_MIME]: card, 'text/plain': [card.id] },
          },
        ],
      },
    ],
    metadata: { language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  });
}
