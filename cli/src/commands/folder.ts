import * as path from 'node:path';
import {
  readManifestStrictly,
  type ManifestProblem,
  type SyncManifest,
} from '../../../core/sync/manifest';
import { serverText } from '../../../core/errors/serverText';
import { formatMessage } from '../../../core/errors/messages';
import type { CliContext } from '../context';
import { CliError, Exit } from '../exitCodes';

/** The folder a command works on: its one positional, else `lab-reports`, resolved. */
export function folderArgument(context: CliContext): string {
  return path.resolve(context.command.positionals[0] ?? 'lab-reports');
}

function sentence(problem: ManifestProblem): string {
  switch (problem.kind) {
    case 'missing':
      return `There is no manifest at ${problem.file}: nothing to restore or check there. (The VS Code extension or lab-data sync writes it.)`;
    case 'malformed':
      return `The manifest ${problem.file} cannot be read: ${problem.reason}.`;
    case 'conflict':
      return formatMessage('manifestConflict', {
        file: problem.file,
        folder: path.dirname(problem.file),
      }).replace(/ nothing was written\.$/, '');
    case 'unmerged':
      return formatMessage('manifestUnmerged', {
        file: problem.file,
        folder: path.dirname(problem.file),
      }).replace(/; nothing was written\.$/, '.');
    case 'version':
      return typeof problem.version === 'number' && problem.version > 3
        ? formatMessage('manifestNewer', { file: problem.file, version: problem.version }).replace(
            / Nothing was written\.$/,
            '',
          )
        : `The manifest ${problem.file} has version ${JSON.stringify(problem.version) ?? 'none'}, which this lab-data does not know (it reads versions 1 to 3); update lab-data.`;
    case 'entry':
      return `The manifest ${problem.file} lists "${serverText(problem.name, 120)}" for ${serverText(problem.reportId, 80)} (lab ${serverText(problem.lab, 80)}), which cannot be used: ${problem.reason}.`;
  }
}

/** The folder's manifest, or a usage error naming every problem (nothing is written then). */
export async function readManifestOrFail(folder: string): Promise<SyncManifest> {
  const { manifest, problems } = await readManifestStrictly(folder);
  if (!manifest) {
    throw new CliError(`${problems.map(sentence).join('\n')}\nNothing was written.`, Exit.usage);
  }
  return manifest;
}
