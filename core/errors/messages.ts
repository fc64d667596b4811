import { LabApiError, type LabApiErrorDetails, type LabErrorCode } from './errors';

/**
 * Every sentence the core puts in front of a person, in English, with `{name}` placeholders. The
 * core never translates: each error carries its message id and arguments, and the VS Code layer
 * phrases them through `vscode.l10n.t(MESSAGES[id], args)` (the strings are in the l10n bundle).
 */
export const MESSAGES = {
  // Addresses and lab definitions
  baseUrlEmpty: 'Enter the address of your lab, for example https://lab.example.com.',
  baseUrlNotUrl: '"{text}" is not a web address; enter one like https://lab.example.com.',
  baseUrlScheme: 'The lab address must start with https:// (got {scheme}).',
  baseUrlInsecure:
    'The lab address must use https:// so the access token is never sent unencrypted (plain http is allowed only for this machine).',
  baseUrlCredentials:
    'The lab address must not contain a user name or password; the access token is entered separately.',
  baseUrlQuery: 'The lab address must not contain a query (?…) or fragment (#…).',
  labInvalid: 'The lab "{name}" is set up wrongly in labData.labs: {problems}.',
  labUnknown: 'There is no lab named "{name}"; add it to labData.labs or sign in to it first.',
  labBaseUrlMismatch: 'The lab "{name}" is defined with the address {defined}, not {given}.',
  endpointPlaceholder: 'The {endpoint} endpoint needs a value for its {placeholder} placeholder.',
  // Query values
  dateInvalid: 'The {name} is not a valid date.',
  dateNotIso:
    'The {name} "{text}" is not an ISO 8601 date such as 2024-05-01 or 2024-05-01T08:00:00Z.',
  dateNoZone:
    'The {name} "{text}" has a time but no time zone; add Z for UTC or an offset such as +02:00.',
  dateNotReal: 'The {name} "{text}" is not a real date or time.',
  numberRange: 'The {name} must be a whole number from 1 to {max}.',
  filterLength: 'The {name} filter must be between 1 and 200 characters.',
  idInvalid: '"{text}" is not a valid {what} id.',
  sinceNotRelative:
    'The {name} "{text}" is neither a date nor a relative time such as today, -24h, -7d, -2w, -1m or -1y.',
  savedSearchInvalid: 'The saved search "{name}" in labData.savedSearches cannot be used: {why}.',
  // HTTP
  badRequest: 'The lab rejected the request as invalid; check the filter, date or page values.',
  unauthorized: 'The lab at {origin} did not accept the access token; sign in again.',
  noToken: 'No access token may be sent to the lab at {origin}; nothing was requested from it.',
  unauthorizedElsewhere:
    'A server at {origin}, which is not the lab, refused the request (HTTP {status}); your sign-in to the lab is kept.',
  unauthorizedProxy:
    'A proxy between you and the lab refused the request (HTTP {status}); your sign-in to the lab is kept. Check http.proxy and http.proxyAuthorization.',
  forbidden: 'This is outside the scope your access token was provisioned for.',
  notFound: 'Not found, or not available within your access scope.',
  rateLimited: 'The lab is limiting requests; try again later.',
  rateLimitedUntil:
    'The lab at {origin} is limiting requests and asks to wait {wait} (Retry-After); not waited: try again after {time}.',
  unavailableUntil:
    'The lab at {origin} is unavailable and asks to wait {wait} (Retry-After); not waited: try again after {time}.',
  serverFailed:
    "The lab's server failed (HTTP {status}); try again later, and contact support if it keeps happening.",
  unexpectedStatus: 'The lab answered with an unexpected HTTP status {status}.',
  redirectInsecure: 'The lab redirected to an address that is not https; the request was stopped.',
  redirectTooMany: 'The lab redirected too many times.',
  notJson: 'The lab answered with {type} instead of JSON; a proxy or login page may be in the way.',
  badJson: 'The lab sent a response that is not valid JSON.',
  unknownEncoding:
    'The lab sent its answer encoded as "{encoding}", which this extension cannot decode.',
  jsonTooLarge:
    "The lab's response is larger than {mib} MiB, the most this extension reads as JSON.",
  cancelled: 'The request was cancelled.',
  timeout: 'The lab at {origin} timed out while {what}.',
  hostNotFound: 'Cannot reach the lab at {origin}: its host name could not be found.',
  unreachable: 'Cannot reach the lab at {origin} ({reason}).',
  labOutageStatus:
    'The lab at {origin} answered {answer} to the last {count} requests; the remaining files and pages were not requested. Try again later.',
  labOutageNetwork:
    'The lab at {origin} failed the last {count} requests ({answer}); the remaining files and pages were not requested. Try again later.',
  labOutageBudget: '{reason} The remaining files and pages were not requested.',
  // A run's budget for a lab failing as a whole (LabOutage's budgetMs)
  silentFor: 'The lab at {origin} accepted the connection and sent nothing for {seconds} s.',
  // The answer timeout over a body (watchedBody): what the lab did after its headers
  bodyHeadersOnly: 'The lab at {origin} sent its headers, then nothing for {seconds} s.',
  bodyStopped: 'The lab at {origin} sent part of its answer, then nothing for {seconds} s.',
  bodyTooSlow: 'The lab at {origin} sent its answer too slowly: {bytes} bytes in {seconds} s.',
  waitOverBudget:
    'The lab at {origin} asked to wait {wait} (Retry-After), longer than the {budget} s budget; not waited: try again after {time}.',
  waitOverBudgetLeft:
    'The lab at {origin} asked to wait {wait} (Retry-After), longer than the {left} s left of the {budget} s budget; not waited: try again after {time}.',
  // Certificates
  certSelfSigned:
    'Cannot reach the lab at {origin}: its certificate is self-signed and not trusted. Add the certificate of the authority that issued it to the labData.caCertificates setting.',
  certUnknownIssuer:
    'Cannot reach the lab at {origin}: its certificate was issued by an authority this machine does not trust (a private CA, or a proxy that inspects TLS). Add that authority’s certificate (PEM) to the operating system’s trust store or to the labData.caCertificates setting.',
  certUnknownRoot:
    'Cannot reach the lab at {origin}: its certificate chain ends in a root this machine does not trust. That is often a proxy that inspects TLS: ask IT for its root certificate and add it to the operating system’s trust store (VS Code and Lab Data read it) or to the labData.caCertificates setting.',
  certExpired:
    'Cannot reach the lab at {origin}: its certificate has expired or is not valid yet. Ask the lab to renew it; Lab Data never switches verification off.',
  certWrongHost:
    'Cannot reach the lab at {origin}: its certificate is for another host name. Check the lab address in your settings.',
  certOther:
    'Cannot reach the lab at {origin}: its certificate is not trusted ({code}). If your organisation uses a private certificate authority, add it to the labData.caCertificates setting.',
  caFileUnreadable:
    'The certificate file {file} in labData.caCertificates could not be read ({reason}).',
  caFileNoPem:
    'The file {file} in labData.caCertificates holds no PEM certificate (-----BEGIN CERTIFICATE-----).',
  // Proxies
  proxyAuth:
    'The proxy at {proxy} (from {proxySource}) asks for credentials (HTTP {status}); set http.proxyAuthorization in your user settings, or write them into the proxy address (user:password@ before its host).',
  proxyAuthRejected:
    'The proxy at {proxy} (from {proxySource}) rejected the credentials in http.proxyAuthorization (HTTP {status}); correct that setting in your user settings.',
  proxyUrlAuthRejected:
    'The proxy at {proxy} rejected the user name and password in its address in {proxySource} (HTTP {status}); correct them there.',
  proxyRefused:
    'The proxy at {proxy} (from {proxySource}) refused to connect to {origin} (HTTP {status}); ask your network administrators to allow the lab, or add it to http.noProxy.',
  proxyUnreachable: 'Cannot reach the proxy at {proxy} ({reason}); check {proxySource}.',
  proxyInvalid: 'The proxy address "{proxy}" is not usable: {reason}.',
  // Responses and files
  listUnknownShape: "The lab's list of {resource} is not in a form this extension understands.",
  listNoRecords: "The lab's list of {resource} holds no list of records.",
  recordNoId: "The lab's answer for this {what} has no {what} id.",
  notPdfType:
    'The lab answered with {type} instead of a PDF; a proxy or login page may be in the way. Nothing was saved.',
  notPdf: 'The lab sent something that is not a PDF file; nothing was saved.',
  fileTooLarge: 'The report file is larger than the {mib} MiB limit.',
  transferBroken: 'The connection to the lab broke off during the download; nothing was saved.',
  fileTooLargeGeneric: 'The file is larger than the {mib} MiB limit.',
  transferShort: 'The transfer ended early: received {received} of {expected} bytes.',
  transferLonger:
    'The file is longer than the {expected} bytes it should have; it was not read further, and nothing was saved.',
  sizeNotRecorded:
    'The file is {declared} bytes, not the {expected} bytes recorded for it; it was not read, and nothing was saved.',
  writeFailed: 'Could not write to {folder}: {reason}.',
  writeDiskFull: 'The disk is full: nothing could be saved in {folder}.',
  writeQuota: 'Your disk quota is used up: nothing could be saved in {folder}.',
  writeFileTooBig:
    'The file is larger than this system lets a file grow (a file size limit): it was not saved in {folder}.',
  writeNoPermission: 'No permission to write in {folder}.',
  writeReadOnly: 'The disk holding {folder} is read-only.',
  writeNotAFolder: 'A file stands where a folder should be in {folder}.',
  writeOutsideRoot: 'Refusing to write to {folder}: it resolves outside {root}.',
  writeBadName: 'Refusing the file name "{name}".',
  writeInTheWay: 'Refusing to write {name}: a link or folder of that name is in the way.',
  writeExists: '{name} already exists in {folder}.',
  fileChangedAtLab:
    'The lab now sends a different file for {id} than the one its folder recorded; nothing was written.',
  serverReason: 'The lab said: “{reason}”',
  // The folder's manifest (lab-data-sync.json)
  manifestConflict:
    'The manifest {file} still holds git conflict markers (<<<<<<<). Run lab-data merge-manifest --resolve {folder} to merge both sides entry by entry (or install the merge driver with lab-data merge-manifest --install); nothing was written.',
  manifestUnmerged:
    'git left the manifest {file} unmerged: a merge did not finish (its merge driver may not have run), and the file may hold only one side. Run lab-data merge-manifest --resolve {folder} to merge both sides entry by entry, then git add {file}; nothing was written.',
  manifestLostMerge:
    "The merge {commit} left {count} report(s) out of the manifest {file} that its parents record ({ids}): git kept one side without conflict markers (its merge driver did not run), and the merge was committed so. Run lab-data merge-manifest --resolve {folder} to rebuild it from the merge's parents, then commit it.",
  manifestNewer:
    'The manifest {file} has version {version}, which is newer than this version of Lab Data reads (versions 1 to 3); update Lab Data or lab-data. Nothing was written.',
  manifestUnreadable: 'The manifest {file} cannot be read: {reason}. Nothing was written.',
  cacheCorrupt: 'The cached copy of {sha256} does not match its SHA-256.',
  localFolderNotOwn:
    '{folder} is a link, not a folder: this machine’s state is never written where a link (which a repository can commit) points. Remove the link (git rm it, if it is committed) and run this again; nothing was written there.',
  cacheServerUnwritable: 'The team cache {address} cannot be written: {reason}.',
  // Signing in
  labNameTaken: 'There is already a lab named {name}; choose another name.',
  labAddressTaken:
    'The lab {name} already has this address and these paths; sign in to it instead (a second tenant on one address has its own base path or paths).',
  tokenRejectedKept:
    'That token was rejected ({reason}). You are still signed in to {name} with your previous token.',
  tokenRejected:
    'That token was rejected ({reason}); nothing was stored. Check the token and sign in again.',
} as const;

export type MessageId = keyof typeof MESSAGES;
export type MessageArgs = Readonly<Record<string, string | number>>;

/** Fills a message template's `{name}` placeholders (the English text the core keeps in `message`). */
export function formatMessage(id: MessageId, args: MessageArgs = {}): string {
  return MESSAGES[id].replace(/\{(\w+)\}/g, (match, name: string) =>
    name in args ? String(args[name]) : match,
  );
}

/** A {@link LabApiError} whose sentence comes from the catalogue, so the VS Code layer can translate it. */
export function labError(
  code: LabErrorCode,
  id: MessageId,
  args: MessageArgs = {},
  details: LabApiErrorDetails = {},
): LabApiError {
  const sentence = formatMessage(id, args);
  return new LabApiError(
    code,
    details.reason
      ? `${sentence} ${formatMessage('serverReason', { reason: details.reason })}`
      : sentence,
    { ...details, text: { id, args } },
  );
}

/** The error a cancelled request or write ends with. */
export function cancelledError(path?: string): LabApiError {
  return labError('cancelled', 'cancelled', {}, { path });
}
