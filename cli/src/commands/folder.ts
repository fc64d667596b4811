import * as path from 'node:path';
import { readManifestStrictly, type SyncManifest } from '../../../core/sync/manifest';
import { manifestProblemText } from '../../../core/sync/manifestProblems';
import type { CliContext } from '../context';
import { CliError, Exit } from '../exitCodes';

/** The folder a command works on: its one positional, else `lab-reports`, resolved. */
export function folderArgument(context: CliContext): string {
  return path.resolve(context.command.positionals[0] ?? 'lab-reports');
}

/** The folder's manifest, or a usage error naming every problem (nothing is written then). */
export async function readManifestOrFail(folder: string): Promise<SyncManifest> {
  const { manifest, problems } = await readManifestStrictly(folder);
  if (!manifest) {
    throw new CliError(
      `${problems.map(manifestProblemText).join('\n')}\nNothing was written.`,
      Exit.usage,
    );
  }
  return manifest;
}
