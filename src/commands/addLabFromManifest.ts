import { checkFromTokenBox } from './checkConnection';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { labNameProblem } from '../../core/api/labDefinition';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { serverText } from '../../core/errors/serverText';
import { MANIFEST_FILE_NAME, readManifestStrictly } from '../../core/sync/manifest';
import { manifestProblemText } from '../../core/sync/manifestProblems';
import { labOffer, type LabOffer } from '../../core/sync/manifestLabs';
import type { Labs } from '../labs/labs';
import { machineLabs, rememberManifestLab, rememberedManifestLabs } from '../labs/manifestLabs';
import { foldersToRestore } from '../provenance/restoreReports';
import { commandTargets } from '../ui/commandTargets';
import type { Prompts } from '../ui/prompts';
import { rejectedToken, signedInResult, tokenProblem } from './signIn';

/** Arguments of `labData.addLabFromManifest`. */
export interface AddLabFromManifestArgs {
  /** The folder whose manifest names the lab (as Restore takes it); without it, every manifest of the workspace. */
  readonly folder?: string;
  /** The manifest's name (or origin) of the lab to add, when the manifest names several this machine lacks. */
  readonly lab?: string;
}

/** What `labData.addLabFromManifest` did. */
export interface LabFromManifestResult {
  /** The lab as the manifest names it, and its origin. */
  readonly manifestLab: string;
  readonly origin: string;
  /** The lab of this machine that serves it now: the one added, or the one chosen to serve it. */
  readonly lab: string;
  /** True when the lab was added (with its token); false when a lab of this machine was chosen to serve it. */
  readonly added: boolean;
}

/** The id of the picker's Cancel row, the one Enter takes. */
const CANCEL = '\u0000cancel';

/** A lab a manifest names that this machine lacks, with the manifest that names it. */
interface Wanted {
  readonly offer: Exclude<LabOffer, { kind: 'served' }>;
  readonly manifest: string;
}

/** The labs the manifests of `folders` name that no lab of this machine serves, each origin once. */
async function labsWanted(
  labs: Labs,
  folders: readonly string[],
): Promise<{ wanted: Wanted[]; problems: string[] }> {
  const context = {
    labs: machineLabs(labs),
    remembered: rememberedManifestLabs(),
    trusted: vscode.workspace.isTrusted,
  };
  const wanted = new Map<string, Wanted>();
  const problems: string[] = [];
  for (const folder of folders) {
    const { manifest, problems: found } = await readManifestStrictly(folder);
    if (!manifest) {
      problems.push(...found.map(manifestProblemText));
    }
    for (const [name, section] of Object.entries(manifest?.labs ?? {})) {
      const offer = labOffer(name, section, context);
      if (offer.kind !== 'served' && !wanted.has(offer.origin)) {
        wanted.set(offer.origin, { offer, manifest: path.join(folder, MANIFEST_FILE_NAME) });
      }
    }
  }
  return { wanted: [...wanted.values()], problems };
}

/** The words for a lab a manifest names: its name, cleaned as any repository text is, and its address. */
function named(offer: { readonly name: string; readonly origin: string }): string {
  return `${serverText(offer.name, 60)} (${serverText(offer.origin, 200)})`;
}

/**
 * `labData.addLabFromManifest` ("Add the Lab This Folder Uses…", `{ folder?, lab? }`): a folder's
 * manifest names a lab (its name and origin) that no lab of this machine serves. The address is
 * the repository's, so it is shown in full and confirmed before anything is sent there; then the
 * token is asked and checked (Add Lab's box), and only then is the lab written to the user's
 * `labData.labs`. Or a lab this machine has already serves it at another address, which is
 * remembered in the user's `labData.manifestLabs`. Never in Restricted Mode. Resolves to what was
 * done, or undefined.
 */
export async function addLabFromManifest(
  labs: Labs,
  prompts: Prompts,
  ...args: unknown[]
): Promise<LabFromManifestResult | undefined> {
  const options = commandTargets(args).options as AddLabFromManifestArgs;
  const folders = await foldersToRestore(args);
  const asked = typeof options.lab === 'string' ? options.lab : undefined;
  const all = await labsWanted(labs, folders);
  const wanted = all.wanted.filter(
    ({ offer }) => asked === undefined || offer.name === asked || offer.origin === asked,
  );
  if (wanted.length === 0) {
    void (all.problems.length > 0
      ? vscode.window.showErrorMessage(all.problems.join(' '))
      : vscode.window.showInformationMessage(
          vscode.l10n.t('A lab of this machine serves every lab the manifest names.'),
        ));
    return undefined;
  }
  const untrusted = wanted.find(({ offer }) => offer.kind === 'untrusted');
  if (untrusted) {
    const manage = vscode.l10n.t('Manage Workspace Trust');
    void vscode.window
      .showWarningMessage(
        vscode.l10n.t(
          'The manifest names the lab {0}, which this machine does not have. Adding it is not offered in Restricted Mode: its address comes from the repository, and adding it would send your token there. Trust this workspace first, or add the lab yourself with Add Lab….',
          named(untrusted.offer),
        ),
        manage,
      )
      .then((choice) =>
        choice === manage ? vscode.commands.executeCommand('workbench.trust.manage') : undefined,
      );
    return undefined;
  }
  const chosen = await whichLab(prompts, wanted);
  if (!chosen) {
    return undefined;
  }
  if (chosen.offer.kind === 'unusable') {
    void vscode.window.showErrorMessage(
      vscode.l10n.t(
        'The manifest names the lab {0}, at an address a lab cannot have: {1}',
        named(chosen.offer),
        serverText(chosen.offer.reason, 200),
      ),
    );
    return undefined;
  }
  if (chosen.offer.kind !== 'offer') {
    return undefined;
  }
  return addOrServe(labs, prompts, chosen.offer, chosen.manifest);
}

/** The one lab to add: the only one, or the one picked when the manifests name several. */
async function whichLab(prompts: Prompts, wanted: readonly Wanted[]): Promise<Wanted | undefined> {
  if (wanted.length === 1) {
    return wanted[0];
  }
  const picked = await prompts.pickOne(
    vscode.l10n.t('Lab Data: Add the Lab This Folder Uses'),
    vscode.l10n.t('Which of the labs the manifests name?'),
    wanted.map(({ offer }) => ({
      id: offer.origin,
      label: serverText(offer.name, 60),
      description: offer.origin,
    })),
    false,
    wanted[0]!.offer.origin,
  );
  return wanted.find(({ offer }) => offer.origin === picked);
}

/**
 * Adds the lab at the manifest's address once the person confirmed that address, or lets a lab of
 * this machine serve it. Nothing is sent to the manifest's address before the confirmation.
 */
async function addOrServe(
  labs: Labs,
  prompts: Prompts,
  offer: Extract<LabOffer, { kind: 'offer' }>,
  manifest: string,
): Promise<LabFromManifestResult | undefined> {
  const title = vscode.l10n.t('Lab Data: Add the Lab This Folder Uses');
  const own = labs.all;
  // A lab of yours with the manifest's name at another address: the name alone joins nothing.
  const namesake = own.find(
    (connection) => connection.lab.name.toLowerCase() === offer.name.trim().toLowerCase(),
  );
  const elsewhere = namesake
    ? vscode.l10n.t(
        'You already have a lab named {0}, at {1}: this one is at another address, so it is not that lab unless you confirm it serves it.',
        namesake.lab.name,
        namesake.lab.url.origin,
      )
    : undefined;
  if (own.length > 0) {
    const choice = await prompts.pickOne(
      title,
      vscode.l10n.t(
        '{0} names the lab {1}, which this machine does not have',
        shown(manifest),
        named(offer),
      ),
      [
        // Enter cancels: adding a lab or joining one to an address from the repository is chosen.
        { id: CANCEL, label: vscode.l10n.t('Cancel') },
        {
          id: '',
          label: vscode.l10n.t('Add Lab {0}…', serverText(offer.name, 60)),
          description: offer.baseUrl,
          detail: [
            vscode.l10n.t('Asks for its access token, which is sent only to {0}.', offer.origin),
            ...(elsewhere ? [elsewhere] : []),
          ].join(' '),
        },
        ...own.map((connection) => ({
          id: connection.lab.name,
          label: vscode.l10n.t('{0} serves it', connection.lab.name),
          description: connection.lab.url.origin,
          detail: vscode.l10n.t(
            'The same lab at another address: remembered on this machine (labData.manifestLabs).',
          ),
        })),
      ],
      false,
      CANCEL,
    );
    if (choice === undefined || choice === null || choice === CANCEL) {
      return undefined;
    }
    if (choice !== '') {
      const serving = labs.get(choice);
      const confirmed =
        serving !== undefined &&
        (await prompts.confirm(
          vscode.l10n.t(
            'Does your lab {0} at {1} serve the lab at {2}?',
            choice,
            serving.lab.url.origin,
            offer.origin,
          ),
          vscode.l10n.t(
            '{0} names the lab “{1}” at {2}. Your lab {3} is at {4}. Confirm only if both addresses reach the same lab: reports of that section will then be asked of {4}, with your token for {3}.',
            shown(manifest),
            serverText(offer.name, 60),
            offer.origin,
            choice,
            serving.lab.url.origin,
          ),
          vscode.l10n.t('{0} Serves It', choice),
          // Enter declines: joining a repository's address to a lab of yours is chosen.
          { decline: vscode.l10n.t('Not the Same Lab') },
        ));
      if (!confirmed) {
        return undefined;
      }
      await rememberManifestLab(offer.origin, choice);
      return { manifestLab: offer.name, origin: offer.origin, lab: choice, added: false };
    }
  }
  const add = vscode.l10n.t('Add Lab');
  const confirmed = await prompts.confirm(
    vscode.l10n.t('Add the lab at {0}?', offer.baseUrl),
    [
      vscode.l10n.t(
        '{0} names the lab “{1}” at {2}. This address comes from the repository, not from you: add it only if it is your lab’s address. Your access token will be sent to {3} and nowhere else.',
        shown(manifest),
        serverText(offer.name, 60),
        offer.baseUrl,
        offer.origin,
      ),
      ...(elsewhere ? [elsewhere] : []),
    ].join(' '),
    add,
    // Enter declines: sending a token to an address from the repository is chosen, never defaulted.
    { decline: vscode.l10n.t('Don’t Add') },
  );
  if (!confirmed) {
    return undefined;
  }
  const name = offer.nameUsable
    ? offer.name.trim()
    : await prompts.text(
        title,
        vscode.l10n.t(
          'A name for the lab; the manifest calls it “{0}”, a name in use here',
          serverText(offer.name, 60),
        ),
        '',
        (value) =>
          labNameProblem(value)
            ? vscode.l10n.t('A lab name is 1 to 60 characters without control characters.')
            : labs.entries.some(
                  (entry) =>
                    (entry.kind === 'lab'
                      ? entry.connection.lab.name
                      : entry.lab.name
                    ).toLowerCase() === value.trim().toLowerCase(),
                )
              ? vscode.l10n.t('There is already a lab named {0}.', value.trim())
              : undefined,
      );
  if (name === undefined) {
    return undefined;
  }
  const entry = { name: name.trim(), baseUrl: offer.baseUrl };
  const { host } = parseBaseUrl(offer.baseUrl);
  const checked = await prompts.token(
    {
      title: `${title}: ${vscode.l10n.t('Access Token')}`,
      prompt: vscode.l10n.t(
        "Access token for {0} (stored in VS Code's secret storage, sent only to {1})",
        host,
        offer.origin,
      ),
      checking: vscode.l10n.t('Checking access to {0}…', host),
      problemOf: tokenProblem,
      checkConnection: () => checkFromTokenBox(offer.baseUrl),
    },
    (token, signal) =>
      labs
        .probe(entry, token, signal)
        .catch((error: unknown) => Promise.reject(rejectedToken(error, undefined))),
  );
  if (checked === undefined) {
    return undefined;
  }
  const result = signedInResult(await labs.addLab(entry, checked));
  return { manifestLab: offer.name, origin: offer.origin, lab: result.name, added: true };
}

/** A manifest's path as a person reads it: relative to its workspace folder. */
function shown(file: string): string {
  return vscode.workspace.asRelativePath(file, true);
}
