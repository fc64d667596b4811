/**
 * Dates and numbers as a display language writes them, for the extension (VS Code's display
 * language) and its webviews: the locale is a parameter, never the process's own. A locale `Intl`
 * cannot read falls back to its first part, then to `Intl`'s default.
 */

export interface LocaleFormat {
  readonly locale: string | undefined;
  /** "20 Nov 2026, 13:50" (`de`: "20.11.2026, 13:50"), in the local time zone. */
  dateTime(at: Date): string;
  /** "20 Nov 2026", in the local time zone. */
  date(at: Date): string;
  /** "20 Nov 2026" of a UTC day (a time axis step). */
  utcDay(at: Date): string;
  /** "Nov 2026" of a UTC month. */
  utcMonth(at: Date): string;
  /** "13:50:07", in the local time zone. */
  time(at: Date): string;
  /** A number as the locale writes it: "1,234.5", "1.234,5", "1 234,5". */
  number(value: number): string;
}

/** `locale` when `Intl` reads it, else its language part, else undefined (`Intl`'s default). */
export function usableLocale(locale: string | undefined): string | undefined {
  for (const candidate of locale ? [locale, locale.split('-')[0]] : []) {
    try {
      if (candidate && Intl.getCanonicalLocales(candidate).length > 0) {
        return candidate;
      }
    } catch {
      // not a locale Intl reads
    }
  }
  return undefined;
}

const made = new Map<string, LocaleFormat>();

/** The formats of `locale` (made once per locale). */
export function localeFormat(locale: string | undefined): LocaleFormat {
  const usable = usableLocale(locale);
  const key = usable ?? '';
  const known = made.get(key);
  if (known) {
    return known;
  }
  const dateTime = new Intl.DateTimeFormat(usable, { dateStyle: 'medium', timeStyle: 'short' });
  const date = new Intl.DateTimeFormat(usable, { dateStyle: 'medium' });
  const utcDay = new Intl.DateTimeFormat(usable, { dateStyle: 'medium', timeZone: 'UTC' });
  const utcMonth = new Intl.DateTimeFormat(usable, {
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const time = new Intl.DateTimeFormat(usable, { timeStyle: 'medium' });
  const number = new Intl.NumberFormat(usable);
  const format: LocaleFormat = {
    locale: usable,
    dateTime: (at) => dateTime.format(at),
    date: (at) => date.format(at),
    utcDay: (at) => utcDay.format(at),
    utcMonth: (at) => utcMonth.format(at),
    time: (at) => time.format(at),
    number: (value) => number.format(value),
  };
  made.set(key, format);
  return format;
}
