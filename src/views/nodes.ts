import * as vscode from 'vscode';
import { LabApiError } from '../core/errors';
import type { JsonObject, Report, Sample } from '../core/records';
import { Commands } from '../constants';
import type { PagedList } from './pagedList';

/** One row of a Lab Data tree. Ids are stable, so expansion survives a refresh. */
export abstract class LabNode {
  abstract readonly id: string;
  abstract getTreeItem(): vscode.TreeItem;
  getChildren(): Promise<LabNode[]> | LabNode[] {
    return [];
  }
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A server timestamp in the user's local time; unreadable values are shown as sent. */
export function localTime(value: string | undefined): string | undefined {
  if (!value) {
    return undefined;
  }
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? value : dateFormat.format(at);
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

/** A Markdown tooltip listing every field the server sent, unknown ones included. */
export function recordTooltip(title: string, record: JsonObject): vscode.MarkdownString {
  const rows = Object.entries(record).map(([key, value]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return `| ${escapeMarkdown(key)} | ${escapeMarkdown(text ?? '').replace(/\n/g, ' ')} |`;
  });
  const markdown = new vscode.MarkdownString(`**${escapeMarkdown(title)}**\n\n| Field | Value |\n|---|---|\n${rows.join('\n')}`);
  markdown.supportHtml = false;
  markdown.isTrusted = false;
  return markdown;
}

export class ReportNode extends LabNode {
  readonly id: string;

  constructor(
    readonly report: Report,
    parentId: string,
  ) {
    super();
    this.id = `${parentId}/report:${report.report_id}`;
  }

  get downloadable(): boolean {
    return this.report.download_available !== false;
  }

  getTreeItem(): vscode.TreeItem {
    const { report } = this;
    const item = new vscode.TreeItem(report.report_id, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.description = [report.report_type, localTime(report.published_at), report.status].filter(Boolean).join(' · ');
    item.iconPath = this.downloadable ? new vscode.ThemeIcon('file-pdf') : new vscode.ThemeIcon('file', new vscode.ThemeColor('disabledForeground'));
    item.tooltip = recordTooltip(`Report ${report.report_id}${this.downloadable ? '' : ' (no file available)'}`, report.raw);
    item.contextValue = this.downloadable ? 'labData.report.downloadable' : 'labData.report';
    item.accessibilityInformation = { label: `Report ${report.report_id}, ${item.description}${this.downloadable ? '' : ', no file available'}` };
    return item;
  }
}

export class SampleNode extends LabNode {
  readonly id: string;

  constructor(
    readonly sample: Sample,
    parentId: string,
    index: number,
  ) {
    super();
    this.id = `${parentId}/sample:${sample.id ?? `#${index}`}`;
  }

  getTreeItem(): vscode.TreeItem {
    const raw = this.sample.raw;
    const text = (key: string): string | undefined => (typeof raw[key] === 'string' || typeof raw[key] === 'number' ? String(raw[key]) : undefined);
    const name = text('sample_name') ?? text('name') ?? text('description') ?? text('client_sample_id');
    const label = this.sample.id ?? name ?? 'Sample';
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const received = localTime(text('received_at') ?? text('received') ?? text('collected_at'));
    item.description = [this.sample.id ? name : undefined, text('matrix'), received, text('status')].filter(Boolean).join(' · ');
    item.iconPath = new vscode.ThemeIcon('beaker');
    item.tooltip = recordTooltip(`Sample ${label}`, raw);
    item.contextValue = 'labData.sample';
    return item;
  }
}

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
    item.contextValue = this.command?.command === Commands.retry ? 'labData.error' : 'labData.message';
    return item;
  }
}

/** "Load more…", with how many are loaded of how many. */
export class LoadMoreNode extends LabNode {
  constructor(
    readonly id: string,
    readonly list: PagedList<unknown>,
    private readonly noun: string,
  ) {
    super();
  }

  getTreeItem(): vscode.TreeItem {
    const loaded = this.list.items.length.toLocaleString();
    const item = new vscode.TreeItem(vscode.l10n.t('Load more…'), vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    item.description = this.list.total !== undefined ? vscode.l10n.t('{0} of {1}', loaded, this.list.total.toLocaleString()) : vscode.l10n.t('{0} {1} loaded', loaded, this.noun);
    item.iconPath = new vscode.ThemeIcon('ellipsis');
    item.command = { command: Commands.loadMore, title: 'Load More', arguments: [this] };
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
    return vscode.l10n.t("Couldn't load: {0}", error.message);
  }
  return vscode.l10n.t("Couldn't load: {0}", error instanceof Error ? error.message : String(error));
}

/** The children of a paged list: its items, then "Load more…", or an empty or failure node. */
export async function pagedChildren<T>(parentId: string, list: PagedList<T>, toNode: (item: T, index: number) => LabNode, empty: string, noun: string): Promise<LabNode[]> {
  await list.ensureLoaded();
  const nodes: LabNode[] = list.items.map(toNode);
  if (list.error !== undefined) {
    nodes.push(
      new MessageNode(`${parentId}/error`, failureText(list.error), list.error instanceof LabApiError && list.error.code === 'forbidden' ? 'lock' : 'error', {
        command: Commands.retry,
        title: 'Retry',
        arguments: [list],
      }, list.error instanceof LabApiError ? `${list.error.describe()}\n\nClick to retry.` : undefined),
    );
  } else if (list.items.length === 0) {
    nodes.push(new MessageNode(`${parentId}/empty`, empty, 'info'));
  } else if (list.hasMore) {
    nodes.push(new LoadMoreNode(`${parentId}/more`, list as PagedList<unknown>, noun));
  }
  return nodes;
}
