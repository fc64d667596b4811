import * as vscode from 'vscode';
import { later, publishedAfter, sinceAfter } from '../../core/derived/newReports';
import type { LabDefinition } from '../../core/api/labDefinition';
import type { Report } from '../../core/api/records';
import type { LabConnection } from '../labs/labConnection';
import type { Labs } from '../labs/labs';
import type { Logger } from '../log';

/** Where what was seen is kept (`globalState`): per lab, the publication time up to which the user has looked. Never a token. */
export const SEEN_STATE_KEY = 'labData.seenThrough';

/** How long the Reports view must be visible (in a focused window) before what it shows counts as seen. */
export const DEFAULT_LOOK_MS = 4000;

/** A lab is known by name and origin, so a lab redefined at another address starts afresh. */
function labKey(lab: LabDefinition): string {
  return `${lab.url.origin}#${lab.name}`;
}

/** What a check found for one lab. */
export interface CheckResult {
  readonly lab: string;
  /** Reports published after what the user has seen, as the lab counted them. */
  readonly count: number;
  /** Whether the count grew since the previous check (a notification is due). */
  readonly grew: boolean;
}

/**
 * "New since you last looked", per lab. The mark is the publication time of the newest report the
 * user has seen; reports published after it are new. The mark starts at the moment a lab is first
 * used (so a first run marks nothing), moves when the Reports view has been looked at or on "Mark
 * All as Seen", and is remembered across restarts. Reports are learned from every list the lab
 * sends (no request of its own) and counted by the checker with one small request.
 */
export class NewReports implements vscode.Disposable {
  private readonly seenThrough: Record<string, string>;
  /** Per lab: ids of reports listed so far that are newer than the mark. */
  private readonly unseen = new Map<string, Map<string, string | undefined>>();
  /** Per lab: the newest publication time any list has shown. */
  private readonly newest = new Map<string, string>();
  /** Per lab: what the lab counted at the last check. */
  private readonly counted = new Map<string, number>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** The counts or marks changed (badge, rows). */
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly labs: Labs,
    private readonly memento: vscode.Memento,
    private readonly log: Logger,
  ) {
    this.seenThrough = { ...memento.get<Record<string, string>>(SEEN_STATE_KEY, {}) };
    this.subscriptions = [
      this.changed,
      labs.onDidSeeRecords(
        ({ lab, records }) => records.reports && this.learn(lab, records.reports),
      ),
      labs.onDidChange(() => void this.startLabs()),
    ];
    void this.startLabs();
  }

  /** Whether `report` of `lab` is new to the user. */
  isNew(lab: string, report: Report): boolean {
    const connection = this.labs.get(lab);
    const mark = connection && this.seenThrough[labKey(connection.lab)];
    return mark !== undefined && publishedAfter(report.published_at, mark);
  }

  /** New reports of one lab: what the lab counted or what lists showed, whichever is more. */
  count(lab: string): number {
    return Math.max(this.unseen.get(lab)?.size ?? 0, this.counted.get(lab) ?? 0);
  }

  /** New reports of every signed-in lab. */
  get total(): number {
    return this.labs.signedIn.reduce((sum, connection) => sum + this.count(connection.lab.name), 0);
  }

  /** The mark of a lab (diagnostics and tests). */
  markOf(lab: string): string | undefined {
    const connection = this.labs.get(lab);
    return connection ? this.seenThrough[labKey(connection.lab)] : undefined;
  }

  /** Everything shown so far (or counted) counts as seen, for one lab or every signed-in lab. */
  async markSeen(lab?: string): Promise<void> {
    const connections = this.labs.signedIn.filter(
      (connection) => lab === undefined || connection.lab.name === lab,
    );
    for (const connection of connections) {
      const name = connection.lab.name;
      const key = labKey(connection.lab);
      const mark = later(this.seenThrough[key], this.newest.get(name));
      if (mark !== undefined) {
        this.seenThrough[key] = mark;
      }
      this.counted.delete(name);
      const unseen = this.unseen.get(name);
      unseen?.forEach(
        (published, id) => !publishedAfter(published, this.seenThrough[key]!) && unseen.delete(id),
      );
    }
    await this.save();
    this.changed.fire();
  }

  /**
   * One request to a lab: how many reports were published after its mark (page size 1, the total
   * is what is needed; a lab that gives no totals is asked for one page and counted from it, and so
   * is a tenant that does not offer the published_since filter).
   */
  async check(connection: LabConnection): Promise<CheckResult> {
    const api = connection.backgroundApi;
    const name = connection.lab.name;
    const mark = this.seenThrough[labKey(connection.lab)];
    if (!api || mark === undefined) {
      return { lab: name, count: this.count(name), grew: false };
    }
    let count: number;
    if (connection.lab.filters.includes('published_since')) {
      const page = await api.listReports({
        publishedSince: sinceAfter(mark),
        pageSize: this.givesTotals.get(name) === false ? undefined : 1,
      });
      if (page.totalCount === undefined) {
        this.givesTotals.set(name, false);
      }
      count = page.totalCount ?? page.items.length;
    } else {
      // A tenant without the filter: its newest page, newest first, counted here.
      const page = await api.listReports({});
      count = page.items.filter((report) => publishedAfter(report.published_at, mark)).length;
    }
    const before = this.count(name);
    this.counted.set(name, count);
    const after = this.count(name);
    if (after !== before) {
      this.changed.fire();
    }
    return { lab: name, count: after, grew: after > before };
  }

  dispose(): void {
    this.subscriptions.forEach((subscription) => subscription.dispose());
  }

  private readonly givesTotals = new Map<string, boolean>();

  /** Gives each lab seen for the first time its starting mark: now. */
  private async startLabs(): Promise<void> {
    let added = false;
    for (const connection of this.labs.signedIn) {
      const key = labKey(connection.lab);
      if (this.seenThrough[key] === undefined) {
        this.seenThrough[key] = new Date().toISOString();
        added = true;
      }
    }
    for (const name of [...this.unseen.keys()]) {
      if (!this.labs.get(name)?.signedIn) {
        this.unseen.delete(name);
        this.counted.delete(name);
        this.newest.delete(name);
      }
    }
    if (added) {
      await this.save();
    }
    this.changed.fire();
  }

  private learn(lab: LabDefinition, reports: readonly Report[]): void {
    const mark = this.seenThrough[labKey(lab)];
    if (mark === undefined || reports.length === 0) {
      return;
    }
    let unseen = this.unseen.get(lab.name);
    const before = unseen?.size ?? 0;
    let newest = this.newest.get(lab.name);
    for (const report of reports) {
      newest = later(newest, report.published_at);
      if (publishedAfter(report.published_at, mark)) {
        unseen ??= new Map();
        unseen.set(report.report_id, report.published_at);
      }
    }
    if (newest !== undefined) {
      this.newest.set(lab.name, newest);
    }
    if (unseen) {
      this.unseen.set(lab.name, unseen);
    }
    if ((unseen?.size ?? 0) !== before) {
      this.log.info(
        'New',
        `${lab.name}: ${unseen!.size} report(s) published since you last looked.`,
      );
      this.changed.fire();
    }
  }

  private async save(): Promise<void> {
    await this.memento.update(SEEN_STATE_KEY, { ...this.seenThrough });
  }
}
