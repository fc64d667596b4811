import * as vscode from 'vscode';
import { LabApiError } from '../../core/errors/errors';
import type { ConnectionEvent } from '../../core/connection/httpClient';
import {
  DEFAULT_MAX_FILE_MIB,
  LabApi,
  maxFileBytes,
  type LabApiOptions,
} from '../../core/api/labApi';
import {
  isInvalidLab,
  labNameProblem,
  ownLabName,
  parseLabDefinition,
  type InvalidLab,
  type LabDefinition,
} from '../../core/api/labDefinition';
import { labError } from '../../core/errors/messages';
import type { TokenStore } from './tokenStore';
import { ContextKeys, SETTINGS_SECTION, Settings } from '../constants';
import { PagingNotices } from './pagingNotices';
import type { Logger } from '../log';
import { LabConnection, type FailedRequest } from './labConnection';
import type { LabEntry, LabRegistry } from './labRegistry';
import type { NetworkSettings } from './networkSettings';

/** A token is printable ASCII without spaces (RFC 6750 allows less; servers vary, so we allow a little more). */
const TOKEN_SHAPE = /^[\x21-\x7e]{1,4096}$/;

/** One row of "which labs are there": a usable lab with its connection, or a misconfigured one. */
export type LabEntryState =
  | { readonly kind: 'lab'; readonly connection: LabConnection }
  | { readonly kind: 'invalid'; readonly lab: InvalidLab };

/** Reports and samples a lab sent. */
export type RecordsSeen = Parameters<NonNullable<LabApiOptions['onRecords']>>[0];

/** A token one request accepted for a lab not yet written ({@link Labs.probe}), with what that request found. */
export interface CheckedToken {
  readonly token: string;
  /** The token is valid but may not read reports (403). */
  readonly reportsForbidden: boolean;
  /** The name the lab gives itself in its records (`lab_name`, cleaned), when it sends one. */
  readonly ownName?: string;
}

/** What a sign-in found out. */
/** A lab that refused its stored token, and why, in its own (sanitised) words when it said. */
export interface RejectedToken {
  readonly lab: LabDefinition;
  readonly reason?: string;
}

/** A token checked for a sign-in, nothing stored yet ({@link Labs.checkSignIn}). */
export interface CheckedSignIn {
  /** The lab as defined, or as it would be added: called after its address when nothing named it. */
  readonly lab: LabDefinition;
  /** The token is valid but may not read reports (403). */
  readonly reportsForbidden: boolean;
  /** The name the lab gives itself in its records (`lab_name`, cleaned), when it sends one. */
  readonly ownName?: string;
  /** The lab is called after its address and nobody is signed in to it: `complete` may name it. */
  readonly nameable: boolean;
  /** Its name when `complete` is given none: its own when it sends one no other lab has, else `lab.name`. */
  readonly proposedName: string;
  /** Why `name` cannot be this lab's name: not a lab name at all, or another lab's; else undefined. */
  nameProblem(name: string): 'invalid' | 'taken' | undefined;
  /** Writes the lab (under `name`, else `proposedName`, when nameable) and stores its token. */
  complete(name?: string): Promise<SignInOutcome>;
}

export interface SignInOutcome {
  readonly lab: LabDefinition;
  /** The token is valid but may not read reports (403). */
  readonly reportsForbidden: boolean;
}

/**
 * Every lab's connection, keyed by lab name: built from the registry's definitions and each lab's
 * own token, which is read from SecretStorage only when a definition or a token changes. Signing
 * in and out happens here; what to show about it is decided by listeners.
 */
export class Labs implements vscode.Disposable {
  private connections = new Map<string, LabConnection>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** A lab was added, removed, redefined, signed in or out. */
  readonly onDidChange = this.changed.event;
  private readonly connectionChanged = new vscode.EventEmitter<LabConnection>();
  /** A lab stopped or started answering, or limits requests. */
  readonly onDidChangeConnection = this.connectionChanged.event;
  private readonly rejected = new vscode.EventEmitter<RejectedToken>();
  /** A lab rejected its stored token (401 from its own origin) and was signed out; with the lab's reason when it gave one. */
  readonly onDidRejectToken = this.rejected.event;
  private readonly seen = new vscode.EventEmitter<{
    readonly lab: LabDefinition;
    readonly records: RecordsSeen;
  }>();
  /** A lab sent reports or samples (a list page, a single report), whoever asked. */
  readonly onDidSeeRecords = this.seen.event;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly pagingNotices: PagingNotices;
  private lastFailed?: FailedRequest;
  private refreshing: Promise<void> = Promise.resolve();
  /** Sign-outs a lab's own 401 started and not yet finished (the token deleted, the labs rebuilt). */
  private signingOut: Promise<void> = Promise.resolve();
  private loggedProblems = '';

  constructor(
    private readonly registry: LabRegistry,
    private readonly tokens: TokenStore,
    private readonly network: NetworkSettings,
    private readonly log: Logger,
    private readonly userAgent: string,
  ) {
    this.pagingNotices = new PagingNotices(log);
    this.disposables.push(
      this.changed,
      this.connectionChanged,
      this.rejected,
      this.seen,
      registry.onDidChange(() => void this.refresh()),
      tokens.onDidChange(() => void this.refresh()),
      network.onDidChange(() => this.connections.forEach((connection) => connection.reset())),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (
          [Settings.pageSize, Settings.maxConcurrentRequests, Settings.maxFileSizeMiB].some(
            (setting) => event.affectsConfiguration(`${SETTINGS_SECTION}.${setting}`),
          )
        ) {
          this.connections.forEach((connection) => connection.reset());
          this.changed.fire();
        }
      }),
    );
  }

  /** Every lab the user defined, usable or not, in settings order. */
  get entries(): LabEntryState[] {
    const usable = this.registry.labs
      .map((lab) => this.connections.get(lab.name))
      .filter((connection): connection is LabConnection => connection !== undefined);
    return [
      ...usable.map((connection) => ({ kind: 'lab' as const, connection })),
      ...this.registry.invalid.map((lab) => ({ kind: 'invalid' as const, lab })),
    ];
  }

  /** Every usable lab's connection. */
  get all(): LabConnection[] {
    return this.entries.flatMap((entry) => (entry.kind === 'lab' ? [entry.connection] : []));
  }

  get signedIn(): LabConnection[] {
    return this.all.filter((connection) => connection.signedIn);
  }

  get(name: string): LabConnection | undefined {
    return this.connections.get(name);
  }

  /** The most recent failed request of any lab, sign-in checks included. */
  get lastFailure(): FailedRequest | undefined {
    return this.lastFailed;
  }

  /** SecretStorage reads so far (diagnostics for tests). */
  get secretReads(): number {
    return this.tokens.reads;
  }

  /**
   * Settles once every lab's token was first read (and a demo sign-in, if any, is done).
   * Activation starts that and returns at once; every entry point (commands, views, chat tools,
   * hovers, links, documents, accounts) waits for it before looking at a lab.
   */
  ready: Promise<void> = Promise.resolve();

  /**
   * Re-reads each lab's token and rebuilds what changed; the one place SecretStorage is read.
   * Runs one at a time, so overlapping triggers never interleave.
   */
  refresh(): Promise<void> {
    this.refreshing = this.refreshing
      .then(() => this.rebuild())
      .catch((error: unknown) =>
        this.log.error('Session', `Reading the lab settings failed: ${String(error)}`),
      );
    return this.refreshing;
  }

  /**
   * Settles once everything already started has finished: a sign-out a 401 began, then a refresh.
   * What the state is after that is the consequence of every request made so far (the test API's
   * `getState` reads it, so a test can say "still signed in" without waiting for a while).
   */
  async settled(): Promise<void> {
    await this.signingOut;
    await this.refresh();
  }

  /** Checks a token with one cheap request, then stores it for that lab only and records the lab in the user's settings. */
  async signIn(
    baseUrl: string,
    tokenText: string,
    name: string | undefined,
    signal?: AbortSignal,
    options: { readonly keepName?: boolean } = {},
  ): Promise<SignInOutcome> {
    const checked = await this.checkSignIn(baseUrl, tokenText, name, signal, options);
    // Closed while the check ran: nothing is stored.
    signal?.throwIfAborted();
    return checked.complete();
  }

  /**
   * Checks a token for the lab a sign-in is for ({@link LabRegistry.prepare}) with one cheap
   * request and stores nothing: {@link CheckedSignIn.complete} does, under the lab's name. A lab
   * that would be called after its address (nobody signed in to it, and no name given with
   * `keepName`) is named before anything is written, so it never exists under its address with a
   * token, a session or an account: by the name it gives itself when no other lab has it, else by
   * the one `complete` is given.
   */
  async checkSignIn(
    baseUrl: string,
    tokenText: string,
    name: string | undefined,
    signal?: AbortSignal,
    options: { readonly keepName?: boolean } = {},
  ): Promise<CheckedSignIn> {
    const prepared = this.registry.prepare(
      baseUrl,
      name,
      (labName) => this.connections.get(labName)?.signedIn === true,
    );
    const { lab } = prepared;
    const token = tokenText.trim();
    const { reportsForbidden, ownName } = await this.check(lab, token, signal);
    const nameable = prepared.addressNamed && options.keepName !== true;
    const nameProblem = (value: string): 'invalid' | 'taken' | undefined =>
      labNameProblem(value) !== undefined
        ? 'invalid'
        : value.trim() !== lab.name && prepared.nameTaken(value)
          ? 'taken'
          : undefined;
    const proposedName =
      nameable && ownName !== undefined && nameProblem(ownName) === undefined ? ownName : lab.name;
    return {
      lab,
      reportsForbidden,
      ...(ownName ? { ownName } : {}),
      nameable,
      proposedName,
      nameProblem,
      complete: async (chosen) => {
        const wanted = nameable ? chosen?.trim() || proposedName : lab.name;
        const problem = nameProblem(wanted);
        if (problem === 'taken') {
          throw labError('invalidInput', 'labNameTaken', { name: wanted });
        }
        if (problem === 'invalid') {
          throw labError('invalidInput', 'labInvalid', {
            name: wanted.slice(0, 60),
            problems: '"name" must be 1 to 60 characters without control characters',
          });
        }
        const saved = await prepared.save(wanted === lab.name ? undefined : wanted);
        await this.tokens.store(saved, token);
        await this.refresh();
        if (saved.name !== lab.name) {
          this.log.info(
            'Session',
            `${lab.url.origin} is called ${saved.name}, the name it was given at sign-in.`,
          );
        }
        return { lab: saved, reportsForbidden };
      },
    };
  }

  /**
   * Checks a token for a lab not yet written to the settings (Add Lab… does, before it asks the
   * lab's name), with the same one request as a sign-in; stores nothing. Resolves with the name the
   * lab gives itself in its records (`lab_name`, cleaned), when it sends one.
   */
  async probe(entry: LabEntry, tokenText: string, signal?: AbortSignal): Promise<CheckedToken> {
    const parsed = parseLabDefinition({ ...entry, name: entry.name || 'new lab' }, 0);
    if (isInvalidLab(parsed)) {
      throw parsed.error;
    }
    const token = tokenText.trim();
    return { token, ...(await this.check(parsed, token, signal)) };
  }

  /** One cheap request with `token`: 403 (a scope without reports) still counts as valid. */
  private async check(
    lab: LabDefinition,
    token: string,
    signal?: AbortSignal,
  ): Promise<{ reportsForbidden: boolean; ownName?: string }> {
    if (!TOKEN_SHAPE.test(token)) {
      throw new LabApiError(
        'invalidInput',
        vscode.l10n.t(
          'The access token is empty or contains spaces or characters a token cannot have.',
        ),
      );
    }
    const problem = this.network.problems.find((error) => error.text?.id === 'proxyInvalid');
    if (problem) {
      throw problem;
    }
    this.log.addSecret(token);
    const probe = new LabApi({
      lab,
      token,
      network: this.network.optionsFor(lab),
      transport: this.network.transportFactory(lab),
      userAgent: this.userAgent,
      log: this.log.sink,
      maxConcurrentRequests: 1,
      // A person waits in the token box: a lab that never answers is said after one timeout.
      interactive: true,
      onFailure: (error) => (this.lastFailed = { error, at: new Date(), lab }),
    });
    try {
      const page = await probe.listReports({ pageSize: 1 }, signal);
      const ownName = ownLabName(page.items[0]?.raw.lab_name);
      return { reportsForbidden: false, ...(ownName ? { ownName } : {}) };
    } catch (error) {
      // 403 means the token is valid but its scope excludes the reports area; that is still a sign-in.
      if (!(error instanceof LabApiError && error.code === 'forbidden')) {
        throw error;
      }
      this.log.info(
        'Session',
        `The token for ${lab.name} (${lab.url.origin}) is valid but may not read reports (HTTP 403).`,
      );
      return { reportsForbidden: true };
    } finally {
      void probe.close();
    }
  }

  /**
   * Adds a lab to the user's settings (Add Lab…): signed in with a token {@link probe} already
   * checked for it (no second request), else signed out.
   */
  async addLab(entry: LabEntry, checked?: CheckedToken): Promise<SignInOutcome> {
    const lab = await this.registry.add(entry);
    if (checked) {
      await this.tokens.store(lab, checked.token);
    }
    await this.refresh();
    return { lab, reportsForbidden: checked?.reportsForbidden ?? false };
  }

  /** Forgets one lab's token. Returns false when there was none. */
  async signOut(name: string): Promise<boolean> {
    const connection = this.connections.get(name);
    if (!connection?.signedIn) {
      return false;
    }
    await this.tokens.delete(connection.lab);
    await this.refresh();
    return true;
  }

  /** Throws the problem of the definition named `name` when it is set up wrongly; an unknown name is no problem here. */
  checkDefinition(name: string): void {
    const found = this.registry.find(name);
    if (found && 'error' in found) {
      throw found.error;
    }
  }

  /** The signed-in lab named `name`, or a clear error. */
  require(name: string): LabConnection {
    this.checkDefinition(name);
    const connection = this.connections.get(name);
    if (!connection) {
      throw labError('invalidInput', 'labUnknown', { name });
    }
    return connection;
  }

  dispose(): void {
    this.connections.forEach((connection) => connection.dispose());
    this.disposables.forEach((disposable) => disposable.dispose());
  }

  private async rebuild(): Promise<void> {
    const next = new Map<string, LabConnection>();
    let changed = this.registry.labs.length !== this.connections.size;
    for (const lab of this.registry.labs) {
      const token = (await this.tokens.get(lab)) ?? (await this.carriedOver(lab));
      if (token) {
        this.log.addSecret(token);
      }
      const current = this.connections.get(lab.name);
      if (current && JSON.stringify(current.lab) === JSON.stringify(lab) && current.holds(token)) {
        next.set(lab.name, current);
        continue;
      }
      changed = true;
      current?.dispose();
      this.log.info(
        'Session',
        `${token ? 'Signed in to' : 'Not signed in to'} ${lab.name} (${lab.url.origin}).`,
      );
      next.set(lab.name, this.connect(lab, token));
    }
    for (const [name, connection] of this.connections) {
      if (!next.has(name)) {
        connection.dispose();
      }
    }
    this.connections = next;
    const problems = this.registry.invalid.map((lab) => lab.error.message);
    if (problems.join('\n') !== this.loggedProblems) {
      // Said once per change of the settings, not on every sign-in or token change.
      this.loggedProblems = problems.join('\n');
      problems.forEach((message) => this.log.warn('Session', message));
    }
    await Promise.all([
      vscode.commands.executeCommand('setContext', ContextKeys.signedIn, this.signedIn.length > 0),
      vscode.commands.executeCommand(
        'setContext',
        ContextKeys.hasBaseUrl,
        this.registry.labs.length + this.registry.invalid.length > 0,
      ),
      vscode.commands.executeCommand(
        'setContext',
        ContextKeys.severalLabs,
        this.registry.labs.length + this.registry.invalid.length > 1,
      ),
    ]);
    if (changed) {
      this.changed.fire();
    }
  }

  /**
   * A lab just defined for the address a lab that is no longer defined was signed in to, with the
   * same endpoints (the user named the `labData.baseUrl` lab in `labData.labs`, or renamed a lab):
   * the same lab under a new name, so its token carries over instead of signing the user out.
   */
  private async carriedOver(lab: LabDefinition): Promise<string | undefined> {
    const sameEndpoints = JSON.stringify(lab.endpoints);
    for (const previous of this.connections.values()) {
      const gone = !this.registry.labs.some((defined) => defined.name === previous.lab.name);
      if (
        gone &&
        previous.signedIn &&
        previous.lab.url.baseUrl === lab.url.baseUrl &&
        JSON.stringify(previous.lab.endpoints) === sameEndpoints
      ) {
        const token = await this.tokens.get(previous.lab);
        if (token) {
          await this.tokens.store(lab, token);
          this.log.info(
            'Session',
            `${lab.name} is at the address ${previous.lab.name} was signed in to, with the same endpoints: its sign-in carries over.`,
          );
          vscode.window.setStatusBarMessage(
            `$(check) ${vscode.l10n.t('{0} is signed in: it has the address and endpoints of {1}.', lab.name, previous.lab.name)}`,
            8000,
          );
          return token;
        }
      }
    }
    return undefined;
  }

  private connect(lab: LabDefinition, token: string | undefined): LabConnection {
    return new LabConnection(
      lab,
      token,
      {
        network: (lab) => this.network.optionsFor(lab),
        transport: (lab) => this.network.transportFactory(lab),
        userAgent: this.userAgent,
        log: this.log.sink,
        onRecords: (seenLab, records) => this.seen.fire({ lab: seenLab, records }),
        onPagingAnomaly: (anomalyLab, anomaly) =>
          this.pagingNotices.report(anomalyLab.name, anomaly),
        defaults: () => {
          const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
          return {
            pageSize: config.get<number>(Settings.pageSize, 50),
            maxConcurrentRequests: config.get<number>(Settings.maxConcurrentRequests, 4),
            maxFileBytes: maxFileBytes(
              config.get<number>(Settings.maxFileSizeMiB, DEFAULT_MAX_FILE_MIB),
            ),
          };
        },
      },
      {
        onConnection: (connection, event) => this.onConnection(connection, event),
        onFailure: (connection) => (this.lastFailed = connection.lastFailure),
      },
    );
  }

  private onConnection(connection: LabConnection, event: ConnectionEvent): void {
    if (event.kind !== 'unauthorized') {
      this.connectionChanged.fire(connection);
      return;
    }
    if (this.connections.get(connection.lab.name) !== connection || !connection.signedIn) {
      return;
    }
    // The lab itself rejected the stored token (expired or revoked): forget it and go to "signed out".
    this.log.warn(
      'Session',
      `${connection.lab.name} (${connection.lab.url.origin}) rejected the stored token (401${event.reason ? `: ${event.reason}` : ''}); signing out of that lab.`,
    );
    const signOut = this.tokens
      .delete(connection.lab)
      .catch(() => undefined)
      .then(() => this.refresh())
      .then(() => this.rejected.fire({ lab: connection.lab, reason: event.reason }));
    this.signingOut = Promise.all([this.signingOut, signOut]).then(() => undefined);
  }
}
