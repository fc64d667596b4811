import * as vscode from 'vscode';
import { Views } from '../constants';

/**
 * Registers the container's views with an empty tree, so VS Code shows their welcome content
 * (sign in, set the address) until the browsing views take over.
 */
export function registerEmptyViews(): vscode.Disposable[] {
  const empty: vscode.TreeDataProvider<never> = {
    getTreeItem: (element: never) => element,
    getChildren: () => [],
  };
  return [Views.reports, Views.clients, Views.samples].map((id) => vscode.window.createTreeView(id, { treeDataProvider: empty }));
}
