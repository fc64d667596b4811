import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import { isRelativeSince, resolveSince, type SavedSearch } from '../../core/derived/savedSearches';
import type { Labs } from '../labs/labs';
import type { NewReports } from '../news/newReports';
import type { SavedSearchSettings } from '../news/savedSearchSettings';
import type { Prompts } from '../ui/prompts';
import type { ReportsTreeProvider } from '../views/reportsTree';
import { askReportFilter, hasReportFilter, type ReportFilterArgs } from './filters';
import { labForCommand } from './labTarget';
import { commandTargets } from '../ui/commandTargets';
import { displayFormat } from '../ui/displayLocale';
import { titleFor } from '../ui/prompts/labTitles';

const DAY_MS = 86_400_000;

/** "since 20 Nov" as a rolling window: the whole days from then to now, at least one. */
function rollingDays(since: string, now: Date): string {
  return `-${Math.max(1, Math.ceil((now.getTime() - Date.parse(since)) / DAY_MS))}d`;
}

/**
 * `labData.saveFilterAsSearch` (`{ lab?, name?, publishedSince?, status?, clientId?, projectId? }`):
 * keeps a lab's Reports filter (or the filters given, where `publishedSince` may be relative such
 * as `-7d`) as a saved search in the user's settings. From the UI it asks for a name and whether a
 * date stays fixed or rolls with the clock; without a filter in the view it asks for one first.
 * With several labs the search names its lab. Returns the saved entry.
 */
export async function saveFilterAsSearch(
  labs: Labs,
  tree: ReportsTreeProvider,
  settings: SavedSearchSettings,
  prompts: Prompts,
  ...args: unknown[]
): Promise<SavedSearch | undefined> {
  const targets = commandTargets(args);
  const connection = await labForCommand(labs, prompts, targets.lab);
  const api = connection?.api;
  if (!connection || !api) {
    return undefined;
  }
  const lab = connection.lab.name;
  const automated =
    targets.automated &&
    (hasReportFilter(targets.options) || typeof targets.options.name === 'string');
  const title = titleFor(lab, 'saveFilterAsSearch');
  let filter: ReportFilterArgs | undefined =
    automated && hasReportFilter(targets.options)
      ? pickFilter(targets.options)
      : tree.filterAsSet(lab);
  if (Object.keys(filter).length === 0 && !automated) {
    filter = await askReportFilter(api, prompts, title);
  }
  if (!filter) {
    return undefined;
  }
  if (filter.publishedSince !== undefined) {
    resolveSince(filter.publishedSince, new Date());
  }
  if (
    !automated &&
    filter.publishedSince !== undefined &&
    !isRelativeSince(filter.publishedSince)
  ) {
    const publishedSince = await askRollingOrFixed(prompts, title, filter.publishedSince);
    if (!publishedSince) {
      return undefined;
    }
    filter = { ...filter, publishedSince };
  }
  const several = labs.entries.length > 1;
  const taken = (name: string): boolean =>
    settings.searches.some(
      (search) =>
        search.name.toLowerCase() === name.trim().toLowerCase() &&
        (search.lab ?? undefined) === (several ? lab : undefined),
    );
  const given = typeof targets.options.name === 'string' ? targets.options.name.trim() : undefined;
  const name = given || (await askSearchName(prompts, title, filter, taken));
  if (!name) {
    return undefined;
  }
  if (name.length > 100) {
    throw new LabApiError('invalidInput', vscode.l10n.t('Use at most 100 characters.'));
  }
  const search = savedSearchOf(name, several ? lab : undefined, filter);
  await settings.add(search);
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Saved the search "{0}"; it is at the top of the Reports view.', name),
  );
  return search;
}

/** Whether a fixed date stays fixed or becomes a rolling window ("-7d"); undefined when dismissed. */
function askRollingOrFixed(
  prompts: Prompts,
  title: string,
  since: string,
): Promise<string | null | undefined> {
  const rolling = rollingDays(since, new Date());
  return prompts.pickOne(
    title,
    vscode.l10n.t('Published since…'),
    [
      {
        id: rolling,
        label: vscode.l10n.t(
          'Rolling: the last {0} days, moving with the clock',
          rolling.slice(1, -1),
        ),
      },
      {
        id: since,
        label: vscode.l10n.t('Fixed: since {0}', displayFormat().dateTime(new Date(since))),
      },
    ],
    false,
  );
}

/** The search's name, refused while typed when empty, too long or taken; undefined when dismissed. */
function askSearchName(
  prompts: Prompts,
  title: string,
  filter: ReportFilterArgs,
  taken: (name: string) => boolean,
): Promise<string | null | undefined> {
  return prompts.text(
    title,
    vscode.l10n.t('Name of the saved search'),
    filter.clientId ? vscode.l10n.t('Client {0}', filter.clientId) : vscode.l10n.t('My search'),
    (value) =>
      !value.trim()
        ? vscode.l10n.t('Enter a name.')
        : value.trim().length > 100
          ? vscode.l10n.t('Use at most 100 characters.')
          : taken(value)
            ? vscode.l10n.t('A saved search with this name exists; choose another.')
            : undefined,
  );
}

/** The saved search: its name, its lab when several are defined, and the filter's fields that are set. */
function savedSearchOf(
  name: string,
  lab: string | undefined,
  filter: ReportFilterArgs,
): SavedSearch {
  return Object.fromEntries(
    Object.entries({
      name,
      lab,
      publishedSince: filter.publishedSince,
      status: filter.status,
      clientId: filter.clientId,
      projectId: filter.projectId,
    }).filter(([, value]) => value !== undefined && value !== ''),
  ) as unknown as SavedSearch;
}

function pickFilter(options: Readonly<Record<string, unknown>>): ReportFilterArgs {
  const text = (key: keyof ReportFilterArgs): string | undefined =>
    typeof options[key] === 'string' && (options[key] as string).trim()
      ? (options[key] as string).trim()
      : undefined;
  return Object.fromEntries(
    (['publishedSince', 'status', 'clientId', 'projectId'] as const)
      .map((key) => [key, text(key)])
      .filter(([, value]) => value !== undefined),
  );
}

/** `labData.markAllSeen` (`{ lab? }`, or a lab row): every report shown so far counts as seen. */
export async function markAllSeen(
  news: NewReports,
  tree: ReportsTreeProvider,
  ...args: unknown[]
): Promise<void> {
  await news.markSeen(commandTargets(args).lab);
  tree.redraw();
}
