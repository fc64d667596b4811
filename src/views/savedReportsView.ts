import * as path from 'node:path';
import * as vscode from 'vscode';
import { serverText } from '../../core/errors/serverText';
import { Views } from '../constants';
import { formatCount } from '../ui/displayLocale';
import { LabNode } from './nodes';

/**
 * A recorded report against its folder: as recorded (`inStep`), missing (restorable from the
 * cache, or only from the lab), changed locally, amended at the lab or no longer listed there
 * (known only after an explicit check), or outside the folder's default profile.
 */
export type SavedEntryState =
  'inStep' | 'missingCached' | 'missingLab' | 'changed' | 'amended' | 'notListed' | 'notSelected';

export interface SavedEntryRow {
  /** The lab's name as the manifest records it. */
  readonly lab: string;
  readonly origin: string;
  readonly reportId: string;
  /** The file's path relative to the folder, as recorded. */
  readonly file: string;
  readonly state: SavedEntryState;
  readonly recordedRevision?: string;
  readonly labRevision?: string;
  readonly changes?: readonly string[];
}

export interface SavedLabRows {
  readonly lab: string;
  readonly origin: string;
  readonly entries: readonly SavedEntryRow[];
  /** Whether a lab of this machine serves this section (its address, or as remembered). */
  readonly served: boolean;
}

/** One manifest of the workspace and where its folder stands. */
export interface SavedFolderRows {
  /** The folder holding `lab-data-sync.json`. */
  readonly folder: string;
  /** How the folder is named in the view: relative to its workspace folder. */
  readonly label: string;
  /**
   * Why the manifest cannot be used: git holds it unmerged, it has conflict markers, a committed
   * merge lost entries its parents record (all three offer Resolve), or else.
   */
  readonly problem?: {
    readonly kind: 'unmerged' | 'conflict' | 'lostMerge' | 'other';
    readonly text: string;
  };
  readonly labs: readonly SavedLabRows[];
  /** When the lab was last asked about amendments (undefined: never, so none are shown). */
  readonly checkedAtLab?: Date;
}

/**
 * Where the Saved Reports view learns each folder's state. The view sits below the saved-file
 * checks (`provenance/`), so it names only this; `extension.ts` hands it their implementation.
 */
export interface SavedFoldersSource {
  /** Every manifest of the workspace with its states: from the disk and the cache, no lab request. */
  folders(): Promise<readonly SavedFolderRows[]>;
  /** Fires when a folder's state may have changed (a file or the manifest changed, a check ran). */
  readonly onDidChange: vscode.Event<void>;
}

const ORDER: Readonly<Record<SavedEntryState, number>> = {
  changed: 0,
  amended: 1,
  missingLab: 2,
  missingCached: 3,
  notListed: 4,
  inStep: 5,
  notSelected: 6,
};

/** "42 recorded · 41 missing · 1 changed": what is out of step, counted. */
export function countsText(entries: readonly SavedEntryRow[]): string {
  const count = (...states: SavedEntryState[]): number =>
    entries.filter((entry) => states.includes(entry.state)).length;
  const parts = [vscode.l10n.t('{0} recorded', formatCount(entries.length))];
  const add = (n: number, words: string): void => {
    if (n > 0) {
      parts.push(words);
    }
  };
  const missing = count('missingCached', 'missingLab');
  add(missing, vscode.l10n.t('{0} missing', formatCount(missing)));
  const changed = count('changed');
  add(changed, vscode.l10n.t('{0} changed', formatCount(changed)));
  const amended = count('amended');
  add(amended, vscode.l10n.t('{0} amended at the lab', formatCount(amended)));
  const notListed = count('notListed');
  add(notListed, vscode.l10n.t('{0} not at the lab', formatCount(notListed)));
  const notSelected = count('notSelected');
  add(notSelected, vscode.l10n.t('{0} not selected', formatCount(notSelected)));
  return parts.join(' · ');
}

/** A folder's row: its manifest, its counts, and what can be done to it. */
export class SavedFolderNode extends LabNode {
  readonly id: string;
  constructor(readonly saved: SavedFolderRows) {
    super();
    this.id = `saved:${saved.folder}`;
  }

  /** Command arguments: the folder, for Restore, Verify, Push and Resolve. */
  get folder(): string {
    return this.saved.folder;
  }

  getTreeItem(): vscode.TreeItem {
    const { saved } = this;
    const item = new vscode.TreeItem(saved.label, vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    item.resourceUri = vscode.Uri.file(path.join(saved.folder, 'lab-data-sync.json'));
    if (saved.problem) {
      item.description =
        saved.problem.kind === 'unmerged'
          ? vscode.l10n.t('unmerged')
          : saved.problem.kind === 'conflict'
            ? vscode.l10n.t('conflict markers')
            : saved.problem.kind === 'lostMerge'
              ? vscode.l10n.t('a merge lost reports')
              : vscode.l10n.t('cannot be read');
      item.tooltip = saved.problem.text;
      item.iconPath = new vscode.ThemeIcon('git-merge', new vscode.ThemeColor('errorForeground'));
      item.accessibilityInformation = {
        label: vscode.l10n.t('Saved reports in {0}: {1}', saved.label, item.description),
      };
      item.contextValue =
        saved.problem.kind === 'other'
          ? 'labData.savedFolder.broken'
          : 'labData.savedFolder.conflicted';
      return item;
    }
    const entries = saved.labs.flatMap((lab) => lab.entries);
    item.description = countsText(entries);
    item.iconPath = new vscode.ThemeIcon('file-submodule');
    item.tooltip = new vscode.MarkdownString(
      [
        `**${escape(saved.folder)}**`,
        item.description,
        saved.checkedAtLab
          ? vscode.l10n.t(
              'The lab was asked about amendments at {0}.',
              saved.checkedAtLab.toLocaleString(),
            )
          : vscode.l10n.t(
              'The lab has not been asked about amendments (Check the Lab for Amendments).',
            ),
      ].join('\n\n'),
    );
    item.contextValue = 'labData.savedFolder';
    item.accessibilityInformation = {
      label: vscode.l10n.t('Saved reports in {0}: {1}', saved.label, item.description),
    };
    return item;
  }

  override getChildren(): LabNode[] {
    if (this.saved.problem) {
      return [
        new SavedMessageNode(`${this.id}:problem`, this.saved.problem.text, this.saved.folder),
      ];
    }
    return this.saved.labs.map((lab) => new SavedLabNode(this.saved, lab));
  }
}

/** A lab's section of a manifest; its report rows are made only when it is expanded. */
export class SavedLabNode extends LabNode {
  readonly id: string;
  constructor(
    readonly saved: SavedFolderRows,
    readonly section: SavedLabRows,
  ) {
    super();
    this.id = `saved:${saved.folder}:${section.origin}:${section.lab}`;
  }

  get folder(): string {
    return this.saved.folder;
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(
      serverText(this.section.lab, 120),
      vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = this.id;
    item.description = this.section.served
      ? countsText(this.section.entries)
      : `${countsText(this.section.entries)} · ${vscode.l10n.t('no lab of yours is at this address')}`;
    item.tooltip = this.section.served
      ? serverText(this.section.origin, 200)
      : vscode.l10n.t(
          '{0}: no lab of this machine is at this address; Add Lab… (its address is shown and confirmed before a token goes there)',
          serverText(this.section.origin, 200),
        );
    item.iconPath = new vscode.ThemeIcon('beaker');
    item.contextValue = this.section.served ? 'labData.savedLab' : 'labData.savedLab.unserved';
    item.accessibilityInformation = { label: `${item.label as string}, ${item.description}` };
    return item;
  }

  override getChildren(): LabNode[] {
    return [...this.section.entries]
      .sort((a, b) => ORDER[a.state] - ORDER[b.state] || (a.file < b.file ? -1 : 1))
      .map((entry) => new SavedReportNode(this.saved.folder, entry));
  }
}

const STATE_WORDS: Readonly<Record<SavedEntryState, () => string>> = {
  inStep: () => vscode.l10n.t('in step'),
  missingCached: () => vscode.l10n.t('missing · restorable from the cache'),
  missingLab: () => vscode.l10n.t('missing · restorable from the lab'),
  changed: () => vscode.l10n.t('changed locally'),
  amended: () => vscode.l10n.t('amended at the lab'),
  notListed: () => vscode.l10n.t('no longer listed by the lab'),
  notSelected: () => vscode.l10n.t('not selected'),
};

const STATE_ICONS: Readonly<Record<SavedEntryState, [string, string?]>> = {
  inStep: ['pass', 'testing.iconPassed'],
  missingCached: ['cloud-download', 'list.warningForeground'],
  missingLab: ['cloud-download', 'list.warningForeground'],
  changed: ['diff-modified', 'list.warningForeground'],
  amended: ['history', 'list.warningForeground'],
  notListed: ['question', 'list.warningForeground'],
  notSelected: ['circle-slash'],
};

/** One recorded report: its file, its state, and the actions that state offers. */
export class SavedReportNode extends LabNode {
  readonly id: string;
  constructor(
    readonly folder: string,
    readonly entry: SavedEntryRow,
  ) {
    super();
    this.id = `saved:${folder}:${entry.origin}:${entry.lab}:${entry.reportId}`;
  }

  /** The recorded file on disk (it may be missing). */
  get uri(): vscode.Uri {
    return vscode.Uri.file(path.join(this.folder, ...this.entry.file.split('/')));
  }

  getTreeItem(): vscode.TreeItem {
    const { entry } = this;
    const item = new vscode.TreeItem(serverText(entry.file, 200));
    item.id = this.id;
    const words = STATE_WORDS[entry.state]();
    item.description =
      entry.state === 'amended'
        ? `${serverText(entry.reportId, 80)} · ${vscode.l10n.t('amended at the lab: revision {0} → {1}', entry.recordedRevision ?? '?', entry.labRevision ?? '?')}`
        : `${serverText(entry.reportId, 80)} · ${words}`;
    const [icon, color] = STATE_ICONS[entry.state];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.tooltip = new vscode.MarkdownString(
      [
        `**${escape(entry.reportId)}** · ${escape(entry.lab)}`,
        escape(entry.file),
        words,
        ...(entry.recordedRevision
          ? [vscode.l10n.t('Recorded revision: {0}', escape(entry.recordedRevision))]
          : []),
        ...(entry.changes?.length ? [escape(entry.changes.join(', '))] : []),
      ].join('\n\n'),
    );
    item.resourceUri = this.uri;
    item.contextValue = `labData.savedReport.${entry.state}`;
    item.accessibilityInformation = { label: `${item.label as string}, ${item.description}` };
    if (
      entry.state !== 'missingCached' &&
      entry.state !== 'missingLab' &&
      entry.state !== 'notSelected'
    ) {
      item.command = {
        command: 'vscode.openWith',
        title: vscode.l10n.t('Preview'),
        arguments: [this.uri, 'labData.pdfPreview'],
      };
    }
    return item;
  }
}

/** A line of text under a folder: why its manifest cannot be used. */
export class SavedMessageNode extends LabNode {
  constructor(
    readonly id: string,
    private readonly text: string,
    readonly folder: string,
  ) {
    super();
  }

  getTreeItem(): vscode.TreeItem {
    const item = new vscode.TreeItem(this.text);
    item.id = this.id;
    item.tooltip = this.text;
    item.iconPath = new vscode.ThemeIcon('info');
    return item;
  }
}

function escape(text: string): string {
  return serverText(text, 300).replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

/**
 * The Saved Reports view: each manifest of the workspace, by lab, with counts and each report's
 * state. Reads only what its source holds (the disk and the cache, no lab request); a lab's report
 * rows are made when the lab is expanded, so a folder of ten thousand opens at once.
 */
export class SavedReportsTreeProvider
  implements vscode.TreeDataProvider<LabNode>, vscode.Disposable
{
  private readonly changed = new vscode.EventEmitter<LabNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly source: SavedFoldersSource) {
    this.subscription = source.onDidChange(() => this.changed.fire(undefined));
  }

  getTreeItem(node: LabNode): vscode.TreeItem {
    return node.getTreeItem();
  }

  async getChildren(node?: LabNode): Promise<LabNode[]> {
    if (node) {
      return node.getChildren();
    }
    const folders = await this.source.folders();
    return folders.map((folder) => new SavedFolderNode(folder));
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

/** Creates the Saved Reports view over its source. */
export function registerSavedReportsView(source: SavedFoldersSource): {
  readonly provider: SavedReportsTreeProvider;
  readonly disposables: vscode.Disposable[];
} {
  const provider = new SavedReportsTreeProvider(source);
  const view = vscode.window.createTreeView(Views.savedReports, {
    treeDataProvider: provider,
    showCollapseAll: true,
  });
  return { provider, disposables: [provider, view] };
}
