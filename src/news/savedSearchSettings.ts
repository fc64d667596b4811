import * as vscode from 'vscode';
import {
  parseSavedSearches,
  type InvalidSavedSearch,
  type SavedSearch,
} from '../../core/derived/savedSearches';
import { SETTINGS_SECTION, Settings } from '../constants';
import type { Logger } from '../log';

/**
 * The user's saved searches (`labData.savedSearches`, application scope: only the user's own value
 * is read, like the lab definitions). Unusable entries are logged once per change of the setting.
 */
export class SavedSearchSettings implements vscode.Disposable {
  private current: { searches: SavedSearch[]; invalid: InvalidSavedSearch[] };
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly log: Logger) {
    this.current = this.read();
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.savedSearches}`)) {
        this.current = this.read();
        this.changed.fire();
      }
    });
  }

  get searches(): readonly SavedSearch[] {
    return this.current.searches;
  }

  get invalid(): readonly InvalidSavedSearch[] {
    return this.current.invalid;
  }

  /** Adds a search to the user's settings, replacing one of the same name and lab. */
  async add(search: SavedSearch): Promise<void> {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const existing = config.inspect<unknown[]>(Settings.savedSearches)?.globalValue;
    const kept = (Array.isArray(existing) ? existing : []).filter((entry) => {
      const other = entry as Partial<SavedSearch> | null;
      return !(
        typeof other?.name === 'string' &&
        other.name.trim().toLowerCase() === search.name.toLowerCase() &&
        (other.lab ?? undefined) === search.lab
      );
    });
    await config.update(
      Settings.savedSearches,
      [...kept, search],
      vscode.ConfigurationTarget.Global,
    );
    this.current = this.read();
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private read(): { searches: SavedSearch[]; invalid: InvalidSavedSearch[] } {
    // globalValue only: a repository's settings never add searches to a user's views.
    const parsed = parseSavedSearches(
      vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<unknown>(Settings.savedSearches)
        ?.globalValue,
    );
    parsed.invalid.forEach((entry) => this.log.warn('Searches', entry.error.message));
    return parsed;
  }
}
