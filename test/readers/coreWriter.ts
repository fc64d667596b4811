import { promises as fs } from 'node:fs';
import { LabApi } from '../../core/api/labApi';
import { defaultLabDefinition } from '../../core/api/labDefinition';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { saveReports } from '../../core/sync/bulkSave';
import { listAllReports, syncFolder } from '../../core/sync/folderSync';
import { readManifestStrictly } from '../../core/sync/manifest';
import { pullFolder } from '../../core/sync/pull';

/**
 * Syncs a folder from a lab through the core the extension uses (its Sync Folder command's
 * steps), every report at once: the manifest it writes is the extension's.
 */
export async function syncWithCore(api: LabApi, folder: string, template: string): Promise<number> {
  await fs.mkdir(folder, { recursive: true });
  const target = { folder, template };
  const result = await syncFolder(api, target, {
    list: (query) => listAllReports(api, { ...query, pageSize: 100 }),
    save: (reports, decide) =>
      saveReports(reports, {
        api,
        target,
        decide,
        signal: new AbortController().signal,
        concurrency: 4,
      }),
    confirm: async () => true,
  });
  return result.files;
}

/**
 * Takes the lab's amendments into a folder through the core (the extension's Restore with update,
 * `lab-data pull --update`): the amended reports' entries record their new revision.
 */
export async function updateWithCore(api: LabApi, folder: string): Promise<void> {
  const { manifest, problems } = await readManifestStrictly(folder);
  if (!manifest) {
    throw new Error(`the manifest of ${folder} cannot be used: ${JSON.stringify(problems)}`);
  }
  const origin = api.origin;
  await pullFolder(folder, manifest, {
    apiFor: (_lab, labOrigin) => (labOrigin === origin ? api : undefined),
    update: true,
  });
}

/** A client of a mock lab under a name of the test's (two labs on one host get two names). */
export function namedLabApi(baseUrl: string, name: string, token: string): LabApi {
  return new LabApi({
    token,
    lab: defaultLabDefinition(parseBaseUrl(baseUrl), name),
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
  });
}
