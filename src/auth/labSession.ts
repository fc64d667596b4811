import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import { parseBaseUrl, type LabBaseUrl } from '../core/baseUrl';
import { LabApiError } from '../core/errors';
import { HttpClient, type ConnectionEvent } from '../core/httpClient';
import { DEFAULT_PAGE_SIZE, LabApi } from '../core/labApi';
import { ContextKeys, SETTINGS_SECTION, Settings } from '../constants';
import type { Logger } from '../log';
import type { TokenStore } from './tokenStore';

export interface SessionState {
  /** The configured lab, when the setting holds a valid address. */
  readonly lab?: LabBaseUrl;
  readonly signedIn: boolean;
  /** Why the configured address is unusable, when it is. */
  readonly configProblem?: string;
}

/** A token is printable ASCII without spaces (RFC 6750 allows less; servers vary, so we allow a little more). */
const TOKEN_SHAPE = /^[\x21-\x7e]{1,4096}$/;

/**
 * Who we talk to and whether we may: the base URL from the user's (application-scoped) settings,
 * the token for exactly that origin from SecretStorage, and one shared {@link LabApi} built from them.
 */
export class LabSession implements vscode.Disposable {
  private state: SessionState = { signedIn: false };
  /** Which token the state was built with, as a fingerprint: a new token is a new session. */
  private tokenFingerprint?: string;
  private client?: { readonly key: string; readonly api: LabApi };
  private readonly changed = new vscode.EventEmitter<SessionState>();
  readonly onDidChangeState = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];
  private connectionState: ConnectionEvent = { kind: 'online' };
  /** The last request that failed, for "Copy Support Report". */
  lastFailure?: { readonly error: LabApiError; readonly at: Date; readonly host: string };
  private readonly connectionChanged = new vscode.EventEmitter<ConnectionEvent>();
  /** Fires when the lab stops or starts answering, or limits requests. */
  readonly onDidChangeConnection = this.connectionChanged.event;

  constructor(
    private readonly tokens: TokenStore,
    private readonly log: Logger,
    private readonly userAgent: string,
  ) {
    this.disposables.push(
      this.changed,
      this.connectionChanged,
      tokens.onDidChange(() => void this.refresh()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(SETTINGS_SECTION)) {
          void this.refresh();
        }
      }),
    );
  }

  get current(): SessionState {
    return this.state;
  }

  get connection(): ConnectionEvent {
    return this.connectionState;
  }

  /** Re-reads the setting and the secret, updates context keys, and tells listeners. */
  async refresh(): Promise<SessionState> {
    const { lab, problem } = this.configuredLab();
    const token = lab ? await this.tokens.get(lab.origin) : undefined;
    if (token) {
      this.log.addSecret(token);
    }
    const next: SessionState = { lab, signedIn: token !== undefined, configProblem: problem };
    const tokenFingerprint = token === undefined ? undefined : fingerprint(token);
    const changed =
      next.signedIn !== this.state.signedIn || next.lab?.baseUrl !== this.state.lab?.baseUrl || next.configProblem !== this.state.configProblem || tokenFingerprint !== this.tokenFingerprint;
    this.state = next;
    this.tokenFingerprint = tokenFingerprint;
    await Promise.all([
      vscode.commands.executeCommand('setContext', ContextKeys.signedIn, next.signedIn),
      vscode.commands.executeCommand('setContext', ContextKeys.hasBaseUrl, lab !== undefined),
    ]);
    if (changed) {
      this.log.info('Session', lab ? `${next.signedIn ? 'Signed in to' : 'Not signed in to'} ${lab.origin}.` : problem ? `The labData.baseUrl setting is not usable: ${problem}` : 'No lab address is set.');
      this.changed.fire(next);
    }
    return next;
  }

  /** The lab API for the configured origin and its own token, or undefined when signed out. */
  async api(): Promise<LabApi | undefined> {
    const { lab } = this.configuredLab();
    if (!lab) {
      return undefined;
    }
    const token = await this.tokens.get(lab.origin);
    if (!token) {
      return undefined;
    }
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const concurrency = config.get<number>(Settings.maxConcurrentRequests, 4);
    const pageSize = config.get<number>(Settings.pageSize, DEFAULT_PAGE_SIZE);
    // The token is part of the identity of the client, but never stored in a readable key.
    const key = `${lab.baseUrl}|${concurrency}|${pageSize}|${fingerprint(token)}`;
    if (this.client?.key !== key) {
      const previous = this.client;
      this.client = { key, api: this.createApi(lab, token, concurrency, pageSize, (event) => this.setConnection(event)) };
      void previous?.api.http.close();
    }
    return this.client.api;
  }

  /**
   * Checks the address and token with one cheap request, then stores the token for that origin
   * and the address in the user's settings. Nothing is stored when the check fails.
   */
  async signIn(baseUrlText: string, tokenText: string, signal?: AbortSignal): Promise<LabBaseUrl> {
    const lab = parseBaseUrl(baseUrlText);
    const token = tokenText.trim();
    if (!TOKEN_SHAPE.test(token)) {
      throw new LabApiError('invalidInput', 'The access token is empty or contains spaces or characters a token cannot have.');
    }
    this.log.addSecret(token);
    const api = this.createApi(lab, token, 1, 1);
    try {
      await api.listReports({ pageSize: 1 }, signal);
    } catch (error) {
      // 403 means the token is valid but its scope excludes the reports area; that is still a sign-in.
      if (!(error instanceof LabApiError && error.code === 'forbidden')) {
        throw error;
      }
      this.log.info('Session', `The token for ${lab.origin} is valid but may not read reports (HTTP 403).`);
      void vscode.window.showWarningMessage(vscode.l10n.t('Signed in to {0}, but this token may not read reports (403): the reports data area is outside its scope.', lab.host));
    } finally {
      void api.http.close();
    }
    await this.tokens.store(lab.origin, token);
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    if (config.inspect<string>(Settings.baseUrl)?.globalValue !== lab.baseUrl) {
      await config.update(Settings.baseUrl, lab.baseUrl, vscode.ConfigurationTarget.Global);
    }
    await this.refresh();
    return lab;
  }

  /** Forgets the token of the configured origin. Returns false when there was none. */
  async signOut(): Promise<boolean> {
    const { lab } = this.configuredLab();
    if (!lab || !(await this.tokens.get(lab.origin))) {
      await this.refresh();
      return false;
    }
    await this.tokens.delete(lab.origin);
    const previous = this.client;
    this.client = undefined;
    void previous?.api.http.close();
    await this.refresh();
    return true;
  }

  /**
   * The lab rejected the stored token (401): it is expired or revoked, so forget it and go to the
   * signed-out state, where every view offers "Sign In".
   */
  async handleUnauthorized(): Promise<void> {
    const { lab } = this.configuredLab();
    if (!lab || !this.state.signedIn) {
      return;
    }
    this.log.warn('Session', `The lab at ${lab.origin} rejected the stored token (401); signing out.`);
    await this.tokens.delete(lab.origin).catch(() => undefined);
    this.client = undefined;
    await this.refresh();
    const signIn = vscode.l10n.t('Sign In');
    void vscode.window.showWarningMessage(vscode.l10n.t('The lab at {0} no longer accepts your access token. Sign in again to continue.', lab.host), signIn).then((choice) => {
      if (choice === signIn) {
        void vscode.commands.executeCommand('labData.signIn');
      }
    });
  }

  private setConnection(event: ConnectionEvent): void {
    if (event.kind === 'unauthorized') {
      void this.handleUnauthorized();
      return;
    }
    const previous = this.connectionState;
    if (event.kind === 'online' && previous.kind === 'rateLimited' && previous.until > Date.now()) {
      // A request that was already under way finished; the pause still holds every new one.
      return;
    }
    this.connectionState = event;
    if (previous.kind !== event.kind || (event.kind === 'rateLimited' && previous.kind === 'rateLimited' && previous.until !== event.until)) {
      this.connectionChanged.fire(event);
    }
  }

  dispose(): void {
    void this.client?.api.http.close();
    this.disposables.forEach((disposable) => disposable.dispose());
  }

  /**
   * Reads the base URL from the user's own settings only. The setting is application-scoped, and we
   * also ignore any workspace value explicitly, so a repository's settings can never redirect the token.
   */
  private configuredLab(): { lab?: LabBaseUrl; problem?: string } {
    const value = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<string>(Settings.baseUrl)?.globalValue;
    if (typeof value !== 'string' || value.trim() === '') {
      return {};
    }
    try {
      return { lab: parseBaseUrl(value) };
    } catch (error) {
      return { problem: error instanceof Error ? error.message : String(error) };
    }
  }

  private createApi(lab: LabBaseUrl, token: string, concurrency: number, pageSize: number, onConnection?: (event: ConnectionEvent) => void): LabApi {
    const http = new HttpClient({
      baseUrl: lab,
      token,
      maxConcurrentRequests: concurrency,
      userAgent: this.userAgent,
      log: this.log.sink,
      onConnection,
      onFailure: (error) => (this.lastFailure = { error, at: new Date(), host: lab.host }),
    });
    return new LabApi(http, pageSize);
  }
}

/** A short non-reversible fingerprint, so a changed token gives a new client without keeping the token in a key. */
function fingerprint(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
