import * as path from 'node:path';
import { formatMessage } from '../errors/messages';
import { serverText } from '../errors/serverText';
import type { ManifestProblem } from './manifest';

/**
 * Why a folder's manifest cannot be used, in one sentence both clients show (the tool on stderr,
 * the extension in a message): what is wrong and what to do. Manifest text is made safe to show.
 */
export function manifestProblemText(problem: ManifestProblem): string {
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
    case 'lostMerge':
      return formatMessage('manifestLostMerge', {
        file: problem.file,
        folder: path.dirname(problem.file),
        commit: problem.commit.slice(0, 12),
        count: problem.reportIds.length,
        ids: problem.reportIds
          .slice(0, 5)
          .map((id) => serverText(id, 80))
          .join(', ')
          .concat(problem.reportIds.length > 5 ? ', …' : ''),
      });
    case 'version':
      return typeof problem.version === 'number' && problem.version > 3
        ? formatMessage('manifestNewer', { file: problem.file, version: problem.version }).replace(
            / Nothing was written\.$/,
            '',
          )
        : `The manifest ${problem.file} has version ${JSON.stringify(problem.version) ?? 'none'}, which this version does not know (it reads versions 1 to 3); update lab-data or Lab Data.`;
    case 'entry':
      return `The manifest ${problem.file}${problem.line !== undefined ? ` (line ${problem.line})` : ''} lists "${serverText(problem.name, 120)}" for ${serverText(problem.reportId, 80)} (lab ${serverText(problem.lab, 80)}), which cannot be used: ${serverText(problem.reason, 200)}.`;
  }
}
