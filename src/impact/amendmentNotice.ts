import * as path from 'node:path';
import * as vscode from 'vscode';
import { serverText } from '../../core/errors/serverText';
import type { ImpactState, RecordedRevision } from './impactState';

const TOLD_KEY = 'labData.amendmentsTold';

/** What a notification offered and what the person chose (for tests). */
export interface AmendmentNoticeShown {
  readonly message: string;
  readonly consumers: readonly string[];
}

/**
 * When a sync or pull records a new revision that scripts or notebooks used an older one of: one
 * notification, naming how many, with Show Affected (a quick pick of them; the one chosen opens).
 * Each amendment (lab, report, revision) is told once in a workspace, whatever writes the manifest.
 */
export class AmendmentNotice implements vscode.Disposable {
  private readonly subscription: vscode.Disposable;
  /** The notifications shown so far (for tests). */
  readonly shown: AmendmentNoticeShown[] = [];
  private readonly told: Set<string>;

  constructor(
    state: ImpactState,
    private readonly memory: vscode.Memento,
  ) {
    this.told = new Set(memory.get<string[]>(TOLD_KEY, []));
    this.subscription = state.onDidRecordRevisions((recorded) => void this.tell(recorded));
  }

  private async tell(recorded: readonly RecordedRevision[]): Promise<void> {
    const fresh = recorded.filter((each) => !this.told.has(keyOf(each)));
    if (fresh.length === 0) {
      return;
    }
    fresh.forEach((each) => this.told.add(keyOf(each)));
    await this.memory.update(TOLD_KEY, [...this.told].slice(-500));
    const consumers = [...new Set(fresh.flatMap((each) => each.consumers))].sort();
    const message =
      fresh.length === 1
        ? vscode.l10n.t(
            '{0} was amended (revision {1}): {2} script(s) and notebook(s) used revision {3}.',
            serverText(fresh[0]!.id, 80),
            serverText(fresh[0]!.to ?? '?', 40),
            consumers.length,
            serverText(fresh[0]!.from ?? '?', 40),
          )
        : vscode.l10n.t(
            '{0} reports were amended: {1} script(s) and notebook(s) used an older revision.',
            fresh.length,
            consumers.length,
          );
    this.shown.push({ message, consumers });
    const show = vscode.l10n.t('Show Affected');
    if ((await vscode.window.showWarningMessage(message, show)) === show) {
      await showAffected(consumers);
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

function keyOf(each: RecordedRevision): string {
  return `${each.lab} ${each.id} ${each.to ?? ''}`;
}

/** A quick pick of the affected scripts and notebooks; the one chosen opens. */
async function showAffected(consumers: readonly string[]): Promise<void> {
  const chosen = await vscode.window.showQuickPick(
    consumers.map((file) => ({
      label: path.basename(file),
      description: vscode.workspace.asRelativePath(file),
      file,
    })),
    { title: vscode.l10n.t('Scripts and notebooks that used an older revision') },
  );
  if (chosen) {
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(chosen.file));
  }
}
