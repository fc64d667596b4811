import * as vscode from 'vscode';
import { createExtensionApi, type LabDataExtensionApi } from './api';
import { AUTH_PROVIDER_ID, LabAuthenticationProvider } from './auth/authProvider';
import { signInForDemo } from './auth/demoSignIn';
import { LabSession } from './auth/labSession';
import { TokenStore } from './auth/tokenStore';
import { commandTable } from './commands';
import { registerCommands } from './commands/commandRunner';
import { LOG_CHANNEL_NAME } from './constants';
import { METADATA_SCHEME, MetadataDocumentProvider } from './documents/metadataDocuments';
import { PromptsHolder } from './ui/prompts';
import { Logger } from './log';
import { ConnectionStatusBar } from './statusBar';
import { registerViews } from './views/registerViews';

/** Builds the objects and registers them; no logic of its own. */
export async function activate(context: vscode.ExtensionContext): Promise<LabDataExtensionApi> {
  const channel = vscode.window.createOutputChannel(LOG_CHANNEL_NAME, { log: true });
  const log = new Logger(channel);
  const version = String(context.extension.packageJSON.version ?? '0.0.0');
  const tokens = new TokenStore(context.secrets, log);
  const session = new LabSession(tokens, log, `lab-data-vscode/${version} (VS Code ${vscode.version})`);
  const views = registerViews(session);
  const statusBar = new ConnectionStatusBar(session);
  const authProvider = new LabAuthenticationProvider(session);
  const documents = new MetadataDocumentProvider(session);
  const prompts = new PromptsHolder();
  context.subscriptions.push(
    channel,
    tokens,
    session,
    ...views.disposables,
    statusBar,
    authProvider,
    vscode.authentication.registerAuthenticationProvider(AUTH_PROVIDER_ID, 'Lab Data', authProvider, { supportsMultipleAccounts: false }),
    documents,
    vscode.workspace.registerTextDocumentContentProvider(METADATA_SCHEME, documents),
    ...registerCommands(commandTable({ session, trees: views, documents, prompts, log, integration: `Lab Data for VS Code ${version} (VS Code ${vscode.version})` }), log),
  );
  await session.refresh();
  await signInForDemo(session, log);
  log.info('Extension', `Lab Data ${version} activated in ${vscode.env.appName} ${vscode.version}.`);
  return createExtensionApi(session, views, statusBar, prompts);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
