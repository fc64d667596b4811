import * as vscode from 'vscode';
import { checkFromTokenBox } from './checkConnection';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { LabApiError, isNetworkFailure } from '../../core/errors/errors';
import { labError } from '../../core/errors/messages';
import { serverText } from '../../core/errors/serverText';
import { toAbortSignal } from '../cancellation';
import { withNotificationProgress } from '../ui/progress';
import type { CheckedSignIn, Labs, SignInOutcome } from '../labs/labs';
import type { Prompts } from '../ui/prompts';
import { phrase } from '../ui/phrase';
import { commandTargets } from '../ui/commandTargets';
import { titleFor } from '../ui/prompts/labTitles';

/** Arguments for a sign-in without prompts, from tests, tasks or other extensions. */
export interface SignInArgs {
  readonly baseUrl?: string;
  readonly token?: string;
  /** The lab's name: a defined lab's definition is used; a new name adds the lab to `labData.labs`. */
  readonly name?: string;
}

export interface SignInResult {
  readonly name: string;
  readonly baseUrl: string;
  readonly host: string;
}

/** Why a typed lab address cannot be used (checked as it is typed), or undefined. */
export function baseUrlProblem(value: string): string | undefined {
  try {
    parseBaseUrl(value);
    return undefined;
  } catch (error) {
    return phrase(error);
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * `labData.signIn`: asks for what the arguments do not give (the lab's address, validated as you
 * type and pre-filled; the token, hidden), checks them with one request, then stores the token for
 * that lab only. Called with `{ baseUrl, token, name? }` it asks nothing.
 */
export async function signIn(
  labs: Labs,
  prompts: Prompts,
  ...args: unknown[]
): Promise<SignInResult | undefined> {
  const targets = commandTargets(args);
  const given = targets.options as SignInArgs;
  // A name given with the address is kept; a lab picked by name (a lab row, `{ lab }`) is named if called after its address.
  const keepName = text(given.name) !== undefined;
  const name = text(given.name) ?? targets.lab;
  const defined = name === undefined ? undefined : labs.get(name);
  if (name !== undefined && defined === undefined) {
    // An invalid definition fails here, with its own message, before any request; a new name is added below.
    labs.checkDefinition(name);
  }
  const baseUrl =
    text(given.baseUrl) ??
    defined?.lab.url.baseUrl ??
    (await prompts.text(
      vscode.l10n.t('Lab Data: Sign In (1/2)'),
      vscode.l10n.t('Address of your lab’s API, for example https://lab.example.com'),
      labs.all[0]?.lab.url.baseUrl ?? 'https://',
      baseUrlProblem,
    ));
  if (baseUrl === undefined) {
    return undefined;
  }
  const lab = parseBaseUrl(baseUrl);
  // The lab this token was meant for, if it is signed in already: a rejected token leaves that sign-in as it was.
  const previous =
    defined ?? labs.all.find((connection) => connection.lab.url.origin === lab.origin);
  const kept = (): string | undefined => (previous?.signedIn ? previous.lab.name : undefined);
  const givenToken = text(given.token);
  if (givenToken !== undefined) {
    // Automation asks nothing: a lab called after its address takes the name it gives itself, else keeps the address.
    return signedInResult(
      await withNotificationProgress(
        vscode.l10n.t('Checking access to {0}…', name ?? lab.host),
        (_progress, cancellation) =>
          labs.signIn(baseUrl, givenToken, name, toAbortSignal(cancellation), { keepName }),
      ).catch((error: unknown) => {
        throw rejectedToken(error, kept());
      }),
    );
  }
  // The lab is named once it is known: a lab's row, a name given, a lab already at this address.
  const known = name ?? previous?.lab.name;
  const checked = await prompts.token(
    {
      title:
        known !== undefined ? titleFor(known, 'signIn') : vscode.l10n.t('Lab Data: Sign In (2/2)'),
      prompt: vscode.l10n.t(
        "Access token for {0} (stored in VS Code's secret storage, sent only to {1})",
        name ?? lab.host,
        lab.origin,
      ),
      checking: vscode.l10n.t('Checking access to {0}…', name ?? lab.host),
      problemOf: tokenProblem,
      checkConnection: () => checkFromTokenBox(baseUrl),
    },
    (token, signal) =>
      labs.checkSignIn(baseUrl, token, name, signal, { keepName }).catch((error: unknown) => {
        throw rejectedToken(error, kept());
      }),
  );
  if (checked === undefined) {
    return undefined;
  }
  return signedInResult(await checked.complete(await chosenName(checked, prompts)));
}

/**
 * The name of a lab a person signs in to that would be called after its address: none to ask
 * when the lab says its own (and no other lab has it); else asked once, before anything is
 * stored, starting from the address (Enter or Escape keeps it).
 */
async function chosenName(checked: CheckedSignIn, prompts: Prompts): Promise<string | undefined> {
  if (!checked.nameable || checked.proposedName !== checked.lab.name) {
    return undefined;
  }
  const host = checked.lab.url.host;
  return prompts.text(
    vscode.l10n.t('Lab Data: Name the Lab'),
    checked.ownName !== undefined
      ? vscode.l10n.t(
          '{0} calls itself “{1}”, as another of your labs does. What do you call it? (Enter or Escape keeps its address as its name)',
          host,
          checked.ownName,
        )
      : vscode.l10n.t(
          '{0} does not say its name. What do you call it? (Enter or Escape keeps its address as its name)',
          host,
        ),
    checked.lab.name,
    (value) => {
      switch (checked.nameProblem(value)) {
        case 'invalid':
          return vscode.l10n.t('A lab name is 1 to 60 characters without control characters.');
        case 'taken':
          return vscode.l10n.t('There is already a lab named {0}.', value.trim());
        default:
          return undefined;
      }
    },
  );
}

/** Says a sign-in happened (a passing note, or a warning when the token may not read reports) and gives its result. */
export function signedInResult(outcome: SignInOutcome): SignInResult {
  const signedIn = outcome.lab;
  if (outcome.reportsForbidden) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'Signed in to {0}, but this token may not read reports (403): the reports data area is outside its scope.',
        signedIn.name,
      ),
    );
  } else {
    // A passing note, not a notification that stays on screen after it stopped being true.
    vscode.window.setStatusBarMessage(
      `$(check) ${vscode.l10n.t('Signed in to {0}.', signedIn.name)}`,
      8000,
    );
  }
  return { name: signedIn.name, baseUrl: signedIn.url.baseUrl, host: signedIn.url.host };
}

/**
 * What to say under the token box when the token is the problem, or the lab could not be reached
 * (the box stays open either way, keeping what was typed); undefined for any other failure.
 */
export function tokenProblem(error: unknown): string | undefined {
  if (!(error instanceof LabApiError)) {
    return undefined;
  }
  const args = error.text?.args ?? {};
  switch (error.text?.id) {
    case 'tokenRejected':
      return vscode.l10n.t(
        'The lab rejected this token ({0}); nothing was stored. Paste another token, or press Escape to stop.',
        String(args.reason),
      );
    case 'tokenRejectedKept':
      return vscode.l10n.t(
        'The lab rejected this token ({0}). You are still signed in to {1} with your previous token. Paste another, or press Escape.',
        String(args.reason),
        String(args.name),
      );
    default:
      if (isNetworkFailure(error)) {
        // The lab could not be reached: what was typed stays, to try again once it can be.
        return vscode.l10n.t(
          '{0} What you typed is kept: press Enter to try again, use the Check Connection button to see where the way stops, or press Escape to stop.',
          phrase(error),
        );
      }
      // A token no lab could accept (empty, spaces, control characters) is refused before any request.
      return error.code === 'invalidInput' && error.text === undefined ? phrase(error) : undefined;
  }
}

/**
 * A token the lab refused while signing in: what happened, with the lab's own reason (expired,
 * revoked), and whether an earlier sign-in to that lab still stands; other failures pass unchanged.
 */
export function rejectedToken(error: unknown, stillSignedIn: string | undefined): unknown {
  if (
    !(error instanceof LabApiError) ||
    error.code !== 'unauthorized' ||
    error.text?.id !== 'unauthorized'
  ) {
    return error;
  }
  const reason = serverText(error.reason ?? '', 120) || `HTTP ${error.status ?? 401}`;
  const details = { path: error.path, status: error.status, requestId: error.requestId };
  return stillSignedIn !== undefined
    ? labError('invalidInput', 'tokenRejectedKept', { reason, name: stillSignedIn }, details)
    : labError('unauthorized', 'tokenRejected', { reason }, details);
}
