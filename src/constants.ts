/** Every id the extension shares with package.json, in one place so the two can be checked against each other. */

export const EXTENSION_ID = 'lab-data.lab-data';
export const LOG_CHANNEL_NAME = 'Lab Data';

export const Commands = {
  signIn: 'labData.signIn',
  signOut: 'labData.signOut',
  refresh: 'labData.refresh',
  filterReports: 'labData.filterReports',
  clearReportsFilter: 'labData.clearReportsFilter',
  filterSamples: 'labData.filterSamples',
  clearSamplesFilter: 'labData.clearSamplesFilter',
  openReportMetadata: 'labData.openReportMetadata',
  saveReportPdf: 'labData.saveReportPdf',
  saveAllReports: 'labData.saveAllReports',
  syncReports: 'labData.syncReports',
  findReport: 'labData.findReport',
  searchReports: 'labData.searchReports',
  listSamples: 'labData.listSamples',
  copySupportReport: 'labData.copySupportReport',
  /** Tree-only: copy the id of a row. */
  copyId: 'labData.copyId',
  /** Tree-only: fetch the next page of a list. */
  loadMore: 'labData.loadMore',
  /** Tree-only: try a failed list again. */
  retry: 'labData.retry',
} as const;

export const Views = {
  container: 'labData',
  reports: 'labData.reports',
  clients: 'labData.clients',
  samples: 'labData.samples',
} as const;

export const ContextKeys = {
  signedIn: 'labData.signedIn',
  hasBaseUrl: 'labData.hasBaseUrl',
  reportsFiltered: 'labData.reportsFiltered',
  samplesFiltered: 'labData.samplesFiltered',
} as const;

export const SETTINGS_SECTION = 'labData';
export const Settings = {
  baseUrl: 'baseUrl',
  pageSize: 'pageSize',
  downloadFolder: 'downloadFolder',
  fileNameTemplate: 'fileNameTemplate',
  maxConcurrentRequests: 'maxConcurrentRequests',
} as const;

/** SecretStorage key of the token for one origin: a token is only ever sent to the origin it was saved for. */
export function tokenSecretKey(origin: string): string {
  return `labData.token:${origin}`;
}
