import { Readable } from 'node:stream';
import * as vscode from 'vscode';
import { writeFileSafely } from '../../core/files/safeWriter';
import { readManifestStrictly } from '../../core/sync/manifest';
import { manifestProblemText } from '../../core/sync/manifestProblems';
import { currentUses } from '../../core/uses/uses';
import { USES_FILE_NAME, usesText } from '../../core/uses/usesRecord';
import type { Logger } from '../log';
import type { SavedFolderStates } from '../provenance/savedFolders';

/** What Record Report Uses wrote: per folder, how many uses by how many consumers. */
export interface RecordedUses {
  readonly folders: ReadonlyArray<{
    readonly folder: string;
    readonly uses: number;
    readonly consumers: number;
  }>;
  readonly problems: readonly string[];
}

function folderOf(arg: unknown): string | undefined {
  return typeof arg === 'object' &&
    arg !== null &&
    typeof (arg as { folder?: unknown }).folder === 'string'
    ? (arg as { folder: string }).folder
    : undefined;
}

/**
 * Record Report Uses (`labData.recordUses`): writes each saved-reports folder's
 * `lab-data-uses.json` (or the one given as `{ folder }`), as `lab-data uses --record` does, with
 * the same core call. What the workspace shows of the uses (`reread`) is read again before it says
 * so: a sync right after it is measured against the record just written.
 */
export async function recordUses(
  states: SavedFolderStates,
  log: Logger,
  arg?: unknown,
  reread: () => Promise<void> = () => Promise.resolve(),
): Promise<RecordedUses> {
  const given = folderOf(arg);
  const folders =
    given !== undefined ? [given] : (await states.folders()).map((each) => each.folder);
  const recorded: Array<RecordedUses['folders'][number]> = [];
  const problems: string[] = [];
  for (const folder of folders) {
    const { manifest, problems: found } = await readManifestStrictly(folder);
    if (!manifest) {
      problems.push(...found.map(manifestProblemText));
      continue;
    }
    const uses = await currentUses(folder, manifest, { acknowledgeNamed: true });
    await writeFileSafely({
      folder,
      fileName: USES_FILE_NAME,
      source: Readable.from([Buffer.from(usesText(uses.record))]),
      ifExists: 'overwrite',
    });
    recorded.push({
      folder,
      uses: uses.record.uses.length,
      consumers: new Set(uses.record.uses.map((use) => use.consumer)).size,
    });
  }
  for (const problem of problems) {
    log.warn('Uses', problem);
  }
  await reread();
  const total = recorded.reduce((sum, each) => sum + each.uses, 0);
  const consumers = recorded.reduce((sum, each) => sum + each.consumers, 0);
  const text =
    recorded.length === 0
      ? vscode.l10n.t('No folder of saved reports to record uses for.')
      : vscode.l10n.t(
          'Recorded {0} use(s) of reports by {1} script(s) and notebook(s) in {2}.',
          total,
          consumers,
          recorded.length === 1 ? USES_FILE_NAME : vscode.l10n.t('{0} folders', recorded.length),
        );
  void vscode.window.showInformationMessage(text);
  return { folders: recorded, problems };
}
