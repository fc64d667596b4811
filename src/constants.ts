/** Every id the extension shares with package.json, in one place so the two can be checked against each other. */

export const EXTENSION_ID = 'lab-data.lab-data';
export const LOG_CHANNEL_NAME = 'Lab Data';

export const Commands = {
  signIn: 'labData.signIn',
  addLab: 'labData.addLab',
  signOut: 'labData.signOut',
  refresh: 'labData.refresh',
  filterReports: 'labData.filterReports',
  clearReportsFilter: 'labData.clearReportsFilter',
  filterSamples: 'labData.filterSamples',
  clearSamplesFilter: 'labData.clearSamplesFilter',
  openReportMetadata: 'labData.openReportMetadata',
  previewReport: 'labData.previewReport',
  /** The PDF preview's title bar and the palette: the previewed PDF's text as a plain document. */
  showReportText: 'labData.showReportText',
  saveReportPdf: 'labData.saveReportPdf',
  /** The context menu's Save Report PDF with several rows selected: the same command, a title that says so. */
  saveSelectedReportPdfs: 'labData.saveSelectedReportPdfs',
  saveAllReports: 'labData.saveAllReports',
  syncReports: 'labData.syncReports',
  findReport: 'labData.findReport',
  searchReports: 'labData.searchReports',
  listSamples: 'labData.listSamples',
  copySupportReport: 'labData.copySupportReport',
  verifySavedReports: 'labData.verifySavedReports',
  restoreReports: 'labData.restoreReports',
  /** Adds the lab a folder's manifest names (its address shown and confirmed first). */
  addLabFromManifest: 'labData.addLabFromManifest',
  exportList: 'labData.exportList',
  /** A view's toolbar and lab rows: export that view's list (and its filter) without asking which. */
  exportReports: 'labData.exportReports',
  exportClients: 'labData.exportClients',
  exportSamples: 'labData.exportSamples',
  showOverview: 'labData.showOverview',
  /** New reports: everything shown counts as seen. */
  markAllSeen: 'labData.markAllSeen',
  /** Keeps the Reports view's filter in labData.savedSearches. */
  saveFilterAsSearch: 'labData.saveFilterAsSearch',
  /** Rows and hovers: a deep link to a report or sample. */
  copyLink: 'labData.copyLink',
  copyMarkdownLink: 'labData.copyMarkdownLink',
  /** Problems quick actions of a verified folder. */
  redownloadSavedReport: 'labData.redownloadSavedReport',
  compareSavedReport: 'labData.compareSavedReport',
  /** The Saved Reports view's actions (a folder, lab or report row; the view's title for every folder). */
  restoreSavedFolder: 'labData.restoreSavedFolder',
  verifySavedFolder: 'labData.verifySavedFolder',
  checkForAmendments: 'labData.checkForAmendments',
  updateToLabRevision: 'labData.updateToLabRevision',
  revealSavedReport: 'labData.revealSavedReport',
  previewSavedReport: 'labData.previewSavedReport',
  compareWithLab: 'labData.compareWithLab',
  resolveManifest: 'labData.resolveManifest',
  installMergeDriver: 'labData.installMergeDriver',
  pushToTeamCache: 'labData.pushToTeamCache',
  recordUses: 'labData.recordUses',
  openAmendedRevisions: 'labData.openAmendedRevisions',
  refreshSavedReports: 'labData.refreshSavedReports',
  /** Tree-only: copy the id of a row. */
  copyId: 'labData.copyId',
  /** Tree-only: fetch the next page of a list. */
  loadMore: 'labData.loadMore',
  /** Tree-only: try a failed list again. */
  retry: 'labData.retry',
  /** The status bar item's menu. */
  statusMenu: 'labData.statusMenu',
  /** Each step of the way to a lab, timed, as a report; also a button on every network error. */
  checkConnection: 'labData.checkConnection',
  setCacheToken: 'labData.setCacheToken',
  /** The walkthrough's "Use in Python or R": an unsaved script that reads the saved reports. */
  newAnalysisScript: 'labData.newAnalysisScript',
  /** The walkthrough's "Verify in CI": an unsaved workflow running lab-data pull and verify. */
  newCiWorkflow: 'labData.newCiWorkflow',
} as const;

/** The notebook renderer of a report card (package.json `contributes.notebookRenderer`) and the MIME type it draws. */
export const REPORT_CARD_RENDERER_ID = 'lab-data.report-card';
export const REPORT_CARD_MIME = 'application/vnd.labdata.report+json';

/** Scheme of the previewed PDFs' texts (`labdata-text:/RPT-2024-00001 (text).txt`). */
/** The task type of package.json's `taskDefinitions`, and the source Run Task shows (`lab-data: verify`). */
export const TASK_TYPE = 'lab-data';
/** package.json's `problemMatchers` entry the `lab-data` tasks use: a verify finding on its manifest line. */
export const PROBLEM_MATCHER = '$lab-data';

export const REPORT_TEXT_SCHEME = 'labdata-text';

/** Scheme of Check Connection's read-only reports (`labdata-connection:/Check Connection 1.txt`). */
/** The language of Check Connection's reports (package.json: wrapped by default). */
export const CONNECTION_REPORT_LANGUAGE = 'lab-data-connection-report';
export const CONNECTION_REPORT_SCHEME = 'labdata-connection';

export const Views = {
  container: 'labData',
  reports: 'labData.reports',
  clients: 'labData.clients',
  samples: 'labData.samples',
  /** Each manifest of the workspace, by lab, with each report's state. */
  savedReports: 'labData.savedReports',
} as const;

export const ContextKeys = {
  signedIn: 'labData.signedIn',
  hasBaseUrl: 'labData.hasBaseUrl',
  /** More than one lab is defined: views list labs at the top. */
  severalLabs: 'labData.severalLabs',
  reportsFiltered: 'labData.reportsFiltered',
  samplesFiltered: 'labData.samplesFiltered',
  /** Some lab has reports published since the user last looked. */
  hasNewReports: 'labData.hasNewReports',
} as const;

/** Language-model tools (package.json `languageModelTools`). */
export const Tools = {
  searchReports: 'labData_searchReports',
  getReport: 'labData_getReport',
  listSamples: 'labData_listSamples',
  saveReportPdf: 'labData_saveReportPdf',
} as const;

export const SETTINGS_SECTION = 'labData';
export const Settings = {
  baseUrl: 'baseUrl',
  labName: 'labName',
  labs: 'labs',
  caCertificates: 'caCertificates',
  network: 'network',
  pageSize: 'pageSize',
  downloadFolder: 'downloadFolder',
  fileNameTemplate: 'fileNameTemplate',
  maxConcurrentRequests: 'maxConcurrentRequests',
  cacheFolder: 'cacheFolder',
  maxFileSizeMiB: 'maxFileSizeMiB',
  idPatterns: 'idPatterns',
  savedSearches: 'savedSearches',
  checkForNewReportsMinutes: 'checkForNewReportsMinutes',
  overviewMaxReports: 'overviewMaxReports',
  /** A repository's lab (a manifest's origin) → the lab of this machine that serves it. */
  manifestLabs: 'manifestLabs',
} as const;

/** VS Code's own network settings the extension honours for its bundled HTTP client. */
export const HTTP_SETTINGS_SECTION = 'http';

export const SECRET_KEY_PREFIX = 'labData.token:';

/**
 * SecretStorage key of one lab's token. It names the origin, so a token is only ever sent to the
 * origin it was saved for, and the lab, so two labs on one origin (two tenants or scopes) keep two
 * tokens. A lab named after its host (the `labData.baseUrl` shorthand) keeps 0.1.0's key.
 */
export function tokenSecretKey(origin: string, labName: string, host: string): string {
  return labName === host
    ? `${SECRET_KEY_PREFIX}${origin}`
    : `${SECRET_KEY_PREFIX}${origin}#${encodeURIComponent(labName)}`;
}
