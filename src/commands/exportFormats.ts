import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import {
  STANDARD_CSV,
  needsOwnSpreadsheetCsv,
  spreadsheetCsv,
  type CsvDialect,
} from '../../core/derived/csvDialect';
import type { ExportFormat } from '../../core/derived/exportList';
import type { Choice, Prompts } from '../ui/prompts';
import { displayLocale } from '../ui/displayLocale';
import { titleFor } from '../ui/prompts/labTitles';

/**
 * The formats Export List writes: the standard CSV (RFC 4180: commas, a decimal point, for scripts,
 * R, pandas), the CSV a spreadsheet program set to the display language opens in columns
 * (semicolons and a decimal comma where that language writes one), and JSON Lines.
 */
export type ExportChoice = 'csv' | 'spreadsheet-csv' | 'jsonl';

const CHOICES: readonly ExportChoice[] = ['csv', 'spreadsheet-csv', 'jsonl'];

/** What the core writes for a choice: its format and, for a CSV, its dialect. */
export function exportFormatOf(
  choice: ExportChoice,
  locale: string | undefined,
): { format: ExportFormat; csv?: CsvDialect } {
  return choice === 'jsonl'
    ? { format: 'jsonl' }
    : {
        format: 'csv',
        csv: choice === 'spreadsheet-csv' ? spreadsheetCsv(locale ?? 'en') : STANDARD_CSV,
      };
}

/** A `format` given by automation, checked. */
export function givenExportChoice(value: unknown): ExportChoice | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string' || !CHOICES.includes(value as ExportChoice)) {
    throw new LabApiError(
      'invalidInput',
      vscode.l10n.t('"format" must be one of {0}.', CHOICES.join(', ')),
    );
  }
  return value as ExportChoice;
}

/** The language's own name for itself in the display language ("Deutsch", "français"), else its id. */
export function languageName(locale: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale;
  } catch {
    return locale;
  }
}

/**
 * The three formats, each saying what it is for, in the display language's terms. Asked only where
 * a spreadsheet set to the display language needs its own CSV (a decimal comma); elsewhere the
 * standard CSV is that CSV, and the save dialog's file type chooses between CSV and JSON Lines.
 */
export async function pickExportChoice(
  prompts: Prompts,
  locale = displayLocale(),
  /** The lab whose list is exported, named in the picker's title. */
  lab?: string,
): Promise<ExportChoice | 'dialog' | undefined> {
  if (!locale || !needsOwnSpreadsheetCsv(locale)) {
    return 'dialog';
  }
  const dialect = spreadsheetCsv(locale);
  const language = languageName(locale);
  const choices: Choice[] = [
    {
      id: 'spreadsheet-csv',
      label: vscode.l10n.t('CSV for spreadsheets in {0}', language),
      description: vscode.l10n.t(
        'separator "{0}", decimal mark "{1}"',
        dialect.separator,
        dialect.decimal,
      ),
      detail: vscode.l10n.t(
        'Opens in columns in Excel or LibreOffice Calc set to {0}, numbers as numbers.',
        language,
      ),
    },
    {
      id: 'csv',
      label: vscode.l10n.t('Standard CSV'),
      description: vscode.l10n.t('separator ",", decimal mark "."'),
      detail: vscode.l10n.t('RFC 4180, for scripts, R, pandas and other programs.'),
    },
    {
      id: 'jsonl',
      label: vscode.l10n.t('JSON Lines'),
      detail: vscode.l10n.t('One record per line, as the lab sent it.'),
    },
  ];
  const chosen = await prompts.pickOne(
    lab !== undefined ? titleFor(lab, 'exportList') : vscode.l10n.t('Lab Data: Export List'),
    vscode.l10n.t('Which format?'),
    choices,
    false,
    'spreadsheet-csv',
  );
  return chosen ? (chosen as ExportChoice) : undefined;
}
