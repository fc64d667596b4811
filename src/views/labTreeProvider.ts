import * as vscode from 'vscode';
import type { LabApi } from '../../core/api/labApi';
import type { Page } from '../../core/api/pagination';
import type { LabDefinition } from '../../core/api/labDefinition';
import type { LabConnection } from '../labs/labConnection';
import type { LabEntryState, Labs } from '../labs/labs';
import { MessageNode, type LabNode } from './nodes';
import { LabRowNode, UnreachableNode } from './labRowNode';
import { PagedList } from './pagedList';
import type { SavedReportLookup, SavedReportState } from './savedState';

/** Who follows a refresh: which lab each list waits on, and a way to cancel it. */
export interface RefreshWatch {
  readonly signal?: AbortSignal;
  started(lab: LabDefinition): void;
  ended(lab: LabDefinition): void;
}

/** The lab a subtree belongs to, and the prefix its rows' ids carry (empty with one lab, so ids stay as in 0.1.0). */
export interface LabScope {
  readonly connection: LabConnection;
  readonly name: string;
  readonly idPrefix: string;
  /** Several labs are shown, each under its own row: a row's accessible label names its lab. */
  readonly several: boolean;
}

/**
 * What the three Lab Data trees share. With one lab they look as in 0.1.0: nothing when signed
 * out (so the welcome view shows), its rows at the top otherwise. With several, the top rows are
 * the labs, each with its state, and everything below works per lab. Paged lists are kept per lab
 * across refreshes; progress shows in the view; refresh is single-flight.
 */
export abstract class LabTreeProvider
  implements vscode.TreeDataProvider<LabNode>, vscode.Disposable
{
  private readonly lists = new Map<
    string,
    { readonly connection: LabConnection; readonly list: PagedList<unknown> }
  >();
  private readonly labRows = new Map<string, LabRowNode>();
  private readonly changed = new vscode.EventEmitter<LabNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private refreshing?: Promise<void>;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    protected readonly labs: Labs,
    readonly viewId: string,
    /** Which reports are saved, verified or changed: their rows say it (and are redrawn when it changes). */
    private readonly saved?: SavedReportLookup,
  ) {
    this.subscriptions = [
      ...(saved ? [saved.onDidChange(() => this.changed.fire(undefined))] : []),
      labs.onDidChange(() => {
        // Another lab, definition or token: nothing loaded through an old connection may be shown.
        for (const [key, { connection }] of this.lists) {
          if (labs.get(connection.lab.name) !== connection) {
            this.lists.delete(key);
          }
        }
        this.labRows.clear();
        this.changed.fire(undefined);
      }),
      // A lab's state shows on its row and above its rows (unreachable: they may be out of date).
      labs.onDidChangeConnection(() => this.changed.fire(undefined)),
    ];
  }

  /** The top-level rows of one signed-in lab. */
  protected abstract roots(scope: LabScope): Promise<LabNode[]>;

  /**
   * The list a lab's row counts ("120 reports"), with the view's filter, and how to say its count;
   * with several labs it is loaded while the row is still collapsed (the request expanding it makes).
   */
  protected abstract mainList(
    scope: LabScope,
  ): { readonly list: PagedList<unknown>; readonly count: (count: number) => string } | undefined;

  getTreeItem(node: LabNode): vscode.TreeItem {
    return node.getTreeItem();
  }

  async getChildren(node?: LabNode): Promise<LabNode[]> {
    if (node) {
      return this.withViewProgress(() => Promise.resolve(node.getChildren()));
    }
    await this.labs.ready;
    const entries = this.labs.entries;
    if (entries.length === 1) {
      const [entry] = entries;
      if (entry!.kind === 'invalid') {
        return [
          new MessageNode(
            'lab/invalid',
            entry!.lab.error.message,
            'error',
            undefined,
            entry!.lab.error.message,
          ),
        ];
      }
      return entry!.connection.signedIn
        ? this.withViewProgress(() => this.markedRoots(this.scopeOf(entry!.connection, false)))
        : [];
    }
    const rows = entries.map((entry) => this.labRow(entry));
    for (const row of rows) {
      const { entry } = row;
      const main =
        entry.kind === 'lab' && entry.connection.signedIn
          ? this.mainList(this.scopeOf(entry.connection, true))
          : undefined;
      if (main && !main.list.loaded && main.list.error === undefined) {
        // Its count appears on the row when the first page arrives; expanding it then costs nothing more.
        void main.list.ensureLoaded().then(() => this.changed.fire(row));
      }
    }
    return rows;
  }

  /** With several labs, the row of `lab` (the parent of that lab's top rows). */
  protected labRowOf(lab: string): LabNode | undefined {
    return this.labs.entries.length > 1 ? this.labRows.get(lab) : undefined;
  }

  /** The children of a lab's row: its rows when signed in, else a "Sign In" row. */
  async labChildren(connection: LabConnection): Promise<LabNode[]> {
    return this.withViewProgress(() => this.markedRoots(this.scopeOf(connection, true)));
  }

  /**
   * A lab's top rows, below a row saying the lab cannot be reached when it cannot: what is listed
   * was loaded before and may be out of date. A click on it tries again.
   */
  private async markedRoots(scope: LabScope): Promise<LabNode[]> {
    const rows = await this.roots(scope);
    const state = scope.connection.connection;
    if (state.kind !== 'offline') {
      return rows;
    }
    return [
      new UnreachableNode(`${scope.idPrefix}unreachable`, scope.connection.lab.name, state.reason),
      ...rows,
    ];
  }

  /** Whether a file of a report is saved, and its state; undefined when none is (or nobody said). */
  protected savedState(lab: string, reportId: string): SavedReportState | undefined {
    return this.saved?.stateOf(lab, reportId);
  }

  /** Re-renders from what is loaded, without a request. */
  redraw(): void {
    this.changed.fire(undefined);
  }

  /**
   * Reloads every list this tree has loaded, as many pages as each showed, telling `watch` which
   * lab each waits on; a cancelled refresh keeps what was shown. Repeated calls while one runs
   * share it, so a storm of clicks makes one round of requests.
   */
  refresh(watch?: RefreshWatch): Promise<void> {
    this.refreshing ??= this.withViewProgress(async () => {
      await Promise.all(
        [...this.lists.values()]
          .filter(({ list }) => list.loaded || list.error !== undefined)
          .map(async ({ connection, list }) => {
            watch?.started(connection.lab);
            try {
              await list.reload(watch?.signal);
            } finally {
              watch?.ended(connection.lab);
            }
          }),
      );
      this.changed.fire(undefined);
    }).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  dispose(): void {
    this.subscriptions.forEach((subscription) => subscription.dispose());
    this.changed.dispose();
  }

  /** The rows a lab shows at its top level (for finding a row to reveal). */
  async rowsOf(labName: string): Promise<LabNode[]> {
    if (this.labs.entries.length === 1) {
      return this.getChildren();
    }
    const row = (await this.getChildren()).find(
      (node) => node instanceof LabRowNode && node.labName === labName,
    );
    return row ? this.getChildren(row) : [];
  }

  /** The list kept under `id` for the scope's lab, created on first use. */
  protected list<T>(
    scope: LabScope,
    id: string,
    fetch: (api: LabApi, page: number, signal?: AbortSignal) => Promise<Page<T>>,
    keyOf: (item: T) => string,
  ): PagedList<T> {
    const key = `${scope.name}\u0000${id}`;
    let kept = this.lists.get(key);
    if (!kept || kept.connection !== scope.connection) {
      const { connection } = scope;
      const list = new PagedList<T>(async (page, signal) => {
        const api = connection.api;
        if (!api) {
          throw new Error(vscode.l10n.t('Signed out.'));
        }
        return fetch(api, page, signal);
      }, keyOf);
      kept = { connection, list: list as PagedList<unknown> };
      this.lists.set(key, kept);
    }
    return kept.list as PagedList<T>;
  }

  /** The items of a list already loaded (none when it was never shown). */
  protected loadedItems<T>(lab: string, id: string): T[] {
    return [...((this.lists.get(`${lab}\u0000${id}`)?.list.items as T[] | undefined) ?? [])];
  }

  /** Forgets the lists of `lab` (or of every lab) whose id starts with `prefix` (a filter changed). */
  protected forgetLists(prefix: string, lab?: string): void {
    for (const key of [...this.lists.keys()]) {
      const [name, id] = key.split('\u0000') as [string, string];
      if ((lab === undefined || name === lab) && id.startsWith(prefix)) {
        this.lists.delete(key);
      }
    }
  }

  private scopeOf(connection: LabConnection, several: boolean): LabScope {
    return {
      connection,
      name: connection.lab.name,
      idPrefix: several ? `lab:${connection.lab.name}/` : '',
      several,
    };
  }

  private labRow(entry: LabEntryState): LabRowNode {
    const name = entry.kind === 'lab' ? entry.connection.lab.name : entry.lab.name;
    // Rows are dropped whenever the labs change, so a kept row always shows the current entry.
    let row = this.labRows.get(name);
    if (!row) {
      row = new LabRowNode(
        entry,
        (connection) => this.labChildren(connection),
        (connection) => this.countOf(connection),
      );
      this.labRows.set(name, row);
    }
    return row;
  }

  /** "120 reports" once the lab's list has said (or shown) how many there are. */
  private countOf(connection: LabConnection): string | undefined {
    const main = this.mainList(this.scopeOf(connection, true));
    if (!main?.list.loaded || main.list.error !== undefined) {
      return undefined;
    }
    const count = main.list.total ?? (main.list.hasMore ? undefined : main.list.items.length);
    return count === undefined ? undefined : main.count(count);
  }

  private withViewProgress<T>(task: () => Promise<T>): Promise<T> {
    return Promise.resolve(vscode.window.withProgress({ location: { viewId: this.viewId } }, task));
  }
}
