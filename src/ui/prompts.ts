import * as vscode from 'vscode';
import { toUtcTimestamp } from '../../core/api/query';

import type { ExistingFileAnswer, ExistingFileChoice } from '../../core/sync/bulkSave';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../../core/files/safeWriter';
import { displayFormat } from './displayLocale';
import { phrase } from './phrase';
import { pickFromStream, type PickPart } from './pagePick';
import { acceptedReportId } from './reportIdChoice';
import { DEFAULT_TIMEOUTS } from '../../core/connection/httpClient';

export type { ExistingFileAnswer, ExistingFileChoice } from '../../core/sync/bulkSave';

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
    toUtcTimestamp(value, vscode.l10n.t('date'));
    return undefined;
  } catch (error) {
    return phrase(error);
  }
}

const DAY = 86_400_000;

function startOfLocalDay(daysAgo: number): string {
  const now = new Date();
  return toUtcTimestamp(
    new Date(new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime() - daysAgo * DAY),
  );
}

/** The presets of {@link Prompts.since} that move with the clock, as saved searches write them. */
const ROLLING = /^-(\d{1,4})d$/;

/**
 * A "since" value as a moment: `today` and `-Nd` (the rolling presets) are local midnight that
 * many days ago, the same all day long (lists keyed by their query are not fetched anew each
 * second); an ISO 8601 timestamp is itself.
 */
export function sinceMoment(value: string): string {
  const days = value === 'today' ? 0 : Number(ROLLING.exec(value)?.[1] ?? NaN);
  return Number.isNaN(days) ? value : startOfLocalDay(days);
}

/** A rolling preset in words ("in the last 30 days", "today"); undefined for a fixed date. */
export function rollingInWords(value: string): string | undefined {
  if (value === 'today') {
    return vscode.l10n.t('today');
  }
  const days = ROLLING.exec(value)?.[1];
  return days === undefined ? undefined : vscode.l10n.t('in the last {0} days', Number(days));
}

/** What a "since" date limits: when reports were published, or samples received. */
export type SinceVerb = 'published' | 'received';

/** The words of the "since" picker for one verb, each whole for translators (no verb put into a sentence). */
function sinceWords(verb: SinceVerb): { any: string; placeHolder: string; prompt: string } {
  return verb === 'published'
    ? {
        any: vscode.l10n.t('no published date limit'),
        placeHolder: vscode.l10n.t('Published since…'),
        prompt: vscode.l10n.t('Published since (an ISO 8601 date, or a time with its zone)'),
      }
    : {
        any: vscode.l10n.t('no received date limit'),
        placeHolder: vscode.l10n.t('Received since…'),
        prompt: vscode.l10n.t('Received since (an ISO 8601 date, or a time with its zone)'),
      };
}

/** How a report-id picker is titled, and how it checks an id before it closes. */
export interface ReportIdOptions {
  readonly title?: string;
  /** Resolves to the problem with `id` (shown in the picker, which stays open), or undefined when it is good. */
  readonly check?: (id: string) => Promise<string | undefined>;
}

/**
 * Every question the extension asks a person, behind one interface, so automation and tests can
 * answer without a dialog (see `LabDataExtensionApi.setPrompts`).
 */
export interface Prompts {
  /** Undefined means cancel the whole operation. */
  existingFile(
    fileName: string,
    reason: 'exists' | 'changedLocally',
    more: boolean,
  ): Promise<ExistingFileAnswer | undefined>;
  pickWorkspaceFolder(
    folders: readonly vscode.WorkspaceFolder[],
  ): Promise<vscode.WorkspaceFolder | undefined>;
  /** No folder is open: offer to choose one on disk. */
  pickFolderOnDisk(): Promise<vscode.Uri | undefined>;
  /**
   * A folder: typed (relative to `root`, the workspace folder, or a full path), a new one inside
   * `root` included, which the caller then creates; or one chosen in the system's folder dialog
   * ("Browse…"), starting at `near`. Undefined means cancel.
   */
  chooseFolder(
    openLabel: string,
    near: vscode.Uri,
    root?: vscode.Uri,
  ): Promise<vscode.Uri | undefined>;
  /**
   * A report id: typed, or chosen from `suggestions` (ids loaded or recently used) that narrow
   * while typing; a typed part of one suggestion (and of no other) means that one.
   */
  reportId(suggestions?: readonly Choice[], options?: ReportIdOptions): Promise<string | undefined>;
  /** A yes-or-no question before something big starts (a first sync); false means do not start. */
  confirm(message: string, detail: string, action: string): Promise<boolean>;
  /**
   * A "since" date: a preset or a typed ISO 8601 date, in UTC; `current` (the value in force) is
   * offered first, so Enter keeps it. `null` means any date; undefined, cancel. The presets that
   * move with the clock come back as such (`today`, `-7d`, `-30d`; {@link sinceMoment} gives the moment).
   */
  since(title: string, verb: SinceVerb, current?: string): Promise<string | null | undefined>;
  /** One of `choices`, or "Any" (`null`), with `current` highlighted so Enter keeps it; undefined means cancel. */
  pickOne(
    title: string,
    placeHolder: string,
    choices: readonly Choice[],
    allowAny: boolean,
    current?: string,
  ): Promise<string | null | undefined>;
  /** Which of `criteria` to set (several at once; those `picked` are checked at first); undefined means cancel. */
  pickCriteria(
    title: string,
    criteria: ReadonlyArray<Choice & { readonly picked: boolean }>,
  ): Promise<string[] | undefined>;
  /** The password of a protected PDF (`incorrect` after a wrong one); undefined means cancel. */
  password(name: string, incorrect: boolean): Promise<string | undefined>;
  /** The team cache server's token, hidden as typed (empty: remove it); undefined means cancel. */
  cacheToken(): Promise<string | undefined>;
  /**
   * The token box: a hidden input whose Enter runs `attempt` while the box stays open (busy, and
   * cancelled by closing it). A failure `problemOf` explains (a token the lab refused) is shown under
   * the box, which stays open for another token; any other failure closes it and is thrown.
   */
  token<T>(
    text: TokenBoxText,
    attempt: (token: string, signal: AbortSignal) => Promise<T>,
  ): Promise<T | undefined>;
  /** A line of text (a name); undefined means cancel. */
  text(
    title: string,
    prompt: string,
    value: string,
    validate: (value: string) => string | undefined,
  ): Promise<string | undefined>;
  /**
   * Where to save a new file: a save dialog titled `title` that starts at `defaultUri` and offers
   * `filters` (name → extensions). The dialog itself asks before replacing a file; undefined means cancel.
   */
  saveFile(
    title: string,
    defaultUri: vscode.Uri,
    filters: Readonly<Record<string, string[]>>,
  ): Promise<vscode.Uri | undefined>;
  /**
   * Streams pages into a filterable multi-select list as they arrive (several labs' pages, and
   * notes about labs that do not answer, said in the title); resolves with the chosen items.
   */
  pickFromPages<T>(
    title: string,
    pages: AsyncIterable<PickPart<T>>,
    toChoice: (item: T) => Choice,
    canPickMany: boolean,
  ): Promise<T[] | undefined>;
}

/** The words of the token box, and which failures it keeps open for. */
export interface TokenBoxText {
  readonly title: string;
  readonly prompt: string;
  /** Said while the token is checked. */
  readonly checking: string;
  /** The sentence to show under the box for a failure that keeps it open (a refused token, a lab out of reach); undefined for any other. */
  readonly problemOf: (error: unknown) => string | undefined;
  /**
   * What the box's Check Connection button (and Enter on an empty box) does: checks the way to the
   * lab typed and resolves with the verdict in one line, shown under the token; no button without it.
   */
  readonly checkConnection?: () => Promise<string | undefined>;
}

export class VsCodePrompts implements Prompts {
  /**
   * A short modal: the safe choice (Skip) first, so Enter keeps what is on disk; Overwrite and Keep
   * Both; in a bulk run one more button applies a choice to every later existing file. Identical
   * files never get here (the save skips them as up to date).
   */
  async existingFile(
    fileName: string,
    reason: 'exists' | 'changedLocally',
    more: boolean,
  ): Promise<ExistingFileAnswer | undefined> {
    const title =
      reason === 'changedLocally'
        ? vscode.l10n.t('{0} was changed since Lab Data saved it', fileName)
        : vscode.l10n.t('{0} already exists', fileName);
    const detail =
      reason === 'changedLocally'
        ? vscode.l10n.t(
            "Skip keeps your changes; Overwrite replaces them with the lab's file; Keep Both saves the lab's file under a new name.",
          )
        : vscode.l10n.t(
            "It differs from the lab's file. Skip keeps it; Overwrite replaces it; Keep Both saves the lab's file under a new name.",
          );
    const choices: Array<[string, ExistingFileChoice]> = [
      [vscode.l10n.t('Skip'), 'skip'],
      [vscode.l10n.t('Overwrite'), 'overwrite'],
      [vscode.l10n.t('Keep Both'), 'keepBoth'],
    ];
    const forAll = vscode.l10n.t('Apply to All…');
    const answer = await vscode.window.showWarningMessage(
      title,
      { modal: true, detail },
      ...choices.map(([label]) => label),
      ...(more ? [forAll] : []),
    );
    if (answer === forAll) {
      const all: Array<[string, ExistingFileChoice]> = [
        [vscode.l10n.t('Skip All'), 'skip'],
        [vscode.l10n.t('Overwrite All'), 'overwrite'],
        [vscode.l10n.t('Keep Both for All'), 'keepBoth'],
      ];
      const chosen = await vscode.window.showWarningMessage(
        vscode.l10n.t('What to do with every file of this run that already exists?'),
        { modal: true, detail: vscode.l10n.t('Identical files are always left as they are.') },
        ...all.map(([label]) => label),
      );
      const choice = all.find(([label]) => label === chosen)?.[1];
      return choice && { choice, forAll: true };
    }
    const choice = choices.find(([label]) => label === answer)?.[1];
    return choice && { choice, forAll: false };
  }

  async pickWorkspaceFolder(
    folders: readonly vscode.WorkspaceFolder[],
  ): Promise<vscode.WorkspaceFolder | undefined> {
    return (
      vscode.window.showWorkspaceFolderPick({
        placeHolder: vscode.l10n.t('Save reports into which workspace folder?'),
        ignoreFocusOut: true,
      }) ?? folders[0]
    );
  }

  async pickFolderOnDisk(): Promise<vscode.Uri | undefined> {
    const chooseFolder = vscode.l10n.t('Choose Folder…');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t('No folder is open. Choose a folder to save reports into?'),
      chooseFolder,
    );
    if (choice !== chooseFolder) {
      return undefined;
    }
    const picked = await vscode.window.showOpenDialog({
      canSelectFolders: true,
      canSelectFiles: false,
      canSelectMany: false,
      openLabel: vscode.l10n.t('Save Reports Here'),
    });
    return picked?.[0];
  }

  async chooseFolder(
    openLabel: string,
    near: vscode.Uri,
    root?: vscode.Uri,
  ): Promise<vscode.Uri | undefined> {
    const browse = (): Thenable<vscode.Uri | undefined> =>
      vscode.window
        .showOpenDialog({
          canSelectFolders: true,
          canSelectFiles: false,
          canSelectMany: false,
          openLabel,
          defaultUri: near,
        })
        .then((picked) => picked?.[0]);
    if (!root || root.scheme !== 'file') {
      return browse();
    }
    // VS Code's own folder dialog takes only a folder that exists; a typed one may be new (inside the workspace).
    type Row = vscode.QuickPickItem & { readonly folder?: string; readonly browse?: true };
    const pick = vscode.window.createQuickPick<Row>();
    pick.title = openLabel;
    pick.placeholder = vscode.l10n.t(
      'A folder in the workspace, such as data/reports (made if it is not there), or a full path',
    );
    pick.ignoreFocusOut = true;
    const browseRow: Row = {
      label: `$(folder-opened) ${vscode.l10n.t('Browse…')}`,
      description: vscode.l10n.t('choose a folder on disk'),
      browse: true,
      alwaysShow: true,
    };
    const rowsFor = (typed: string): Row[] => {
      const text = typed.trim();
      if (!text) {
        return [browseRow];
      }
      const folder = path.resolve(root.fsPath, text);
      const shown = vscode.workspace.asRelativePath(folder, false);
      let row: Row;
      try {
        row = statSync(folder).isDirectory()
          ? { label: `$(folder) ${shown}`, description: vscode.l10n.t('this folder'), folder }
          : {
              label: `$(error) ${vscode.l10n.t('{0} is a file, not a folder', shown)}`,
            };
      } catch {
        row = isInside(folder, root.fsPath)
          ? {
              label: `$(new-folder) ${shown}`,
              description: vscode.l10n.t('a new folder, made now'),
              folder,
            }
          : {
              label: `$(error) ${vscode.l10n.t('A new folder must be inside the workspace folder; an existing one can be anywhere.')}`,
            };
      }
      return [{ ...row, alwaysShow: true }, browseRow];
    };
    const start = isInside(near.fsPath, root.fsPath)
      ? vscode.workspace.asRelativePath(near.fsPath, false)
      : near.fsPath;
    pick.value = start === near.fsPath || start === '' ? '' : start;
    pick.items = rowsFor(pick.value);
    pick.onDidChangeValue((value) => (pick.items = rowsFor(value)));
    // The text VS Code had filtered on when it last said which row is highlighted.
    let activeFor: string | undefined;
    pick.onDidChangeActive(() => (activeFor = pick.value));
    const chosen = await new Promise<Row | undefined>((resolve) => {
      pick.onDidAccept(() => {
        // The typed folder's row is made again from the text: the highlighted one may be for the
        // text before the last keys (VS Code says which row is highlighted after filtering).
        // Browse when it was highlighted for this very text (or nothing is typed): with text
        // typed at once after the picker opened, the highlight can still be the empty text's.
        const browsing =
          pick.activeItems[0]?.browse === true &&
          (activeFor === pick.value || pick.value.trim() === '');
        const row = browsing ? browseRow : rowsFor(pick.value)[0];
        if (row && (row.browse || row.folder)) {
          resolve(row);
          pick.hide();
        }
      });
      pick.onDidHide(() => {
        resolve(undefined);
        pick.dispose();
      });
      pick.show();
    });
    if (chosen?.browse) {
      return browse();
    }
    return chosen?.folder ? vscode.Uri.file(chosen.folder) : undefined;
  }

  async reportId(
    suggestions: readonly Choice[] = [],
    options: ReportIdOptions = {},
  ): Promise<string | undefined> {
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
    pick.title = options.title ?? vscode.l10n.t('Lab Data: Find Report');
    const example = suggestions[0]?.id ?? 'RPT-2024-000123';
    pick.placeholder =
      suggestions.length > 0
        ? vscode.l10n.t('Type a report id or part of one (such as {0}), or choose one', example)
        : vscode.l10n.t('Type a report id, such as {0}', example);
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    pick.ignoreFocusOut = true;
    const offered = suggestions.map((choice) => ({
      id: choice.id,
      label: choice.label,
      description: choice.description,
      detail: choice.detail,
    }));
    pick.items = offered;
    // The text VS Code had filtered on when it last said which item is highlighted.
    let activeFor: string | undefined;
    pick.onDidChangeActive(() => (activeFor = pick.value));
    // Text that is part of no suggestion is offered as itself, first, so Enter never takes a loose (fuzzy) match instead.
    pick.onDidChangeValue((value) => {
      const typed = value.trim();
      const partOfOne =
        typed !== '' &&
        offered.some((choice) => choice.id.toLowerCase().includes(typed.toLowerCase()));
      pick.items =
        typed === '' || partOfOne
          ? offered
          : [{ id: typed, label: typed, description: vscode.l10n.t('find this id') }, ...offered];
    });
    return new Promise<string | undefined>((resolve) => {
      pick.onDidAccept(async () => {
        // The suggestion typed in full, else the highlighted one, else the text as typed.
        const chosen = acceptedReportId(
          pick.value,
          pick.activeItems[0],
          suggestions,
          activeFor === pick.value,
        );
        if (pick.busy) {
          return;
        }
        if (!chosen) {
          resolve(undefined);
          pick.hide();
          return;
        }
        if (options.check) {
          // Checked before the picker closes: an id the lab does not know is said here, and another can be typed.
          pick.busy = true;
          const problem = await options.check(chosen).finally(() => (pick.busy = false));
          if (problem !== undefined) {
            pick.items = [
              { id: '', label: `$(error) ${problem}`, alwaysShow: true },
              ...offered.filter((choice) => choice.id !== chosen),
            ];
            return;
          }
        }
        resolve(chosen);
        pick.hide();
      });
      pick.onDidHide(() => {
        resolve(undefined);
        pick.dispose();
      });
      pick.show();
    });
  }

  async confirm(message: string, detail: string, action: string): Promise<boolean> {
    return (
      (await vscode.window.showInformationMessage(message, { modal: true, detail }, action)) ===
      action
    );
  }

  async since(
    title: string,
    verb: SinceVerb,
    current?: string,
  ): Promise<string | null | undefined> {
    const words = sinceWords(verb);
    // The value in force comes first, so Enter keeps it: a rolling one as its preset ("Last 30
    // days", still rolling), a fixed date as itself. Each preset's value (`since`) is its stable
    // id, apart from its label in the display language.
    const listed: Array<vscode.QuickPickItem & { since: () => string | null }> = [
      { label: vscode.l10n.t('Any'), description: words.any, since: () => null },
      { label: vscode.l10n.t('Today'), since: () => 'today' },
      { label: vscode.l10n.t('Last {0} days', 7), since: () => '-7d' },
      { label: vscode.l10n.t('Last {0} days', 30), since: () => '-30d' },
      {
        label: vscode.l10n.t('Since a date…'),
        description: vscode.l10n.t(
          'ISO 8601, e.g. {0} or {1}',
          '2024-05-01',
          '2024-05-01T08:00:00Z',
        ),
        since: () => '',
      },
    ];
    const inForce = listed.find((preset) => current !== undefined && preset.since() === current);
    const presets = inForce
      ? [
          { ...inForce, description: vscode.l10n.t('current') },
          ...listed.filter((p) => p !== inForce),
        ]
      : current
        ? [
            {
              label: vscode.l10n.t('Since {0}', displayFormat().dateTime(new Date(current))),
              description: vscode.l10n.t('current'),
              since: () => current,
            },
            ...listed,
          ]
        : listed;
    const choice = await vscode.window.showQuickPick(presets, {
      title,
      placeHolder: words.placeHolder,
      ignoreFocusOut: true,
    });
    if (!choice) {
      return undefined;
    }
    const since = choice.since();
    if (since !== '') {
      return since;
    }
    const typed = await vscode.window.showInputBox({
      title,
      prompt: words.prompt,
      placeHolder: '2024-05-01',
      validateInput: validateIsoDate,
      ignoreFocusOut: true,
    });
    return typed === undefined ? undefined : toUtcTimestamp(typed, `${verb}-since date`);
  }

  async pickCriteria(
    title: string,
    criteria: ReadonlyArray<Choice & { readonly picked: boolean }>,
  ): Promise<string[] | undefined> {
    const picked = await vscode.window.showQuickPick(
      criteria.map((criterion) => ({ ...criterion })),
      {
        title,
        placeHolder: vscode.l10n.t(
          'Check what to filter by (Space), then press Enter; an unchecked criterion is cleared',
        ),
        canPickMany: true,
        ignoreFocusOut: true,
        matchOnDescription: true,
      },
    );
    return picked?.map((criterion) => criterion.id);
  }
  async cacheToken(): Promise<string | undefined> {
    return vscode.window.showInputBox({
      title: vscode.l10n.t('Team cache token'),
      prompt: vscode.l10n.t(
        "The token of the team cache server in labData.cacheFolder (not a lab's token). Leave empty to remove it.",
      ),
      password: true,
      ignoreFocusOut: true,
    });
  }

  async password(name: string, incorrect: boolean): Promise<string | undefined> {
    return vscode.window.showInputBox({
      title: vscode.l10n.t('{0} is protected', name),
      prompt: incorrect
        ? vscode.l10n.t('That password is not right; try again.')
        : vscode.l10n.t('Enter the password to open this PDF.'),
      password: true,
      ignoreFocusOut: true,
    });
  }

  token<T>(
    text: TokenBoxText,
    attempt: (token: string, signal: AbortSignal) => Promise<T>,
  ): Promise<T | undefined> {
    const box = vscode.window.createInputBox();
    box.title = text.title;
    box.prompt = text.prompt;
    box.password = true;
    box.ignoreFocusOut = true;
    const check: vscode.QuickInputButton = {
      iconPath: new vscode.ThemeIcon('debug-disconnect'),
      tooltip: vscode.l10n.t('Check Connection'),
    };
    const checkConnection = text.checkConnection;
    const stop = new AbortController();
    /** Runs the check with the box open (the token kept) and says its verdict under the token. */
    const runCheck = async (): Promise<void> => {
      if (checkConnection === undefined || box.busy) {
        return;
      }
      box.busy = true;
      box.validationMessage = vscode.l10n.t('Checking the connection…');
      try {
        const verdict = await checkConnection();
        box.validationMessage = verdict && {
          message: verdict,
          severity: vscode.InputBoxValidationSeverity.Info,
        };
      } finally {
        box.busy = false;
      }
    };
    if (checkConnection !== undefined) {
      box.buttons = [check];
      box.onDidTriggerButton(() => void runCheck());
    }
    let settled = false;
    return new Promise<T | undefined>((resolve, reject) => {
      const finish = (settle: () => void): void => {
        settled = true;
        settle();
        box.hide();
      };
      box.onDidChangeValue(() => (box.validationMessage = undefined));
      box.onDidAccept(async () => {
        const token = box.value.trim();
        if (box.busy) {
          return;
        }
        if (!token) {
          if (checkConnection !== undefined && box.validationMessage !== undefined) {
            // Enter again on an empty box: the keyboard's way to Check Connection.
            await runCheck();
            return;
          }
          box.validationMessage =
            checkConnection !== undefined
              ? vscode.l10n.t(
                  'Enter the access token your lab provided, or press Enter again to check the connection.',
                )
              : vscode.l10n.t('Enter the access token your lab provided.');
          return;
        }
        box.busy = true;
        box.enabled = false;
        box.prompt = vscode.l10n.t(
          '{0} (at most {1} s; Escape stops)',
          text.checking,
          DEFAULT_TIMEOUTS.headersMs / 1000,
        );
        try {
          const result = await attempt(token, stop.signal);
          finish(() => resolve(result));
        } catch (error) {
          if (stop.signal.aborted) {
            return;
          }
          const problem = text.problemOf(error);
          if (problem !== undefined) {
            box.validationMessage = {
              message: problem,
              severity: vscode.InputBoxValidationSeverity.Error,
            };
          } else {
            finish(() => reject(error));
          }
        } finally {
          box.busy = false;
          box.enabled = true;
          box.prompt = text.prompt;
        }
      });
      box.onDidHide(() => {
        if (!settled) {
          settled = true;
          stop.abort();
          resolve(undefined);
        }
        box.dispose();
      });
      box.show();
    });
  }

  async text(
    title: string,
    prompt: string,
    value: string,
    validate: (value: string) => string | undefined,
  ): Promise<string | undefined> {
    const typed = await vscode.window.showInputBox({
      title,
      prompt,
      value,
      validateInput: validate,
      ignoreFocusOut: true,
    });
    return typed?.trim();
  }

  async saveFile(
    title: string,
    defaultUri: vscode.Uri,
    filters: Readonly<Record<string, string[]>>,
  ): Promise<vscode.Uri | undefined> {
    return vscode.window.showSaveDialog({
      title,
      defaultUri,
      filters: { ...filters },
      saveLabel: vscode.l10n.t('Export'),
    });
  }

  async pickOne(
    title: string,
    placeHolder: string,
    choices: readonly Choice[],
    allowAny: boolean,
    current?: string,
  ): Promise<string | null | undefined> {
    const items: Array<vscode.QuickPickItem & { id: string | null }> = [
      ...(allowAny ? [{ label: vscode.l10n.t('Any'), id: null }] : []),
      ...choices.map((choice) => ({ ...choice })),
    ];
    const pick = vscode.window.createQuickPick<(typeof items)[number]>();
    pick.title = title;
    pick.placeholder = placeHolder;
    pick.ignoreFocusOut = true;
    pick.matchOnDescription = true;
    pick.items = items;
    // The value in force is highlighted, so Enter keeps it.
    const active = items.find((item) => item.id === current && current !== undefined);
    if (active) {
      pick.activeItems = [active];
    }
    return new Promise<string | null | undefined>((resolve) => {
      pick.onDidAccept(() => {
        const chosen = pick.activeItems[0];
        resolve(chosen === undefined ? undefined : chosen.id);
        pick.hide();
      });
      pick.onDidHide(() => {
        resolve(undefined);
        pick.dispose();
      });
      pick.show();
    });
  }

  pickFromPages<T>(
    title: string,
    pages: AsyncIterable<PickPart<T>>,
    toChoice: (item: T) => Choice,
    canPickMany: boolean,
  ): Promise<T[] | undefined> {
    return pickFromStream(title, pages, toChoice, canPickMany);
  }
}

/** The prompts in use; replaceable through the extension API. */
export class PromptsHolder {
  current: Prompts = new VsCodePrompts();
}
