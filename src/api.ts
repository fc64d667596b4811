import type * as vscode from 'vscode';
import type { LabSession } from './auth/labSession';
import type { ConnectionStatusBar } from './statusBar';
import type { Prompts, PromptsHolder } from './ui/prompts';
import type { LabNode } from './views/nodes';

/** What `activate` returns to other extensions and to our integration tests. */
export interface LabDataExtensionApi {
  /** The configured lab (origin only, never the token) and whether a token is stored for it. */
  getState(): Promise<{ readonly baseUrl?: string; readonly origin?: string; readonly signedIn: boolean }>;
  /** The data behind each view, to read what the trees show. */
  readonly views: Readonly<Record<'reports' | 'clients' | 'samples', vscode.TreeDataProvider<LabNode>>>;
  /** The status bar text now. */
  statusText(): string;
  /**
   * Replaces the questions the extension asks (overwrite or not, which folder, which id), for
   * automation and tests; returns a function that restores the dialogs.
   */
  setPrompts(prompts: Prompts): () => void;
}

export function createExtensionApi(session: LabSession, views: LabDataExtensionApi['views'], statusBar: ConnectionStatusBar, prompts: PromptsHolder): LabDataExtensionApi {
  return {
    async getState() {
      const state = await session.refresh();
      return { baseUrl: state.lab?.baseUrl, origin: state.lab?.origin, signedIn: state.signedIn };
    },
    views: { reports: views.reports, clients: views.clients, samples: views.samples },
    statusText: () => statusBar.text,
    setPrompts(replacement) {
      const previous = prompts.current;
      prompts.current = replacement;
      return () => {
        prompts.current = previous;
      };
    },
  };
}
