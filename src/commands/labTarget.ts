import * as vscode from 'vscode';
import type { LabApi } from '../../core/api/labApi';
import { Commands } from '../constants';
import type { LabConnection } from '../labs/labConnection';
import type { Labs } from '../labs/labs';
import type { Choice, Prompts } from '../ui/prompts';

/**
 * The signed-in lab a command acts on: the one it names (`lab` in its arguments or its tree item's
 * lab), else the only signed-in lab, else the one the user picks, the `preferred` labs first (a
 * folder's own labs, from its manifest: Enter takes the first). When the lab is signed out it
 * starts "Sign In" for it and gives undefined.
 */
export async function labForCommand(
  labs: Labs,
  prompts: Prompts,
  name?: string,
  preferred: readonly string[] = [],
): Promise<LabConnection | undefined> {
  if (name !== undefined) {
    const connection = labs.require(name);
    if (!connection.signedIn) {
      // By `name`, which it keeps: the command goes on with the lab it was given.
      await vscode.commands.executeCommand(Commands.signIn, {
        name: connection.lab.name,
        baseUrl: connection.lab.url.baseUrl,
      });
      return labs.get(name)?.signedIn ? labs.get(name) : undefined;
    }
    return connection;
  }
  const signedIn = labs.signedIn;
  if (signedIn.length === 1) {
    return signedIn[0];
  }
  if (signedIn.length === 0) {
    await vscode.commands.executeCommand(Commands.signIn);
    return labs.signedIn.length === 1 ? labs.signedIn[0] : undefined;
  }
  const rank = (connection: LabConnection): number => {
    const at = preferred.indexOf(connection.lab.name);
    return at < 0 ? preferred.length : at;
  };
  const ordered = [...signedIn].sort((a, b) => rank(a) - rank(b));
  const first = ordered.find((connection) => rank(connection) < preferred.length);
  const picked = await prompts.pickOne(
    vscode.l10n.t('Lab Data: Choose a Lab'),
    vscode.l10n.t('Which lab?'),
    ordered.map((connection) =>
      rank(connection) < preferred.length ? folderLabChoice(connection) : labChoice(connection),
    ),
    false,
    first?.lab.name,
  );
  return picked ? labs.get(picked) : undefined;
}

/** The API of the lab a command acts on (see {@link labForCommand}). */
export async function apiForCommand(
  labs: Labs,
  prompts: Prompts,
  name?: string,
): Promise<LabApi | undefined> {
  return (await labForCommand(labs, prompts, name))?.api;
}

/**
 * A lab as a picker row: its name, and its address only where the name does not already say it
 * (a lab named after its host would read "127.0.0.1:47123  127.0.0.1:47123").
 */
export function labChoice(connection: LabConnection): Choice {
  const { name, url } = connection.lab;
  return { id: name, label: name, description: name === url.host ? undefined : url.host };
}

/** A lab a folder's manifest names, as a picker row: said so, so the person sees why it is first. */
function folderLabChoice(connection: LabConnection): Choice {
  const row = labChoice(connection);
  const mark = vscode.l10n.t("this folder's lab");
  return { ...row, description: row.description ? `${row.description} · ${mark}` : mark };
}

/**
 * Throws why `connection`'s lab is known not to answer (it failed as a whole a moment ago and has
 * not answered since), so an action a person waits for says so at once, with Retry, instead of
 * waiting one more answer timeout for the same silence.
 */
export function unlessKnownDown(connection: LabConnection | undefined): void {
  const known = connection?.knownFailure();
  if (known) {
    throw known;
  }
}
