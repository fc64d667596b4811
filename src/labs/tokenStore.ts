import * as vscode from 'vscode';
import { SECRET_KEY_PREFIX, tokenSecretKey } from '../constants';
import type { LabDefinition } from '../../core/api/labDefinition';
import type { Logger } from '../log';

/** Raised when SecretStorage refuses to keep a token (no keyring on Linux, for example). */
export class SecretStoreError extends Error {
  override readonly name = 'SecretStoreError';
}

/**
 * A thin wrapper over `context.secrets`, one secret per lab (and origin). A failure to read is treated as
 * "signed out"; a failure to store is an error with a clear message. There is deliberately no
 * fallback to settings or globalState.
 */
export class TokenStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: Logger,
  ) {
    this.subscription = secrets.onDidChange((event) => {
      if (event.key.startsWith(SECRET_KEY_PREFIX)) {
        this.changed.fire();
      }
    });
  }

  /** How many times SecretStorage was read, for the diagnostics tests and the closing note rely on. */
  reads = 0;

  async get(lab: LabDefinition): Promise<string | undefined> {
    const origin = lab.url.origin;
    this.reads++;
    try {
      const token = await this.secrets.get(key(lab));
      return token ? token : undefined;
    } catch (error) {
      this.log.warn(
        'Auth',
        `Could not read the token for ${origin} from the system keychain; treating as signed out (${error instanceof Error ? error.name : 'error'}).`,
      );
      return undefined;
    }
  }

  async store(lab: LabDefinition, token: string): Promise<void> {
    const origin = lab.url.origin;
    try {
      await this.secrets.store(key(lab), token);
    } catch (error) {
      this.log.error(
        'Auth',
        `Storing the token for ${origin} failed (${error instanceof Error ? error.name : 'error'}).`,
      );
      throw new SecretStoreError(
        vscode.l10n.t(
          'VS Code could not save your access token in the system keychain, so you are not signed in. On Linux, install and unlock a keyring (for example gnome-keyring), or start VS Code with --password-store=basic, then sign in again.',
        ),
      );
    }
    if ((await this.get(lab)) !== token) {
      throw new SecretStoreError(
        vscode.l10n.t(
          'VS Code accepted the access token but could not read it back from the system keychain, so you are not signed in. Check that your keyring is unlocked, then sign in again.',
        ),
      );
    }
  }

  async delete(lab: LabDefinition): Promise<void> {
    const origin = lab.url.origin;
    try {
      await this.secrets.delete(key(lab));
    } catch (error) {
      this.log.warn(
        'Auth',
        `Removing the token for ${origin} failed (${error instanceof Error ? error.name : 'error'}).`,
      );
      throw new SecretStoreError(
        vscode.l10n.t('VS Code could not remove the access token from the system keychain.'),
      );
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

function key(lab: LabDefinition): string {
  return tokenSecretKey(lab.url.origin, lab.name, lab.url.host);
}
