import * as vscode from 'vscode';
import { createExtensionApi, type LabDataExtensionApi } from './api';
import { AUTH_PROVIDER_ID, LabAuthenticationProvider } from './auth/authProvider';
import { signInForDemo } from './auth/demoSignIn';
import { TokenStore } from './labs/tokenStore';
import { LabTools } from './chat/labTools';
import { commandTable } from './commands';
import { SyncFolders } from './downloads/syncFolderChoice';
import { RecentReports } from './commands/reportSuggestions';
import { Activity } from './ui/activity';
import { registerCommands } from './commands/commandRunner';
import {
  CONNECTION_REPORT_SCHEME,
  LOG_CHANNEL_NAME,
  REPORT_TEXT_SCHEME,
  TASK_TYPE,
} from './constants';
import { MetadataDocumentProvider } from './documents/metadataDocuments';
import { ConnectionReportDocuments } from './documents/connectionReports';
import { METADATA_SCHEME } from './ui/commandTargets';
import { DeepLinkHandler } from './ids/deepLinks';
import { IdHoverProvider } from './ids/idHovers';
import { LabIds } from './ids/labIds';
import { LabNotifications } from './labs/labNotifications';
import { LabRegistry } from './labs/labRegistry';
import { Labs } from './labs/labs';
import { NetworkSettings } from './labs/networkSettings';
import { Logger } from './log';
import { NewReports } from './news/newReports';
import { NewReportsChecker } from './news/newReportsChecker';
import { NewReportsView } from './views/newReportsView';
import { SavedSearchSettings } from './news/savedSearchSettings';
import { ConnectionStatusBar } from './statusBar';
import { SAVED_METADATA_SCHEME, SavedReportFindings } from './provenance/savedReports';
import { SavedReportStates } from './provenance/savedStates';
import { SavedFileDecorations } from './provenance/savedDecorations';
import { MissingFilesNotice } from './provenance/missingFilesNotice';
import { SavedFolderStates } from './provenance/savedFolders';
import { mergeDriverOffer } from './provenance/savedReportsActions';
import { registerSavedReportsView } from './views/savedReportsView';
import { OverviewPanels } from './overview/overviewPanels';
import { PDF_PREVIEW_VIEW_TYPE, PdfPreviewProvider } from './preview/pdfPreview';
import { ReportTextDocuments } from './documents/reportTexts';
import { fetchReportAgain } from './commands/previewReport';
import { PromptsHolder } from './ui/prompts';
import { registerViews } from './views/registerViews';
import { useTeamCacheServices } from './downloads/teamCache';
import { ImpactState } from './impact/impactState';
import { ImpactDiagnostics } from './impact/impactDiagnostics';
import { ImpactLenses } from './impact/impactLenses';
import { ImpactActions } from './impact/impactActions';
import { USED_REVISION_SCHEME, UsedRevisionDocuments } from './impact/usedRevisionDocuments';
import { AmendmentNotice } from './impact/amendmentNotice';
import { FolderTaskRuns } from './tasks/folderTaskRuns';
import { LabDataTaskProvider } from './tasks/labDataTasks';
import { ReportCardMessages } from './notebooks/reportCardMessages';

/** Builds the objects and registers them; no logic of its own. */
export async function activate(context: vscode.ExtensionContext): Promise<LabDataExtensionApi> {
  const started = performance.now();
  const channel = vscode.window.createOutputChannel(LOG_CHANNEL_NAME, { log: true });
  const log = new Logger(channel);
  const version = String(context.extension.packageJSON.version ?? '0.0.0');
  const parts = buildParts(context, log, version);
  const { labs, views, savedView, news, newsView, checker, tools, missingFiles } = parts;
  context.subscriptions.push(
    channel,
    parts.tokens,
    parts.registry,
    parts.network,
    labs,
    new LabNotifications(labs),
    news,
    parts.searches,
    ...views.disposables,
    parts.savedFolders,
    ...savedView.disposables,
    newsView,
    checker,
    ...tools.register(),
    ...registerProviders(parts),
    ...registerCommands(
      commandTable(commandServices(context, parts, version)),
      log,
      () => labs.ready,
      {
        nameOf: (origin) =>
          labs.all.find((connection) => connection.lab.url.origin === origin)?.lab.name,
        forgetFailure: (origin) =>
          labs.all
            .filter((connection) => connection.lab.url.origin === origin)
            .forEach((connection) => connection.forgetFailure()),
      },
    ),
  );
  // Said once on opening when a manifest lists files that are not there (one listing per folder, no lab asked).
  void missingFiles.check();
  const activationMs = performance.now() - started;
  log.info(
    'Extension',
    `Lab Data ${version} activated in ${vscode.env.appName} ${vscode.version} in ${activationMs.toFixed(1)} ms.`,
  );
  return createExtensionApi(
    labs,
    views,
    parts.statusBar,
    parts.prompts,
    { ids: parts.ids, deepLinks: parts.deepLinks },
    { news, view: newsView, checker, tools },
    parts.previews,
    parts.overviews,
    parts.authProvider,
    { decorations: parts.decorations, missingFiles },
    activationMs,
    log,
    { provider: savedView.provider },
    { refresh: () => parts.impact.refresh() },
    { receive: (message) => parts.reportCards.receive(message) },
  );
}

/** Every object of the extension, made once in this order, each given what it needs. */
function buildParts(context: vscode.ExtensionContext, log: Logger, version: string) {
  const tokens = new TokenStore(context.secrets, log);
  const registry = new LabRegistry();
  const network = new NetworkSettings(log);
  useTeamCacheServices(context.secrets, network);
  const labs = new Labs(
    registry,
    tokens,
    network,
    log,
    `lab-data-vscode/${version} (VS Code ${vscode.version})`,
  );
  // Tokens are read in the background: activation does not wait for SecretStorage.
  labs.ready = labs.refresh().then(() => signInForDemo(labs, log));
  const news = new NewReports(labs, context.globalState, log);
  const searches = new SavedSearchSettings(log);
  const findings = new SavedReportFindings();
  const savedStates = new SavedReportStates(labs, findings, log);
  const impact = new ImpactState(log);
  const impactDiagnostics = new ImpactDiagnostics(impact);
  const amendmentNotice = new AmendmentNotice(impact, context.workspaceState);
  const decorations = new SavedFileDecorations(labs, savedStates, findings, impact);
  const missingFiles = new MissingFilesNotice(context.workspaceState, log);
  const views = registerViews(labs, news, searches, savedStates, context.workspaceState);
  const savedFolders = new SavedFolderStates(
    labs,
    log,
    mergeDriverOffer(context.workspaceState, log),
  );
  const savedView = registerSavedReportsView(savedFolders);
  const newsView = new NewReportsView(news, views.reportsView);
  const checker = new NewReportsChecker(labs, news, () => views.reports.refresh(), log);
  const tools = new LabTools(labs, log);
  const overviews = new OverviewPanels(context.extensionUri, news, log, views.reports);
  const activity = new Activity();
  const statusBar = new ConnectionStatusBar(labs, news, activity);
  const authProvider = new LabAuthenticationProvider(labs);
  const documents = new MetadataDocumentProvider(labs);
  const connectionReports = new ConnectionReportDocuments();
  const prompts = new PromptsHolder();
  const previews = new PdfPreviewProvider(context.extensionUri, prompts, log, (lab, id) =>
    fetchReportAgain(labs, lab, id),
  );
  const reportTexts = new ReportTextDocuments();
  const ids = new LabIds(labs, log);
  const hovers = new IdHoverProvider(ids);
  const deepLinks = new DeepLinkHandler(labs, ids, documents, log);
  const reportCards = new ReportCardMessages(labs, log);
  return {
    tokens,
    registry,
    network,
    labs,
    news,
    searches,
    findings,
    savedStates,
    impact,
    impactDiagnostics,
    amendmentNotice,
    usedRevisions: new UsedRevisionDocuments(impact),
    impactLenses: new ImpactLenses(impactDiagnostics),
    decorations,
    missingFiles,
    views,
    savedFolders,
    savedView,
    newsView,
    checker,
    tools,
    overviews,
    activity,
    statusBar,
    authProvider,
    documents,
    connectionReports,
    prompts,
    previews,
    reportTexts,
    ids,
    hovers,
    deepLinks,
    reportCards,
    log,
  };
}

type Parts = ReturnType<typeof buildParts>;

/** The editors, documents, hovers, links, decorations and the sign-in the extension gives VS Code. */
function registerProviders(parts: Parts): vscode.Disposable[] {
  const { previews, reportTexts, documents, connectionReports, hovers, findings } = parts;
  // Ids are recognised in any text a person writes: files, unsaved editors and notebook cells.
  const textDocuments: vscode.DocumentSelector = [
    { scheme: 'file' },
    { scheme: 'untitled' },
    { scheme: 'vscode-notebook-cell' },
  ];
  const consumerDocuments: vscode.DocumentSelector = [
    { scheme: 'file' },
    { scheme: 'vscode-notebook-cell' },
  ];
  return [
    previews,
    parts.overviews,
    vscode.window.registerCustomEditorProvider(PDF_PREVIEW_VIEW_TYPE, previews, {
      supportsMultipleEditorsPerDocument: false,
    }),
    reportTexts,
    vscode.workspace.registerTextDocumentContentProvider(REPORT_TEXT_SCHEME, reportTexts),
    parts.activity,
    parts.statusBar,
    parts.authProvider,
    vscode.authentication.registerAuthenticationProvider(
      AUTH_PROVIDER_ID,
      'Lab Data',
      parts.authProvider,
      { supportsMultipleAccounts: true },
    ),
    documents,
    vscode.workspace.registerTextDocumentContentProvider(METADATA_SCHEME, documents),
    connectionReports,
    vscode.workspace.registerTextDocumentContentProvider(
      CONNECTION_REPORT_SCHEME,
      connectionReports,
    ),
    parts.ids,
    hovers,
    vscode.languages.registerHoverProvider(textDocuments, hovers),
    vscode.languages.registerDocumentLinkProvider(textDocuments, hovers),
    vscode.window.registerUriHandler(parts.deepLinks),
    findings,
    parts.savedStates,
    parts.decorations,
    vscode.window.registerFileDecorationProvider(parts.decorations),
    vscode.languages.registerCodeActionsProvider(
      { scheme: 'file', pattern: '**/lab-data-sync.json' },
      findings,
      { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] },
    ),
    vscode.workspace.registerTextDocumentContentProvider(SAVED_METADATA_SCHEME, findings),
    // Uses of reports amended since: Problems, CodeLens, the quick fix, the older revision's side.
    parts.impact,
    parts.impactDiagnostics,
    parts.amendmentNotice,
    parts.impactLenses,
    vscode.languages.registerCodeLensProvider(consumerDocuments, parts.impactLenses),
    vscode.languages.registerCodeActionsProvider(
      consumerDocuments,
      new ImpactActions(parts.impactDiagnostics),
      { providedCodeActionKinds: ImpactActions.kinds },
    ),
    vscode.workspace.registerTextDocumentContentProvider(USED_REVISION_SCHEME, parts.usedRevisions),
    // The `lab-data` tasks: pull, verify, status and impact of each folder with a manifest.
    vscode.tasks.registerTaskProvider(
      TASK_TYPE,
      new LabDataTaskProvider(new FolderTaskRuns(parts.labs, parts.log)),
    ),
    // A report card's "Preview" in a notebook output (the renderer's messages).
    ...parts.reportCards.register(),
  ];
}

/** What the commands are given. */
function commandServices(
  context: vscode.ExtensionContext,
  parts: Parts,
  version: string,
): Parameters<typeof commandTable>[0] {
  return {
    labs: parts.labs,
    network: parts.network,
    connectionReports: parts.connectionReports,
    trees: parts.views,
    documents: parts.documents,
    prompts: parts.prompts,
    log: parts.log,
    findings: parts.findings,
    savedFolders: parts.savedFolders,
    news: parts.news,
    searches: parts.searches,
    previews: parts.previews,
    reportTexts: parts.reportTexts,
    overviews: parts.overviews,
    recent: new RecentReports(context.globalState),
    activity: parts.activity,
    syncFolders: new SyncFolders(context.workspaceState),
    integration: `Lab Data for VS Code ${version} (VS Code ${vscode.version})`,
    usedRevisions: parts.usedRevisions,
    impact: parts.impact,
    extensionUri: context.extensionUri,
  };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
