import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { VerifiedFile } from '../../core/sync/provenance';
import { MANIFEST_FILE_NAME, readManifest } from '../../core/sync/manifest';
import { currentSha256s } from '../../core/sync/currentHashes';
import { errorText } from '../../core/errors/errorText';
import { SETTINGS_SECTION, Settings } from '../constants';
import { downloadTargetIn } from '../downloads/targetFolder';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import type { SavedReportLookup, SavedReportState } from '../views/savedState';
import type { SavedReportFindings } from './savedReports';

/** One file a folder's manifest records, as it is now. */
export interface SavedFile {
  readonly folder: string;
  /** Its full path. */
  readonly path: string;
  /** The revision recorded when it was saved, when the lab sent one. */
  readonly revision?: string;
  /** The manifest's name for its lab (its section), and the lab's origin. */
  readonly section: string;
  readonly origin: string;
  readonly reportId: string;
  /** The SHA-256 recorded when it was saved. */
  readonly sha256: string;
  /** Its bytes are no longer what was saved. */
  readonly changed: boolean;
}

/** How long a folder's file events gather before it is read again (a save writes several files). */
const SETTLE_MS = 250;

const key = (...parts: string[]): string => parts.join('\n');

/** Whether two reads of a folder found the same files in the same states. */
function sameFiles(a: readonly SavedFile[], b: readonly SavedFile[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (file, index) =>
        file.section === b[index]!.section &&
        file.path === b[index]!.path &&
        file.revision === b[index]!.revision &&
        file.origin === b[index]!.origin &&
        file.reportId === b[index]!.reportId &&
        file.sha256 === b[index]!.sha256 &&
        file.changed === b[index]!.changed,
    )
  );
}

/**
 * Which reports are saved in the folders Lab Data knows (each workspace folder's download folder,
 * any folder with a manifest in the workspace, any folder verified), whether each file is still
 * what was saved, and whether the last verification found it so: what the report rows say. Each
 * folder is read again when its files change; unchanged files cost a `stat`, not a read.
 */
export class SavedReportStates implements SavedReportLookup, vscode.Disposable {
  /** Saved files by `origin\nreportId`, every folder's together. */
  private byReport = new Map<string, SavedFile[]>();
  /** Saved files by full path, every folder's together (what the Explorer's decorations show). */
  private byPath = new Map<string, SavedFile>();
  private readonly files = new Map<string, readonly SavedFile[]>();
  private readonly watchers = new Map<string, vscode.Disposable>();
  /** Watchers of the download folders themselves, for when one is made (or made again). */
  private appearing: vscode.Disposable[] = [];
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly reads = new Map<string, number>();
  /** The SHA-256 the last verification found as saved and unchanged at the lab, by `folder\nsection\nreportId`. */
  private readonly verified = new Map<string, string>();
  /** What each saved report's rows were last told (`origin\nreportId` → its state), to tell them only a change. */
  private shown = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<void>();
  /**
   * Fires when what a report's rows show has changed (saved, changed locally, verified), and only
   * then: each redraw of the trees replaces their rows, and a click landing meanwhile is lost.
   */
  readonly onDidChange = this.changed.event;
  private readonly filesChanged = new vscode.EventEmitter<void>();
  /** Fires when the saved files read have changed (what the Explorer's decorations show). */
  readonly onDidChangeFiles = this.filesChanged.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly labs: Labs,
    findings: SavedReportFindings,
    private readonly log: Logger,
  ) {
    const manifests = vscode.workspace.createFileSystemWatcher(`**/${MANIFEST_FILE_NAME}`);
    const found = (uri: vscode.Uri): void => this.track(path.dirname(uri.fsPath));
    this.subscriptions = [
      manifests,
      manifests.onDidCreate(found),
      manifests.onDidChange(found),
      findings.onDidVerify(({ folder, files }) => this.verifiedIn(folder, files)),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.trackDownloadFolders()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.downloadFolder}`)) {
          this.trackDownloadFolders();
        }
      }),
    ];
    this.trackDownloadFolders();
    void vscode.workspace.findFiles(`**/${MANIFEST_FILE_NAME}`, undefined, 100).then(
      (uris) => uris.forEach(found),
      () => undefined,
    );
  }

  stateOf(lab: string, reportId: string): SavedReportState | undefined {
    const origin = this.labs.get(lab)?.lab.url.origin;
    return origin === undefined ? undefined : this.stateAt(key(origin, reportId));
  }

  /** The state of the report saved under `at` (`origin\nreportId`). */
  private stateAt(at: string): SavedReportState | undefined {
    const copies = this.byReport.get(at);
    if (!copies?.length) {
      return undefined;
    }
    const changed = copies.some((copy) => copy.changed);
    return {
      changed,
      verified:
        !changed &&
        copies.every(
          (copy) =>
            this.verified.get(key(copy.folder, copy.section, copy.reportId)) === copy.sha256,
        ),
    };
  }

  /** The saved file at `file` (a full path), as last read; undefined when no manifest records one there. */
  fileAt(file: string): SavedFile | undefined {
    return this.byPath.get(path.resolve(file));
  }

  /** Reads `folder` now and again whenever its files change; `anew` starts a new watcher of it. */
  track(folder: string, anew = false): void {
    const resolved = path.resolve(folder);
    if (anew) {
      this.watchers.get(resolved)?.dispose();
      this.watchers.delete(resolved);
    }
    if (!this.watchers.has(resolved)) {
      const watcher = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(vscode.Uri.file(resolved), '**'),
      );
      const again = (): void => this.readSoon(resolved);
      watcher.onDidCreate(again);
      watcher.onDidChange(again);
      watcher.onDidDelete(again);
      this.watchers.set(resolved, watcher);
    }
    this.readSoon(resolved);
  }

  dispose(): void {
    this.subscriptions.forEach((subscription) => subscription.dispose());
    this.watchers.forEach((watcher) => watcher.dispose());
    this.appearing.forEach((watcher) => watcher.dispose());
    this.timers.forEach((timer) => clearTimeout(timer));
    this.changed.dispose();
    this.filesChanged.dispose();
  }

  /**
   * Each workspace folder's download folder, read when it is there and whenever it appears: a
   * first save makes the folder and writes its files at once, quicker than a watcher can start
   * watching inside the new folder, so its manifest's own event may never come.
   */
  private trackDownloadFolders(): void {
    this.appearing.forEach((watcher) => watcher.dispose());
    this.appearing = [];
    for (const root of vscode.workspace.workspaceFolders ?? []) {
      if (root.uri.scheme !== 'file') {
        continue;
      }
      let folder: string;
      try {
        folder = downloadTargetIn(root.uri).folder;
      } catch {
        // A download folder setting that cannot be used: saving says so; nothing is saved there.
        continue;
      }
      const appears = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(root.uri, path.relative(root.uri.fsPath, folder)),
        false,
        true,
        true,
      );
      // Made again: a watcher of the folder that was there before may have gone with it.
      appears.onDidCreate(() => this.track(folder, true));
      this.appearing.push(appears);
      if (existsSync(folder)) {
        this.track(folder);
      }
    }
  }

  private verifiedIn(folder: string, files: readonly VerifiedFile[]): void {
    const resolved = path.resolve(folder);
    for (const file of files) {
      const at = key(resolved, file.lab, file.reportId);
      if (file.local === 'same' && file.atLab.length === 0 && file.unavailable === undefined) {
        this.verified.set(at, file.entry.sha256);
      } else {
        this.verified.delete(at);
      }
    }
    this.track(resolved);
  }

  private readSoon(folder: string): void {
    clearTimeout(this.timers.get(folder));
    this.timers.set(
      folder,
      setTimeout(() => {
        this.timers.delete(folder);
        void this.read(folder);
      }, SETTLE_MS),
    );
  }

  /** Reads a folder's manifest and checks its files; a later read started meanwhile wins. */
  private async read(folder: string): Promise<void> {
    const generation = (this.reads.get(folder) ?? 0) + 1;
    this.reads.set(folder, generation);
    let files: SavedFile[] = [];
    try {
      const manifest = await readManifest(folder);
      const work = Object.entries(manifest.labs).flatMap(([section, { origin, files: saved }]) =>
        Object.values(saved).map((entry) => ({ section, origin, entry })),
      );
      const hashes = await currentSha256s(
        folder,
        work.map((item) => item.entry),
      );
      files = work.flatMap(({ section, origin, entry }, index) => {
        const sha256 = hashes[index];
        // A file no longer there is not saved (verification says it is missing).
        return sha256 === undefined
          ? []
          : [
              {
                folder,
                path: path.resolve(folder, ...entry.file.split('/')),
                ...(entry.revision !== undefined ? { revision: entry.revision } : {}),
                section,
                origin,
                reportId: entry.report_id,
                sha256: entry.sha256,
                changed: sha256 !== entry.sha256,
              },
            ];
      });
    } catch (error) {
      this.log.warn('Saved', `Cannot read the saved reports of ${folder}: ${errorText(error)}`);
    }
    if (this.reads.get(folder) !== generation) {
      return;
    }
    if (!existsSync(folder)) {
      // A watcher may not outlive its folder: the next manifest there starts a new one.
      this.watchers.get(folder)?.dispose();
      this.watchers.delete(folder);
    }
    const before = this.files.get(folder);
    this.files.set(folder, files);
    if (!before || !sameFiles(before, files)) {
      this.index();
      this.filesChanged.fire();
    }
    // A verification changes what rows show with the files as they were; a first read of a folder
    // with nothing saved, or a file rewritten with the same bytes, changes nothing they show.
    this.tellRowsOfChange();
  }

  /** Indexes every folder's files by report and by path. */
  private index(): void {
    const byReport = new Map<string, SavedFile[]>();
    const byPath = new Map<string, SavedFile>();
    for (const file of [...this.files.values()].flat()) {
      const at = key(file.origin, file.reportId);
      byReport.set(at, [...(byReport.get(at) ?? []), file]);
      byPath.set(file.path, file);
    }
    this.byReport = byReport;
    this.byPath = byPath;
  }

  /** Fires `onDidChange` when a report's state differs from what its rows were last told. */
  private tellRowsOfChange(): void {
    const shown = new Map<string, string>();
    // Rows show only the reports of labs defined here: another lab's saved files change none.
    const origins = new Set(this.labs.all.map((connection) => connection.lab.url.origin));
    for (const [at, copies] of this.byReport) {
      const state = origins.has(copies[0]!.origin) ? this.stateAt(at) : undefined;
      if (state) {
        shown.set(at, state.changed ? 'changed' : state.verified ? 'verified' : 'saved');
      }
    }
    const same =
      shown.size === this.shown.size &&
      [...shown].every(([at, state]) => this.shown.get(at) === state);
    this.shown = shown;
    if (!same) {
      this.changed.fire();
    }
  }
}
