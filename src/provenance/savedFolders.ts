import * as path from 'node:path';
import * as vscode from 'vscode';
import { CLONE_PROFILE_FILE, selectionOfFolder } from '../../core/derived/selection';
import { LOCAL_FOLDER } from '../../core/sync/localState';
import { namesMergeDriver } from '../../core/sync/gitState';
import {
  MANIFEST_FILE_NAME,
  readManifestStrictly,
  type SyncManifest,
} from '../../core/sync/manifest';
import { manifestProblemText } from '../../core/sync/manifestProblems';
import { folderStatus, type EntryStatus, type FolderStatus } from '../../core/sync/status';
import { errorText } from '../../core/errors/errorText';
import { isVirtualWorkspace } from '../downloads/diskFolders';
import { withContentCache } from '../downloads/teamCache';
import type { Labs } from '../labs/labs';
import { apiServing, machineLabs, rememberedManifestLabs } from '../labs/manifestLabs';
import { labServing } from '../../core/sync/manifestLabs';
import type { Logger } from '../log';
import type {
  SavedEntryRow,
  SavedEntryState,
  SavedFolderRows,
  SavedFoldersSource,
} from '../views/savedReportsView';

/** How long file events are gathered before the view reads the folders again. */
const DEBOUNCE_MS = 250;

/** What the last explicit check of the lab found for a folder. */
interface LabCheck {
  readonly at: Date;
  /** By `lab`, report id and recorded revision: a later record is not said to be amended. */
  readonly entries: ReadonlyMap<string, EntryStatus>;
}

const keyOf = (lab: string, reportId: string, revision: string | undefined): string =>
  `${lab}\0${reportId}\0${revision ?? ''}`;

/** The state a row shows for one entry: the local one first, then what the lab said when asked. */
function stateOf(entry: EntryStatus, checked: EntryStatus | undefined): SavedEntryState {
  if (entry.local === 'missing') {
    return entry.cached ? 'missingCached' : 'missingLab';
  }
  if (entry.local === 'changed') {
    return 'changed';
  }
  return checked?.remote === 'amended'
    ? 'amended'
    : checked?.remote === 'notListed'
      ? 'notListed'
      : 'inStep';
}

/**
 * The manifest restricted to the folder's profile (the clone's own `.lab-data/profile`, else the
 * default of `lab-data-profiles.json`: the core's one rule, without the command line's flag and
 * variable), and the entries it leaves out; the whole manifest without one, or when the profile
 * file is unusable (Verify and Restore say why).
 */
async function selected(
  folder: string,
  manifest: SyncManifest,
): Promise<{ manifest: SyncManifest; notSelected: SavedEntryRow[] }> {
  try {
    // No profile: every report is selected, and ten thousand entries are not copied.
    const chosen = await selectionOfFolder(folder, manifest, { flags: {}, flagsSaid: '' });
    if (!chosen.selection) {
      return { manifest, notSelected: [] };
    }
    const notSelected: SavedEntryRow[] = [];
    for (const [lab, section] of Object.entries(manifest.labs)) {
      const kept = chosen.manifest.labs[lab]?.files ?? {};
      for (const [reportId, entry] of Object.entries(section.files)) {
        if (!(reportId in kept)) {
          notSelected.push({
            lab,
            origin: section.origin,
            reportId,
            file: entry.file,
            state: 'notSelected',
            recordedRevision: entry.revision,
          });
        }
      }
    }
    return { manifest: chosen.manifest, notSelected };
  } catch {
    return { manifest, notSelected: [] };
  }
}

/**
 * Each manifest of the workspace and its folder's state, for the Saved Reports view: read from the
 * disk and one listing of the cache (the core's `folderStatus`, as `lab-data status` reads it; the
 * size and time shortcut, no hashing of files in step), never from the lab unless
 * {@link checkLab} is asked. Follows the manifests, profiles and PDFs through a file watcher.
 */
export class SavedFolderStates implements SavedFoldersSource, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private manifests: Promise<string[]> | undefined;
  private readonly states = new Map<string, Promise<SavedFolderRows>>();
  private readonly checks = new Map<string, LabCheck>();
  private readonly stale = new Set<string>();
  private readonly driverAsked = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly labs: Labs,
    private readonly log: Logger,
    /** Told once per folder in a git repository whose attributes name no merge driver. */
    private readonly onNoMergeDriver: (folder: string) => void = () => undefined,
  ) {
    const watcher = vscode.workspace.createFileSystemWatcher(
      `**/{${MANIFEST_FILE_NAME},lab-data-profiles.json,*.pdf,*.PDF}`,
    );
    const index = vscode.workspace.createFileSystemWatcher('**/.git/index');
    // The clone's own profile (`lab-data profile use`), in the folder's .lab-data/.
    const cloneProfile = vscode.workspace.createFileSystemWatcher(
      `**/${LOCAL_FOLDER}/${CLONE_PROFILE_FILE}`,
    );
    const changedFile = (uri: vscode.Uri): void => this.fileChanged(uri);
    this.disposables.push(
      watcher,
      index,
      cloneProfile,
      watcher.onDidCreate(changedFile),
      watcher.onDidChange(changedFile),
      watcher.onDidDelete(changedFile),
      cloneProfile.onDidCreate(changedFile),
      cloneProfile.onDidChange(changedFile),
      cloneProfile.onDidDelete(changedFile),
      index.onDidChange(() => this.allChanged()),
      index.onDidCreate(() => this.allChanged()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.allChanged(true)),
      // Which lab of this machine serves each manifest's lab follows sign-ins and lab changes.
      labs.onDidChange(() => this.allChanged()),
    );
  }

  async folders(): Promise<readonly SavedFolderRows[]> {
    // A virtual workspace holds no folder on disk to list (its welcome says so).
    this.manifests ??= Promise.resolve(
      isVirtualWorkspace()
        ? []
        : vscode.workspace.findFiles(`**/${MANIFEST_FILE_NAME}`, '**/node_modules/**', 1000),
    ).then((found) => [...new Set(found.map((uri) => path.dirname(uri.fsPath)))].sort());
    const folders = await this.manifests;
    return Promise.all(folders.map((folder) => this.folder(folder)));
  }

  /** A folder's rows, read once until a file of it changes. */
  folder(folder: string): Promise<SavedFolderRows> {
    const key = path.resolve(folder);
    let state = this.states.get(key);
    if (!state || this.stale.delete(key)) {
      state = this.read(key).catch((error: unknown): SavedFolderRows => ({
        folder: key,
        label: this.labelOf(key),
        problem: { kind: 'other', text: errorText(error) },
        labs: [],
      }));
      this.states.set(key, state);
    }
    return state;
  }

  /**
   * Asks the labs of each folder (or one) about amendments: their list pages, one request a page
   * (the core's `folderStatus` with the labs), only labs signed in at the manifest's address.
   */
  async checkLab(
    folders: readonly string[],
    signal?: AbortSignal,
  ): Promise<{ amended: number; notListed: number; unavailable: string[] }> {
    let amended = 0;
    let notListed = 0;
    const unavailable: string[] = [];
    for (const folder of folders.map((each) => path.resolve(each))) {
      const { manifest } = await readManifestStrictly(folder);
      if (!manifest) {
        continue;
      }
      const status = await folderStatus(folder, manifest, {
        apiFor: (name, origin) => apiServing(this.labs, { name, origin }),
        signal,
      });
      const entries = new Map<string, EntryStatus>();
      for (const entry of status.entries) {
        entries.set(keyOf(entry.lab, entry.reportId, entry.recordedRevision), entry);
        amended += entry.remote === 'amended' ? 1 : 0;
        notListed += entry.remote === 'notListed' ? 1 : 0;
      }
      unavailable.push(...status.unavailable.map((lab) => `${lab.lab}: ${lab.reason}`));
      this.checks.set(folder, { at: new Date(), entries });
      this.stale.add(folder);
    }
    this.changed.fire();
    return { amended, notListed, unavailable };
  }

  /** Reads a folder again now (after an action of the view), without waiting for the watcher. */
  refresh(folder?: string): void {
    if (folder === undefined) {
      this.allChanged(true);
      return;
    }
    this.stale.add(path.resolve(folder));
    this.changed.fire();
  }

  private async read(folder: string): Promise<SavedFolderRows> {
    const label = this.labelOf(folder);
    const { manifest, problems } = await readManifestStrictly(folder);
    if (!manifest) {
      const problem = problems[0];
      const kind =
        problem?.kind === 'unmerged' ||
        problem?.kind === 'conflict' ||
        problem?.kind === 'lostMerge'
          ? problem.kind
          : 'other';
      return {
        folder,
        label,
        problem: { kind, text: problems.map(manifestProblemText).join(' ') },
        labs: [],
      };
    }
    void this.offerMergeDriver(folder);
    const chosen = await selected(folder, manifest);
    const status: FolderStatus = await withContentCache(this.log, (cache) =>
      folderStatus(folder, chosen.manifest, { cache }),
    );
    const check = this.checks.get(folder);
    const rows = new Map<string, SavedEntryRow[]>();
    const add = (row: SavedEntryRow): void => {
      const key = `${row.lab}\0${row.origin}`;
      const list = rows.get(key) ?? [];
      list.push(row);
      rows.set(key, list);
    };
    for (const entry of status.entries) {
      const checked = check?.entries.get(keyOf(entry.lab, entry.reportId, entry.recordedRevision));
      add({
        lab: entry.lab,
        origin: entry.origin,
        reportId: entry.reportId,
        file: entry.file,
        state: stateOf(entry, checked),
        recordedRevision: entry.recordedRevision,
        ...(checked?.labRevision ? { labRevision: checked.labRevision } : {}),
        ...(checked?.changes ? { changes: checked.changes } : {}),
      });
    }
    chosen.notSelected.forEach(add);
    return {
      folder,
      label,
      labs: Object.entries(manifest.labs).map(([lab, section]) => ({
        lab,
        origin: section.origin,
        entries: rows.get(`${lab}\0${section.origin}`) ?? [],
        served:
          labServing(
            { name: lab, origin: section.origin },
            machineLabs(this.labs),
            rememberedManifestLabs(),
          ) !== undefined,
      })),
      ...(check ? { checkedAtLab: check.at } : {}),
    };
  }

  private async offerMergeDriver(folder: string): Promise<void> {
    // Once a session per folder: git is not run again at every change of its files.
    if (this.driverAsked.has(folder)) {
      return;
    }
    this.driverAsked.add(folder);
    if ((await namesMergeDriver(path.join(folder, MANIFEST_FILE_NAME))) === false) {
      this.onNoMergeDriver(folder);
    }
  }

  private labelOf(folder: string): string {
    const several = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
    const relative = vscode.workspace.asRelativePath(folder, several);
    return relative === folder ? path.basename(folder) : relative;
  }

  private fileChanged(uri: vscode.Uri): void {
    if (uri.scheme !== 'file') {
      return;
    }
    const name = path.basename(uri.fsPath);
    if (name === MANIFEST_FILE_NAME) {
      // A manifest created or deleted: the list of folders changes too.
      this.manifests = undefined;
    }
    for (const folder of this.states.keys()) {
      if (uri.fsPath === folder || uri.fsPath.startsWith(`${folder}${path.sep}`)) {
        this.stale.add(folder);
      }
    }
    this.soon();
  }

  private allChanged(folders = false): void {
    if (folders) {
      this.manifests = undefined;
    }
    for (const folder of this.states.keys()) {
      this.stale.add(folder);
    }
    this.soon();
  }

  /** One change event for a burst of file events (a restore writes hundreds). */
  private soon(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.changed.fire();
    }, DEBOUNCE_MS);
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
