import * as path from 'node:path';
import { withNotificationProgress } from '../ui/progress';
import * as vscode from 'vscode';
import { toAbortSignal } from '../cancellation';
import { verifyFolder, type VerifiedFile, type VerifyResult } from '../../core/sync/provenance';
import { lineOfReport, MANIFEST_FILE_NAME, readManifest } from '../../core/sync/manifest';
import { savedMetadata } from '../../core/sync/localState';
import { Commands, SETTINGS_SECTION, Settings } from '../constants';
import type { MetadataDocumentProvider } from '../documents/metadataDocuments';
import { requireDiskFolder } from '../downloads/diskFolders';
import { downloadTargetIn } from '../downloads/targetFolder';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import { commandTargets } from '../ui/commandTargets';
import { servingLabName } from './servingLab';
import { CHANGED_LOCALLY_COLOR, SAVED_BADGES } from './savedBadges';

export const SAVED_METADATA_SCHEME = 'labdata-saved';
const DIAGNOSTIC_SOURCE = 'Lab Data';

/** What `labData.verifySavedReports` returns: report ids by outcome, every folder together. */
export type VerifySummary = Omit<VerifyResult, 'files'> & { readonly folders: string[] };

/** A finding's key: its folder and its report. */
function findingKey(folder: string, reportId: string): string {
  return `${folder}\n${reportId}`;
}

interface Finding {
  readonly folder: string;
  readonly file: VerifiedFile;
}

/**
 * Shows what the last verification found: a badge and tooltip on each saved file in the Explorer
 * (through `SavedFileDecorations`, which adds where each file came from),
 * a Problems entry per finding on the folder's manifest with quick actions (download again, compare
 * the saved metadata with the lab's current one), and the saved metadata as read-only documents.
 */
export class SavedReportFindings
  implements
    vscode.FileDecorationProvider,
    vscode.CodeActionProvider,
    vscode.TextDocumentContentProvider,
    vscode.Disposable
{
  private readonly decorations = new Map<string, vscode.FileDecoration>();
  private readonly findings = new Map<string, Finding>();
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('labData');
  private readonly changed = new vscode.EventEmitter<vscode.Uri[]>();
  readonly onDidChangeFileDecorations = this.changed.event;
  private readonly verified = new vscode.EventEmitter<{
    readonly folder: string;
    readonly files: readonly VerifiedFile[];
  }>();
  /** A verification's findings for one folder, as {@link show} is given them. */
  readonly onDidVerify = this.verified.event;

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    return this.decorations.get(uri.toString());
  }

  /** Replaces what is shown for one folder with a new verification's findings. */
  async show(folder: string, files: readonly VerifiedFile[]): Promise<void> {
    const stale = [...this.decorations.keys()].filter((key) =>
      vscode.Uri.parse(key).fsPath.startsWith(folder + path.sep),
    );
    stale.forEach((key) => this.decorations.delete(key));
    const manifestUri = vscode.Uri.file(path.join(folder, MANIFEST_FILE_NAME));
    const text = await vscode.workspace.fs.readFile(manifestUri).then(
      (bytes) => Buffer.from(bytes).toString('utf8'),
      () => '',
    );
    const lines = text.split('\n');
    const diagnostics: vscode.Diagnostic[] = [];
    for (const file of files) {
      const problems = describe(file);
      if (problems.length === 0) {
        continue;
      }
      const uri = vscode.Uri.file(path.join(folder, file.file));
      const atLab = file.atLab.length > 0;
      this.decorations.set(
        uri.toString(),
        new vscode.FileDecoration(
          file.local === 'missing'
            ? '!'
            : atLab
              ? 'L'
              : file.local === 'changed'
                ? SAVED_BADGES.changedLocally
                : '?',
          problems.join('; '),
          // Lab Data's own color for a file changed locally: git's would read as a change git tracks.
          new vscode.ThemeColor(
            atLab || file.local === 'missing' ? 'list.warningForeground' : CHANGED_LOCALLY_COLOR,
          ),
        ),
      );
      // The report's entry in the manifest, found as the `lab-data` tasks' verify finds it.
      const line = (lineOfReport(text, file.reportId) ?? 1) - 1;
      const diagnostic = new vscode.Diagnostic(
        new vscode.Range(line, 0, line, lines[line]?.length ?? 0),
        `${file.reportId} (${file.lab}): ${problems.join('; ')}`,
        file.unavailable !== undefined && file.local === 'same'
          ? vscode.DiagnosticSeverity.Information
          : vscode.DiagnosticSeverity.Warning,
      );
      diagnostic.source = DIAGNOSTIC_SOURCE;
      diagnostic.code = file.reportId;
      this.findings.set(findingKey(folder, file.reportId), { folder, file });
      diagnostics.push(diagnostic);
    }
    this.diagnostics.set(manifestUri, diagnostics);
    this.verified.fire({ folder, files });
    this.changed.fire([
      ...stale.map((key) => vscode.Uri.parse(key)),
      ...files.map((file) => vscode.Uri.file(path.join(folder, file.file))),
    ]);
  }

  /** A finding put right (its file downloaded again): its problem, badge and quick actions go at once, before any new verification. */
  resolve(folder: string, reportId: string): void {
    const key = findingKey(folder, reportId);
    const finding = this.findings.get(key);
    if (!finding) {
      return;
    }
    this.findings.delete(key);
    const uri = vscode.Uri.file(path.join(folder, finding.file.file));
    this.decorations.delete(uri.toString());
    const manifestUri = vscode.Uri.file(path.join(folder, MANIFEST_FILE_NAME));
    this.diagnostics.set(
      manifestUri,
      (this.diagnostics.get(manifestUri) ?? []).filter(
        (diagnostic) => diagnostic.code !== reportId,
      ),
    );
    this.changed.fire([uri]);
  }

  provideCodeActions(
    document: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const folder = path.dirname(document.uri.fsPath);
    return context.diagnostics
      .filter((diagnostic) => diagnostic.source === DIAGNOSTIC_SOURCE)
      .flatMap((diagnostic) => {
        const finding = this.findings.get(findingKey(folder, String(diagnostic.code)));
        if (!finding) {
          return [];
        }
        const args = { folder, lab: finding.file.lab, id: finding.file.reportId };
        const download = new vscode.CodeAction(
          vscode.l10n.t('Download {0} again from {1}', finding.file.reportId, finding.file.lab),
          vscode.CodeActionKind.QuickFix,
        );
        download.command = {
          command: Commands.redownloadSavedReport,
          title: download.title,
          arguments: [args],
        };
        download.diagnostics = [diagnostic];
        const compare = new vscode.CodeAction(
          vscode.l10n.t(
            'Compare saved metadata of {0} with the lab’s current',
            finding.file.reportId,
          ),
          vscode.CodeActionKind.QuickFix,
        );
        compare.command = {
          command: Commands.compareSavedReport,
          title: compare.title,
          arguments: [args],
        };
        compare.diagnostics = [diagnostic];
        return [download, compare];
      });
  }

  /** The metadata recorded when a file was saved: `labdata-saved:/<id>.json?folder=…&lab=…&id=…`. */
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const folder = query.get('folder') ?? '';
    const manifest = await readManifest(folder);
    const section = manifest.labs[query.get('lab') ?? ''];
    const metadata = section
      ? await savedMetadata(folder, section.origin, query.get('id') ?? '')
      : undefined;
    const note = vscode.l10n.t('This file was saved before Lab Data recorded metadata.');
    return `${JSON.stringify(metadata ?? { report_id: query.get('id'), note }, null, 2)}\n`;
  }

  dispose(): void {
    this.diagnostics.dispose();
    this.changed.dispose();
    this.verified.dispose();
  }
}

function describe(file: VerifiedFile): string[] {
  const problems: string[] = [];
  if (file.local === 'missing') {
    problems.push(vscode.l10n.t('the file is missing'));
  } else if (file.local === 'changed') {
    problems.push(vscode.l10n.t('changed locally since it was saved'));
  }
  if (file.atLab.length > 0) {
    problems.push(vscode.l10n.t('changed at the lab: {0}', file.atLab.join(', ')));
  }
  if (file.unavailable !== undefined) {
    problems.push(vscode.l10n.t('the lab could not be asked: {0}', file.unavailable));
  }
  return problems;
}

/** The folders to verify: `{ folder }` as a Uri or a workspace-relative path, else each workspace folder's download folder. */
function foldersToVerify(args: readonly unknown[]): string[] {
  const options = commandTargets(args).options;
  const given = args.find((arg): arg is vscode.Uri => arg instanceof vscode.Uri) ?? options.folder;
  if (given instanceof vscode.Uri) {
    requireDiskFolder('verify', given);
    return [given.fsPath];
  }
  if (typeof given !== 'string' || !path.isAbsolute(given)) {
    requireDiskFolder('verify');
  }
  const roots = vscode.workspace.workspaceFolders ?? [];
  if (typeof given === 'string' && given.trim()) {
    return path.isAbsolute(given)
      ? [given]
      : roots.map((root) => path.resolve(root.uri.fsPath, given));
  }
  return roots
    .filter((root) => root.uri.scheme === 'file')
    .map((root) => downloadTargetIn(root.uri).folder);
}

/**
 * `labData.verifySavedReports` (`{ folder? }`): re-hashes every file the folder's manifest
 * records and asks each file's lab for the report's current metadata, then shows the findings.
 */
export async function verifySavedReports(
  labs: Labs,
  findings: SavedReportFindings,
  log: Logger,
  ...args: unknown[]
): Promise<VerifySummary> {
  const folders = foldersToVerify(args);
  const concurrency = vscode.workspace
    .getConfiguration(SETTINGS_SECTION)
    .get<number>(Settings.maxConcurrentRequests, 4);
  const total: VerifySummary = {
    folders,
    checked: [],
    ok: [],
    changedLocally: [],
    changedAtLab: [],
    missing: [],
    unavailable: [],
  };
  await withNotificationProgress(
    vscode.l10n.t('Verifying saved reports…'),
    async (progress, token) => {
      for (const folder of folders) {
        let reported = 0;
        const result = await verifyFolder(folder, {
          apiFor: (lab, origin) => {
            const connection = labs.get(lab);
            return connection?.lab.url.origin === origin ? connection.backgroundApi : undefined;
          },
          concurrency,
          signal: toAbortSignal(token),
          onProgress: (done, count) => {
            const percent = (done / count) * 100;
            progress.report({
              message: vscode.l10n.t('{0} of {1} files', done, count),
              increment: (percent - reported) / folders.length,
            });
            reported = percent;
          },
        });
        await findings.show(folder, result.files);
        for (const key of [
          'checked',
          'ok',
          'changedLocally',
          'changedAtLab',
          'missing',
          'unavailable',
        ] as const) {
          total[key].push(...result[key]);
        }
      }
    },
  );
  const summary = vscode.l10n.t(
    'Verified {0} saved report(s): {1} unchanged, {2} changed locally, {3} changed at the lab, {4} missing, {5} could not be checked.',
    total.checked.length,
    total.ok.length,
    total.changedLocally.length,
    total.changedAtLab.length,
    total.missing.length,
    total.unavailable.length,
  );
  log.info('Verify', `${summary} Folders: ${folders.join(', ')}`);
  const problems = total.checked.length - total.ok.length;
  if (problems > 0) {
    const show = vscode.l10n.t('Show Problems');
    void vscode.window
      .showWarningMessage(summary, show)
      .then(
        (choice) =>
          choice === show && vscode.commands.executeCommand('workbench.actions.view.problems'),
      );
  } else {
    void vscode.window.showInformationMessage(summary);
  }
  return total;
}

/**
 * Quick action: the saved metadata beside the lab's current metadata. `lab` is the manifest's name
 * of the lab; the lab asked is the one of this machine that serves its section (by address, or as
 * the user confirmed), never one chosen by that name.
 */
export async function compareSavedReport(
  labs: Labs,
  documents: MetadataDocumentProvider,
  args: { folder: string; lab: string; id: string; origin?: string },
): Promise<void> {
  const lab = await servingLabName(labs, args.folder, {
    lab: args.lab,
    origin: args.origin ?? '',
    reportId: args.id,
  });
  if (lab === undefined) {
    return;
  }
  const connection = labs.require(lab);
  const saved = vscode.Uri.from({
    scheme: SAVED_METADATA_SCHEME,
    path: `/${args.id}.json`,
    query: new URLSearchParams({ folder: args.folder, lab: args.lab, id: args.id }).toString(),
  });
  const current = documents.uriFor({ lab, kind: 'report', id: args.id }, connection.lab.url.host);
  await vscode.commands.executeCommand(
    'vscode.diff',
    saved,
    current,
    vscode.l10n.t('{0}: saved ↔ at {1} now', args.id, lab),
  );
}
