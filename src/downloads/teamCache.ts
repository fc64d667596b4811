import * as path from 'node:path';
import * as vscode from 'vscode';
import { Commands, SETTINGS_SECTION, Settings } from '../constants';
import { ContentCache, defaultCacheFolder } from '../../core/files/contentCache';
import { isCacheAddress, type FileCache } from '../../core/files/fileCache';
import { cacheAddressProblem, cacheAuthorization, HttpCache } from '../../core/files/httpCache';
import { LayeredCache } from '../../core/files/layeredCache';
import type { NetworkSettings } from '../labs/networkSettings';
import type { Logger } from '../log';
import type { Prompts } from '../ui/prompts';
import { showWarning } from '../ui/phrase';
import { serverText } from '../../core/errors/serverText';

/** Where the team cache's token is kept: SecretStorage, under a key no lab's token uses. */
const CACHE_TOKEN_KEY = 'labData.teamCacheToken';

/** What a team cache on a server needs from the window: its token's store and the network settings. */
let services:
  { readonly secrets: vscode.SecretStorage; readonly network: NetworkSettings } | undefined;

/** Wired once at activation (extension.ts). */
export function useTeamCacheServices(
  secrets: vscode.SecretStorage,
  network: NetworkSettings,
): void {
  services = { secrets, network };
}

/** The `labData.cacheFolder` setting as written (trimmed); empty when unset. */
function chosenCache(): string {
  return vscode.workspace
    .getConfiguration(SETTINGS_SECTION)
    .get<string>(Settings.cacheFolder, '')
    .trim();
}

/**
 * Why `labData.cacheFolder` cannot be used, or undefined when it can: an absolute folder path, or a
 * team server's `https://` address (`http://` to this machine only, no credentials in it). A
 * relative path would be taken from wherever VS Code was started, and any other scheme (`ftp://`)
 * is no team cache: both are refused, and the user's own cache folder serves instead.
 */
export function cacheSettingProblem(chosen: string): string | undefined {
  if (chosen === '') {
    return undefined;
  }
  if (isCacheAddress(chosen)) {
    return cacheAddressProblem(chosen);
  }
  return path.isAbsolute(chosen)
    ? undefined
    : vscode.l10n.t(
        '"{0}" is neither an absolute folder path nor an https:// address',
        serverText(chosen, 80),
      );
}

/** The setting's value a refusal was said for: said once, not at every Save. */
let refusalSaidFor: string | undefined;

/** Says once, naming the setting, that `labData.cacheFolder` is refused and why, with Open Settings. */
function sayRefusedSetting(chosen: string, problem: string, log: Logger): void {
  const text = vscode.l10n.t(
    'The setting labData.cacheFolder cannot be used: {0}. Your own cache folder is used instead; set a folder path or an https:// address.',
    problem,
  );
  log.warn('Cache', text);
  if (refusalSaidFor === chosen) {
    return;
  }
  refusalSaidFor = chosen;
  const open = vscode.l10n.t('Open Settings');
  void showWarning(text, open).then((choice) =>
    choice === open
      ? vscode.commands.executeCommand(
          'workbench.action.openSettings',
          `${SETTINGS_SECTION}.${Settings.cacheFolder}`,
        )
      : undefined,
  );
}

/** A team server's cache with the window's network settings (VS Code's network stack). */
function teamServer(address: string, authorization: string | undefined, log: Logger): HttpCache {
  return new HttpCache(address, {
    authorization,
    network: services?.network.options,
    transport: services?.network.transportFactory(),
    userAgent: `lab-data-vscode (VS Code ${vscode.version})`,
    warn: (message) => log.warn('Cache', message),
    credentialsAdvice: 'set its token with Lab Data: Set Team Cache Token',
  });
}

/**
 * The content cache a Save or Restore runs with: `labData.cacheFolder` (a machine setting, so a
 * repository's settings cannot redirect it): a folder someone chose (perhaps shared), or a team
 * server's address, with its own token (Set Team Cache Token, else `LAB_DATA_CACHE_TOKEN` or
 * ~/.netrc as for lab-data), read through the user's own cache folder and never written by a Save or
 * Restore; else the user's own cache folder, the one `lab-data` uses. A value that is neither an
 * absolute folder nor a usable address is refused (said once) and the user's own folder serves. A
 * server's cache holds connections: the caller closes it when the run ends.
 */
export async function contentCache(log: Logger): Promise<FileCache> {
  const chosen = chosenCache();
  const warn = (message: string): void => log.warn('Cache', message);
  const problem = cacheSettingProblem(chosen);
  if (problem !== undefined) {
    sayRefusedSetting(chosen, problem, log);
    return new ContentCache(defaultCacheFolder(), { warn });
  }
  if (chosen && isCacheAddress(chosen)) {
    const stored = await services?.secrets.get(CACHE_TOKEN_KEY).then(
      (token) => token,
      () => undefined,
    );
    log.addSecret(stored ?? '');
    const authorization = stored
      ? `Bearer ${stored}`
      : cacheAuthorization(new URL(chosen), process.env)?.header;
    // The user's own cache folder in front of the server: Restore reads it first, and Save and
    // Restore keep files there alone; only Push to Team Cache publishes to the server.
    return new LayeredCache(
      new ContentCache(defaultCacheFolder(), { warn }),
      teamServer(chosen, authorization, log),
    );
  }
  return new ContentCache(chosen || defaultCacheFolder(), { shared: chosen !== '', warn });
}

/** Runs `work` with the content cache, and lets go of its connections afterwards. */
export async function withContentCache<T>(
  log: Logger,
  work: (cache: FileCache) => Promise<T>,
): Promise<T> {
  const cache = await contentCache(log);
  try {
    return await work(cache);
  } finally {
    await cache.close().catch(() => undefined);
  }
}

/** Why a team server was not used or not written, in the extension's words. */
export interface TeamCacheCause {
  /** One sentence naming the cache's address and its cause, first in a message. */
  readonly sentence: string;
  /** Whether its credentials are the cause (refused with 401/403): Set Team Cache Token helps. */
  readonly credentials: boolean;
}

/** The team server's address when a run read it without trouble (a server, not a folder). */
export function readableTeamCache(cache: FileCache): string | undefined {
  return isCacheAddress(cache.location) && !cache.readRefused && cache.readProblem === undefined
    ? cache.location
    : undefined;
}

/**
 * What a run learned of a team server that it could not read (down, silent, refusing the
 * credentials) or, with `writing`, not write: undefined for a folder, or a server that answered.
 */
export function teamCacheCause(cache: FileCache, writing = false): TeamCacheCause | undefined {
  if (!isCacheAddress(cache.location)) {
    return undefined;
  }
  if (cache.readRefused) {
    return {
      sentence: vscode.l10n.t(
        'The team cache at {0} refused the credentials ({1}): set its token with Set Team Cache Token.',
        cache.location,
        cache.readStatus ?? 401,
      ),
      credentials: true,
    };
  }
  if (cache.readProblem !== undefined) {
    return {
      sentence: vscode.l10n.t(
        'The team cache at {0} could not be used: {1}.',
        cache.location,
        serverText(cache.readProblem, 300),
      ),
      credentials: false,
    };
  }
  const status = cache.writeStatus;
  if (writing && (status === 401 || status === 403)) {
    return {
      sentence: vscode.l10n.t(
        'The team cache at {0} refused to take files with these credentials ({1}): set a token that may write with Set Team Cache Token.',
        cache.location,
        status,
      ),
      credentials: true,
    };
  }
  if (writing && cache.writeProblem !== undefined) {
    return {
      sentence: vscode.l10n.t(
        'The team cache at {0} cannot be written: {1}.',
        cache.location,
        serverText(cache.writeProblem, 300),
      ),
      credentials: false,
    };
  }
  return undefined;
}

/**
 * A warning that leads with a team cache's cause, with Set Team Cache Token when credentials are
 * the cause, and Show Log.
 */
export async function sayTeamCacheTrouble(
  text: string,
  cause: TeamCacheCause | undefined,
  log: Logger,
): Promise<void> {
  const setToken = vscode.l10n.t('Set Team Cache Token');
  const showLog = vscode.l10n.t('Show Log');
  const choice = await showWarning(text, ...(cause?.credentials ? [setToken] : []), showLog);
  if (choice === setToken) {
    await vscode.commands.executeCommand(Commands.setCacheToken);
  } else if (choice === showLog) {
    log.show();
  }
}

/** A token the team cache refused (401/403) when it was checked: its sentence is shown under the token. */
class CacheTokenRefused extends Error {}

/** What the check of a token came to: accepted, or the server could not be asked (why). */
type TokenCheck =
  | { readonly kind: 'saved' }
  | { readonly kind: 'unchecked'; readonly reason: string; readonly token: string };

/**
 * Lab Data: Set Team Cache Token: asks for the team cache server's token (never a lab's) in a box
 * that names the server's address, checks it with one request to that server before keeping it in
 * SecretStorage (a refusal keeps the box open, with the token and the reason; a server out of
 * reach is said, and the token saved only if the user says so); an empty answer removes it.
 * Resolves to whether a token is kept now; undefined when the user cancelled.
 */
export async function setCacheToken(prompts: Prompts, log: Logger): Promise<boolean | undefined> {
  if (!services) {
    return undefined;
  }
  const secrets = services.secrets;
  const chosen = chosenCache();
  const address =
    chosen && isCacheAddress(chosen) && cacheAddressProblem(chosen) === undefined
      ? new URL(chosen).href.replace(/\/+$/, '')
      : undefined;
  const title = address
    ? vscode.l10n.t('Lab Data: Set Team Cache Token for {0}', address)
    : vscode.l10n.t('Lab Data: Set Team Cache Token');
  const answer = await prompts.token<TokenCheck | 'removed'>(
    {
      title,
      prompt: address
        ? vscode.l10n.t(
            "The token of the team cache at {0} (not a lab's token), checked there before it is kept in VS Code's secret storage. Leave empty to remove it.",
            address,
          )
        : vscode.l10n.t(
            "The token of the team cache server (not a lab's token) for when labData.cacheFolder is its address; kept in VS Code's secret storage. Leave empty to remove it.",
          ),
      checking: vscode.l10n.t('Checking the token with {0}…', address ?? ''),
      acceptsEmpty: true,
      problemOf: (error) => (error instanceof CacheTokenRefused ? error.message : undefined),
    },
    async (typed, signal) => {
      const token = typed.trim();
      if (token === '') {
        await secrets.delete(CACHE_TOKEN_KEY);
        return 'removed';
      }
      log.addSecret(token);
      if (address === undefined) {
        await secrets.store(CACHE_TOKEN_KEY, token);
        return { kind: 'saved' };
      }
      const checked = await checkCacheToken(address, token, log, signal);
      if (checked.kind === 'saved') {
        await secrets.store(CACHE_TOKEN_KEY, token);
      }
      return checked;
    },
  );
  if (answer === undefined) {
    return undefined;
  }
  if (answer === 'removed') {
    void vscode.window.showInformationMessage(vscode.l10n.t('The team cache token was removed.'));
    return false;
  }
  if (answer.kind === 'unchecked') {
    const save = await prompts.confirm(
      vscode.l10n.t(
        'The team cache at {0} could not be reached, so the token was not checked. Save it anyway?',
        address ?? '',
      ),
      serverText(answer.reason, 300),
      vscode.l10n.t('Save Anyway'),
    );
    if (!save) {
      return undefined;
    }
    await secrets.store(CACHE_TOKEN_KEY, answer.token);
    void vscode.window.showInformationMessage(
      vscode.l10n.t('The team cache token was saved without a check.'),
    );
    return true;
  }
  void vscode.window.showInformationMessage(
    address
      ? vscode.l10n.t('The team cache token was saved; {0} accepts it.', address)
      : vscode.l10n.t('The team cache token was saved.'),
  );
  return true;
}

/**
 * One request to the team cache with `token` (a look for a file no one has): refused (401/403)
 * throws {@link CacheTokenRefused} with the sentence to show; a server that cannot be asked is
 * `unchecked`, with why. The token is in no sentence.
 */
async function checkCacheToken(
  address: string,
  token: string,
  log: Logger,
  signal: AbortSignal,
): Promise<TokenCheck> {
  const server = teamServer(address, `Bearer ${token}`, log);
  try {
    await server.has('0'.repeat(64));
    if (signal.aborted) {
      return { kind: 'unchecked', reason: vscode.l10n.t('stopped'), token };
    }
    if (server.readRefused) {
      throw new CacheTokenRefused(
        vscode.l10n.t(
          'The team cache at {0} refused this token ({1}). Check it, or press Escape.',
          address,
          server.readStatus ?? 401,
        ),
      );
    }
    if (server.readProblem !== undefined) {
      return { kind: 'unchecked', reason: server.readProblem, token };
    }
    return { kind: 'saved' };
  } finally {
    await server.close().catch(() => undefined);
  }
}
