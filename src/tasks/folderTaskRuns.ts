import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Exit, exitCodeOfFailure, worst, type ExitCode } from '../../core/errors/exitCodes';
import { errorText } from '../../core/errors/errorText';
import { serverText } from '../../core/errors/serverText';
import {
  lineOfReport,
  MANIFEST_FILE_NAME,
  readManifestStrictly,
  type SyncManifest,
} from '../../core/sync/manifest';
import { manifestProblemText } from '../../core/sync/manifestProblems';
import { verifiedState, verifyFolder, type VerifiedFile } from '../../core/sync/provenance';
import { pullFolder, type PulledFile } from '../../core/sync/pull';
import { folderStatus, type EntryStatus } from '../../core/sync/status';
import { affectedConsumers, currentUses, impactOf } from '../../core/uses/uses';
import { UsesRecordError } from '../../core/uses/usesRecord';
import { withContentCache } from '../downloads/teamCache';
import type { Labs } from '../labs/labs';
import { apiServing } from '../labs/manifestLabs';
import type { Logger } from '../log';
import { oneAtATime } from '../provenance/folderRuns';

/** The commands a `lab-data` task runs, as `lab-data` names them. */
export const TASK_COMMANDS = ['pull', 'verify', 'status', 'impact'] as const;
export type TaskCommand = (typeof TASK_COMMANDS)[number];

/** Where a run says what it found, one line at a time (the task's terminal). */
export type Say = (line: string) => void;

/** A finding's severity, as the `$lab-data` problem matcher reads it. */
type Severity = 'error' | 'warning' | 'info';

/** Text from a manifest or a lab, made safe to print in a terminal (no control sequences). */
function shown(text: unknown): string {
  return serverText(text, 300);
}

/**
 * Runs a `lab-data` command over one folder with the manifest, through the same core functions
 * the command-line tool's commands call, and says the result line by line; resolves to the exit
 * code `lab-data` would end with (cli/README.md "Exit status"). Pull asks the labs with the
 * tokens of this machine's signed-in labs, as Restore Saved Reports does; the others ask no lab.
 */
export class FolderTaskRuns {
  constructor(
    private readonly labs: Labs,
    private readonly log: Logger,
  ) {}

  async run(
    command: TaskCommand,
    folder: string,
    say: Say,
    signal: AbortSignal,
  ): Promise<ExitCode> {
    const { manifest, problems } = await readManifestStrictly(folder);
    if (!manifest) {
      problems.forEach((problem) => say(shown(manifestProblemText(problem))));
      return Exit.usage;
    }
    try {
      switch (command) {
        case 'verify':
          return await this.verify(folder, manifest, say, signal);
        case 'pull':
          return await this.pull(folder, manifest, say, signal);
        case 'status':
          return await this.status(folder, manifest, say, signal);
        case 'impact':
          return await this.impact(folder, manifest, say);
      }
    } catch (error) {
      if (signal.aborted) {
        say(vscode.l10n.t('Stopped.'));
        return Exit.mismatch;
      }
      this.log.warn('Tasks', `lab-data ${command} in ${folder} failed: ${errorText(error)}`);
      say(shown(errorText(error)));
      return error instanceof UsesRecordError ? Exit.usage : exitCodeOfFailure(error);
    }
  }

  /** Each file missing or changed, one line on its report's line of the manifest (for `$lab-data`). */
  private async verify(
    folder: string,
    manifest: SyncManifest,
    say: Say,
    signal: AbortSignal,
  ): Promise<ExitCode> {
    const result = await verifyFolder(folder, { manifest, signal });
    const manifestFile = path.join(folder, MANIFEST_FILE_NAME);
    const text = await fs.readFile(manifestFile, 'utf8').catch(() => '');
    const codes: ExitCode[] = [];
    for (const file of result.files) {
      const finding = verifyFinding(file);
      if (finding === undefined) {
        continue;
      }
      codes.push(finding.exitCode);
      say(
        problemLine(
          manifestFile,
          lineOfReport(text, file.reportId) ?? 1,
          finding.severity,
          `${shown(file.reportId)} (${shown(file.lab)}): ${finding.what}`,
        ),
      );
    }
    const exitCode = worst(codes);
    const bad = result.files.length - result.ok.length;
    say(
      bad === 0
        ? vscode.l10n.t('All {0} files in {1} are as recorded.', result.files.length, folder)
        : vscode.l10n.t(
            '{0} of {1} files in {2} are not as recorded (exit {3}).',
            bad,
            result.files.length,
            folder,
            exitCode,
          ),
    );
    return exitCode;
  }

  /** Restores what the folder lacks, from the cache first, then the signed-in labs. */
  private async pull(
    folder: string,
    manifest: SyncManifest,
    say: Say,
    signal: AbortSignal,
  ): Promise<ExitCode> {
    const unserved = new Set<string>();
    const result = await oneAtATime(folder, () =>
      withContentCache(this.log, (cache) =>
        pullFolder(folder, manifest, {
          apiFor: (name, origin) => {
            const api = apiServing(this.labs, { name, origin });
            if (!api) {
              unserved.add(name);
            }
            return api;
          },
          cache,
          signal,
        }),
      ),
    );
    for (const name of unserved) {
      say(
        vscode.l10n.t(
          'No signed-in lab of yours serves {0} at {1}: sign in to it (Lab Data: Sign In) for pull to fetch what the cache lacks.',
          shown(name),
          shown(manifest.labs[name]?.origin ?? '?'),
        ),
      );
    }
    const codes = result.files.map((file) => {
      const exitCode = pulledCode(file);
      if (file.state !== 'present') {
        say(`${shown(file.file)} (${shown(file.reportId)}): ${pulledWords(file)}`);
      }
      return exitCode;
    });
    const exitCode = worst(codes);
    const restored = result.files.filter((file) => file.state === 'restored').length;
    say(
      vscode.l10n.t(
        '{0} of {1} files restored in {2} (exit {3}).',
        restored,
        result.files.length,
        folder,
        exitCode,
      ),
    );
    return exitCode;
  }

  /** Where the folder stands against its manifest, like `lab-data status` (no lab asked). */
  private async status(
    folder: string,
    manifest: SyncManifest,
    say: Say,
    signal: AbortSignal,
  ): Promise<ExitCode> {
    const result = await withContentCache(this.log, (cache) =>
      folderStatus(folder, manifest, { cache, signal }),
    );
    for (const entry of result.entries) {
      if (entry.local !== 'ok') {
        say(`${shown(entry.file)} (${shown(entry.reportId)}): ${statusWords(entry)}`);
      }
    }
    const exitCode = result.inStep ? Exit.ok : Exit.mismatch;
    say(
      result.inStep
        ? vscode.l10n.t('All {0} files in {1} are as recorded.', result.entries.length, folder)
        : vscode.l10n.t(
            '{0} of {1} files in {2} are not as recorded (exit {3}).',
            result.entries.filter((entry) => entry.local !== 'ok').length,
            result.entries.length,
            folder,
            exitCode,
          ),
    );
    return exitCode;
  }

  /** The scripts and notebooks that used another revision than the one recorded: exit 1 if any. */
  private async impact(folder: string, manifest: SyncManifest, say: Say): Promise<ExitCode> {
    const found = await currentUses(folder, manifest, { acknowledgeNamed: false });
    const affected = impactOf(found.record, manifest);
    for (const each of affected) {
      say(
        vscode.l10n.t(
          '{0} used {1} revision {2}; now {3}',
          shown(each.use.consumer),
          shown(each.use.id),
          shown(each.use.revision ?? '?'),
          shown(each.currentRevision ?? '?'),
        ),
      );
    }
    say(
      affected.length === 0
        ? vscode.l10n.t(
            '{0}: no script, notebook or document used another revision than the one recorded ({1} use(s) known).',
            folder,
            found.record.uses.length,
          )
        : vscode.l10n.t(
            '{0} script(s), notebook(s) or document(s) used another revision than the one recorded: run them again, then record uses.',
            affectedConsumers(affected).length,
          ),
    );
    return affected.length > 0 ? Exit.mismatch : Exit.ok;
  }
}

/**
 * One finding as the `$lab-data` problem matcher reads it: `FILE:LINE:COLUMN: SEVERITY: MESSAGE`,
 * the manifest's absolute path and the line of the report's entry.
 */
export function problemLine(
  file: string,
  line: number,
  severity: Severity,
  message: string,
): string {
  return `${file}:${line}:1: ${severity}: ${message}`;
}

/** What is wrong with a verified file, or undefined when it is as recorded. */
function verifyFinding(
  file: VerifiedFile,
): { what: string; severity: Severity; exitCode: ExitCode } | undefined {
  const name = shown(file.file);
  switch (verifiedState(file)) {
    case 'ok':
      return undefined;
    case 'missing':
      return {
        what: vscode.l10n.t('{0} is missing (pull restores it)', name),
        severity: 'error',
        exitCode: Exit.mismatch,
      };
    case 'changed':
      return {
        what: vscode.l10n.t('{0} changed: not the recorded SHA-256', name),
        severity: 'error',
        exitCode: Exit.mismatch,
      };
    case 'changed at lab':
      return {
        what: vscode.l10n.t('{0} changed at the lab ({1})', name, shown(file.atLab.join('; '))),
        severity: 'warning',
        exitCode: Exit.mismatch,
      };
    case 'unchecked at lab':
      return {
        what: vscode.l10n.t('{0} not checked at the lab: {1}', name, shown(file.unavailable)),
        severity: 'info',
        exitCode: file.error ? exitCodeOfFailure(file.error) : Exit.network,
      };
  }
}

/** A pulled file's exit code, as `lab-data pull` gives it (a lab no one signed in to: 3). */
function pulledCode(file: PulledFile): ExitCode {
  switch (file.state) {
    case 'present':
    case 'restored':
    case 'updated':
      return Exit.ok;
    case 'changedAtLab':
    case 'changedLocally':
    case 'notAtLab':
      return Exit.mismatch;
    case 'failed':
      return file.error ? exitCodeOfFailure(file.error) : Exit.mismatch;
  }
}

function pulledWords(file: PulledFile): string {
  switch (file.state) {
    case 'present':
      return vscode.l10n.t('present');
    case 'restored':
      return file.from === 'lab'
        ? vscode.l10n.t('restored from the lab')
        : vscode.l10n.t('restored from the cache');
    case 'updated':
      return vscode.l10n.t('updated from the lab');
    case 'changedAtLab':
      return vscode.l10n.t('amended at the lab since recorded; kept as recorded');
    case 'changedLocally':
      return vscode.l10n.t('changed locally and left alone');
    case 'notAtLab':
      return vscode.l10n.t('not restored: no longer at the lab');
    case 'failed':
      return vscode.l10n.t(
        'not restored: {0}',
        shown(file.error?.message ?? vscode.l10n.t('an unknown failure')),
      );
  }
}

function statusWords(entry: EntryStatus): string {
  if (entry.local === 'missing') {
    return entry.cached
      ? vscode.l10n.t('missing (the cache has it: pull restores it)')
      : vscode.l10n.t('missing');
  }
  return vscode.l10n.t('changed locally');
}
