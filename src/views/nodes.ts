import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import type { Sample } from '../../core/api/records';
import { Commands } from '../constants';
import { serverText } from '../../core/errors/serverText';
import { TREE_ROW, type RecordRef } from '../ui/commandTargets';
import type { PagedList } from './pagedList';
import type { SavedSearch } from '../../core/derived/savedSearches';
import { phrase } from '../ui/phrase';
import {
  distinctParts,
  escapeMarkdown,
  knownNames,
  localDate,
  localDateTime,
  recordTooltip,
  statusWord,
} from './recordText';
import { errorText } from '../../core/errors/errorText';
import { formatCount } from '../ui/displayLocale';
import { countOf, moreCount, type CountedNoun } from '../ui/counts';

/** One row of a Lab Data tree. Ids are stable, so expansion survives a refresh. */
export abstract class LabNode {
  /** Tells command arguments that this is a row of the UI (ui/commandTargets.ts). */
  readonly [TREE_ROW] = true;
  abstract readonly id: string;
  /** The record this row stands for, with its lab; commands act on this, never on the row's class. */
  readonly ref?: RecordRef;
  abstract getTreeItem(): vscode.TreeItem;
  getChildren(): Promise<LabNode[]> | LabNode[] {
    return [];
  }
}

/** A server timestamp in the user's local time; unreadable values are shown as sent. */
export function localTime(value: string | undefined): string | undefined {
  return value ? localDateTime(value) : undefined;
}

/**
 * A tree item built from server records, made safe to show: its label, description and
 * accessibility label pass through `serverText` (one line, no control or bidi characters, no
 * secret, bounded).
 */
export function shownItem(item: vscode.TreeItem): vscode.TreeItem {
  if (typeof item.label === 'string') {
    item.label = serverText(item.label, 120);
  }
  if (typeof item.description === 'string') {
    item.description = serverText(item.description, 200);
  }
  if (item.accessibilityInformation) {
    item.accessibilityInformation = {
      ...item.accessibilityInformation,
      label: serverText(item.accessibilityInformation.label, 300),
    };
  }
  return item;
}

export class SampleNode extends LabNode {
  readonly id: string;
  override readonly ref: RecordRef;

  constructor(
    readonly sample: Sample,
    parentId: string,
    index: number,
    lab: string,
  ) {
    super();
    this.id = `${parentId}/sample:${sample.id ?? `#${index}`}`;
    this.ref = {
      lab,
      kind: 'sample',
      id: sample.id ?? JSON.stringify(sample.raw).slice(0, 60),
      record: sample.raw,
    };
  }

  getTreeItem(): vscode.TreeItem {
    const raw = this.sample.raw;
    const text = (key: string): string | undefined =>
      typeof raw[key] === 'string' || typeof raw[key] === 'number' ? String(raw[key]) : undefined;
    const name =
      text('sample_name') ?? text('name') ?? text('description') ?? text('client_sample_id');
    const label = this.sample.id ?? name ?? vscode.l10n.t('Sample');
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const received = localDate(text('received_at') ?? text('received') ?? text('collected_at'));
    const status = text('status');
    const parts = distinctParts([
      this.sample.id ? name : undefined,
      text('matrix'),
      received,
      status && statusWord(status),
    ]);
    item.description = parts.join(' · ');
    item.iconPath = new vscode.ThemeIcon('beaker');
    item.accessibilityInformation = {
      label: [vscode.l10n.t('Sample {0}', label), ...parts].join(', '),
    };
    item.tooltip = recordTooltip(
      vscode.l10n.t('Sample {0}', label),
      raw,
      knownNames.of(this.ref.lab),
    );
    item.contextValue = 'labData.sample';
    return shownItem(item);
  }
}

/**
 * A saved search (`labData.savedSearches`) at the top of a lab's reports: a folder listing the
 * reports it finds, paged like the main list, with Save All and Export as row actions.
 */
export class SavedSearchNode extends LabNode {
  readonly id: string;

  constructor(
    parentId: string,
    readonly labName: string,
    readonly savedSearch: SavedSearch,
    private readonly description: string,
    private readonly children: () => Promise<LabNode[]>,
  ) {
    super();
    this.id = `${parentId}/search:${savedSearch.name}`;
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(
      this.savedSearch.name,
      vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = this.id;
    item.description = this.description;
    item.iconPath = new vscode.ThemeIcon('bookmark');
    item.tooltip = vscode.l10n.t(
      'Saved search "{0}": {1}',
      this.savedSearch.name,
      this.description || vscode.l10n.t('every report'),
    );
    item.accessibilityInformation = { label: item.tooltip };
    item.contextValue = 'labData.savedSearch';
    return item;
  }

  override getChildren(): Promise<LabNode[]> {
    return this.children();
  }
}

/** What a message row's icon says, for its accessible label (a plain note says nothing more). */
const MESSAGE_KINDS: Readonly<Record<string, () => string>> = {
  error: () => vscode.l10n.t('Error'),
  warning: () => vscode.l10n.t('Warning'),
  lock: () => vscode.l10n.t('No access'),
  'debug-disconnect': () => vscode.l10n.t('Unreachable'),
};

/** Shows a note, an empty state or a failure in place of children, never as a popup. */
export class MessageNode extends LabNode {
  constructor(
    readonly id: string,
    private readonly text: string,
    private readonly icon: string,
    private readonly command?: vscode.Command,
    private readonly tooltip?: string,
  ) {
    super();
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.text, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon(this.icon);
    item.command = this.command;
    item.tooltip = this.tooltip ?? this.text;
    item.contextValue =
      this.command?.command === Commands.retry ? 'labData.error' : 'labData.message';
    const kind = MESSAGE_KINDS[this.icon]?.();
    item.accessibilityInformation = {
      label: kind ? vscode.l10n.t('{0}: {1}', kind, this.text) : this.text,
    };
    return item;
  }
}

/**
 * The "Filtered by …" row at the top of a filtered list. Hovering shows the whole filter; it is
 * cleared only by its explicit Clear Filter action (inline and in its context menu), never by a click.
 */
export class FilterNode extends LabNode {
  constructor(
    readonly id: string,
    /** The lab whose list is filtered (commands read it as the row's lab). */
    readonly labName: string,
    private readonly description: string,
    private readonly list: 'reports' | 'samples',
    /** A note on the filter, such as which parts Lab Data applies itself. */
    private readonly note?: string,
    /**
     * What the rows under it say, each short enough for the default width: how many records match
     * ("42 reports match the filter", once known) and, with several criteria, each on its own row.
     */
    private readonly parts: { readonly count?: string; readonly criteria?: readonly string[] } = {},
  ) {
    super();
  }

  /** The criteria shown one to a row (only when there are several: the row's label holds one whole). */
  private get criteriaRows(): readonly string[] {
    const criteria = this.parts.criteria ?? [];
    return criteria.length > 1 ? criteria : [];
  }

  getTreeItem(): vscode.TreeItem {
    const expandable = this.parts.count !== undefined || this.criteriaRows.length > 0;
    // Expanded: the count and every criterion stay visible without hovering, however narrow the sidebar.
    const item = new vscode.TreeItem(
      vscode.l10n.t('Filtered by: {0}', this.description),
      expandable ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon('filter');
    const tooltip = new vscode.MarkdownString(
      [
        `**${escapeMarkdown(vscode.l10n.t('Filtered by'))}** ${escapeMarkdown(serverText(this.description, 600))}`,
        this.parts.count ? escapeMarkdown(this.parts.count) : undefined,
        this.note ? escapeMarkdown(serverText(this.note, 300)) : undefined,
        escapeMarkdown(
          vscode.l10n.t(
            'Clear it with the Clear Filter button on this row or in the view’s toolbar.',
          ),
        ),
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    tooltip.isTrusted = false;
    item.tooltip = tooltip;
    item.contextValue = `labData.filter.${this.list}`;
    item.accessibilityInformation = {
      label: [vscode.l10n.t('Filtered by: {0}', this.description), this.parts.count]
        .filter(Boolean)
        .join('; '),
    };
    return shownItem(item);
  }

  override getChildren(): LabNode[] {
    return [
      ...(this.parts.count !== undefined
        ? [new FilterPartNode(`${this.id}/count`, this.parts.count, 'symbol-numeric')]
        : []),
      ...this.criteriaRows.map(
        (criterion, index) =>
          new FilterPartNode(
            `${this.id}/criterion:${index}`,
            criterion,
            'dash',
            vscode.l10n.t('Filter criterion: {0}', criterion),
          ),
      ),
    ];
  }
}

/** A row under the "Filtered by" row: how many match, or one criterion. */
export class FilterPartNode extends LabNode {
  constructor(
    readonly id: string,
    private readonly text: string,
    private readonly icon: string,
    private readonly spoken = text,
  ) {
    super();
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.text, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.iconPath = new vscode.ThemeIcon(this.icon);
    item.tooltip = this.text;
    item.contextValue = 'labData.filterPart';
    item.accessibilityInformation = { label: this.spoken };
    return shownItem(item);
  }
}

/** "Load more…", with how many are loaded of how many. */
export class LoadMoreNode extends LabNode {
  constructor(
    readonly id: string,
    readonly list: PagedList<unknown>,
    private readonly noun: CountedNoun,
  ) {
    super();
  }

  getTreeItem(): vscode.TreeItem {
    const loaded = this.list.items.length;
    const item = new vscode.TreeItem(
      vscode.l10n.t('Load more…'),
      vscode.TreeItemCollapsibleState.None,
    );
    item.id = this.id;
    const { total } = this.list;
    item.description =
      total !== undefined
        ? vscode.l10n.t('{0} of {1}', formatCount(loaded), formatCount(total))
        : vscode.l10n.t('{0} loaded', countOf(this.noun, loaded));
    item.iconPath = new vscode.ThemeIcon('ellipsis');
    item.accessibilityInformation = {
      label:
        total !== undefined
          ? vscode.l10n.t(
              'Load {0}, {1} of {2} loaded',
              moreCount(this.noun, Math.max(0, total - loaded)),
              formatCount(loaded),
              formatCount(total),
            )
          : vscode.l10n.t('Load more, {0} loaded so far', countOf(this.noun, loaded)),
    };
    item.command = {
      command: Commands.loadMore,
      title: vscode.l10n.t('Load More'),
      arguments: [this],
    };
    item.contextValue = 'labData.loadMore';
    return item;
  }
}

/** Why a list could not be shown, in one line. */
export function failureText(error: unknown): string {
  if (error instanceof LabApiError) {
    if (error.code === 'forbidden') {
      return vscode.l10n.t('Outside your access scope (403)');
    }
    return vscode.l10n.t("Couldn't load: {0}", phrase(error));
  }
  return vscode.l10n.t("Couldn't load: {0}", errorText(error));
}

/** The children of a paged list: its items, then "Load more…", or an empty or failure node. */
export async function pagedChildren<T>(
  parentId: string,
  list: PagedList<T>,
  toNode: (item: T, index: number) => LabNode,
  empty: string,
  noun: CountedNoun,
  keep: (item: T) => boolean = () => true,
): Promise<LabNode[]> {
  await list.ensureLoaded();
  const nodes: LabNode[] = list.items
    .map((item, index) => (keep(item) ? toNode(item, index) : undefined))
    .filter((node): node is LabNode => node !== undefined);
  const shown = nodes.length;
  if (list.error !== undefined) {
    nodes.push(
      new MessageNode(
        `${parentId}/error`,
        failureText(list.error),
        list.error instanceof LabApiError && list.error.code === 'forbidden' ? 'lock' : 'error',
        {
          command: Commands.retry,
          title: vscode.l10n.t('Retry'),
          arguments: [list],
        },
        list.error instanceof LabApiError
          ? `${list.error.describe()}\n\n${vscode.l10n.t('Click to retry.')}`
          : undefined,
      ),
    );
  } else if (shown === 0 && !list.hasMore) {
    nodes.push(new MessageNode(`${parentId}/empty`, empty, 'info'));
  } else if (list.hasMore) {
    nodes.push(new LoadMoreNode(`${parentId}/more`, list as PagedList<unknown>, noun));
  }
  return nodes;
}
