import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** The files VS Code wrote the "Lab Data" log output channel to under a user-data folder (every window and extension host). */
export async function labDataLogFilesIn(userDataDir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(full);
      } else if (entry.name === 'Lab Data.log') {
        found.push(full);
      }
    }
  };
  await walk(path.join(userDataDir, 'logs'));
  return found;
}
