import { serverText } from '../errors/serverText';

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
// Control characters, bidirectional overrides/isolates and other invisible format characters.
const UNSAFE_CHARACTERS =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const FORBIDDEN_ON_SOME_OS = /[<>:"/\\|?*]/g;
/** Most file systems allow 255 bytes per name; leave room for the temporary-file prefix and suffix. */
export const MAX_FILE_NAME_BYTES = 200;

function truncateUtf8(text: string, maxBytes: number): string {
  let result = '';
  let bytes = 0;
  for (const character of text) {
    const size = Buffer.byteLength(character, 'utf8');
    if (bytes + size > maxBytes) {
      break;
    }
    result += character;
    bytes += size;
  }
  return result;
}

/**
 * Turns any text (often server-provided) into one safe file name for Windows, macOS and Linux:
 * no separators, no `..`, no control or bidi characters, no reserved device names, no trailing
 * dots or spaces, at most {@link MAX_FILE_NAME_BYTES} bytes with the extension kept. Never empty.
 */
export function sanitizeFileName(name: string, fallback = 'report'): string {
  let result = name
    .normalize('NFC')
    .replace(UNSAFE_CHARACTERS, '')
    .replace(FORBIDDEN_ON_SOME_OS, '_')
    .trim();
  // Leading dots would hide the file or make it `.`/`..`; trailing dots and spaces vanish on Windows.
  result = result.replace(/^\.+/, (dots) => '_'.repeat(dots.length)).replace(/[. ]+$/, '');
  if (WINDOWS_RESERVED.test(result)) {
    result = `_${result}`;
  }
  if (Buffer.byteLength(result, 'utf8') > MAX_FILE_NAME_BYTES) {
    const dot = result.lastIndexOf('.');
    const extension = dot > 0 && result.length - dot <= 10 ? result.slice(dot) : '';
    result =
      truncateUtf8(
        result.slice(0, result.length - extension.length),
        MAX_FILE_NAME_BYTES - Buffer.byteLength(extension, 'utf8'),
      ).replace(/[. ]+$/, '') + extension;
  }
  return result.length === 0 ? fallback : result;
}

/** Folders a file-name template may put a file in, at most this deep. */
export const MAX_TEMPLATE_FOLDERS = 5;

/** Fills one segment of a template: each value sanitised before it goes in, the whole segment after. */
function fillSegment(
  segment: string,
  fields: Readonly<Record<string, string | undefined>>,
  fallback: string,
): string {
  const filled = segment.replace(/\$\{([A-Za-z0-9_]+)\}/g, (_match, key: string) => {
    const value = fields[key];
    return value === undefined ? '' : sanitizeFileName(value, '').replace(/\.+$/, '');
  });
  return sanitizeFileName(filled, fallback);
}

/**
 * Fills a file-name template such as `${report_id}_${published_date}.pdf` from a record's fields.
 * A template may name subfolders (`${client_id}/${report_type}/${report_id}.pdf`): it is split at
 * `/` or `\` first and each segment is filled and sanitised on its own, so no field can add a
 * separator, `..` or a drive; a folder segment left empty (a missing field) is dropped. The result
 * is a relative path with `/` between at most {@link MAX_TEMPLATE_FOLDERS} folders and the name.
 * Unknown placeholders become empty.
 */
export function renderFileName(
  template: string,
  fields: Readonly<Record<string, string | undefined>>,
  fallback = 'report.pdf',
): string {
  const segments = template.split(/[\\/]+/).filter((segment) => segment.trim() !== '');
  const name = fillSegment(segments.pop() ?? '', fields, fallback);
  const folders = segments
    .map((segment) => fillSegment(segment, fields, ''))
    .filter((folder) => folder !== '' && /[^_]/.test(folder));
  return [...folders.slice(0, MAX_TEMPLATE_FOLDERS), name].join('/');
}

/** A record's id as a document or tab name: made shown text first ({@link serverText}), then a safe file name. */
export function documentName(id: string, fallback = 'record'): string {
  return sanitizeFileName(serverText(id, 120), fallback);
}

/** ASCII letters, digits, `_`, `-` and inner dots: a name {@link sanitizeFileName} leaves as it is, told without running it. */
const PLAIN_NAME = /^[A-Za-z0-9_-](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

export function isPlainName(segment: string): boolean {
  return (
    segment.length <= MAX_FILE_NAME_BYTES &&
    PLAIN_NAME.test(segment) &&
    !WINDOWS_RESERVED.test(segment)
  );
}

/**
 * Why a relative path read from a file (a manifest's entry) cannot be used inside a folder, or
 * undefined when it can: it must be relative, use `/` between segments, and each segment must be
 * a name {@link sanitizeFileName} leaves as it is (no `..`, no drive, no reserved device name, no
 * control character, no trailing dot), at most {@link MAX_TEMPLATE_FOLDERS} folders deep.
 */
export function relativePathProblem(file: string): string | undefined {
  // The common case, told at once: a plain name in the folder itself (ten thousand entries are read per verify).
  if (!file.includes('/') && isPlainName(file)) {
    return undefined;
  }
  if (file.length === 0) {
    return 'it is empty';
  }
  if (/^[A-Za-z]:/.test(file) || file.startsWith('/') || file.startsWith('\\')) {
    return 'it is an absolute path';
  }
  if (file.includes('\\')) {
    return 'it contains a backslash';
  }
  const segments = file.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.' || segment === '')) {
    return 'it leaves the folder or has an empty part';
  }
  if (segments.length > MAX_TEMPLATE_FOLDERS + 1) {
    return `it is more than ${MAX_TEMPLATE_FOLDERS} folders deep`;
  }
  const unsafe = segments.find(
    (segment) => !isPlainName(segment) && sanitizeFileName(segment, '') !== segment,
  );
  return unsafe === undefined
    ? undefined
    : 'it has a name no system can hold safely (a reserved name, a control character, or a trailing dot or space)';
}

/**
 * A file name as a case-insensitive file system compares it (Windows, macOS): NFC, lower case.
 * Printable ASCII is NFC already, so the Unicode normalisation (half the cost of a manifest's
 * check of ten thousand names) runs only for other names.
 */
export function foldedFileName(name: string): string {
  return /^[\x20-\x7e]*$/.test(name) ? name.toLowerCase() : name.normalize('NFC').toLowerCase();
}
