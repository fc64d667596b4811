import * as vscode from 'vscode';
import { toUtcTimestamp } from '../core/query';
import type { Page } from '../core/pagination';

import type { ExistingFileAnswer } from '../core/bulkSave';

export type { ExistingFileAnswer, ExistingFileChoice } from '../core/bulkSave';

/** A choice in a list; `id` is what the caller gets back. */
export interface Choice {
  readonly id: string;
  readonly label: string;
  readonly description?: string;
  readonly detail?: string;
}

/** Validates a typed date as you type; undefined means valid. */
export function validateIsoDate(value: string): string | undefined {
  try {
    toUtcTimestamp(value);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const DAY = 86_400_000;

function startOfLocalDay(daysAgo: number): string {
  const now = new Date();
  return toUtcTimestamp(new Date(new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime() - daysAgo * DAY));
}

/**
 * Every question the extension asks a person, behind one interface, so automation and tests can
 * answer without a dialog (see `LabDataExtensionApi.setPrompts`).
 */
export interface Prompts {
  /** Undefined means cancel the whole operation. */
  existingFile(fileName: string, reason: 'exists' | 'changedLocally', more: boolean): Promise<ExistingFileAnswer | undefined>;
  pickWorkspaceFolder(folders: readonly vscode.WorkspaceFolder[]): Promise<vscode.WorkspaceFolder | undefined>;
  /** No folder is open: offer to choose one on disk. */
  pickFolderOnDisk(): Promise<vscode.Uri | undefined>;
  reportId(): Promise<string | undefined>;
  /** A "since" date: a preset or a typed ISO 8601 date, in UTC. `null` means any date; undefined, cancel. */
  since(title: string, verb: string): Promise<string | null | undefined>;
  /** One of `choices`, or "Any" (`null`); undefined means cancel. */
  pickOne(title: string, placeHolder: string, choices: readonly Choice[], allowAny: boolean): Promise<string | null | undefined>;
  /** The password of a protected PDF (`incorrect` after a wrong one); undefined means cancel. */
  password(name: string, incorrect: boolean): Promise<string | undefined>;
  /** A line of text (a name); undefined means cancel. */
  text(title: string, prompt: string, value: string, validate: (value: string) => string | undefined): Promise<string | undefined>;
  /** Streams pages into a filterable multi-select list as they arrive; resolves with the chosen items. */
  pickFromPages<T>(title: string, pages: AsyncIterable<Page<T>>, toChoice: (item: T) => Choice, canPickMany: boolean): Promise<T[] | undefined>;
}

export class VsCodePrompts implements Prompts {
  async existingFile(fileName: string, reason: 'exists' | 'changedLocally', more: boolean): Promise<ExistingFileAnswer | undefined> {
    const detail = reason === 'changedLocally' ? vscode.l10n.t("{0} was changed since Lab Data saved it. Overwrite your changes with the lab's file?", fileName) : vscode.l10n.t('{0} already exists in the download folder.', fileName);
    const answers: Array<[string, ExistingFileAnswer]> = [
      [vscode.l10n.t('Overwrite'), { choice: 'overwrite', forAll: false }],
      [vscode.l10n.t('Keep Both'), { choice: 'keepBoth', forAll: false }],
      [vscode.l10n.t('Skip'), { choice: 'skip', forAll: false }],
      ...(more
        ? ([
            [vscode.l10n.t('Overwrite All'), { choice: 'overwrite', forAll: true }],
            [vscode.l10n.t('Keep Both for All'), { choice: 'keepBoth', forAll: true }],
            [vscode.l10n.t('Skip All'), { choice: 'skip', forAll: true }],
          ] as Array<[string, ExistingFileAnswer]>)
        : []),
    ];
    const title = reason === 'changedLocally' ? vscode.l10n.t('A saved report was changed locally') : vscode.l10n.t('The file already exists');
    const answer = await vscode.window.showWarningMessage(title, { modal: true, detail }, ...answers.map(([label]) => label));
    return answers.find(([label]) => label === answer)?.[1];
  }

  async pickWorkspaceFolder(folders: readonly vscode.WorkspaceFolder[]): Promise<vscode.WorkspaceFolder | undefined> {
    return vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Save reports into which workspace folder?'), ignoreFocusOut: true }) ?? folders[0];
  }

  async pickFolderOnDisk(): Promise<vscode.Uri | undefined> {
    const chooseFolder = vscode.l10n.t('Choose Folder…');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('No folder is open. Choose a folder to save reports into?'), chooseFolder);
    if (choice !== chooseFolder) {
      return undefined;
    }
    const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: vscode.l10n.t('Save Reports Here') });
    return picked?.[0];
  }

  async reportId(): Promise<string | undefined> {
    const id = await vscode.window.showInputBox({ title: 'Lab Data', prompt: vscode.l10n.t('Report id'), placeHolder: 'RPT-2024-000123', ignoreFocusOut: true, validateInput: (value) => (value.trim() ? undefined : vscode.l10n.t('Enter a report id.')) });
    return id?.trim();
  }

  async since(title: string, verb: string): Promise<string | null | undefined> {
    const presets: Array<vscode.QuickPickItem & { since: () => string | null }> = [
      { label: 'Any', description: `no ${verb} date limit`, since: () => null },
      { label: 'Today', since: () => startOfLocalDay(0) },
      { label: 'Last 7 days', since: () => startOfLocalDay(7) },
      { label: 'Last 30 days', since: () => startOfLocalDay(30) },
      { label: 'Since a date…', description: 'ISO 8601, e.g. 2024-05-01 or 2024-05-01T08:00:00Z', since: () => '' },
    ];
    const choice = await vscode.window.showQuickPick(presets, { title, placeHolder: `${verb[0]!.toUpperCase()}${verb.slice(1)} since…`, ignoreFocusOut: true });
    if (!choice) {
      return undefined;
    }
    const since = choice.since();
    if (since !== '') {
      return since;
    }
    const typed = await vscode.window.showInputBox({ title, prompt: `${verb[0]!.toUpperCase()}${verb.slice(1)} since (an ISO 8601 date, or a time with its zone)`, placeHolder: '2024-05-01', validateInput: validateIsoDate, ignoreFocusOut: true });
    return typed === undefined ? undefined : toUtcTimestamp(typed, `${verb}-since date`);
  }

  async password(name: string, incorrect: boolean): Promise<string | undefined> {
    return vscode.window.showInputBox({
      title: vscode.l10n.t('{0} is protected', name),
      prompt: incorrect ? vscode.l10n.t('That password is not right; try again.') : vscode.l10n.t('Enter the password to open this PDF.'),
      password: true,
      ignoreFocusOut: true,
    });
  }

  async text(title: string, prompt: string, value: string, validate: (value: string) => string | undefined): Promise<string | undefined> {
    const typed = await vscode.window.showInputBox({ title, prompt, value, validateInput: validate, ignoreFocusOut: true });
    return typed?.trim();
  }

  async pickOne(title: string, placeHolder: string, choices: readonly Choice[], allowAny: boolean): Promise<string | null | undefined> {
    const items: Array<vscode.QuickPickItem & { id: string | null }> = [...(allowAny ? [{ label: 'Any', id: null }] : []), ...choices.map((choice) => ({ ...choice }))];
    const picked = await vscode.window.showQuickPick(items, { title, placeHolder, ignoreFocusOut: true, matchOnDescription: true });
    return picked === undefined ? undefined : picked.id;
  }

  pickFromPages<T>(title: string, pages: AsyncIterable<Page<T>>, toChoice: (item: T) => Choice, canPickMany: boolean): Promise<T[] | undefined> {
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { item: T }>();
    pick.title = title;
    pick.canSelectMany = canPickMany;
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    pick.ignoreFocusOut = true;
    pick.busy = true;
    pick.placeholder = 'Loading… type to filter';
    const stop = new AbortController();
    const done = new Promise<T[] | undefined>((resolve) => {
      pick.onDidAccept(() => {
        const chosen = canPickMany ? pick.selectedItems : pick.activeItems.slice(0, 1);
        resolve(chosen.map((entry) => entry.item));
        pick.hide();
      });
      pick.onDidHide(() => {
        stop.abort();
        resolve(undefined);
        pick.dispose();
      });
    });
    pick.show();
    void (async () => {
      try {
        for await (const page of pages) {
          if (stop.signal.aborted) {
            return;
          }
          pick.items = [...pick.items, ...page.items.map((item) => ({ ...toChoice(item), item }))];
          pick.title = `${title} (${pick.items.length}${page.totalCount !== undefined ? ` of ${page.totalCount}` : ''})`;
        }
        pick.placeholder = pick.items.length === 0 ? 'Nothing found' : canPickMany ? 'Type to filter; select with Space, confirm with Enter' : 'Type to filter';
      } catch (error) {
        pick.placeholder = `Stopped: ${error instanceof Error ? error.message : String(error)}`;
      } finally {
        pick.busy = false;
      }
    })();
    return done;
  }
}

/** The prompts in use; replaceable through the extension API. */
export class PromptsHolder {
  current: Prompts = new VsCodePrompts();
}
