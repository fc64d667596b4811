import * as vscode from 'vscode';
import {
  IdShapes,
  findIds,
  userIdPattern,
  type IdKind,
  type IdMatch,
} from '../../core/derived/idPatterns';
import type { JsonObject, Report } from '../../core/api/records';
import { RecordLookup, RequestBudget } from '../../core/api/recordLookup';
import { SETTINGS_SECTION, Settings } from '../constants';
import type { LabConnection } from '../labs/labConnection';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';
import { displayFormat } from '../ui/displayLocale';

/** What one lab knows about its ids: their shapes and the records already seen or looked up. */
interface LabIdState {
  readonly shapes: Record<IdKind, IdShapes>;
  readonly reports: RecordLookup<Report>;
  readonly samples: RecordLookup<JsonObject>;
}

/** An id in a text, with the signed-in labs whose ids look like it. */
export interface LabIdMatch extends IdMatch {
  readonly labs: readonly LabConnection[];
}

/**
 * Which text is a report or sample id of a signed-in lab, and what that record is. Patterns come
 * from `labData.idPatterns` (user settings only) or are learned from every list a lab sent;
 * lookups are cached for ten minutes and share one request budget across labs (see RecordLookup).
 */
export class LabIds implements vscode.Disposable {
  private readonly states = new Map<string, LabIdState>();
  private readonly budget = new RequestBudget(4);
  private userPatterns: Partial<Record<IdKind, RegExp>> = {};
  private readonly changed = new vscode.EventEmitter<void>();
  /** The patterns changed (new shapes learned, settings changed): links may need recomputing. */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly labs: Labs,
    private readonly log: Logger,
  ) {
    this.readSettings();
    this.disposables.push(
      this.changed,
      labs.onDidSeeRecords(({ lab, records }) => {
        const state = this.stateOf(lab.name);
        if (!state) {
          return;
        }
        const reports = records.reports ?? [];
        const samples = (records.samples ?? []).filter((sample) => sample.id !== undefined);
        state.reports.remember(reports.map((report) => [report.report_id, report] as const));
        state.samples.remember(samples.map((sample) => [sample.id!, sample.raw] as const));
        const learned =
          state.shapes.report.learn(reports.map((report) => report.report_id)) ||
          state.shapes.sample.learn(samples.map((sample) => sample.id!));
        if (learned) {
          this.changed.fire();
        }
      }),
      labs.onDidChange(() => {
        for (const name of this.states.keys()) {
          if (!labs.get(name)?.signedIn) {
            this.states.delete(name);
          }
        }
        this.changed.fire();
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${SETTINGS_SECTION}.${Settings.idPatterns}`)) {
          this.readSettings();
          this.changed.fire();
        }
      }),
    );
  }

  /** Settles once the labs' tokens were first read (see {@link Labs.ready}). */
  get ready(): Promise<void> {
    return this.labs.ready;
  }

  /** Every id of a signed-in lab in `text`, with the labs it may belong to. */
  find(text: string): LabIdMatch[] {
    // Labs with the same id shapes share one pattern, so each id is found once.
    const byPattern = new Map<string, { kind: IdKind; pattern: RegExp; labs: LabConnection[] }>();
    for (const connection of this.labs.signedIn) {
      for (const kind of ['report', 'sample'] as const) {
        const pattern = this.patternOf(connection.lab.name, kind);
        if (pattern) {
          const key = `${kind}:${pattern.source}`;
          const entry = byPattern.get(key) ?? { kind, pattern, labs: [] };
          entry.labs.push(connection);
          byPattern.set(key, entry);
        }
      }
    }
    const patterns = [...byPattern.values()];
    return findIds(text, patterns).map((match) => ({
      ...match,
      labs: patterns[match.pattern]!.labs,
    }));
  }

  /** A report of `lab`, from what was seen or one request within the budget. */
  report(
    lab: LabConnection,
    id: string,
    signal?: AbortSignal,
  ): ReturnType<RecordLookup<Report>['lookup']> {
    return this.stateOf(lab.lab.name)!.reports.lookup(id, signal);
  }

  /** What is known of a report of `lab` without asking it, or undefined. */
  peekReport(lab: LabConnection, id: string): ReturnType<RecordLookup<Report>['peek']> {
    return this.stateOf(lab.lab.name)?.reports.peek(id);
  }

  /** More than one lab is signed in (two labs may use one id). */
  get severalLabs(): boolean {
    return this.labs.signedIn.length > 1;
  }

  /** A sample of `lab`, only from what the lab listed (there is no single-sample endpoint). */
  sample(lab: LabConnection, id: string): ReturnType<RecordLookup<JsonObject>['lookup']> {
    return this.stateOf(lab.lab.name)!.samples.lookup(id);
  }

  /** Lookup requests made so far, all labs together (diagnostics for tests). */
  get requests(): number {
    return [...this.states.values()].reduce((sum, state) => sum + state.reports.requests, 0);
  }

  dispose(): void {
    this.disposables.forEach((disposable) => disposable.dispose());
  }

  private patternOf(lab: string, kind: IdKind): RegExp | undefined {
    return this.userPatterns[kind] ?? this.stateOf(lab)?.shapes[kind].pattern;
  }

  private stateOf(name: string): LabIdState | undefined {
    let state = this.states.get(name);
    if (state) {
      return state;
    }
    const connection = this.labs.get(name);
    if (!connection?.signedIn) {
      return undefined;
    }
    const paused = (): string | undefined => {
      const current = this.labs.get(name);
      const state = current?.connection;
      if (!current?.api) {
        return vscode.l10n.t('signed out of {0}', name);
      }
      if (state?.kind === 'rateLimited' && state.until > Date.now()) {
        return vscode.l10n.t(
          '{0} limits requests until {1}',
          name,
          displayFormat().time(new Date(state.until)),
        );
      }
      return state?.kind === 'offline' ? vscode.l10n.t('{0} cannot be reached', name) : undefined;
    };
    state = {
      shapes: { report: new IdShapes(), sample: new IdShapes() },
      reports: new RecordLookup<Report>(
        (id, signal) => {
          const api = this.labs.get(name)?.api;
          if (!api) {
            throw new Error(vscode.l10n.t('signed out of {0}', name));
          }
          return api.getReport(id, signal);
        },
        { budget: this.budget, paused },
      ),
      samples: new RecordLookup<JsonObject>(undefined, { budget: this.budget, paused }),
    };
    this.states.set(name, state);
    return state;
  }

  private readSettings(): void {
    const value = vscode.workspace
      .getConfiguration(SETTINGS_SECTION)
      .inspect<Record<string, unknown>>(Settings.idPatterns)?.globalValue;
    const patterns: Partial<Record<IdKind, RegExp>> = {};
    for (const kind of ['report', 'sample'] as const) {
      const source = value && typeof value === 'object' ? value[kind] : undefined;
      if (source === undefined) {
        continue;
      }
      const pattern = userIdPattern(source);
      if (typeof pattern === 'string') {
        this.log.warn('Ids', `labData.idPatterns.${kind} is not used: ${pattern}.`);
      } else {
        patterns[kind] = pattern;
      }
    }
    this.userPatterns = patterns;
  }
}
