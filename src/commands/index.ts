import { Commands } from '../constants';
import type { LabSession } from '../auth/labSession';
import type { CommandHandler } from './commandRunner';
import type { LabTreeProvider } from '../views/labTreeProvider';
import type { ReportsTreeProvider } from '../views/reportsTree';
import type { SamplesTreeProvider } from '../views/samplesTree';
import type * as vscode from 'vscode';
import type { LabNode, LoadMoreNode } from '../views/nodes';
import type { PagedList } from '../views/pagedList';
import type { MetadataDocumentProvider } from '../documents/metadataDocuments';
import type { Logger } from '../log';
import type { PromptsHolder } from '../ui/prompts';
import { copyId } from './copyId';
import { copySupportReport } from './copySupportReport';
import { filterReports, filterSamples } from './filters';
import { findReport, listSamples, searchReports } from './palette';
import { openReportMetadata } from './openMetadata';
import { saveAllReports } from './saveAllReports';
import { saveReportPdf } from './saveReportPdf';
import { syncReports } from './syncReports';
import { signIn } from './signIn';
import { signOut } from './signOut';

export interface Trees {
  readonly reports: ReportsTreeProvider;
  readonly clients: LabTreeProvider;
  readonly samples: SamplesTreeProvider;
  readonly reportsView: vscode.TreeView<LabNode>;
}

export interface CommandServices {
  readonly session: LabSession;
  readonly trees: Trees;
  readonly documents: MetadataDocumentProvider;
  readonly prompts: PromptsHolder;
  readonly log: Logger;
  /** "Lab Data for VS Code <version> (VS Code <version>)", for support reports. */
  readonly integration: string;
}

/** The table of every command id and its handler. */
export function commandTable({ session, trees, documents, prompts, log, integration }: CommandServices): Record<string, CommandHandler> {
  const all = [trees.reports, trees.clients, trees.samples];
  const palette = { session, prompts, reportsTree: trees.reports, reportsView: trees.reportsView };
  const redrawAll = (): void => all.forEach((tree) => tree.redraw());
  return {
    [Commands.signIn]: (args?: unknown) => signIn(session, args),
    [Commands.signOut]: () => signOut(session),
    [Commands.refresh]: async () => {
      await Promise.all(all.map((tree) => tree.refresh()));
    },
    [Commands.filterReports]: (args?: unknown) => filterReports(session, trees.reports, prompts.current, args),
    [Commands.clearReportsFilter]: () => trees.reports.setFilter({}),
    [Commands.filterSamples]: (args?: unknown) => filterSamples(trees.samples, prompts.current, args),
    [Commands.clearSamplesFilter]: () => trees.samples.setReceivedSince(undefined),
    [Commands.openReportMetadata]: (arg?: unknown) => openReportMetadata(session, documents, prompts, arg),
    [Commands.saveReportPdf]: (...args: unknown[]) => saveReportPdf(session, prompts, log, ...args),
    [Commands.saveAllReports]: (node?: unknown, options?: unknown) => saveAllReports(session, trees.reports, prompts, log, node, options as { ifExists?: 'overwrite' | 'keepBoth' | 'skip' } | undefined),
    [Commands.syncReports]: () => syncReports(session, prompts, log),
    [Commands.findReport]: (arg?: unknown) => findReport(palette, arg),
    [Commands.searchReports]: (arg?: unknown) => searchReports(palette, arg),
    [Commands.listSamples]: (arg?: unknown) => listSamples(palette, arg),
    [Commands.copySupportReport]: () => copySupportReport(session, log, integration),
    [Commands.copyId]: (arg?: unknown) => copyId(arg),
    [Commands.loadMore]: async (node?: unknown) => {
      await (node as LoadMoreNode | undefined)?.list.loadMore();
      redrawAll();
    },
    [Commands.retry]: async (list?: unknown) => {
      await (list as PagedList<unknown> | undefined)?.retry();
      redrawAll();
    },
  };
}
