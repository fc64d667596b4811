import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { SecretStoreError, TokenStore } from '../../src/labs/tokenStore';
import { Logger } from '../../src/log';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { defaultLabDefinition } from '../../core/api/labDefinition';

/** A hand-written SecretStorage whose failures we choose (no keyring, a keyring that loses secrets). */
class FakeSecretStorage implements vscode.SecretStorage {
  readonly values = new Map<string, string>();
  failGet = false;
  failStore = false;
  loseOnStore = false;
  private readonly changed = new vscode.EventEmitter<vscode.SecretStorageChangeEvent>();
  readonly onDidChange = this.changed.event;

  async get(key: string): Promise<string | undefined> {
    if (this.failGet) {
      throw new Error('Cannot get password: no keyring');
    }
    return this.values.get(key);
  }

  async keys(): Promise<string[]> {
    return [...this.values.keys()];
  }

  async store(key: string, value: string): Promise<void> {
    if (this.failStore) {
      throw new Error(`Cannot create an item in a locked collection (${value.length} chars)`);
    }
    if (!this.loseOnStore) {
      this.values.set(key, value);
    }
  }

  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }
}

const A = defaultLabDefinition(parseBaseUrl('https://a.example'));
const B = defaultLabDefinition(parseBaseUrl('https://b.example'));
const A_TENANT = defaultLabDefinition(
  parseBaseUrl('https://a.example/tenant-two'),
  'Tenant Two',
  false,
);

describe('SecretStorage failures', () => {
  const channel = vscode.window.createOutputChannel('Lab Data (secret storage test)', {
    log: true,
  });
  after(() => channel.dispose());

  it('stores per lab and origin, and reads back only that lab', async () => {
    const secrets = new FakeSecretStorage();
    const store = new TokenStore(secrets, new Logger(channel));
    await store.store(A, 'token-a');
    assert.equal(await store.get(A), 'token-a');
    assert.equal(await store.get(B), undefined);
    assert.equal(
      await store.get(A_TENANT),
      undefined,
      'another lab on the same origin has its own token',
    );
    await store.store(A_TENANT, 'token-a-tenant');
    assert.equal(await store.get(A), 'token-a');
    assert.equal(await store.get(A_TENANT), 'token-a-tenant');
    // The one-lab shorthand keeps 0.1.0's key, so nobody is signed out by the upgrade.
    assert.deepEqual([...secrets.values.keys()].sort(), [
      'labData.token:https://a.example',
      'labData.token:https://a.example#Tenant%20Two',
    ]);
  });

  it('a failing get means signed out, not an error', async () => {
    const secrets = new FakeSecretStorage();
    secrets.values.set('labData.token:https://a.example', 'token-a');
    secrets.failGet = true;
    assert.equal(await new TokenStore(secrets, new Logger(channel)).get(A), undefined);
  });

  it('a failing store is a clear error that names the keyring, and holds no token', async () => {
    const secrets = new FakeSecretStorage();
    secrets.failStore = true;
    const error = await new TokenStore(secrets, new Logger(channel))
      .store(A, 'tok_never_shown_123')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(error instanceof SecretStoreError);
    assert.match(error.message, /keychain.*not signed in/);
    assert.ok(
      !String(error).includes('tok_never_shown_123') &&
        !(error.stack ?? '').includes('tok_never_shown_123'),
    );
  });

  it('a keyring that silently loses the secret is detected at once', async () => {
    const secrets = new FakeSecretStorage();
    secrets.loseOnStore = true;
    await assert.rejects(
      new TokenStore(secrets, new Logger(channel)).store(A, 'token-a'),
      /could not read it back/,
    );
  });
});
