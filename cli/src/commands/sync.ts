import * as path from 'node:path';
import type { ListQuery } from '../../../core/api/query';
import type { Report } from '../../../core/api/records';
import { readManifest } from '../../../core/sync/manifest';
import { listAllReports, syncFolder } from '../../../core/sync/folderSync';
import { planFolderSync, type PlannedKind, type SyncDryRun } from '../../../core/sync/syncDryRun';
import { saveReports } from '../../../core/sync/bulkSave';
import { DEFAULT_FILE_NAME_TEMPLATE, laterTimestamp } from '../../../core/sync/reportFiles';
import type { CliContext } from '../context';
import type { LabApi } from '../../../core/api/labApi';
import { CliError, Exit, exitCodeOf, worst, type ExitCode } from '../exitCodes';
import { formatBytes } from '../../../core/files/sizes';
import { out } from '../output';
import { folderArgument } from './folder';
import { listFilters } from './list';
import { errorText } from '../../../core/errors/errorText';
import { serverText } from '../../../core/errors/serverText';
import { labNameProblem, ownLabName } from '../../../core/api/labDefinition';
import type { SyncManifest } from '../../../core/sync/manifestModel';
import { variableFor } from '../tokens';

/**
 * `lab-data sync [FOLDER] --lab URL`: the extension's sync (core: syncFolder) from a terminal.
 * The manifest section is the one of the lab's origin when the folder has one (whatever the
 * extension named it), so both work on one folder; a new one is named as the extension names the
 * lab: by the name the lab gives itself ({@link nameForNewSection}).
 */
export async function sync(context: CliContext): Promise<ExitCode> {
  const folder = folderArgument(context);
  const baseUrl = context.labUrl();
  const origin = new URL(baseUrl).origin;
  const { query, type } = listFilters(context, 'reports');
  const api = await syncApi(context, baseUrl, await readManifest(folder));
  const name = api.lab.name;
  const filtered =
    query.clientId !== undefined ||
    query.projectId !== undefined ||
    query.status !== undefined ||
    type !== undefined;
  const started = Date.now();
  const target = {
    folder,
    template: context.text('template') ?? DEFAULT_FILE_NAME_TEMPLATE,
    rehash: context.flag('rehash'),
  };
  const list = reportLister(context, api, query, type);
  if (context.flag('dry-run')) {
    // Nothing is written, so no lock is needed and the folder need not exist.
    const plan = await planFolderSync(api, target, { filtered, list, signal: context.signal });
    context.progress.clear();
    // It exits as the real run would: 1 when a locally changed file would be kept.
    const exitCode = plan.files.some(
      (file) => file.kind === 'changedLocally' || file.kind === 'ask',
    )
      ? Exit.mismatch
      : Exit.ok;
    await printDryRun(context, plan, { folder, name, origin }, exitCode);
    return exitCode;
  }
  const result = await context.withFolderLock(folder, () =>
    syncFolder(api, target, {
      filtered,
      list,
      save: (reports, decide) =>
        saveReports(reports, {
          api,
          target,
          signal: context.signal,
          concurrency: api.concurrency,
          cache: context.cache(),
          decide,
          // Nobody to ask on a terminal run by a script: a file that must be asked about is kept.
          ask: () => Promise.resolve({ choice: 'skip', forAll: true }),
          warn: (message) => context.progress.problem(message),
          onProgress: ({ done, total, bytes }) =>
            context.progress.update(`sync: ${done}/${total} files, ${formatBytes(bytes)}`),
        }),
    }),
  );
  context.progress.clear();
  const { run } = result;
  if (run.cancelled) {
    throw new CliError('Cancelled; no partial file was left.', Exit.mismatch);
  }
  const codes: ExitCode[] = run.failed.map((failure) => exitCodeOf(failure.error));
  const exitCode = worst([
    ...codes,
    run.skipped.some((skip) => /changed locally|already exists/.test(skip.reason))
      ? Exit.mismatch
      : Exit.ok,
  ]);
  await printSync(context, result, { folder, name, origin, started }, exitCode);
  return exitCode;
}

/**
 * The lab's client under its section's name when the folder has a section of its origin; a new
 * section's token is the one given for the address (LAB_DATA_TOKEN_<HOST>, LAB_DATA_TOKEN), never
 * one the name the lab gives itself would pick.
 */
async function syncApi(
  context: CliContext,
  baseUrl: string,
  manifest: SyncManifest,
): Promise<LabApi> {
  const origin = new URL(baseUrl).origin;
  const known = Object.entries(manifest.labs).find(([, section]) => section.origin === origin)?.[0];
  return known !== undefined
    ? context.api(known, baseUrl)
    : context.api(
        await nameForNewSection(context, baseUrl, manifest),
        baseUrl,
        false,
        new URL(baseUrl).host,
      );
}

/** Lists the lab's reports since the folder's watermark (or the later `--since`), of `--type` when given. */
function reportLister(
  context: CliContext,
  api: LabApi,
  query: ListQuery,
  type: string | undefined,
): (watermarkQuery: ListQuery) => Promise<Report[]> {
  return async (watermarkQuery) => {
    const publishedSince = laterTimestamp(
      watermarkQuery.publishedSince as string | undefined,
      query.publishedSince as string | undefined,
    );
    const reports = await listAllReports(
      api,
      { ...query, ...(publishedSince ? { publishedSince } : {}) },
      {
        signal: context.signal,
        onPage: (listed, total) =>
          context.progress.update(`sync: listed ${listed}${total ? ` of ${total}` : ''} reports`),
      },
    );
    return type === undefined
      ? reports
      : reports.filter((report: Report) => report.report_type === type);
  };
}

/** What a sync did: one JSON object with `--json`, else a line per failure and kept file, then the summary. */
async function printSync(
  context: CliContext,
  result: Awaited<ReturnType<typeof syncFolder>>,
  where: {
    readonly folder: string;
    readonly name: string;
    readonly origin: string;
    readonly started: number;
  },
  exitCode: ExitCode,
): Promise<void> {
  const { run } = result;
  const { folder, name } = where;
  if (context.flag('json')) {
    await out(
      `${JSON.stringify(
        {
          folder,
          lab: name,
          origin: where.origin,
          since: result.since,
          listed: result.listed.length,
          saved: run.saved.map((saved) => ({
            report_id: saved.report.report_id,
            file: path.relative(folder, saved.file.path).split(path.sep).join('/'),
            bytes: saved.file.bytes,
            sha256: saved.file.sha256,
          })),
          skipped: run.skipped.map((skip) => ({ report_id: skip.reportId, reason: skip.reason })),
          failed: run.failed.map((failure) => ({
            report_id: failure.reportId,
            error: errorText(failure.error),
          })),
          bytes: run.bytes,
          watermark: result.watermark,
          manifest_written: result.manifestWritten,
          files: result.files,
          exit_code: exitCode,
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  run.failed.forEach((failure) =>
    context.progress.problem(`failed  ${failure.reportId}: ${errorText(failure.error)}`),
  );
  run.skipped
    .filter((skip) => !skip.upToDate)
    .forEach((skip) => context.progress.line(`skipped ${skip.reportId}: ${skip.reason}`));
  context.progress.line(
    `Synced ${name} into ${folder}: ${result.listed.length} listed${result.since ? ` since ${result.since}` : ''}, ${run.saved.length} saved (${formatBytes(run.bytes)}), ${run.skipped.length} skipped, ${run.failed.length} failed; ${result.files} files recorded; ${((Date.now() - where.started) / 1000).toFixed(1)} s.`,
  );
}

/** What the dry run tells apart, in the order it is printed, and its words. */
const KINDS: ReadonlyArray<readonly [PlannedKind, string]> = [
  ['new', 'new'],
  ['amended', 'amended at the lab'],
  ['upToDate', 'up to date'],
  ['changedLocally', 'changed locally (kept)'],
  ['ask', 'changed locally or not saved by lab-data (kept; nobody to ask)'],
  ['noFile', 'without a file'],
];

/** `sync --dry-run`: counts per kind and the bytes the real sync would download; nothing was written. */
async function printDryRun(
  context: CliContext,
  plan: SyncDryRun,
  where: { readonly folder: string; readonly name: string; readonly origin: string },
  exitCode: ExitCode,
): Promise<void> {
  const count = (kind: PlannedKind): number =>
    plan.files.filter((file) => file.kind === kind).length;
  if (context.flag('json')) {
    await out(
      `${JSON.stringify(
        {
          folder: where.folder,
          lab: where.name,
          origin: where.origin,
          dry_run: true,
          since: plan.since,
          listed: plan.listed.length,
          counts: Object.fromEntries(KINDS.map(([kind]) => [kind, count(kind)])),
          files: plan.files.map((file) => ({
            report_id: file.reportId,
            file: file.fileName,
            kind: file.kind,
            bytes: file.bytes,
          })),
          downloads: plan.downloads,
          bytes: plan.bytes,
          size_unknown: plan.sizeUnknown,
          exit_code: exitCode,
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  plan.files
    .filter((file) => file.kind === 'new' || file.kind === 'amended')
    .forEach((file) =>
      context.progress.line(
        serverText(
          `would download ${file.reportId} ${file.fileName} (${file.bytes === undefined ? 'size unknown' : formatBytes(file.bytes)}${file.kind === 'amended' ? ', amended at the lab' : ''})`,
          1000,
        ),
      ),
    );
  const parts = KINDS.filter(([kind]) => count(kind) > 0).map(
    ([kind, words]) => `${count(kind)} ${words}`,
  );
  const unknown = plan.sizeUnknown > 0 ? `; ${plan.sizeUnknown} of size unknown` : '';
  context.progress.line(
    `Would sync ${where.name} into ${where.folder}: ${plan.listed.length} listed${plan.since ? ` since ${plan.since}` : ''}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}; would download ${plan.downloads} file${plan.downloads === 1 ? '' : 's'} (${formatBytes(plan.bytes)}, ${plan.bytes} bytes${unknown}); nothing was written.`,
  );
}

/**
 * The name of a lab the folder's manifest does not know yet: the name it gives itself in its records
 * (`lab_name`; one request for one report), else its host (its origin when a section of another
 * origin has that name). A name another lab's section already has in this folder gets the host
 * beside it, so neither section replaces the other. A name with a token variable of its own
 * (`LAB_DATA_TOKEN_<NAME>`) is taken only when `LAB_DATA_URL_<NAME>` gives this very address: later
 * runs pick a section's token by its name, and a lab must not name itself into another lab's token.
 */
async function nameForNewSection(
  context: CliContext,
  baseUrl: string,
  manifest: SyncManifest,
): Promise<string> {
  const { host, origin } = new URL(baseUrl);
  const taken = Object.keys(manifest.labs);
  const byAddress = taken.includes(host) ? origin : host;
  const page = await context.api(host, baseUrl).listReports({ pageSize: 1 }, context.signal);
  const own = ownLabName(page.items[0]?.raw.lab_name);
  if (own === undefined) {
    return byAddress;
  }
  const name = taken.includes(own) ? `${own} (${host})` : own;
  if (labNameProblem(name) !== undefined || taken.includes(name)) {
    return byAddress;
  }
  if (context.refusesOwnToken(name, origin)) {
    context.verbose(
      `[sync] the lab calls itself "${name}", but ${variableFor('LAB_DATA_TOKEN', name)} is set and ${variableFor('LAB_DATA_URL', name)} does not give ${origin}: its section is named after its address`,
    );
    return byAddress;
  }
  return name;
}
