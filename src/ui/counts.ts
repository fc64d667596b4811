import * as vscode from 'vscode';
import { displayLocale, formatCount } from './displayLocale';

/** What the trees count. */
export type CountedNoun = 'report' | 'client' | 'project' | 'sample';

/** Whether `count` takes the singular in the display language ("1 report", but "0 reports", "21 reports"). */
function singular(count: number): boolean {
  return new Intl.PluralRules(displayLocale()).select(count) === 'one';
}

/** "1 report", "120 reports": a count with its noun in the form the number takes. */
export function countOf(noun: CountedNoun, count: number): string {
  const shown = formatCount(count);
  const one = singular(count);
  switch (noun) {
    case 'report':
      return one ? vscode.l10n.t('{0} report', shown) : vscode.l10n.t('{0} reports', shown);
    case 'client':
      return one ? vscode.l10n.t('{0} client', shown) : vscode.l10n.t('{0} clients', shown);
    case 'project':
      return one ? vscode.l10n.t('{0} project', shown) : vscode.l10n.t('{0} projects', shown);
    case 'sample':
      return one ? vscode.l10n.t('{0} sample', shown) : vscode.l10n.t('{0} samples', shown);
  }
}

/** "1 more report", "66 more reports": how many a list has still to load. */
export function moreCount(noun: CountedNoun, count: number): string {
  const shown = formatCount(count);
  const one = singular(count);
  switch (noun) {
    case 'report':
      return one
        ? vscode.l10n.t('{0} more report', shown)
        : vscode.l10n.t('{0} more reports', shown);
    case 'client':
      return one
        ? vscode.l10n.t('{0} more client', shown)
        : vscode.l10n.t('{0} more clients', shown);
    case 'project':
      return one
        ? vscode.l10n.t('{0} more project', shown)
        : vscode.l10n.t('{0} more projects', shown);
    case 'sample':
      return one
        ? vscode.l10n.t('{0} more sample', shown)
        : vscode.l10n.t('{0} more samples', shown);
  }
}

/** "1 report matches the filter", "42 reports match the filter". */
export function matchCount(noun: 'report' | 'sample', count: number): string {
  const shown = formatCount(count);
  const one = singular(count);
  if (noun === 'report') {
    return one
      ? vscode.l10n.t('{0} report matches the filter', shown)
      : vscode.l10n.t('{0} reports match the filter', shown);
  }
  return one
    ? vscode.l10n.t('{0} sample matches the filter', shown)
    : vscode.l10n.t('{0} samples match the filter', shown);
}
