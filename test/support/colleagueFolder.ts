import type { LabApi } from '../../core/api/labApi';
import type { Report } from '../../core/api/records';
import type { FileCache } from '../../core/files/fileCache';
import { saveReports } from '../../core/sync/bulkSave';
import { syncFolder } from '../../core/sync/folderSync';
import { DEFAULT_FILE_NAME_TEMPLATE } from '../../core/sync/reportFiles';

/**
 * A colleague's folder, as `lab-data sync` leaves it (the same core sync the tool runs): `reports`
 * saved into `folder` under the default names and recorded in its manifest, each file also kept in
 * `cache` when one is given.
 */
export async function syncedAsColleague(
  api: LabApi,
  folder: string,
  reports: readonly Report[],
  cache?: FileCache,
): Promise<void> {
  const target = { folder, template: DEFAULT_FILE_NAME_TEMPLATE };
  await syncFolder(api, target, {
    list: async () => [...reports],
    save: (list, decide) =>
      saveReports(list, {
        api,
        target,
        decide,
        signal: new AbortController().signal,
        concurrency: 4,
        ...(cache ? { cache } : {}),
      }),
    filtered: true,
  });
}
