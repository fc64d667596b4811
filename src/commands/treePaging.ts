import type { LoadMoreNode } from '../views/nodes';
import type { PagedList } from '../views/pagedList';
import type { Trees } from '../views/registerViews';

function redrawAll(trees: Trees): void {
  [trees.reports, trees.clients, trees.samples].forEach((tree) => tree.redraw());
}

/** "Load more…": the next page of its list, with focus on the first row it added (where "Load more…" was). */
export async function loadMore(trees: Trees, node?: unknown): Promise<void> {
  const more = node as LoadMoreNode | undefined;
  if (!more) {
    return;
  }
  const before = more.list.items.length;
  await more.list.loadMore();
  redrawAll(trees);
  const first = await trees.reports.firstLoadedAfter(more, before);
  if (first && trees.reportsView.visible) {
    await trees.reportsView
      .reveal(first, { select: true, focus: true })
      .then(undefined, () => undefined);
  }
}

/** A failed page's "Retry" row: asks for that page again. */
export async function retryPage(trees: Trees, list?: unknown): Promise<void> {
  await (list as PagedList<unknown> | undefined)?.retry();
  redrawAll(trees);
}

/** Refresh: every view's lists from their first page. */
export async function refreshAll(trees: Trees): Promise<void> {
  await Promise.all([trees.reports, trees.clients, trees.samples].map((tree) => tree.refresh()));
}
