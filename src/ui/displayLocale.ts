import * as vscode from 'vscode';
import { localeFormat, usableLocale, type LocaleFormat } from '../../core/derived/localeFormat';

/**
 * VS Code's display language as a locale for `Intl` (`de`, `fr`, `zh-cn`, the pseudo-locale
 * `qps-ploc`), so dates and numbers read as the rest of the window does rather than as the
 * extension host's process locale.
 */
export function displayLocale(): string | undefined {
  return usableLocale(vscode.env.language);
}

/** Dates and numbers in the display language. */
export function displayFormat(): LocaleFormat {
  return localeFormat(vscode.env.language);
}

/** A count as the display language writes it: "1,234", "1.234", "1 234". */
export function formatCount(value: number): string {
  return displayFormat().number(value);
}
