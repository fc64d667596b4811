import * as vscode from 'vscode';
import { toUtcTimestamp } from '../../../core/api/query';
import { displayFormat } from '../displayLocale';
import { phrase } from '../phrase';

/** Validates a typed date as you type; undefined means valid. */
export function validateIsoDate(value: string): string | undefined {
  try {
    toUtcTimestamp(value, vscode.l10n.t('date'));
    return undefined;
  } catch (error) {
    return phrase(error);
  }
}

const DAY = 86_400_000;

function startOfLocalDay(daysAgo: number): string {
  const now = new Date();
  return toUtcTimestamp(
    new Date(new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime() - daysAgo * DAY),
  );
}

/** The presets of {@link Prompts.since} that move with the clock, as saved searches write them. */
const ROLLING = /^-(\d{1,4})d$/;

/**
 * A "since" value as a moment: `today` and `-Nd` (the rolling presets) are local midnight that
 * many days ago, the same all day long (lists keyed by their query are not fetched anew each
 * second); an ISO 8601 timestamp is itself.
 */
export function sinceMoment(value: string): string {
  const days = value === 'today' ? 0 : Number(ROLLING.exec(value)?.[1] ?? NaN);
  return Number.isNaN(days) ? value : startOfLocalDay(days);
}

/** A rolling preset in words ("in the last 30 days", "today"); undefined for a fixed date. */
export function rollingInWords(value: string): string | undefined {
  if (value === 'today') {
    return vscode.l10n.t('today');
  }
  const days = ROLLING.exec(value)?.[1];
  return days === undefined ? undefined : vscode.l10n.t('in the last {0} days', Number(days));
}

/** What a "since" date limits: when reports were published, or samples received. */
export type SinceVerb = 'published' | 'received';

/** The words of the "since" picker for one verb, each whole for translators (no verb put into a sentence). */
function sinceWords(verb: SinceVerb): { any: string; placeHolder: string; prompt: string } {
  return verb === 'published'
    ? {
        any: vscode.l10n.t('no published date limit'),
        placeHolder: vscode.l10n.t('Published since…'),
        prompt: vscode.l10n.t('Published since (an ISO 8601 date, or a time with its zone)'),
      }
    : {
        any: vscode.l10n.t('no received date limit'),
        placeHolder: vscode.l10n.t('Received since…'),
        prompt: vscode.l10n.t('Received since (an ISO 8601 date, or a time with its zone)'),
      };
}

/** A "since" date: a preset or a typed ISO 8601 date, in UTC; see {@link Prompts.since}. */
export async function askSince(
  title: string,
  verb: SinceVerb,
  current?: string,
): Promise<string | null | undefined> {
  const words = sinceWords(verb);
  // The value in force comes first, so Enter keeps it: a rolling one as its preset ("Last 30
  // days", still rolling), a fixed date as itself. Each preset's value (`since`) is its stable
  // id, apart from its label in the display language.
  const listed: Array<vscode.QuickPickItem & { since: () => string | null }> = [
    { label: vscode.l10n.t('Any'), description: words.any, since: () => null },
    { label: vscode.l10n.t('Today'), since: () => 'today' },
    { label: vscode.l10n.t('Last {0} days', 7), since: () => '-7d' },
    { label: vscode.l10n.t('Last {0} days', 30), since: () => '-30d' },
    {
      label: vscode.l10n.t('Since a date…'),
      description: vscode.l10n.t('ISO 8601, e.g. {0} or {1}', '2024-05-01', '2024-05-01T08:00:00Z'),
      since: () => '',
    },
  ];
  const inForce = listed.find((preset) => current !== undefined && preset.since() === current);
  const presets = inForce
    ? [
        { ...inForce, description: vscode.l10n.t('current') },
        ...listed.filter((p) => p !== inForce),
      ]
    : current
      ? [
          {
            label: vscode.l10n.t('Since {0}', displayFormat().dateTime(new Date(current))),
            description: vscode.l10n.t('current'),
            since: () => current,
          },
          ...listed,
        ]
      : listed;
  const choice = await vscode.window.showQuickPick(presets, {
    title,
    placeHolder: words.placeHolder,
    ignoreFocusOut: true,
  });
  if (!choice) {
    return undefined;
  }
  const since = choice.since();
  if (since !== '') {
    return since;
  }
  const typed = await vscode.window.showInputBox({
    title,
    prompt: words.prompt,
    placeHolder: '2024-05-01',
    validateInput: validateIsoDate,
    ignoreFocusOut: true,
  });
  return typed === undefined ? undefined : toUtcTimestamp(typed, `${verb}-since date`);
}
