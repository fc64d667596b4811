import * as vscode from 'vscode';
import { SETTINGS_SECTION, Settings } from '../constants';
import { ContentCache, defaultCacheFolder } from '../../core/files/contentCache';
import { isCacheAddress, type FileCache } from '../../core/files/fileCache';
import { cacheAddressProblem, cacheAuthorization, HttpCache } from '../../core/files/httpCache';
import { LayeredCache } from '../../core/files/layeredCache';
import type { NetworkSettings } from '../labs/networkSettings';
import type { Logger } from '../log';
import type { Prompts } from '../ui/prompts';

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

/**
 * The content cache a Save or Restore runs with: `labData.cacheFolder` (a machine setting, so a
 * repository's settings cannot redirect it): a folder someone chose (perhaps shared), or a team
 * server's address, with its own token (Set Team Cache Token, else `LAB_DATA_CACHE_TOKEN` or
 * ~/.netrc as for lab-data), read through the user's own cache folder and never written by a Save or
 * Restore; else the user's own cache folder, the one `lab-data` uses. A server's
 * cache holds connections: the caller closes it when the run ends.
 */
export async function contentCache(log: Logger): Promise<FileCache> {
  const chosen = vscode.workspace
    .getConfiguration(SETTINGS_SECTION)
    .get<string>(Settings.cacheFolder, '')
    .trim();
  const warn = (message: string): void => log.warn('Cache', message);
  if (chosen && isCacheAddress(chosen)) {
    const problem = cacheAddressProblem(chosen);
    if (!problem) {
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
        new HttpCache(chosen, {
          authorization,
          network: services?.network.options,
          transport: services?.network.transportFactory(),
          userAgent: `lab-data-vscode (VS Code ${vscode.version})`,
          warn,
        }),
      );
    }
    // An address that may not be used (a token in it, http:// to another machine): said, and the user's own folder serves.
    warn(
      `labData.cacheFolder cannot be used: ${problem}; the user's own cache folder is used instead.`,
    );
    return new ContentCache(defaultCacheFolder(), { warn });
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

/**
 * Lab Data: Set Team Cache Token: asks for the team cache server's token (never a lab's) and keeps
 * it in SecretStorage; an empty answer removes it. Undefined when the user cancelled.
 */
export async function setCacheToken(prompts: Prompts): Promise<boolean | undefined> {
  if (!services) {
    return undefined;
  }
  const token = await prompts.cacheToken();
  if (token === undefined) {
    return undefined;
  }
  if (token.trim() === '') {
    await services.secrets.delete(CACHE_TOKEN_KEY);
    void vscode.window.showInformationMessage(vscode.l10n.t('The team cache token was removed.'));
    return false;
  }
  await services.secrets.store(CACHE_TOKEN_KEY, token.trim());
  void vscode.window.showInformationMessage(vscode.l10n.t('The team cache token was saved.'));
  return true;
}
