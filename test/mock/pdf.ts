import { createHash } from 'node:crypto';

/**
 * Builds small but valid PDF files (a page of Helvetica text, optionally with annex pages) and, for benchmarks, very large
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

/** Lines of an annex page: measurements with words to search for on every page. */
function annexLines(title: string, page: number, pages: number): string[] {
  return [
    `Annex page ${page} of ${pages} - ${title}`,
    '',
    ...Array.from(
      { length: 30 },
      (_, row) =>
        `Annex ${page}, row ${row + 1}: analyte result ${((page * 31 + row * 7) % 97) / 10} mg/L, method EPA 200.${(row % 9) + 1}`,
    ),
  ];
}

function pageContent(title: string, lines: readonly string[]): string {
  return [
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
}

/** RC4, as the PDF standard security handler uses it (Node's OpenSSL 3 no longer offers it). */
function rc4(key: Buffer, data: Buffer): Buffer {
  const state = Array.from({ length: 256 }, (_, index) => index);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + state[i]! + key[i % key.length]!) & 255;
    [state[i], state[j]] = [state[j]!, state[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + state[i]!) & 255;
    [state[i], state[j]] = [state[j]!, state[i]!];
    out[n] = data[n]! ^ state[(state[i]! + state[j]!) & 255]!;
  }
  return out;
}

const PASSWORD_PAD = Buffer.from(
  '28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a',
  'hex',
);
const md5 = (...parts: Buffer[]): Buffer => createHash('md5').update(Buffer.concat(parts)).digest();

/**
 * The standard security handler, revision 2 (40-bit RC4; PDF 1.4, algorithms 3.1 to 3.4), with
 * the same user and owner password: what a lab's "protect with a password" export produces.
 */
function encryption(password: string): {
  readonly dictionary: string;
  readonly id: Buffer;
  readonly encrypt: (objectNumber: number, data: Buffer) => Buffer;
} {
  const padded = Buffer.concat([Buffer.from(password, 'latin1'), PASSWORD_PAD]).subarray(0, 32);
  const owner = rc4(md5(padded).subarray(0, 5), padded);
  const permissions = -4;
  const p = Buffer.alloc(4);
  p.writeInt32LE(permissions);
  const id = md5(Buffer.from(`lab-data-mock-${password}`));
  const key = md5(padded, owner, p, id).subarray(0, 5);
  const user = rc4(key, PASSWORD_PAD);
  return {
    dictionary: `<< /Filter /Standard /V 1 /R 2 /O <${owner.toString('hex')}> /U <${user.toString('hex')}> /P ${permissions} >>`,
    id,
    encrypt: (objectNumber, data) =>
      rc4(
        md5(
          key,
          Buffer.from([
            objectNumber & 255,
            (objectNumber >> 8) & 255,
            (objectNumber >> 16) & 255,
            0,
            0,
          ]),
        ).subarray(0, 10),
        data,
      ),
  };
}

/**
 * Plans a PDF showing `lines` on its first page, followed by `annexPages` pages of text (for
 * previews: navigation and search), optionally padded to about `padToBytes`, and optionally
 * protected with `password`.
 */
export function planPdf(
  title: string,
  lines: readonly string[],
  padToBytes = 0,
  annexPages = 0,
  password?: string,
): PdfPlan {
  const pageCount = 1 + annexPages;
  const security = password === undefined ? undefined : encryption(password);
  const plain = [
    pageContent(title, lines),
    ...Array.from({ length: annexPages }, (_, index) =>
      pageContent(`Annex ${index + 2}`, annexLines(title, index + 2, pageCount)),
    ),
  ];
  // Content streams are objects 5, 7, 9, …; encrypted, they keep their length.
  const contents = plain.map((content, index) =>
    security
      ? security.encrypt(5 + index * 2, Buffer.from(content, 'latin1')).toString('latin1')
      : content,
  );
  // 1 catalog, 2 page tree, 3 font, then a page object and its content stream per page.
  const kids = contents.map((_, index) => `${4 + index * 2} 0 R`).join(' ');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pageCount} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...contents.flatMap((content, index) => [
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + index * 2} 0 R >>`,
      `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    ]),
    ...(security ? [security.dictionary] : []),
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
    padOpen = Buffer.from(
      `${objects.length + 1} 0 obj\n<< /Length ${padding} >>\nstream\n`,
      'latin1',
    );
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
    security
      ? `<< /Size ${count} /Root 1 0 R /Encrypt ${objects.length} 0 R /ID [<${security.id.toString('hex')}> <${security.id.toString('hex')}>] >>`
      : `<< /Size ${count} /Root 1 0 R >>`,
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

/**
 * A one-page PDF whose page is an image only, as a scanner makes it: a grey 16×16 picture with a
 * dark bar, drawn over most of the page, and no text operator at all, so it has no text layer.
 */
export function renderImageOnlyPdf(): Buffer {
  const side = 16;
  const pixels = Buffer.alloc(side * side, 0x90);
  for (let row = 4; row < 7; row++) {
    pixels.fill(0x20, row * side + 2, row * side + 14);
  }
  const image = pixels.toString('latin1');
  const content = 'q 500 0 0 600 56 96 cm /Im1 Do Q';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>',
    `<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${image.length} >>\nstream\n${image}\nendstream`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
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
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    'startxref',
    String(offset),
    '%%EOF',
    '',
  ].join('\n');
  parts.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(parts);
}
