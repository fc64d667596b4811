import * as vscode from 'vscode';
import { nameWithAddress, type LabDefinition } from '../../core/api/labDefinition';
import { withNotificationProgress } from '../ui/progress';
import type { RefreshWatch } from '../views/labTreeProvider';
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

/**
 * Refresh: every view's lists from their first page. When it takes a moment, a notification says
 * which labs it still waits on, with Cancel; a cancelled refresh keeps the rows shown before.
 */
export async function refreshAll(trees: Trees): Promise<void> {
  await withNotificationProgress(vscode.l10n.t('Lab Data: Refreshing'), async (progress, token) => {
    const controller = new AbortController();
    const cancelled = token.onCancellationRequested(() => controller.abort());
    const waiting = new Map<string, { lab: LabDefinition; lists: number }>();
    const say = (): void => {
      const labs = [...waiting.values()]
        .filter(({ lists }) => lists > 0)
        .map(({ lab }) => nameWithAddress(lab));
      if (labs.length > 0) {
        progress.report({ message: vscode.l10n.t('waiting on {0}', labs.join(', ')) });
      }
    };
    const watch: RefreshWatch = {
      signal: controller.signal,
      started: (lab) => {
        const entry = waiting.get(lab.name) ?? { lab, lists: 0 };
        entry.lists++;
        waiting.set(lab.name, entry);
        say();
      },
      ended: (lab) => {
        const entry = waiting.get(lab.name);
        if (entry) {
          entry.lists--;
          say();
        }
      },
    };
    try {
      await Promise.all(
        [trees.reports, trees.clients, trees.samples].map((tree) => tree.refresh(watch)),
      );
    } finally {
      cancelled.dispose();
    }
    if (controller.signal.aborted) {
      vscode.window.setStatusBarMessage(
        `$(info) ${vscode.l10n.t('Refresh cancelled: the rows shown are from before it.')}`,
        8000,
      );
    }
  });
}
