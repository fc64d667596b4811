import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import type { LabApi } from '../core/labApi';
import type { Page } from '../core/pagination';
import type { LabNode } from './nodes';
import { PagedList } from './pagedList';

/**
 * What the three Lab Data trees share: nothing when signed out (so the welcome view shows), the
 * paged lists each tree has loaded (kept across refreshes), progress in the view while loading,
 * and a single-flight refresh.
 */
export abstract class LabTreeProvider implements vscode.TreeDataProvider<LabNode>, vscode.Disposable {
  private readonly lists = new Map<string, PagedList<unknown>>();
  private readonly changed = new vscode.EventEmitter<LabNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private refreshing?: Promise<void>;
  private readonly subscription: vscode.Disposable;

  constructor(
    protected readonly session: LabSession,
    readonly viewId: string,
  ) {
    this.subscription = session.onDidChangeState(() => {
      // Another lab or another token: nothing loaded before may be shown.
      this.lists.clear();
      this.changed.fire(undefined);
    });
  }

  /** The top-level rows, when signed in. */
  protected abstract roots(): Promise<LabNode[]>;

  getTreeItem(node: LabNode): vscode.TreeItem {
    return node.getTreeItem();
  }

  async getChildren(node?: LabNode): Promise<LabNode[]> {
    if (node) {
      return this.withViewProgress(() => Promise.resolve(node.getChildren()));
    }
    const signedIn = (await this.session.api()) !== undefined;
    return signedIn ? this.withViewProgress(() => this.roots()) : [];
  }

  /** Re-renders from what is loaded, without a request. */
  redraw(): void {
    this.changed.fire(undefined);
  }

  /**
   * Reloads every list this tree has loaded, as many pages as each showed. Repeated calls while
   * one runs share it, so a storm of clicks makes one round of requests.
   */
  refresh(): Promise<void> {
    this.refreshing ??= this.withViewProgress(async () => {
      await Promise.all([...this.lists.values()].filter((list) => list.loaded || list.error !== undefined).map((list) => list.reload()));
      this.changed.fire(undefined);
    }).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  /** The list kept under `id`, created on first use. */
  protected list<T>(id: string, fetch: (api: LabApi, page: number) => Promise<Page<T>>, keyOf: (item: T) => string): PagedList<T> {
    let list = this.lists.get(id) as PagedList<T> | undefined;
    if (!list) {
      list = new PagedList<T>(async (page) => {
        const api = await this.session.api();
        if (!api) {
          throw new Error('Signed out.');
        }
        return fetch(api, page);
      }, keyOf);
      this.lists.set(id, list as PagedList<unknown>);
    }
    return list;
  }

  /** Forgets lists whose id starts with `prefix` (a filter changed). */
  protected forgetLists(prefix: string): void {
    for (const id of [...this.lists.keys()]) {
      if (id.startsWith(prefix)) {
        this.lists.delete(id);
      }
    }
  }

  private withViewProgress<T>(task: () => Promise<T>): Promise<T> {
    return Promise.resolve(vscode.window.withProgress({ location: { viewId: this.viewId } }, task));
  }
}
