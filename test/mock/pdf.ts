/**
 * Builds small but valid PDF files (one page of Helvetica text) and, for benchmarks, very large
 * ones padded with an unreferenced stream object, generated chunk by chunk so memory stays flat.
 */

function escapePdfText(text: string): string {
  // Keep to printable ASCII; the demo data is ASCII, and anything else is replaced.
  return text.replace(/[^\x20-\x7e]/g, '?').replace(/([\\()])/g, '\\$1');
}

export interface PdfPlan {
  /** Total size in bytes, known before any byte is produced (for Content-Length). */
  readonly size: number;
  /** The file, in chunks. */
  chunks(): Generator<Buffer>;
}

const PAD_CHUNK = 64 * 1024;

/** Plans a one-page PDF showing `lines`, optionally padded to about `padToBytes`. */
export function planPdf(title: string, lines: readonly string[], padToBytes = 0): PdfPlan {
  const content = [
    'BT',
    '/F1 16 Tf',
    '56 740 Td',
    `(${escapePdfText(title)}) Tj`,
    '/F1 10 Tf',
    '0 -28 Td',
    '14 TL',
    ...lines.map((line) => `(${escapePdfText(line)}) '`),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const header = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const parts: Buffer[] = [header];
  const offsets: number[] = [];
  let offset = header.length;
  objects.forEach((body, index) => {
    const part = Buffer.from(`${index + 1} 0 obj\n${body}\nendobj\n`, 'latin1');
    offsets.push(offset);
    parts.push(part);
    offset += part.length;
  });
  const head = Buffer.concat(parts);
  let padding = 0;
  let padOpen = Buffer.alloc(0);
  let padClose = Buffer.alloc(0);
  if (padToBytes > head.length + 1024) {
    padding = padToBytes - head.length - 512;
    padOpen = Buffer.from(`${objects.length + 1} 0 obj\n<< /Length ${padding} >>\nstream\n`, 'latin1');
    padClose = Buffer.from('\nendstream\nendobj\n', 'latin1');
    offsets.push(head.length);
  }
  const xrefOffset = head.length + padOpen.length + padding + padClose.length;
  const count = offsets.length + 1;
  const xref = [
    'xref',
    `0 ${count}`,
    '0000000000 65535 f ',
    ...offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${count} /Root 1 0 R >>`,
    'startxref',
    String(xrefOffset),
    '%%EOF',
    '',
  ].join('\n');
  const tail = Buffer.from(xref, 'latin1');
  const size = xrefOffset + tail.length;
  return {
    size,
    *chunks() {
      yield head;
      if (padding > 0) {
        yield padOpen;
        const block = Buffer.alloc(PAD_CHUNK, 0x20);
        for (let left = padding; left > 0; left -= PAD_CHUNK) {
          yield left >= PAD_CHUNK ? block : block.subarray(0, left);
        }
        yield padClose;
      }
      yield tail;
    },
  };
}

/** The whole PDF in memory, for small files and tests. */
export function renderPdf(title: string, lines: readonly string[]): Buffer {
  return Buffer.concat([...planPdf(title, lines).chunks()]);
}
