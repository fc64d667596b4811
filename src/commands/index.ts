import * as vscode from 'vscode';
import { Commands } from '../constants';
import type { MetadataDocumentProvider } from '../documents/metadataDocuments';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import type { PromptsHolder } from '../ui/prompts';
import type { Trees } from '../views/registerViews';
import type { CommandHandler } from './commandRunner';
import { copyLink } from '../ids/deepLinks';
import {
  compareSavedReport,
  verifySavedReports,
  type SavedReportFindings,
} from '../provenance/savedReports';
import { restoreOneReport, restoreReports } from '../provenance/restoreReports';
import type { SavedFolderStates } from '../provenance/savedFolders';
import {
  checkForAmendments,
  compareWithLab,
  installMergeDriverFor,
  previewSavedReport,
  pushToTeamCache,
  resolveManifestConflict,
  restoreSavedFolder,
  revealSavedReport,
  updateToLabRevision,
  verifySavedFolder,
} from '../provenance/savedReportsActions';
import type { NewReports } from '../news/newReports';
import type { SavedSearchSettings } from '../news/savedSearchSettings';
import type { PdfPreviewProvider } from '../preview/pdfPreview';
import type { ReportTextDocuments } from '../documents/reportTexts';
import { showReportText } from './showReportText';
import { copyId } from './copyId';
import type { RecentReports } from './reportSuggestions';
import type { Activity } from '../ui/activity';
import type { SyncFolders } from '../downloads/syncFolderChoice';
import { previewReport } from './previewReport';
import type { OverviewPanels } from '../overview/overviewPanels';
import { showOverview } from './showOverview';
import { exportList } from './exportList';
import { copySupportReport } from './copySupportReport';
import { clearReportsFilter, clearSamplesFilter, filterReports, filterSamples } from './filters';
import { openReportMetadata } from './openMetadata';
import { findReport, listSamples } from './palette';
import { searchReports } from './searchReports';
import { saveAllReports } from './saveAllReports';
import { saveReportPdf } from './saveReportPdf';
import { markAllSeen, saveFilterAsSearch } from './savedSearches';
import { signIn } from './signIn';
import { addLab } from './addLab';
import { addLabFromManifest } from './addLabFromManifest';
import { SavedLabNode } from '../views/savedReportsView';
import { signOut } from './signOut';
import { recordUses } from './recordUses';
import type { ImpactState } from '../impact/impactState';
import { openAmendedRevisions } from './openAmendedRevisions';
import type { UsedRevisionDocuments } from '../impact/usedRevisionDocuments';
import { syncReports } from './syncReports';
import { statusMenu } from './statusMenu';
import { checkConnection } from './checkConnection';
import type { NetworkSettings } from '../labs/networkSettings';
import type { ConnectionReportDocuments } from '../documents/connectionReports';
import { loadMore, refreshAll, retryPage } from './treePaging';
import { setCacheToken } from '../downloads/teamCache';
import { newAnalysisScript, newCiWorkflow } from './starters';

export interface CommandServices {
  readonly labs: Labs;
  /** The network settings every lab's requests use (Check Connection reads them). */
  readonly network: NetworkSettings;
  /** Check Connection's read-only report documents. */
  readonly connectionReports: ConnectionReportDocuments;
  readonly trees: Trees;
  readonly documents: MetadataDocumentProvider;
  readonly prompts: PromptsHolder;
  readonly log: Logger;
  /** What the last verification of saved reports found (Explorer badges, Problems). */
  readonly findings: SavedReportFindings;
  /** Each manifest of the workspace and its state (the Saved Reports view). */
  readonly savedFolders: SavedFolderStates;
  /** The overview panels, one per lab. */
  readonly overviews: OverviewPanels;
  /** The PDF preview editor. */
  readonly previews: PdfPreviewProvider;
  /** The previewed PDFs' texts, as read-only documents. */
  readonly reportTexts: ReportTextDocuments;
  /** Reports published since the user last looked. */
  readonly news: NewReports;
  /** The user's saved searches (labData.savedSearches). */
  readonly searches: SavedSearchSettings;
  /** Long work under way, for the status bar. */
  readonly activity: Activity;
  /** Report ids used recently, for Find Report's suggestions. */
  readonly recent: RecentReports;
  /** The folder each workspace syncs to. */
  readonly syncFolders: SyncFolders;
  /** "Lab Data for VS Code <version> (VS Code <version>)", for support reports. */
  readonly integration: string;
  /** The older side of Open Both Revisions: what the record of uses knows of a revision used. */
  readonly usedRevisions: UsedRevisionDocuments;
  /** The uses the Problems panel, the CodeLenses and the Explorer show: read again after Record Report Uses. */
  readonly impact: ImpactState;
  /** Where the extension's files are (the starters in `media/starters/`). */
  readonly extensionUri: vscode.Uri;
}

/** The table of every command id and its handler. */
export function commandTable({
  labs,
  network,
  connectionReports,
  trees,
  documents,
  prompts,
  log,
  findings,
  savedFolders,
  news,
  searches,
  previews,
  reportTexts,
  overviews,
  recent,
  activity,
  syncFolders,
  integration,
  usedRevisions,
  impact,
  extensionUri,
}: CommandServices): Record<string, CommandHandler> {
  const palette = {
    labs,
    prompts,
    reportsTree: trees.reports,
    reportsView: trees.reportsView,
    recent,
  };
  return {
    [Commands.signIn]: (...args) => signIn(labs, prompts.current, ...args),
    [Commands.addLab]: (...args) => addLab(labs, prompts.current, ...args),
    [Commands.signOut]: (...args) => signOut(labs, prompts.current, ...args),
    [Commands.refresh]: () => refreshAll(trees),
    [Commands.filterReports]: (...args) => filterReports(labs, trees, prompts.current, ...args),
    [Commands.clearReportsFilter]: (...args) => clearReportsFilter(trees.reports, ...args),
    [Commands.filterSamples]: (...args) =>
      filterSamples(labs, trees.samples, prompts.current, ...args),
    [Commands.clearSamplesFilter]: (...args) => clearSamplesFilter(trees.samples, ...args),
    [Commands.openReportMetadata]: (...args) =>
      openReportMetadata(labs, documents, prompts, ...args),
    [Commands.showOverview]: (...args) =>
      showOverview(labs, overviews, trees.reports, prompts, ...args),
    [Commands.previewReport]: (...args) =>
      previewReport(labs, previews, prompts, palette, log, ...args),
    [Commands.showReportText]: (target?: unknown) => showReportText(previews, reportTexts, target),
    [Commands.saveReportPdf]: (...args) => saveReportPdf(labs, prompts, log, ...args),
    [Commands.saveSelectedReportPdfs]: (...args) => saveReportPdf(labs, prompts, log, ...args),
    [Commands.saveAllReports]: (...args) =>
      activity.run(vscode.l10n.t('Saving reports'), () =>
        saveAllReports(labs, trees.reports, prompts, log, ...args),
      ),
    [Commands.syncReports]: (...args) =>
      syncReports(labs, trees.reports, prompts, syncFolders, log, activity, ...args),
    [Commands.findReport]: (...args) => findReport(palette, ...args),
    [Commands.searchReports]: (...args) => searchReports(palette, ...args),
    [Commands.listSamples]: (...args) => listSamples(palette, ...args),
    [Commands.copySupportReport]: () => copySupportReport(labs, log, integration),
    [Commands.copyId]: (...args) => copyId(...args),
    [Commands.copyLink]: (...args) => copyLink(labs, false, ...args),
    [Commands.copyMarkdownLink]: (...args) => copyLink(labs, true, ...args),
    [Commands.verifySavedReports]: (...args) => verifySavedReports(labs, findings, log, ...args),
    [Commands.restoreReports]: (...args) => restoreReports(labs, findings, log, ...args),
    [Commands.addLabFromManifest]: (...args) =>
      addLabFromManifest(
        labs,
        prompts.current,
        // From a lab's row of the Saved Reports view: that folder and that lab.
        ...args.map((arg) =>
          arg instanceof SavedLabNode ? { folder: arg.folder, lab: arg.section.lab } : arg,
        ),
      ),
    [Commands.redownloadSavedReport]: (args) =>
      restoreOneReport(labs, findings, log, args as Parameters<typeof restoreOneReport>[3]),
    [Commands.compareSavedReport]: (args) =>
      compareSavedReport(labs, documents, args as Parameters<typeof compareSavedReport>[2]),
    [Commands.restoreSavedFolder]: (node?: unknown) => restoreSavedFolder(node),
    [Commands.verifySavedFolder]: (node?: unknown) => verifySavedFolder(node),
    [Commands.checkForAmendments]: (node?: unknown) => checkForAmendments(savedFolders, log, node),
    [Commands.updateToLabRevision]: (node?: unknown) =>
      updateToLabRevision(labs, prompts, savedFolders, findings, log, node),
    [Commands.revealSavedReport]: (node?: unknown) => revealSavedReport(node),
    [Commands.previewSavedReport]: (node?: unknown) => previewSavedReport(labs, node),
    [Commands.compareWithLab]: (node?: unknown) => compareWithLab(node),
    [Commands.resolveManifest]: (node?: unknown) =>
      resolveManifestConflict(savedFolders, log, node),
    [Commands.installMergeDriver]: (node?: unknown) => installMergeDriverFor(log, node),
    [Commands.pushToTeamCache]: (node?: unknown) => pushToTeamCache(savedFolders, log, node),
    [Commands.recordUses]: (node?: unknown) =>
      recordUses(savedFolders, log, node, () => impact.refresh()),
    [Commands.openAmendedRevisions]: (arg?: unknown) => openAmendedRevisions(usedRevisions, arg),
    [Commands.refreshSavedReports]: () => savedFolders.refresh(),
    [Commands.exportList]: (...args) => exportList(labs, trees, prompts, log, undefined, ...args),
    [Commands.exportReports]: (...args) =>
      exportList(labs, trees, prompts, log, 'reports', ...args),
    [Commands.exportClients]: (...args) =>
      exportList(labs, trees, prompts, log, 'clients', ...args),
    [Commands.exportSamples]: (...args) =>
      exportList(labs, trees, prompts, log, 'samples', ...args),
    [Commands.markAllSeen]: (...args) => markAllSeen(news, trees.reports, ...args),
    [Commands.saveFilterAsSearch]: (...args) =>
      saveFilterAsSearch(labs, trees.reports, searches, prompts.current, ...args),
    [Commands.statusMenu]: () => statusMenu(labs, log, news),
    [Commands.checkConnection]: (...args) =>
      checkConnection({ labs, network, reports: connectionReports, log, integration }, ...args),
    [Commands.setCacheToken]: () => setCacheToken(prompts.current, log),
    [Commands.newAnalysisScript]: (language?: unknown) =>
      newAnalysisScript(extensionUri, prompts.current, language),
    [Commands.newCiWorkflow]: () => newCiWorkflow(extensionUri, prompts.current),
    [Commands.loadMore]: (node?: unknown) => loadMore(trees, node),
    [Commands.retry]: (list?: unknown) => retryPage(trees, list),
  };
}
