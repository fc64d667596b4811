import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorText } from '../../core/errors/errorText';
import { serverText } from '../../core/errors/serverText';
import { MANIFEST_FILE_NAME, readManifestStrictly } from '../../core/sync/manifest';
import { labEntries, type SyncManifest } from '../../core/sync/manifestModel';
import type { ScanHit } from '../../core/uses/scan';
import {
  currentUses,
  impactOf,
  placesOf,
  reportIdPattern,
  type AffectedUse,
} from '../../core/uses/uses';
import { USES_FILE_NAME } from '../../core/uses/usesRecord';
import type { Logger } from '../log';

/** One consumer's use of a report whose recorded revision is not the one it used (the core's impact). */
export interface AmendedUse {
  /** The folder holding the manifest. */
  readonly folder: string;
  /** The manifest's name of the report's lab (its section). */
  readonly section: string;
  /** The consumer's file, absolute. */
  readonly file: string;
  readonly affected: AffectedUse;
  /** Where the consumer's saved text names the report (the core's scan), for placing it. */
  readonly places: readonly ScanHit[];
}

/** A revision a sync or pull recorded, and the consumers that used another one. */
export interface RecordedRevision {
  readonly folder: string;
  readonly lab: string;
  readonly id: string;
  readonly from?: string;
  readonly to?: string;
  /** The consumers' files, absolute, sorted. */
  readonly consumers: readonly string[];
}

interface FolderImpact {
  readonly pattern?: RegExp;
  readonly amended: readonly AmendedUse[];
  /** Each report's recorded revision, by lab and id. */
  readonly revisions: ReadonlyMap<string, string | undefined>;
}

/** How long a burst of file events is let settle before the uses are read again. */
const SETTLE_MS = 150;

function revisionsOf(manifest: SyncManifest): Map<string, string | undefined> {
  return new Map(
    labEntries(manifest).map(({ origin, entry }) => [
      `${origin}\u0000${entry.report_id}`,
      entry.revision,
    ]),
  );
}

/**
 * The impact of each manifest of the workspace, as `lab-data impact` computes it (the core's
 * `currentUses` and `impactOf`): which consumers used another revision than the one recorded, and
 * where their text names it. Read again when a manifest, a record of uses, a readers' log or a
 * scanned file changes on disk; tells when a change of a manifest recorded a new revision. Nothing
 * is read in a workspace not trusted (the scan asks git, which a repository's configuration steers).
 */
export class ImpactState implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly recorded = new vscode.EventEmitter<readonly RecordedRevision[]>();
  /** A sync or pull recorded new revisions of reports some consumers used (fired after onDidChange). */
  readonly onDidRecordRevisions = this.recorded.event;
  private readonly disposables: vscode.Disposable[] = [this.changed, this.recorded];
  private readonly folders = new Map<string, FolderImpact>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  /** Settles when the first reading of the workspace has ended. */
  readonly ready: Promise<void>;

  constructor(private readonly log: Logger) {
    const watcher = vscode.workspace.createFileSystemWatcher(
      `**/{${MANIFEST_FILE_NAME},${USES_FILE_NAME},reads.jsonl,*.py,*.R,*.r,*.Rmd,*.qmd,*.ipynb,*.md}`,
    );
    const later = (): void => this.later();
    this.disposables.push(
      watcher,
      watcher.onDidCreate(later),
      watcher.onDidChange(later),
      watcher.onDidDelete(later),
      vscode.workspace.onDidChangeWorkspaceFolders(later),
      vscode.workspace.onDidGrantWorkspaceTrust(later),
    );
    this.ready = this.refresh();
  }

  /** The amended uses of every folder. */
  get all(): readonly AmendedUse[] {
    return [...this.folders.values()].flatMap((folder) => folder.amended);
  }

  /** The amended uses of one consumer (its absolute path). */
  amendedIn(file: string): readonly AmendedUse[] {
    const key = path.resolve(file);
    return this.all.filter((use) => use.file === key);
  }

  /** The pattern of the report ids recorded in the manifest(s) a consumer's uses are measured by. */
  patternFor(file: string): RegExp | undefined {
    const key = path.resolve(file);
    return [...this.folders.values()].find((impact) =>
      impact.amended.some((use) => use.file === key),
    )?.pattern;
  }

  /** The uses of a report recorded in a folder at a revision, for the older side of a comparison. */
  usesOf(lab: string, id: string): readonly AmendedUse[] {
    return this.all.filter((use) => use.affected.use.lab === lab && use.affected.use.id === id);
  }

  /** "RPT-… revision 1 → 2" for each report a consumer used an older revision (or another file) of. */
  amendedSince(file: string): readonly string[] {
    return this.amendedIn(file).map(({ affected }) =>
      vscode.l10n.t(
        '{0} revision {1} → {2}',
        serverText(affected.use.id, 80),
        serverText(affected.use.revision ?? '?', 40),
        serverText(affected.currentRevision ?? '?', 40),
      ),
    );
  }

  /** How many consumers used another revision (or file) of a lab's report than the one recorded. */
  olderUsers(origin: string, reportId: string): number {
    return new Set(
      this.all
        .filter(({ affected }) => affected.use.lab === origin && affected.use.id === reportId)
        .map((use) => use.file),
    ).size;
  }

  /** Reads every folder again (one reading at a time); settles when done. */
  refresh(): Promise<void> {
    this.running = this.running
      .then(() => this.readAll())
      .catch((error: unknown) =>
        this.log.warn('Uses', `The uses could not be read: ${errorText(error)}`),
      );
    return this.running;
  }

  private later(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), SETTLE_MS);
  }

  private async readAll(): Promise<void> {
    // The scan runs git in the workspace's repository, whose configuration could run a program.
    if (!vscode.workspace.isTrusted) {
      this.folders.clear();
      this.changed.fire();
      return;
    }
    const manifests = await vscode.workspace.findFiles(
      `**/${MANIFEST_FILE_NAME}`,
      '**/node_modules/**',
      1000,
    );
    const folders = [...new Set(manifests.map((uri) => path.dirname(uri.fsPath)))].sort();
    const news: RecordedRevision[] = [];
    for (const gone of [...this.folders.keys()].filter((folder) => !folders.includes(folder))) {
      this.folders.delete(gone);
    }
    for (const folder of folders) {
      try {
        const { manifest } = await readManifestStrictly(folder);
        if (!manifest) {
          this.folders.delete(folder);
          continue;
        }
        const before = this.folders.get(folder);
        const next = await this.readFolder(folder, manifest);
        this.folders.set(folder, next);
        if (before) {
          news.push(...recordedSince(folder, before, next));
        }
      } catch (error) {
        this.log.warn('Uses', `${folder}: the uses could not be read: ${errorText(error)}`);
      }
    }
    this.changed.fire();
    if (news.length > 0) {
      this.recorded.fire(news);
    }
  }

  private async readFolder(folder: string, manifest: SyncManifest): Promise<FolderImpact> {
    const uses = await currentUses(folder, manifest, { acknowledgeNamed: false });
    const sections = new Map(
      Object.entries(manifest.labs).map(([name, section]) => [section.origin, name]),
    );
    const amended = impactOf(uses.record, manifest).map((affected): AmendedUse => ({
      folder,
      section: sections.get(affected.use.lab) ?? affected.use.lab,
      file: path.resolve(uses.root, affected.use.consumer),
      affected,
      places: placesOf(affected.use.id, uses.named.get(affected.use.consumer)),
    }));
    const pattern = reportIdPattern(manifest);
    return { ...(pattern ? { pattern } : {}), amended, revisions: revisionsOf(manifest) };
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.disposables.forEach((disposable) => disposable.dispose());
  }
}

/** The reports whose recorded revision changed between two readings, with the consumers of another one. */
function recordedSince(
  folder: string,
  before: FolderImpact,
  now: FolderImpact,
): RecordedRevision[] {
  const found: RecordedRevision[] = [];
  for (const [key, revision] of now.revisions) {
    if (!before.revisions.has(key) || before.revisions.get(key) === revision) {
      continue;
    }
    const [lab, id] = key.split('\u0000') as [string, string];
    const consumers = [
      ...new Set(
        now.amended
          .filter((use) => use.affected.use.lab === lab && use.affected.use.id === id)
          .map((use) => use.file),
      ),
    ].sort();
    if (consumers.length > 0) {
      found.push({
        folder,
        lab,
        id,
        ...(before.revisions.get(key) !== undefined ? { from: before.revisions.get(key) } : {}),
        ...(revision !== undefined ? { to: revision } : {}),
        consumers,
      });
    }
  }
  return found;
}
