import { Readable } from 'node:stream';
import * as path from 'node:path';
import { serverText } from '../../../core/errors/serverText';
import { writeFileSafely } from '../../../core/files/safeWriter';
import { readLocalState } from '../../../core/sync/localState';
import type { SyncManifest } from '../../../core/sync/manifest';
import { folderStatus } from '../../../core/sync/status';
import {
  affectedConsumers,
  currentUses,
  impactOf,
  type AffectedUse,
  type LabRevision,
} from '../../../core/uses/uses';
import { USES_FILE_NAME, UsesRecordError, usesText } from '../../../core/uses/usesRecord';
import type { CliContext } from '../context';
import { CliError, Exit, exitCodeOf, worst, type ExitCode } from '../exitCodes';
import { out, table } from '../output';
import { folderArgument, readManifestOrFail } from './folder';

/** The core's uses, a record that cannot be read turned into a usage error. */
async function usesOf(
  folder: string,
  manifest: SyncManifest,
  acknowledgeNamed: boolean,
): Promise<Awaited<ReturnType<typeof currentUses>>> {
  try {
    return await currentUses(folder, manifest, { acknowledgeNamed });
  } catch (error) {
    if (error instanceof UsesRecordError) {
      throw new CliError(`${path.join(folder, USES_FILE_NAME)}: ${error.message}`, Exit.usage);
    }
    throw error;
  }
}

/** `lab-data uses [FOLDER] [--record]`: the uses as they stand; --record commits them to lab-data-uses.json. */
export async function uses(context: CliContext): Promise<ExitCode> {
  const folder = folderArgument(context);
  const manifest = await readManifestOrFail(folder);
  const found = await usesOf(folder, manifest, true);
  if (found.skippedReads > 0) {
    context.progress.problem(
      `${found.skippedReads} line(s) of .lab-data/reads.jsonl could not be read and were left out.`,
    );
  }
  if (context.flag('record')) {
    await writeFileSafely({
      folder,
      fileName: USES_FILE_NAME,
      source: Readable.from([Buffer.from(usesText(found.record))]),
      ifExists: 'overwrite',
    });
  }
  const consumers = new Set(found.record.uses.map((use) => use.consumer));
  if (context.flag('json')) {
    await out(
      `${JSON.stringify(
        {
          folder,
          root: found.root,
          recorded: context.flag('record'),
          uses: found.record.uses.map((use) => ({
            consumer: use.consumer,
            lab: use.lab,
            id: use.id,
            revision: use.revision ?? null,
            sha256: use.sha256,
            how: use.how,
          })),
        },
        null,
        2,
      )}\n`,
    );
    return Exit.ok;
  }
  const rows = found.record.uses.map((use) => [use.consumer, use.id, use.revision ?? '-', use.how]);
  await out(
    `${rows.length > 0 ? `${table(['consumer', 'report', 'revision', 'how'], rows)}\n` : ''}${found.record.uses.length} use(s) of reports by ${consumers.size} script(s), notebook(s) or document(s) (${found.scannedFiles} file(s) scanned)${context.flag('record') ? `; recorded in ${path.join(folder, USES_FILE_NAME)}` : ''}.\n`,
  );
  return Exit.ok;
}

/** With --remote: each lab's newest revision of the recorded reports, through status's own listing. */
async function labRevisions(
  context: CliContext,
  folder: string,
  manifest: SyncManifest,
): Promise<{
  readonly atLab: (origin: string, id: string) => LabRevision | undefined;
  readonly codes: ExitCode[];
}> {
  const several = Object.keys(manifest.labs).length > 1;
  const problems: CliError[] = [];
  const state = await readLocalState(folder);
  const result = await folderStatus(folder, manifest, {
    cache: context.cache(),
    signal: context.signal,
    synced: (lab) => typeof state.labs[manifest.labs[lab]!.origin]?.watermark === 'string',
    apiFor: (lab, origin) => {
      const problem = context.manifestLabProblem(lab, origin, several);
      if (problem) {
        problems.push(problem);
        return undefined;
      }
      return context.manifestLabApi(lab, origin);
    },
  });
  problems.forEach((problem) => context.progress.problem(problem.message));
  for (const lab of result.unavailable) {
    context.progress.problem(
      serverText(`The lab ${lab.lab} could not be asked: ${lab.reason}`, 1000),
    );
  }
  const newest = new Map<string, LabRevision>();
  for (const entry of result.entries) {
    if (entry.labRevision !== undefined) {
      newest.set(`${entry.origin}\u0000${entry.reportId}`, { revision: entry.labRevision });
    }
  }
  return {
    atLab: (origin, id) => newest.get(`${origin}\u0000${id}`),
    codes: [
      ...problems.map((problem) => problem.exitCode),
      ...result.unavailable.map((lab) =>
        lab.error !== undefined ? exitCodeOf(lab.error) : Exit.network,
      ),
    ],
  };
}

function sentence(each: AffectedUse): string {
  return `${each.use.consumer} used ${each.use.id} revision ${each.use.revision ?? 'unknown'}; now ${each.currentRevision ?? 'unknown'}${each.currentRevision === each.use.revision ? ' (another file)' : ''}`;
}

/**
 * `lab-data impact [ID…]`: the consumers that used another revision (or file) of a report than
 * the one the manifest records (or, with --remote, the lab's newest). Exit 1 when any is affected.
 */
export async function impact(context: CliContext): Promise<ExitCode> {
  const folder = path.resolve(context.text('folder') ?? 'lab-reports');
  const manifest = await readManifestOrFail(folder);
  const ids = context.command.positionals;
  const found = await usesOf(folder, manifest, false);
  const remote = context.flag('remote') ? await labRevisions(context, folder, manifest) : undefined;
  const affected = impactOf(found.record, manifest, {
    ids,
    ...(remote ? { atLab: remote.atLab } : {}),
  });
  const consumers = affectedConsumers(affected);
  const exitCode = worst([affected.length > 0 ? Exit.mismatch : Exit.ok, ...(remote?.codes ?? [])]);
  if (context.flag('json')) {
    await out(
      `${JSON.stringify(
        {
          folder,
          remote: remote !== undefined,
          affected: affected.map((each) => ({
            consumer: each.use.consumer,
            lab: each.use.lab,
            id: each.use.id,
            used_revision: each.use.revision ?? null,
            used_sha256: each.use.sha256,
            revision: each.currentRevision ?? null,
            published_at: each.publishedAt ?? null,
            how: each.use.how,
          })),
          consumers,
          exit_code: exitCode,
        },
        null,
        2,
      )}\n`,
    );
    return exitCode;
  }
  if (context.flag('quiet')) {
    if (affected.length > 0) {
      await out(`${affected.map((each) => serverText(sentence(each), 1000)).join('\n')}\n`);
    }
    return exitCode;
  }
  if (affected.length === 0) {
    await out(
      `${folder}: no script, notebook or document used another revision than ${remote ? "the labs' newest" : 'the one recorded'} (${found.record.uses.length} use(s) known).\n`,
    );
    return exitCode;
  }
  const rows = affected.map((each) => [
    each.use.consumer,
    each.use.id,
    each.use.revision ?? '-',
    each.currentRevision ?? '-',
    each.use.how,
  ]);
  await out(
    `${table(['consumer', 'report', 'used', remote ? 'at the lab' : 'recorded', 'how'], rows)}\n${consumers.length} script(s), notebook(s) or document(s) used another revision than ${remote ? "the labs' newest" : 'the one recorded'}: run them again, then lab-data uses --record.\n`,
  );
  return exitCode;
}
