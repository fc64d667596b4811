import * as vscode from 'vscode';
import type { Labs } from '../labs/labs';
import type { NewReports } from '../news/newReports';
import type { SavedSearchSettings } from '../news/savedSearchSettings';
import { Views } from '../constants';
import { ClientsTreeProvider } from './clientsTree';
import type { LabNode } from './nodes';
import { ReportsTreeProvider } from './reportsTree';
import { SamplesTreeProvider } from './samplesTree';
import type { SavedReportLookup } from './savedState';

/** The three trees, and the Reports view (for focus and selection). */
export interface Trees {
  readonly reports: ReportsTreeProvider;
  readonly clients: ClientsTreeProvider;
  readonly samples: SamplesTreeProvider;
  readonly reportsView: vscode.TreeView<LabNode>;
}

export interface LabViews extends Trees {
  readonly disposables: vscode.Disposable[];
}

/**
 * Creates the three trees and their views; `saved` tells their report rows which reports are saved,
 * `filterState` keeps the Reports filters across reloads (the workspace's state).
 */
export function registerViews(
  labs: Labs,
  news: NewReports,
  searches: SavedSearchSettings,
  saved?: SavedReportLookup,
  filterState?: vscode.Memento,
): LabViews {
  const reports = new ReportsTreeProvider(labs, news, searches, saved, filterState);
  const clients = new ClientsTreeProvider(labs, saved);
  const samples = new SamplesTreeProvider(labs);
  const view = (
    id: string,
    provider: vscode.TreeDataProvider<LabNode>,
    canSelectMany: boolean,
  ): vscode.TreeView<LabNode> =>
    vscode.window.createTreeView(id, {
      treeDataProvider: provider,
      showCollapseAll: id === Views.clients,
      canSelectMany,
    });
  const reportsView = view(Views.reports, reports, true);
  const samplesView = view(Views.samples, samples, false);
  // The order is said once, beside the view's name, rather than on every lab's or list's row.
  reportsView.description = vscode.l10n.t('newest first');
  samplesView.description = vscode.l10n.t('newest first');
  return {
    reports,
    clients,
    samples,
    reportsView,
    disposables: [
      reports,
      clients,
      samples,
      reportsView,
      view(Views.clients, clients, true),
      samplesView,
    ],
  };
}
