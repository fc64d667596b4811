import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { foldedFileName, renderFileName } from '../files/fileNames';
import {
  labEntries,
  type LabEntry,
  type LabSection,
  type ManifestEntry,
  type SyncManifest,
} from './manifestModel';
import { DEFAULT_FILE_NAME_TEMPLATE } from './reportFiles';

/** The file name with a folder per lab: two labs' one report id never share a file. */
export const PER_LAB_TEMPLATE = '${lab}/${report_id}.pdf';

/**
 * How a folder's files are laid out: all in the folder (`flat`), or each lab's in a folder named
 * after it (`perLab`).
 */
export type FolderLayout = 'flat' | 'perLab';

/** The folder `${lab}` names for a lab, as {@link PER_LAB_TEMPLATE} renders it. */
function labFolderName(lab: string): string {
  return renderFileName(PER_LAB_TEMPLATE, { lab, report_id: 'x' }).split('/')[0]!;
}

/**
 * The layout a folder's manifest records: `perLab` when more of its files sit in their lab's
 * folder than directly in the folder, `flat` otherwise; undefined when it records no file. Files
 * in other subfolders (a template of the user's) count for neither. A folder that was flat stays
 * flat when a second lab is added, and one saved per lab stays so.
 */
export function recordedLayout(manifest: SyncManifest): FolderLayout | undefined {
  let flat = 0;
  let perLab = 0;
  for (const [lab, section] of Object.entries(manifest.labs)) {
    const own = `${labFolderName(lab)}/`;
    for (const id in section.files) {
      const file = section.files[id]!.file;
      if (!file.includes('/')) {
        flat += 1;
      } else if (file.startsWith(own) && !file.slice(own.length).includes('/')) {
        perLab += 1;
      }
    }
  }
  if (flat === 0 && perLab === 0) {
    return undefined;
  }
  return perLab > flat ? 'perLab' : 'flat';
}

/**
 * The file-name template of a folder without a template of the user's: the layout its manifest
 * records; for a folder that records nothing yet, a folder per lab while several labs are signed
 * in, else flat. The layout is the folder's, not a function of how many labs this machine knows.
 */
export function folderTemplate(manifest: SyncManifest | undefined, severalLabs: boolean): string {
  const layout = (manifest && recordedLayout(manifest)) ?? (severalLabs ? 'perLab' : 'flat');
  return layout === 'perLab' ? PER_LAB_TEMPLATE : DEFAULT_FILE_NAME_TEMPLATE;
}

/**
 * The names a folder's manifest gives files, for one save: this lab's recorded reports (each keeps
 * its file) and, case-folded, the files other labs' reports hold.
 */
export interface RecordedNames {
  /** This lab's entries, by report id: only those saved from this lab's own file endpoint. */
  readonly own: Readonly<Record<string, ManifestEntry>>;
  readonly othersFiles: ReadonlySet<string>;
}

/**
 * The {@link RecordedNames} of `section` in `manifest` (the section as `sectionFor` finds it).
 * With `sourceOf` (the lab's file endpoint for an id), an entry saved from another endpoint is
 * another lab's (two labs at one origin share a section): its file is not this lab's to take.
 */
export function recordedNames(
  manifest: SyncManifest,
  section: LabSection,
  sourceOf?: (reportId: string) => string,
): RecordedNames {
  const own: Record<string, ManifestEntry> = {};
  const othersFiles = new Set<string>();
  for (const other of Object.values(manifest.labs)) {
    for (const id in other.files) {
      const entry = other.files[id]!;
      if (other === section && (!sourceOf || entry.source === sourceOf(id))) {
        own[id] = entry;
      } else {
        othersFiles.add(foldedFileName(entry.file));
      }
    }
  }
  return { own, othersFiles };
}

/**
 * The name a report takes when another lab's report holds its name in the folder: the lab's name
 * added to it (`RPT-1 (Beta).pdf`), so neither file replaces the other.
 */
export function nameBesideOtherLab(fileName: string, lab: string): string {
  const dir = path.posix.dirname(fileName);
  const ext = path.posix.extname(fileName);
  const stem = path.posix.basename(fileName, ext);
  const besides = renderFileName('${report_id} (${lab})' + ext, { report_id: stem, lab });
  return dir === '.' ? besides : `${dir}/${besides}`;
}

/**
 * The entries of a manifest whose files are not in the folder: one listing per folder a file is
 * in, no file read or hashed, no lab asked. Names compare as the file system compares them
 * (without case where it ignores case), so a file of another case is not counted missing.
 */
export async function missingFiles(folder: string, manifest: SyncManifest): Promise<LabEntry[]> {
  const insensitive = process.platform === 'win32' || process.platform === 'darwin';
  const fold = (name: string): string => (insensitive ? foldedFileName(name) : name);
  const listings = new Map<string, Promise<Set<string>>>();
  const listing = (subfolder: string): Promise<Set<string>> => {
    let found = listings.get(subfolder);
    if (!found) {
      found = fs.readdir(path.join(folder, subfolder)).then(
        (names) => new Set(names.map(fold)),
        () => new Set<string>(),
      );
      listings.set(subfolder, found);
    }
    return found;
  };
  const missing: LabEntry[] = [];
  for (const item of labEntries(manifest)) {
    const file = item.entry.file;
    if (!(await listing(path.posix.dirname(file))).has(fold(path.posix.basename(file)))) {
      missing.push(item);
    }
  }
  return missing;
}
