import type * as vscode from 'vscode';
import type { ExistingFileAnswer } from '../../../core/sync/bulkSave';
import type { SinceVerb } from './dates';

/** A choice in a list; `id` is what the caller gets back. */
export interface Choice {
  readonly id: string;
  readonly label: string;
  readonly description?: string;
  readonly detail?: string;
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
  confirm(
    message: string,
    detail: string,
    action: string,
    options?: ConfirmOptions,
  ): Promise<boolean>;
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
/** How a confirmation's dialog is laid out. */
export interface ConfirmOptions {
  /**
   * A choice that does nothing, put first so that it is the dialog's default (Enter): for an act
   * that sends a token somewhere or joins two addresses, which must be chosen, never defaulted.
   */
  readonly decline?: string;
}

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
  /** Whether Enter on an empty box is an answer (the attempt gets ''), as when it removes a kept token. */
  readonly acceptsEmpty?: boolean;
}

/** Some results for a streamed picker (a page of one lab's list). */
export interface PickItems<T> {
  readonly items: readonly T[];
  /** The list's whole length, when one list is streamed and its lab said it. */
  readonly totalCount?: number;
}

/**
 * A line about one source of a streamed picker (a lab not answering, a lab failing), said in its
 * title while the rest stream on; a later note of the same source replaces it, an empty one
 * takes it back.
 */
export interface PickNote {
  readonly source: string;
  readonly note: string;
}

/** What a streamed picker receives: results, or a note about one of its sources. */
export type PickPart<T> = PickItems<T> | PickNote;

export function isPickNote<T>(part: PickPart<T>): part is PickNote {
  return 'note' in part;
}
