import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LabDataExtensionApi } from '../../src/api';
import { EXTENSION_ID } from '../../src/constants';
import { MockLabServer, type MockServerOptions } from '../mock/server';
import { labDataLogFilesIn } from '../support/logFiles';
import { makeTestCertificates, type TestCertificates } from '../support/certificates';
import { isPickNote, type PickPart } from '../../src/ui/prompts';
import { confirmButtons } from '../../src/ui/prompts/inputs';
import type {
  Choice,
  ConfirmOptions,
  ExistingFileAnswer,
  Prompts,
  ReportIdOptions,
  SinceVerb,
  TokenBoxText,
} from '../../src/ui/prompts';
import type { LabNode } from '../../src/views/nodes';

/** A distinctive token whose every appearance in any output is a leak. */
export const LEAK_CHECK_TOKEN = 'lab_it_SECRET_7f3c9e1d2b_NEVER_LOG';

export async function activateExtension(): Promise<LabDataExtensionApi> {
  const extension = vscode.extensions.getExtension<LabDataExtensionApi>(EXTENSION_ID);
  assert.ok(extension, `extension ${EXTENSION_ID} is installed in the test host`);
  return extension.activate();
}

export function extensionPackageJson(): {
  contributes: {
    commands: Array<{ command: string; title: string }>;
    views: Record<string, Array<{ id: string }>>;
    viewsContainers: { activitybar: Array<{ id: string }> };
    configuration: { properties: Record<string, { scope?: string }> };
  };
} {
  return vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
}

/** Starts a mock lab on a random loopback port inside the extension host. */
export async function startLab(options: MockServerOptions = {}): Promise<MockLabServer> {
  const server = new MockLabServer({
    reports: 120,
    samples: 300,
    tokens: { [LEAK_CHECK_TOKEN]: { label: 'leak check (full scope)' } },
    ...options,
  });
  await server.start();
  return server;
}

/** The name a mock lab gives itself in its records (`lab_name`): a sign-in by address names the lab so. */
export function ownNameOf(lab: MockLabServer): string {
  return lab.data.reports[0]!.lab_name;
}

export async function signIn(baseUrl: string, token: string, name?: string): Promise<unknown> {
  return vscode.commands.executeCommand(
    'labData.signIn',
    name === undefined ? { baseUrl, token } : { baseUrl, token, name },
  );
}

/**
 * Makes `baseUrl` the only lab (as the `labData.baseUrl` shorthand), then signs in to it: suites
 * that each start their own mock lab would otherwise add a lab apiece and be asked "which lab?".
 */
export async function signInOnly(baseUrl: string, token: string): Promise<unknown> {
  const config = vscode.workspace.getConfiguration('labData');
  await config.update('labs', undefined, vscode.ConfigurationTarget.Global);
  await config.update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
  await config.update('labName', undefined, vscode.ConfigurationTarget.Global);
  return signIn(baseUrl, token);
}

/** One suite's lab, signed in as the only lab; see {@link signedInLab}. */
export interface SignedInLab {
  readonly api: LabDataExtensionApi;
  readonly lab: MockLabServer;
  /**
   * The lab's name as the extension shows it: the one it gives itself (`lab_name`, the mock lab's
   * "Meridian Analytical Laboratories"), else its host, as the one-lab shorthand names it.
   */
  readonly name: string;
  /**
   * Signs out, puts `labData.labs` and `labData.baseUrl` back as they were before, stops the lab.
   * `keepSignedIn` leaves the sign-in and its settings in place (for the reload phase only).
   */
  close(options?: { keepSignedIn?: boolean }): Promise<void>;
}

/**
 * The one signed-in fixture of the integration suites, called in a suite's `before` (and its
 * `close()` in `after`): activates the extension, starts a mock lab (or takes `lab`, already
 * started), makes it the only lab and signs in with `token` (the leak-check token by default),
 * and waits until the extension says so. Each suite sets up the sign-in it needs, so any suite
 * runs alone (`LABDATA_TEST_GREP`), whatever another suite left.
 */
export async function signedInLab(
  options: MockServerOptions & { token?: string; lab?: MockLabServer } = {},
): Promise<SignedInLab> {
  const { token = LEAK_CHECK_TOKEN, lab: given, ...serverOptions } = options;
  const api = await activateExtension();
  const config = () => vscode.workspace.getConfiguration('labData');
  const before = {
    labs: config().inspect('labs')?.globalValue,
    baseUrl: config().inspect('baseUrl')?.globalValue,
    labName: config().inspect('labName')?.globalValue,
  };
  const lab = given ?? (await startLab(serverOptions));
  await signInOnly(lab.baseUrl, token);
  await eventually(async () =>
    assert.equal((await api.getState()).origin, new URL(lab.baseUrl).origin),
  );
  const name = (await api.getState()).labs[0]!.name;
  return {
    api,
    lab,
    name,
    async close({ keepSignedIn = false } = {}) {
      if (!keepSignedIn) {
        // By name: with another lab signed in, a bare Sign Out would ask which.
        await vscode.commands
          .executeCommand('labData.signOut', { name })
          .then(undefined, () => false);
        await config().update('labs', before.labs, vscode.ConfigurationTarget.Global);
        await config().update('baseUrl', before.baseUrl, vscode.ConfigurationTarget.Global);
        await config().update('labName', before.labName, vscode.ConfigurationTarget.Global);
      }
      await lab.stop();
    },
  };
}

/** Signs out of every lab the extension knows, by name (for a suite that signed in to several). */
export async function signOutOfAll(api: LabDataExtensionApi): Promise<void> {
  for (const { name } of (await api.getState()).labs) {
    await vscode.commands.executeCommand('labData.signOut', { name }).then(undefined, () => false);
  }
}

/**
 * The error notifications shown from now on: a function listing those shown since this call. The
 * extension keeps only its last 20, so after a long run a count taken before (`errorsShown().length`)
 * stays 20 and slicing by it finds nothing new; the last one seen before marks where to start.
 */
export function errorsFromNow(
  api: LabDataExtensionApi,
): () => ReturnType<LabDataExtensionApi['errorsShown']> {
  const last = api.errorsShown().at(-1);
  return () => {
    const all = api.errorsShown();
    return last === undefined ? all : all.slice(all.indexOf(last) + 1);
  };
}

/** Waits until `check` passes, for state that settles through events. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await check();
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw lastError;
}

let settingsMarker = 0;

/**
 * Writes a workspace's `.vscode/settings.json` and resolves once this extension host has been told
 * of it: the file carries a marker setting VS Code does read from a workspace (`editor.tabSize`, a
 * new value each time), and VS Code applies a file's settings and fires their change event to every
 * listener, the extension's first, in one step. A setting the extension must ignore (an
 * application-scoped one) therefore had its chance to act once the marker shows.
 */
export async function writeWorkspaceSettings(
  folder: string,
  settings: Record<string, unknown>,
): Promise<void> {
  const marker = 3 + (settingsMarker++ % 5);
  const seen = (): boolean =>
    vscode.workspace.getConfiguration('editor').inspect<number>('tabSize')?.workspaceValue ===
    marker;
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(
    path.join(folder, 'settings.json'),
    JSON.stringify({ ...settings, 'editor.tabSize': marker }),
  );
  await eventually(() => assert.ok(seen(), `VS Code read the workspace settings (${marker})`));
}

/** The files a VS Code log output channel named "Lab Data" was written to in this test run. */
export async function labDataLogFiles(): Promise<string[]> {
  const userData = process.env.LABDATA_TEST_USER_DATA_DIR;
  assert.ok(userData, 'the runner passes LABDATA_TEST_USER_DATA_DIR');
  return labDataLogFilesIn(userData);
}

/** A version 3 manifest of `count` reports of one lab (the files are not there). */
export function bigLockfile(origin: string, count: number, prefix = 'RPT-9'): string {
  const reports: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const id = `${prefix}-${String(i).padStart(6, '0')}`;
    reports[id] = {
      bytes: 1000 + i,
      file: `${id}.pdf`,
      sha256: i.toString(16).padStart(64, '0'),
      revision: '1',
    };
  }
  return `${JSON.stringify({ labs: { [origin]: { name: 'Big lab', reports } }, version: 3 }, null, 2)}\n`;
}

export function workspaceFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(folder, 'the test window has a workspace folder');
  return folder;
}

/** Answers the extension's questions without dialogs, recording what was asked. */
export class FakePrompts implements Prompts {
  readonly asked: Array<{ fileName: string; reason: string }> = [];
  existingAnswers: Array<ExistingFileAnswer | undefined> = [];
  reportIdAnswer?: string;

  async existingFile(
    fileName: string,
    reason: 'exists' | 'changedLocally',
  ): Promise<ExistingFileAnswer | undefined> {
    this.asked.push({ fileName, reason });
    return this.existingAnswers.shift();
  }

  async pickWorkspaceFolder(
    folders: readonly vscode.WorkspaceFolder[],
  ): Promise<vscode.WorkspaceFolder | undefined> {
    return folders[0];
  }

  async pickFolderOnDisk(): Promise<vscode.Uri | undefined> {
    return undefined;
  }

  /** Folders "chosen" in the folder dialog, in order; undefined (or none queued) means cancel. */
  folderAnswers: Array<vscode.Uri | undefined> = [];

  async chooseFolder(): Promise<vscode.Uri | undefined> {
    return this.folderAnswers.shift();
  }

  readonly reportIdSuggested: Array<readonly Choice[]> = [];
  /** Each picker's title, and what its check said of the answer (shown in the picker, which then stays open). */
  readonly reportIdAsked: Array<{ title?: string; problem?: string }> = [];

  /** As a person would: the answer, checked the way the picker checks it; one the check refuses is given up on (Escape). */
  async reportId(
    suggestions: readonly Choice[] = [],
    options: ReportIdOptions = {},
  ): Promise<string | undefined> {
    this.reportIdSuggested.push(suggestions);
    const answer = this.reportIdAnswer;
    const problem = answer !== undefined && options.check ? await options.check(answer) : undefined;
    this.reportIdAsked.push({
      title: options.title,
      ...(problem !== undefined ? { problem } : {}),
    });
    return problem === undefined ? answer : undefined;
  }

  confirmAnswer = true;
  /** Answer each confirmation as Enter would: with its dialog's first (default) button. */
  confirmEnter = false;
  readonly confirmAsked: Array<{ message: string; detail: string; decline?: string }> = [];

  async confirm(
    message: string,
    detail: string,
    action = '',
    options: ConfirmOptions = {},
  ): Promise<boolean> {
    this.confirmAsked.push({ message, detail, ...options });
    return this.confirmEnter
      ? confirmButtons(action, options)[0]!.title === action
      : this.confirmAnswer;
  }

  sinceAnswers: Array<string | null | undefined> = [];
  pickOneAnswers: Array<string | null | undefined> = [];
  readonly pickOneOffered: Array<{ title: string; choices: readonly Choice[]; current?: string }> =
    [];
  /** Items per page as they streamed into the list, and what the list finally held. */
  readonly streamedPages: number[] = [];
  streamedChoices: Choice[] = [];
  /** The title of the last streamed picker, and what came into it when (ms after it opened): results and notes about labs. */
  streamed?: {
    title: string;
    parts: Array<{ at: number; choices?: Choice[]; source?: string; note?: string }>;
  };
  choose: (choices: readonly Choice[]) => number[] = () => [0];

  readonly sinceCurrent: Array<string | undefined> = [];
  /** Each date picker's title. */
  readonly sinceTitles: string[] = [];

  async since(
    title: string,
    _verb: SinceVerb,
    current?: string,
  ): Promise<string | null | undefined> {
    this.sinceCurrent.push(current);
    this.sinceTitles.push(title);
    return this.sinceAnswers.shift();
  }

  /** Answers to the filter's first list (which criteria); with none queued, every criterion offered is checked. */
  criteriaAnswers: Array<string[] | undefined> = [];
  readonly criteriaOffered: Array<{
    title: string;
    criteria: ReadonlyArray<Choice & { readonly picked: boolean }>;
  }> = [];

  async pickCriteria(
    title: string,
    criteria: ReadonlyArray<Choice & { readonly picked: boolean }>,
  ): Promise<string[] | undefined> {
    this.criteriaOffered.push({ title, criteria });
    return this.criteriaAnswers.length > 0
      ? this.criteriaAnswers.shift()
      : criteria.map((criterion) => criterion.id);
  }

  passwordAnswers: Array<string | undefined> = [];
  readonly passwordAsked: Array<{ name: string; incorrect: boolean }> = [];

  async password(name: string, incorrect: boolean): Promise<string | undefined> {
    this.passwordAsked.push({ name, incorrect });
    return this.passwordAnswers.shift();
  }

  textAnswers: Array<string | undefined> = [];
  /** Each line asked for: its title, pre-filled value, and the check run as the person types. */
  readonly textAsked: Array<{
    title: string;
    value: string;
    validate: (value: string) => string | undefined;
  }> = [];

  async text(
    title: string,
    _prompt: string,
    value: string,
    validate: (value: string) => string | undefined,
  ): Promise<string | undefined> {
    this.textAsked.push({ title, value, validate });
    return this.textAnswers.shift();
  }

  /** A "token" that presses the box's Check Connection instead (its verdict goes to {@link tokenVerdicts}). */
  static readonly CHECK_CONNECTION = '\u0000check-connection';
  /** Tokens typed into the token box, in order; none left means Escape. */
  tokenAnswers: string[] = [];
  /** What the token box said under the token after its Check Connection. */
  readonly tokenVerdicts: string[] = [];
  /** What the token box said under each token it kept open for. */
  readonly tokenProblems: string[] = [];
  /** Each token box's title. */
  readonly tokenTitles: string[] = [];

  async token<T>(
    text: TokenBoxText,
    attempt: (token: string, signal: AbortSignal) => Promise<T>,
  ): Promise<T | undefined> {
    this.tokenTitles.push(text.title);
    for (
      let token = this.tokenAnswers.shift();
      token !== undefined;
      token = this.tokenAnswers.shift()
    ) {
      if (token === FakePrompts.CHECK_CONNECTION) {
        this.tokenVerdicts.push((await text.checkConnection?.()) ?? '(no verdict)');
        continue;
      }
      try {
        return await attempt(token, new AbortController().signal);
      } catch (error) {
        const problem = text.problemOf(error);
        if (problem === undefined) {
          throw error;
        }
        this.tokenProblems.push(problem);
      }
    }
    return undefined;
  }

  async pickOne(
    title: string,
    _placeHolder: string,
    choices: readonly Choice[],
    _allowAny: boolean,
    current?: string,
  ): Promise<string | null | undefined> {
    this.pickOneOffered.push({ title, choices, current });
    // Nothing queued: Enter, which keeps the value highlighted (the one in force), if any.
    return this.pickOneAnswers.length > 0 ? this.pickOneAnswers.shift() : current;
  }

  /** Where each save dialog would start, and its title; an answer of `null` (or none left) accepts the offered name, as Enter would. */
  readonly saveAsked: Array<{
    title: string;
    defaultUri: vscode.Uri;
    filters: Readonly<Record<string, string[]>>;
  }> = [];
  saveAnswers: Array<vscode.Uri | null | undefined> = [];

  async saveFile(
    title: string,
    defaultUri: vscode.Uri,
    filters: Readonly<Record<string, string[]>>,
  ): Promise<vscode.Uri | undefined> {
    this.saveAsked.push({ title, defaultUri, filters });
    const answer = this.saveAnswers.length > 0 ? this.saveAnswers.shift() : null;
    return answer === null ? defaultUri : answer;
  }

  /** Each streamed list's title. */
  readonly pagesTitles: string[] = [];

  async pickFromPages<T>(
    title: string,
    pages: AsyncIterable<PickPart<T>>,
    toChoice: (item: T) => Choice,
  ): Promise<T[] | undefined> {
    this.pagesTitles.push(title);
    const items: T[] = [];
    const opened = Date.now();
    const streamed: NonNullable<FakePrompts['streamed']> = { title, parts: [] };
    this.streamed = streamed;
    for await (const page of pages) {
      const at = Date.now() - opened;
      if (isPickNote(page)) {
        streamed.parts.push({ at, source: page.source, note: page.note });
        continue;
      }
      streamed.parts.push({ at, choices: page.items.map(toChoice) });
      this.streamedPages.push(page.items.length);
      items.push(...page.items);
    }
    this.streamedChoices = items.map(toChoice);
    return this.choose(this.streamedChoices).map((index) => items[index]!);
  }
}

/** Lists a folder, failing loudly on leftovers such as temporary `.part` files. */
export async function listing(folder: string): Promise<string[]> {
  return (await fs.readdir(folder).catch(() => [])).sort();
}

/** One row of a view as VS Code would show it. */
export interface Row {
  readonly node: LabNode;
  readonly item: vscode.TreeItem;
  readonly label: string;
  /** The id of the record the row stands for (a report row's label is its type), else its label. */
  readonly id: string;
}

/** The rows of a view (or of one row's children), asked of the view's data as VS Code asks it. */
export async function rows(
  api: LabDataExtensionApi,
  view: keyof LabDataExtensionApi['views'],
  parent?: LabNode,
): Promise<Row[]> {
  const provider = api.views[view];
  const nodes = (await provider.getChildren(parent)) ?? [];
  return Promise.all(
    nodes.map(async (node) => {
      const item = await provider.getTreeItem(node);
      const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      return { node, item, label, id: node.ref?.id ?? label };
    }),
  );
}

let trusted: TestCertificates | undefined;

/**
 * A private CA which VS Code's own fetch trusts and Lab Data's own connection does not, unless told.
 * The runner makes it (LABDATA_TEST_VSCODE_CA_DIR) and puts it in code-server's copy of the OS trust
 * store, where VS Code 1.139 finds it; test/integration/index.ts also hands it to VS Code as its test
 * certificates, which VS Code 1.100 reads and 1.139's fetch no longer does. Without the runner's, one
 * is made here (trusted through the test certificates only).
 */
export function vscodeTrustedCertificates(): TestCertificates {
  if (!trusted) {
    const dir = process.env.LABDATA_TEST_VSCODE_CA_DIR;
    trusted = dir ? runnersCertificates(dir) : makeTestCertificates();
    const made = trusted;
    process.once('exit', () => made.remove());
  }
  return trusted;
}

/** The certificates the runner made in `dir` (it removes them when the run ends). */
function runnersCertificates(dir: string): TestCertificates {
  const read = (name: string): string => readFileSync(path.join(dir, name), 'utf8');
  return {
    dir,
    caPem: read('ca.pem'),
    caFile: path.join(dir, 'ca.pem'),
    key: read('server.key'),
    cert: read('server.pem'),
    remove: () => undefined,
  };
}

/**
 * Makes `labs` the only labs defined (the one-lab shorthand another suite may have left, `labData.baseUrl`
 * and `labData.labName`, would be one more) and gives what puts the settings back as they were.
 */
export async function onlyTheseLabs(
  labs: ReadonlyArray<{ readonly name: string; readonly baseUrl: string }>,
): Promise<() => Promise<void>> {
  const settings = (): vscode.WorkspaceConfiguration =>
    vscode.workspace.getConfiguration('labData');
  const global = vscode.ConfigurationTarget.Global;
  const saved = {
    labs: settings().inspect('labs')?.globalValue,
    baseUrl: settings().inspect('baseUrl')?.globalValue,
    labName: settings().inspect('labName')?.globalValue,
  };
  await settings().update('baseUrl', undefined, global);
  await settings().update('labName', undefined, global);
  await settings().update('labs', labs, global);
  return async () => {
    await settings().update('labs', saved.labs, global);
    await settings().update('baseUrl', saved.baseUrl, global);
    await settings().update('labName', saved.labName, global);
  };
}

/**
 * What an action a person waits for may take when what it asks is silent: one answer timeout and
 * never two. The slack for a busy machine (its timers fire late) is 5 s, but always a second short of
 * a second answer timeout, so that a test still tells one wait from two at any timeout the host sets.
 */
export function oneAnswerTimeoutDeadline(answerMs: number): number {
  return answerMs + Math.min(5_000, answerMs - 1_000);
}
