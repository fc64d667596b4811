import * as vscode from 'vscode';
import type { LabSession } from './labSession';
import { Commands } from '../constants';

export const AUTH_PROVIDER_ID = 'labData';

/**
 * Shows the signed-in lab in VS Code's Accounts menu (as "<host> (Lab Data)"), where it can be signed out. The token itself
 * is not handed out: `accessToken` is empty, because no other extension needs the lab's token.
 */
export class LabAuthenticationProvider implements vscode.AuthenticationProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.AuthenticationProviderAuthenticationSessionsChangeEvent>();
  readonly onDidChangeSessions = this.changed.event;
  private current?: vscode.AuthenticationSession;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly session: LabSession) {
    this.subscription = session.onDidChangeState(() => this.sync());
    this.sync();
  }

  async getSessions(): Promise<vscode.AuthenticationSession[]> {
    return this.current ? [this.current] : [];
  }

  async createSession(): Promise<vscode.AuthenticationSession> {
    await vscode.commands.executeCommand(Commands.signIn);
    this.sync();
    if (!this.current) {
      throw new Error('Sign-in to the lab was cancelled or failed.');
    }
    return this.current;
  }

  async removeSession(): Promise<void> {
    await this.session.signOut();
    this.sync();
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private sync(): void {
    const state = this.session.current;
    const next: vscode.AuthenticationSession | undefined =
      state.signedIn && state.lab ? { id: state.lab.origin, accessToken: '', account: { id: state.lab.origin, label: state.lab.host }, scopes: [] } : undefined;
    if (next?.id === this.current?.id) {
      return;
    }
    const removed = this.current ? [this.current] : [];
    this.current = next;
    this.changed.fire({ added: next ? [next] : [], removed, changed: [] });
  }
}
