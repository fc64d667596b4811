import * as vscode from 'vscode';
import type { LabApi } from '../../core/api/labApi';
import type { LabKey } from '../../core/sync/manifestModel';
import { readManifest } from '../../core/sync/manifest';
import {
  labServing,
  preferredLabs,
  type MachineLab,
  type ManifestLabMap,
} from '../../core/sync/manifestLabs';
import { SETTINGS_SECTION, Settings } from '../constants';
import type { LabConnection } from './labConnection';
import type { Labs } from './labs';

/** Every lab of this machine, as the core matches them to a manifest's labs. */
export function machineLabs(labs: Labs): MachineLab[] {
  return labs.all.map((connection) => ({
    name: connection.lab.name,
    origin: connection.lab.url.origin,
    signedIn: connection.signedIn,
  }));
}

/**
 * `labData.manifestLabs`: which lab of this machine serves a repository's lab (a manifest's origin
 * → a lab name), for a lab this machine reaches at another address. Application-scoped and read
 * from the user's own settings only, so a repository cannot point its lab at one of yours; names
 * and addresses only, never a token.
 */
export function rememberedManifestLabs(): ManifestLabMap {
  const value = vscode.workspace
    .getConfiguration(SETTINGS_SECTION)
    .inspect<unknown>(Settings.manifestLabs)?.globalValue;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {};
  }
  return Object.fromEntries(
    Object.entries(value).filter(
      (pair): pair is [string, string] => typeof pair[1] === 'string' && pair[1].trim() !== '',
    ),
  );
}

/** Remembers, in the user's settings, that `lab` of this machine serves the repositories' lab at `origin`. */
export async function rememberManifestLab(origin: string, lab: string): Promise<void> {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  await config.update(
    Settings.manifestLabs,
    { ...rememberedManifestLabs(), [origin]: lab },
    vscode.ConfigurationTarget.Global,
  );
}

/**
 * The signed-in client of the lab of this machine that serves a manifest's lab (by its address,
 * or as remembered in `labData.manifestLabs`); none when no lab of this machine serves it, so no
 * token goes where the user did not sign in.
 */
export function apiServing(labs: Labs, key: LabKey): LabApi | undefined {
  const signedIn = machineLabs(labs).filter((lab) => lab.signedIn);
  const lab = labServing(key, signedIn, rememberedManifestLabs());
  // Restore, Verify's fixes and the Saved Reports view's runs are background work: they retry.
  return lab ? labs.get(lab.name)?.backgroundApi : undefined;
}

/**
 * The lab of this machine that serves a manifest's section, signed in or not: the one at its
 * address, or the one the user confirmed serves it (`labData.manifestLabs`). Never a lab chosen by
 * the section's name alone: a repository's lab name must not send a request to one of your labs.
 * `origin` is the section's; without it, the origin of the section the folder's manifest names
 * `name`.
 */
export async function connectionServing(
  labs: Labs,
  folder: string,
  name: string,
  origin?: string,
): Promise<{ origin: string; connection?: LabConnection } | undefined> {
  const at =
    origin || (await readManifest(folder).catch(() => undefined))?.labs[name]?.origin || undefined;
  if (at === undefined) {
    return undefined;
  }
  const lab = labServing({ name, origin: at }, machineLabs(labs), rememberedManifestLabs());
  return { origin: at, connection: lab ? labs.get(lab.name) : undefined };
}

/**
 * The labs of this machine that `folders`' manifests name (their own labs), by name: each folder's
 * in turn, the lab with the most files first, each lab once. A folder without a readable manifest
 * names none.
 */
export async function labsOfFolders(labs: Labs, folders: readonly string[]): Promise<string[]> {
  const names: string[] = [];
  const own = machineLabs(labs);
  const remembered = rememberedManifestLabs();
  for (const folder of new Set(folders)) {
    const manifest = await readManifest(folder).catch(() => undefined);
    for (const name of manifest ? preferredLabs([manifest], own, remembered) : []) {
      if (!names.includes(name)) {
        names.push(name);
      }
    }
  }
  return names;
}
