import * as vscode from 'vscode';
import { Commands } from '../constants';
import type { Labs } from '../labs/labs';

export const AUTH_PROVIDER_ID = 'labData';

/**
 * Lists one account per signed-in lab in VS Code's Accounts menu (as "<lab name> (Lab Data)"),
 * where each can be signed out. The token itself is not handed out: `accessToken` is empty,
 * because no other extension needs a lab's token.
 */
export class LabAuthenticationProvider implements vscode.AuthenticationProvider, vscode.Disposable {
  private readonly changed =
    new vscode.EventEmitter<vscode.AuthenticationProviderAuthenticationSessionsChangeEvent>();
  readonly onDidChangeSessions = this.changed.event;
  private current = new Map<string, vscode.AuthenticationSession>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly labs: Labs) {
    this.subscription = labs.onDidChange(() => this.sync());
    this.sync();
  }

  async getSessions(): Promise<vscode.AuthenticationSession[]> {
    await this.labs.ready;
    return [...this.current.values()];
  }

  async createSession(): Promise<vscode.AuthenticationSession> {
    const before = new Set(this.current.keys());
    await vscode.commands.executeCommand(Commands.signIn);
    this.sync();
    const added = [...this.current.values()].find((session) => !before.has(session.id));
    if (!added) {
      throw new Error(vscode.l10n.t('Sign-in to the lab was cancelled or failed.'));
    }
    return added;
  }

  async removeSession(sessionId: string): Promise<void> {
    const name = this.current.get(sessionId)?.account.label;
    if (name !== undefined) {
      await this.labs.signOut(name);
    }
    this.sync();
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private sync(): void {
    const next = new Map<string, vscode.AuthenticationSession>();
    for (const { lab } of this.labs.signedIn) {
      const id = `${lab.url.origin}#${lab.name}`;
      next.set(
        id,
        this.current.get(id) ?? {
          id,
          accessToken: '',
          account: { id, label: lab.name },
          scopes: [],
        },
      );
    }
    const added = [...next.values()].filter((session) => !this.current.has(session.id));
    const removed = [...this.current.values()].filter((session) => !next.has(session.id));
    this.current = next;
    if (added.length > 0 || removed.length > 0) {
      this.changed.fire({ added, removed, changed: [] });
    }
  }
}
