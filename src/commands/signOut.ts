import * as vscode from 'vscode';
import type { Labs } from '../labs/labs';
import type { Prompts } from '../ui/prompts';
import { commandTargets } from '../ui/commandTargets';
import { labChoice } from './labTarget';

/** `labData.signOut`: forgets one lab's token (`{ name }`, a lab row, the only signed-in lab, or the one chosen). */
export async function signOut(labs: Labs, prompts: Prompts, ...args: unknown[]): Promise<boolean> {
  const targets = commandTargets(args);
  const named = typeof targets.options.name === 'string' ? targets.options.name : targets.lab;
  let name = named;
  if (name === undefined) {
    const signedIn = labs.signedIn;
    if (signedIn.length === 0) {
      return false;
    }
    name =
      signedIn.length === 1
        ? signedIn[0]!.lab.name
        : ((await prompts.pickOne(
            vscode.l10n.t('Lab Data: Sign Out'),
            vscode.l10n.t('Which lab?'),
            signedIn.map(labChoice),
            false,
          )) ?? undefined);
    if (name === undefined) {
      return false;
    }
  }
  labs.require(name);
  const removed = await labs.signOut(name);
  if (removed) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Signed out of {0}.', name));
  }
  return removed;
}
