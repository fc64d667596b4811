import * as vscode from 'vscode';
import { checkFromTokenBox } from './checkConnection';
import { Commands, Views } from '../constants';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import {
  DEFAULT_ENDPOINTS,
  ENDPOINT_NAMES,
  endpointTemplateProblem,
  type EndpointName,
} from '../../core/api/endpoints';
import { freeLabName, labNameProblem } from '../../core/api/labDefinition';
import { labError } from '../../core/errors/messages';
import type { Labs, SignInOutcome } from '../labs/labs';
import { commandTargets } from '../ui/commandTargets';
import type { Prompts } from '../ui/prompts';
import {
  baseUrlProblem,
  rejectedToken,
  signedInResult,
  tokenProblem,
  type SignInResult,
} from './signIn';

/** Arguments of `labData.addLab` for tasks, tests and other extensions: nothing is asked. */
export interface AddLabArgs {
  readonly name?: string;
  readonly baseUrl?: string;
  /** Endpoint templates that differ from the spec's (`{ reports: "/v2/reports", … }`). */
  readonly endpoints?: Partial<Record<EndpointName, string>>;
  /** Signs in at once with this token; without one the lab is added signed out (automation) or the token is asked. */
  readonly token?: string;
}

/** What each endpoint is, in the words of the step that asks for it. */
function endpointLabel(name: EndpointName): string {
  switch (name) {
    case 'reports':
      return vscode.l10n.t('list of reports');
    case 'report':
      return vscode.l10n.t('one report');
    case 'reportFile':
      return vscode.l10n.t("a report's PDF");
    case 'clients':
      return vscode.l10n.t('list of clients');
    case 'client':
      return vscode.l10n.t('one client');
    case 'projects':
      return vscode.l10n.t('list of projects');
    case 'samples':
      return vscode.l10n.t('list of samples');
  }
}

/**
 * `labData.addLab` ("Add Lab…"): a lab without editing JSON. Asks its address (checked as you
 * type, the way Sign In checks it), whether it serves the spec's endpoint paths or its own (each
 * checked as you type, starting from the spec's), and its token (checked with one request while the
 * box stays open, as Sign In's); then its name, starting from the name the lab gives itself in its
 * records where it sends one (checked as you type: not empty, not in use). Only then is the entry
 * written to the user's `labData.labs` and the token stored. Returns `{ name, baseUrl, host }` once
 * signed in, or undefined. With `{ name, baseUrl, endpoints?, token? }` it asks nothing.
 */
export async function addLab(
  labs: Labs,
  prompts: Prompts,
  ...args: unknown[]
): Promise<SignInResult | undefined> {
  const targets = commandTargets(args);
  const given = targets.options as AddLabArgs;
  const taken = (name: string): boolean =>
    labs.entries.some(
      (entry) =>
        (entry.kind === 'lab' ? entry.connection.lab.name : entry.lab.name).toLowerCase() ===
        name.trim().toLowerCase(),
    );
  if (targets.automated && typeof given.baseUrl === 'string') {
    const name = typeof given.name === 'string' ? given.name.trim() : '';
    if (!name) {
      throw labError('invalidInput', 'labInvalid', {
        name: '?',
        problems: vscode.l10n.t('"name" is missing'),
      });
    }
    const entry = {
      name,
      baseUrl: parseBaseUrl(given.baseUrl).baseUrl,
      ...(given.endpoints && Object.keys(given.endpoints).length > 0
        ? { endpoints: given.endpoints }
        : {}),
    };
    // The token is checked before anything is written: one that fails leaves nothing, so the same call can simply be tried again.
    const checked =
      typeof given.token === 'string'
        ? await labs
            .probe(entry, given.token)
            .catch((error: unknown) => Promise.reject(rejectedToken(error, undefined)))
        : undefined;
    const outcome = await labs.addLab(entry, checked);
    return checked ? signedInResult(outcome) : undefined;
  }
  // Four steps, each counted: address, endpoints, token, name.
  const title = (step: number): string => vscode.l10n.t('Lab Data: Add Lab ({0}/{1})', step, 4);
  const typed = await prompts.text(
    title(1),
    vscode.l10n.t('Address of the lab’s API, for example https://lab.example.com'),
    'https://',
    baseUrlProblem,
  );
  if (typed === undefined) {
    return undefined;
  }
  const baseUrl = parseBaseUrl(typed).baseUrl;
  const endpoints = await askEndpoints(prompts, title(2));
  if (endpoints === null) {
    return undefined;
  }
  const entry = {
    name: '',
    baseUrl,
    ...(endpoints && Object.keys(endpoints).length > 0 ? { endpoints } : {}),
  };
  // The token is checked before the name is asked, so the name can start from the lab's own.
  const checked = await prompts.token(
    {
      title: `${title(3)}: ${vscode.l10n.t('Access Token')}`,
      prompt: vscode.l10n.t(
        "Access token for {0} (stored in VS Code's secret storage, sent only to {1})",
        parseBaseUrl(baseUrl).host,
        parseBaseUrl(baseUrl).origin,
      ),
      checking: vscode.l10n.t('Checking access to {0}…', parseBaseUrl(baseUrl).host),
      problemOf: tokenProblem,
      checkConnection: () => checkFromTokenBox(baseUrl),
    },
    (token, signal) =>
      labs
        .probe(entry, token, signal)
        .catch((error: unknown) => Promise.reject(rejectedToken(error, undefined))),
  );
  if (checked === undefined) {
    return undefined;
  }
  const name = await askLabName(prompts, title(4), checked.ownName, taken);
  if (name === undefined) {
    return undefined;
  }
  // The token the box checked is stored with the lab: no second request.
  const outcome = await labs.addLab({ ...entry, name }, checked);
  sayAdded(outcome, labs);
  return signedInResult(outcome);
}

/**
 * The name step: what the name is for and that it must be unique, starting from the name the lab
 * gives itself, or a free one made from it ("Meridian (2)") when another lab has it; a name in use
 * is refused as it is typed, with a free one to take instead.
 */
function askLabName(
  prompts: Prompts,
  title: string,
  ownName: string | undefined,
  taken: (name: string) => boolean,
): Promise<string | undefined> {
  const proposed = ownName !== undefined ? freeLabName(ownName, taken) : '';
  const prompt =
    ownName === undefined
      ? vscode.l10n.t(
          'The name Lab Data shows for this lab in its views, titles and messages, as you and your colleagues call it (for example Riverside contract lab); no other lab of yours may have it.',
        )
      : proposed === ownName
        ? vscode.l10n.t(
            'The name Lab Data shows for this lab in its views, titles and messages; the lab calls itself “{0}”. No other lab of yours may have it.',
            ownName,
          )
        : vscode.l10n.t(
            'The name Lab Data shows for this lab in its views, titles and messages. The lab calls itself “{0}”, as another of your labs is named, so “{1}” is proposed; no two labs may share a name.',
            ownName,
            proposed,
          );
  return prompts.text(title, prompt, proposed, (value) =>
    labNameProblem(value)
      ? vscode.l10n.t('A lab name is 1 to 60 characters without control characters.')
      : taken(value)
        ? vscode.l10n.t(
            'There is already a lab named {0}. Try “{1}”.',
            value.trim(),
            freeLabName(value, taken),
          )
        : undefined,
  );
}

/**
 * Says the lab was added and what comes next: its reports loading in the Reports view (Show
 * Reports), or, signed out, that signing in shows them (Sign In). Not awaited: the command's result
 * does not wait for the notification to close.
 */
function sayAdded(outcome: SignInOutcome, labs: Labs): void {
  const name = outcome.lab.name;
  if (labs.get(name)?.signedIn) {
    const show = vscode.l10n.t('Show Reports');
    void vscode.window
      .showInformationMessage(
        vscode.l10n.t(
          '{0} added and signed in: its reports are loading in the Reports view.',
          name,
        ),
        show,
      )
      .then((chosen) =>
        chosen === show ? vscode.commands.executeCommand(`${Views.reports}.focus`) : undefined,
      );
    return;
  }
  const signIn = vscode.l10n.t('Sign In');
  void vscode.window
    .showInformationMessage(vscode.l10n.t('{0} added. Sign in to see its reports.', name), signIn)
    .then((chosen) =>
      chosen === signIn
        ? vscode.commands.executeCommand(Commands.signIn, {
            name,
            baseUrl: outcome.lab.url.baseUrl,
          })
        : undefined,
    );
}

/**
 * The endpoint step: the spec's paths (Enter), or the lab's own, one path per endpoint starting
 * from the spec's, each checked as you type. Returns only the paths that differ; null means cancel.
 */
async function askEndpoints(
  prompts: Prompts,
  title: string,
): Promise<Partial<Record<EndpointName, string>> | undefined | null> {
  const choice = await prompts.pickOne(
    title,
    vscode.l10n.t('Which paths does the lab serve?'),
    [
      {
        id: 'standard',
        label: vscode.l10n.t('The standard paths'),
        description: `${DEFAULT_ENDPOINTS.reports}, ${DEFAULT_ENDPOINTS.reportFile}, …`,
        detail: vscode.l10n.t('What the API specification names; most labs use these.'),
      },
      {
        id: 'own',
        label: vscode.l10n.t('The lab’s own paths…'),
        detail: vscode.l10n.t('Your provider confirmed other paths for your tenant; set each one.'),
      },
    ],
    false,
    'standard',
  );
  if (choice === undefined || choice === null) {
    return null;
  }
  if (choice === 'standard') {
    return undefined;
  }
  const own: Partial<Record<EndpointName, string>> = {};
  for (const [index, endpoint] of ENDPOINT_NAMES.entries()) {
    const template = await prompts.text(
      `${title}: ${endpointLabel(endpoint)} (${index + 1}/${ENDPOINT_NAMES.length})`,
      vscode.l10n.t('Path of the {0}, below the lab’s address', endpointLabel(endpoint)),
      DEFAULT_ENDPOINTS[endpoint],
      (value) => endpointTemplateProblem(endpoint, value.trim()),
    );
    if (template === undefined) {
      return null;
    }
    if (template.trim() !== DEFAULT_ENDPOINTS[endpoint]) {
      own[endpoint] = template.trim();
    }
  }
  return own;
}
