import { escapeControls } from '../errors/serverText';
/**
 * How a CSV is written: the standard one (RFC 4180: commas, a decimal point) that scripts, R and
 * pandas read, or the one a spreadsheet program set to a locale opens in columns. Spreadsheets in a
 * locale that writes decimals with a comma (German, French, …) split a CSV at semicolons and read
 * `4,5` as a number; they also need a byte-order mark to take the file as UTF-8.
 */
export interface CsvDialect {
  /** Between fields. */
  readonly separator: ',' | ';';
  /** In numbers the lab sent as JSON numbers. */
  readonly decimal: '.' | ',';
  /** Starts the file with a UTF-8 byte-order mark (spreadsheets read accents right only then). */
  readonly byteOrderMark: boolean;
  /** The locale it was made for; none for the standard CSV. */
  readonly locale?: string;
}

/** RFC 4180, as every program reading CSV expects by default. */
export const STANDARD_CSV: CsvDialect = { separator: ',', decimal: '.', byteOrderMark: false };

/** The decimal mark `locale` writes ("," in `de`, `fr`; "." in `en`); "." for a locale Intl does not know. */
export function decimalMark(locale: string): '.' | ',' {
  try {
    const part = new Intl.NumberFormat(locale)
      .formatToParts(1.5)
      .find((item) => item.type === 'decimal');
    return part?.value === ',' ? ',' : '.';
  } catch {
    return '.';
  }
}

/**
 * The CSV a spreadsheet program set to `locale` opens in columns: semicolons and a decimal comma
 * where the locale's decimal mark is a comma, else commas and a point; with a byte-order mark.
 */
export function spreadsheetCsv(locale: string): CsvDialect {
  const decimal = decimalMark(locale);
  return { separator: decimal === ',' ? ';' : ',', decimal, byteOrderMark: true, locale };
}

/** Whether the spreadsheet CSV of `locale` differs from the standard one in its separator or decimal mark. */
export function needsOwnSpreadsheetCsv(locale: string): boolean {
  return spreadsheetCsv(locale).separator !== STANDARD_CSV.separator;
}

/** A list of plain values in one cell reads as `S-001; S-002`; anything else nested stays its JSON text. */
function cellText(value: unknown, dialect: CsvDialect): string {
  if (value === undefined || value === null) {
    return '';
  }
  if (
    Array.isArray(value) &&
    value.every((item) => item === null || ['string', 'number', 'boolean'].includes(typeof item))
  ) {
    return value.filter((item) => item !== null && item !== '').join('; ');
  }
  if (typeof value === 'number' && dialect.decimal !== '.') {
    // No grouping: a spreadsheet reads "1234,5" as a number, "1.234,5" only in some locales.
    return String(value).replace('.', dialect.decimal);
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * One CSV field (RFC 4180): quoted when it holds the separator, a quote, CR or LF, quotes doubled;
 * a list of plain values joined by "; "; any other control written as its escape (`\u001b`), so a
 * CSV printed to a terminal cannot act on it.
 */
export function csvField(value: unknown, dialect: CsvDialect = STANDARD_CSV): string {
  const text = escapeControls(cellText(value, dialect));
  const special = dialect.separator === ';' ? /[";\r\n]/ : /[",\r\n]/;
  return special.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record in `dialect`, CRLF-terminated as RFC 4180 asks. */
export function csvRecord(values: readonly unknown[], dialect: CsvDialect): string {
  return `${values.map((value) => csvField(value, dialect)).join(dialect.separator)}\r\n`;
}

/** One standard CSV record (a function of one argument, for `rows.map(csvRow)`). */
export function csvRow(values: readonly unknown[]): string {
  return csvRecord(values, STANDARD_CSV);
}
