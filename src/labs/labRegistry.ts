import * as vscode from 'vscode';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { labError } from '../../core/errors/messages';
import {
  defaultLabDefinition,
  isInvalidLab,
  labNameProblem,
  parseLabDefinition,
  parseLabDefinitions,
  type InvalidLab,
  type LabDefinition,
  type LabDefinitions,
} from '../../core/api/labDefinition';
import { SETTINGS_SECTION, Settings } from '../constants';

/** A lab entry as the user writes it in `labData.labs`. */
export interface LabEntry {
  readonly name: string;
  readonly baseUrl: string;
  readonly [key: string]: unknown;
}

/** Whether a lab is called after its address (the one-lab shorthand, or a sign-in that had no name for it). */
export function namedAfterAddress(lab: LabDefinition): boolean {
  return lab.name === lab.url.host || lab.name.startsWith(`${lab.url.host} (`);
}

/** The lab a sign-in is for, not written yet ({@link LabRegistry.prepare}). */
export interface PreparedLab {
  readonly lab: LabDefinition;
  /**
   * Called after its address (a new lab, or a defined one nobody is signed in to, that the caller
   * did not name): `save(name)` may name it.
   */
  readonly addressNamed: boolean;
  /** Whether `name` is another lab's name (in any case). */
  nameTaken(name: string): boolean;
  /** Writes the lab to the user's settings, under `name` when it is `addressNamed` and one is given. */
  save(name?: string): Promise<LabDefinition>;
}

/**
 * Every lab the user defined, validated, in one place: `labData.labs` plus the `labData.baseUrl`
 * shorthand. Both are application-scoped, and only the user's own (global) values are read, so a
 * repository's `.vscode/settings.json` can never add a lab or move a token, in either the dotted
 * or the nested form.
 */
export class LabRegistry implements vscode.Disposable {
  private current: LabDefinitions;
  private readonly changed = new vscode.EventEmitter<LabDefinitions>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;
  /** True while the shorthand's address and name are written together: the half-written state is never read. */
  private writing = false;

  constructor() {
    this.current = this.read();
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (
        !this.writing &&
        (event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.labs}`) ||
          event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.baseUrl}`) ||
          event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.labName}`))
      ) {
        this.reload();
      }
    });
  }

  get definitions(): LabDefinitions {
    return this.current;
  }

  get labs(): readonly LabDefinition[] {
    return this.current.labs;
  }

  get invalid(): readonly InvalidLab[] {
    return this.current.invalid;
  }

  /** The usable lab named `name`, or the problem that makes it unusable. */
  find(name: string): LabDefinition | InvalidLab | undefined {
    return (
      this.current.labs.find((lab) => lab.name === name) ??
      this.current.invalid.find((lab) => lab.name === name)
    );
  }

  /** Re-reads the settings; fires when the definitions changed. */
  reload(): void {
    const next = this.read();
    if (JSON.stringify(next) !== JSON.stringify(this.current)) {
      this.current = next;
      this.changed.fire(next);
    }
  }

  /**
   * The lab a sign-in is for, without writing anything yet: `save()` records it in the user's
   * settings once the token has been checked. A named lab that is defined must have this address
   * (an invalid one fails with its own error, before any request); an unknown name becomes a new
   * `labData.labs` entry. Without a name: the lab with this address, else the `labData.baseUrl`
   * shorthand when it is free or names a lab nobody is signed in to (replaced, as in 0.1.0), else a
   * new entry named after the host, so a signed-in lab is never lost.
   *
   * `addressNamed` says the lab is (or would be added) called after its address (a new name the
   * caller gives is kept); `save(name)` then writes it under `name` instead, from the start: a new
   * lab is added under it, a defined one renamed before its token is stored. `nameTaken` says whether a name is another lab's (in any case).
   */
  prepare(
    baseUrlText: string,
    name?: string,
    isSignedIn: (name: string) => boolean = () => false,
  ): PreparedLab {
    const url = parseBaseUrl(baseUrlText);
    const others = (lab: LabDefinition | undefined) => (wanted: string) =>
      [...this.current.labs, ...this.current.invalid].some(
        (other) => other !== lab && other.name.toLowerCase() === wanted.trim().toLowerCase(),
      );
    // A defined lab someone is signed in to keeps its name: it has a token, a session and an account under it.
    const keep = (lab: LabDefinition, calledAfterAddress: boolean): PreparedLab => {
      const addressNamed = calledAfterAddress && !isSignedIn(lab.name);
      return {
        lab,
        addressNamed,
        nameTaken: others(lab),
        save: async (newName) =>
          addressNamed && newName !== undefined && newName.trim() !== lab.name
            ? this.rename(lab, newName)
            : lab,
      };
    };
    if (name !== undefined && name.trim() !== '') {
      const found = this.find(name.trim());
      if (found && isInvalidLab(found)) {
        throw found.error;
      }
      if (found) {
        if (found.url.baseUrl !== url.baseUrl) {
          throw labError('invalidInput', 'labBaseUrlMismatch', {
            name: found.name,
            defined: found.url.baseUrl,
            given: url.baseUrl,
          });
        }
        return keep(found, namedAfterAddress(found));
      }
      return this.newEntry({ name: name.trim(), baseUrl: url.baseUrl }, false);
    }
    const existing = this.current.labs.find((lab) => lab.url.baseUrl === url.baseUrl);
    if (existing) {
      return keep(existing, namedAfterAddress(existing));
    }
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const shorthand = config.inspect<string>(Settings.baseUrl)?.globalValue;
    const current = this.current.labs.find((lab) => lab.shorthand);
    const shorthandFree =
      typeof shorthand !== 'string' ||
      shorthand.trim() === '' ||
      !current ||
      !isSignedIn(current.name);
    const sameName = this.find(url.host);
    const nameTaken = sameName !== undefined && sameName !== current;
    if (shorthandFree && !nameTaken) {
      const lab = defaultLabDefinition(url);
      return {
        lab,
        addressNamed: true,
        // The shorthand lab it replaces gives its name up.
        nameTaken: others(current),
        save: async (newName) => {
          const named = newName?.trim() || undefined;
          // A replaced shorthand lab's name goes with it: the new lab has its own, or is called after its address.
          this.writing = true;
          try {
            if (config.inspect<string>(Settings.labName)?.globalValue !== named) {
              await config.update(Settings.labName, named, vscode.ConfigurationTarget.Global);
            }
            await config.update(Settings.baseUrl, url.baseUrl, vscode.ConfigurationTarget.Global);
          } finally {
            this.writing = false;
          }
          this.reload();
          return (
            this.current.labs.find((defined) => defined.shorthand) ??
            defaultLabDefinition(url, named)
          );
        },
      };
    }
    let candidate = url.host;
    for (let n = 2; this.find(candidate); n++) {
      candidate = `${url.host} (${n})`;
    }
    return this.newEntry({ name: candidate, baseUrl: url.baseUrl }, true);
  }

  /**
   * Adds a lab to the user's `labData.labs` (Add Lab…): validated first, its name not in use by
   * another lab (in any case), its address not already another lab's with the same endpoints.
   */
  async add(entry: LabEntry): Promise<LabDefinition> {
    const taken = [...this.current.labs, ...this.current.invalid].find(
      (lab) => lab.name.toLowerCase() === entry.name.trim().toLowerCase(),
    );
    if (taken) {
      throw labError('invalidInput', 'labNameTaken', { name: taken.name });
    }
    const { lab, save } = this.newEntry({ ...entry, name: entry.name.trim() }, false);
    const same = this.current.labs.find(
      (defined) =>
        defined.url.baseUrl === lab.url.baseUrl &&
        JSON.stringify(defined.endpoints) === JSON.stringify(lab.endpoints),
    );
    if (same) {
      throw labError('invalidInput', 'labAddressTaken', { name: same.name });
    }
    return save();
  }

  /**
   * Gives a lab named after its address the name it gives itself (or the user chose): the
   * `labData.baseUrl` lab through `labData.labName` (so it stays the one-lab shorthand, replaced
   * by a sign-in elsewhere as before), a `labData.labs` entry in place.
   */
  async rename(lab: LabDefinition, name: string): Promise<LabDefinition> {
    const wanted = name.trim();
    const taken = [...this.current.labs, ...this.current.invalid].find(
      (other) => other.name !== lab.name && other.name.toLowerCase() === wanted.toLowerCase(),
    );
    if (taken) {
      throw labError('invalidInput', 'labNameTaken', { name: taken.name });
    }
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    if (lab.shorthand) {
      const named = defaultLabDefinition(lab.url, wanted);
      if (labNameProblem(wanted) !== undefined) {
        throw labError('invalidInput', 'labInvalid', {
          name: wanted.slice(0, 60),
          problems: vscode.l10n.t('"name" must be 1 to 60 characters without control characters'),
        });
      }
      await config.update(Settings.labName, wanted, vscode.ConfigurationTarget.Global);
      this.reload();
      return this.current.labs.find((defined) => defined.name === wanted) ?? named;
    }
    const existing = config.inspect<unknown[]>(Settings.labs)?.globalValue;
    const entries = Array.isArray(existing) ? existing : [];
    const renamed = entries.map((entry) =>
      typeof entry === 'object' && entry !== null && (entry as { name?: unknown }).name === lab.name
        ? { ...entry, name: wanted }
        : entry,
    );
    const parsed = parseLabDefinition(
      { ...(renamed.find((entry) => (entry as { name?: unknown }).name === wanted) as object) },
      0,
    );
    if (isInvalidLab(parsed)) {
      throw parsed.error;
    }
    await config.update(Settings.labs, renamed, vscode.ConfigurationTarget.Global);
    this.reload();
    return this.current.labs.find((defined) => defined.name === wanted) ?? parsed;
  }

  /**
   * A new `labData.labs` entry, validated now and appended to the user's settings on `save()`
   * (under the name `save` is given, when it was called after its address).
   */
  private newEntry(entry: LabEntry, addressNamed: boolean): PreparedLab {
    const parsed = parseLabDefinition(entry, this.current.labs.length);
    if (isInvalidLab(parsed)) {
      throw parsed.error;
    }
    return {
      lab: parsed,
      addressNamed,
      nameTaken: (wanted) =>
        [...this.current.labs, ...this.current.invalid].some(
          (other) => other.name.toLowerCase() === wanted.trim().toLowerCase(),
        ),
      save: async (newName) => {
        const named = addressNamed && newName?.trim() ? { ...entry, name: newName.trim() } : entry;
        const lab = named === entry ? parsed : parseLabDefinition(named, this.current.labs.length);
        if (isInvalidLab(lab)) {
          throw lab.error;
        }
        const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
        const existing = config.inspect<unknown[]>(Settings.labs)?.globalValue;
        await config.update(
          Settings.labs,
          [...(Array.isArray(existing) ? existing : []), { ...named }],
          vscode.ConfigurationTarget.Global,
        );
        this.reload();
        return lab;
      },
    };
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private read(): LabDefinitions {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    // globalValue only: workspace and folder values are ignored on purpose (see the class comment).
    return parseLabDefinitions(
      config.inspect<unknown>(Settings.labs)?.globalValue,
      config.inspect<unknown>(Settings.baseUrl)?.globalValue,
      config.inspect<unknown>(Settings.labName)?.globalValue,
    );
  }
}
