import * as vscode from 'vscode';
import type { ExistingFileAnswer, ExistingFileChoice } from '../../../core/sync/bulkSave';

/**
 * A short modal: the safe choice (Skip) first, so Enter keeps what is on disk; Overwrite and Keep
 * Both; in a bulk run one more button applies a choice to every later existing file. Identical
 * files never get here (the save skips them as up to date).
 */
export async function askExistingFile(
  fileName: string,
  reason: 'exists' | 'changedLocally',
  more: boolean,
): Promise<ExistingFileAnswer | undefined> {
  const title =
    reason === 'changedLocally'
      ? vscode.l10n.t('{0} was changed since Lab Data saved it', fileName)
      : vscode.l10n.t('{0} already exists', fileName);
  const detail =
    reason === 'changedLocally'
      ? vscode.l10n.t(
          "Skip keeps your changes; Overwrite replaces them with the lab's file; Keep Both saves the lab's file under a new name.",
        )
      : vscode.l10n.t(
          "It differs from the lab's file. Skip keeps it; Overwrite replaces it; Keep Both saves the lab's file under a new name.",
        );
  const choices: Array<[string, ExistingFileChoice]> = [
    [vscode.l10n.t('Skip'), 'skip'],
    [vscode.l10n.t('Overwrite'), 'overwrite'],
    [vscode.l10n.t('Keep Both'), 'keepBoth'],
  ];
  const forAll = vscode.l10n.t('Apply to All…');
  const answer = await vscode.window.showWarningMessage(
    title,
    { modal: true, detail },
    ...choices.map(([label]) => label),
    ...(more ? [forAll] : []),
  );
  if (answer === forAll) {
    const all: Array<[string, ExistingFileChoice]> = [
      [vscode.l10n.t('Skip All'), 'skip'],
      [vscode.l10n.t('Overwrite All'), 'overwrite'],
      [vscode.l10n.t('Keep Both for All'), 'keepBoth'],
    ];
    const chosen = await vscode.window.showWarningMessage(
      vscode.l10n.t('What to do with every file of this run that already exists?'),
      { modal: true, detail: vscode.l10n.t('Identical files are always left as they are.') },
      ...all.map(([label]) => label),
    );
    const choice = all.find(([label]) => label === chosen)?.[1];
    return choice && { choice, forAll: true };
  }
  const choice = choices.find(([label]) => label === answer)?.[1];
  return choice && { choice, forAll: false };
}
