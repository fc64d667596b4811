import type * as vscode from 'vscode';
import type { ExistingFileAnswer } from '../../../core/sync/bulkSave';
import { pickCriteria, pickOne } from './choices';
import { askSince, type SinceVerb } from './dates';
import { askExistingFile } from './existingFile';
import { chooseFolder, pickFolderOnDisk, pickWorkspaceFolder } from './folders';
import { askPassword, askSaveFile, askText, confirm } from './inputs';
import { pickFromPages } from './pagedPicker';
import { askReportId } from './reportIdPicker';
import { askToken } from './tokenBox';
import type {
  Choice,
  ConfirmOptions,
  PickPart,
  Prompts,
  ReportIdOptions,
  TokenBoxText,
} from './types';

export type { ExistingFileAnswer, ExistingFileChoice } from '../../../core/sync/bulkSave';
export { rollingInWords, sinceMoment, validateIsoDate, type SinceVerb } from './dates';
export type {
  Choice,
  ConfirmOptions,
  PickItems,
  PickNote,
  PickPart,
  Prompts,
  ReportIdOptions,
  TokenBoxText,
} from './types';
export { isPickNote } from './types';

/**
 * The questions of {@link Prompts} as VS Code's own dialogs: each dialog lives in a module of its
 * own (folders, the report-id picker, the token box, the date picker, lists, text boxes), and this
 * class only hands each question to it.
 */
export class VsCodePrompts implements Prompts {
  existingFile(
    fileName: string,
    reason: 'exists' | 'changedLocally',
    more: boolean,
  ): Promise<ExistingFileAnswer | undefined> {
    return askExistingFile(fileName, reason, more);
  }

  pickWorkspaceFolder(
    folders: readonly vscode.WorkspaceFolder[],
  ): Promise<vscode.WorkspaceFolder | undefined> {
    return pickWorkspaceFolder(folders);
  }

  pickFolderOnDisk(): Promise<vscode.Uri | undefined> {
    return pickFolderOnDisk();
  }

  chooseFolder(
    openLabel: string,
    near: vscode.Uri,
    root?: vscode.Uri,
  ): Promise<vscode.Uri | undefined> {
    return chooseFolder(openLabel, near, root);
  }

  reportId(
    suggestions?: readonly Choice[],
    options?: ReportIdOptions,
  ): Promise<string | undefined> {
    return askReportId(suggestions, options);
  }

  confirm(
    message: string,
    detail: string,
    action: string,
    options?: ConfirmOptions,
  ): Promise<boolean> {
    return confirm(message, detail, action, options);
  }

  since(title: string, verb: SinceVerb, current?: string): Promise<string | null | undefined> {
    return askSince(title, verb, current);
  }

  pickOne(
    title: string,
    placeHolder: string,
    choices: readonly Choice[],
    allowAny: boolean,
    current?: string,
  ): Promise<string | null | undefined> {
    return pickOne(title, placeHolder, choices, allowAny, current);
  }

  pickCriteria(
    title: string,
    criteria: ReadonlyArray<Choice & { readonly picked: boolean }>,
  ): Promise<string[] | undefined> {
    return pickCriteria(title, criteria);
  }

  password(name: string, incorrect: boolean): Promise<string | undefined> {
    return askPassword(name, incorrect);
  }

  token<T>(
    text: TokenBoxText,
    attempt: (token: string, signal: AbortSignal) => Promise<T>,
  ): Promise<T | undefined> {
    return askToken(text, attempt);
  }

  text(
    title: string,
    prompt: string,
    value: string,
    validate: (value: string) => string | undefined,
  ): Promise<string | undefined> {
    return askText(title, prompt, value, validate);
  }

  saveFile(
    title: string,
    defaultUri: vscode.Uri,
    filters: Readonly<Record<string, string[]>>,
  ): Promise<vscode.Uri | undefined> {
    return askSaveFile(title, defaultUri, filters);
  }

  pickFromPages<T>(
    title: string,
    pages: AsyncIterable<PickPart<T>>,
    toChoice: (item: T) => Choice,
    canPickMany: boolean,
  ): Promise<T[] | undefined> {
    return pickFromPages(title, pages, toChoice, canPickMany);
  }
}

/** The prompts in use; replaceable through the extension API. */
export class PromptsHolder {
  current: Prompts = new VsCodePrompts();
}
