import type { SavedFile } from './safeWriter';
import type { ContentCache } from './contentCache';
import type { HttpCache } from './httpCache';
import type { CheckOutcome, FileCache, PublishOutcome, RestoreTarget } from './fileCache';

/**
 * A team cache on a server with the user's own cache folder in front of it (read-through, as DVC
 * and Bazel keep theirs): a file is read from the folder first, then from the server, and what the
 * server gives is kept in the folder, so a second pull asks the server for nothing. Publishing to
 * the server is an act the user chooses ({@link publish}: `lab-data cache push`, Push to Team
 * Cache), never a side effect of a save, sync, pull or restore: {@link keep} keeps in the folder
 * alone. The one write a read makes is a repair: a copy on the server found not to be its file is
 * replaced with the good bytes, where the server takes writes.
 */
export class LayeredCache implements FileCache {
  constructor(
    readonly local: ContentCache,
    readonly team: HttpCache,
  ) {}

  /** The team's address: what `status --check-cache`, `cache push` and the messages speak of. */
  get location(): string {
    return this.team.location;
  }

  get writeProblem(): string | undefined {
    return this.team.writeProblem;
  }

  get readProblem(): string | undefined {
    return this.team.readProblem;
  }

  get readRefused(): boolean {
    return this.team.readRefused;
  }

  get readStatus(): number | undefined {
    return this.team.readStatus;
  }

  get writeStatus(): number | undefined {
    return this.team.writeStatus;
  }

  async has(sha256: string, bytes?: number): Promise<boolean> {
    return (await this.local.has(sha256, bytes)) || this.team.has(sha256, bytes);
  }

  /**
   * `exact` (status --check-cache) asks the team's server alone: what a teammate or CI can restore
   * from it, whatever this machine keeps. Otherwise (pull) either holds it.
   */
  lookup(
    options: {
      readonly exact?: boolean;
    } = {},
  ): (sha256: string, bytes?: number) => Promise<boolean> {
    const team = this.team.lookup(options);
    if (options.exact) {
      return team;
    }
    const local = this.local.lookup();
    return async (sha256) => (await local(sha256)) || team(sha256);
  }

  /** Kept in the user's folder; the server gets it only when its copy was found corrupt (a repair). */
  async keep(file: string, sha256: string, bytes: number): Promise<void> {
    await this.local.keep(file, sha256, bytes);
    if (this.team.holdsCorrupt(sha256) && this.team.writeProblem === undefined) {
      // A server that refuses the write says so itself (once); the run goes on.
      await this.team.repair(file, sha256, bytes).catch(() => undefined);
    }
  }

  publish(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<PublishOutcome> {
    return this.team.publish(file, sha256, bytes, signal);
  }

  repair(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<PublishOutcome> {
    return this.team.repair(file, sha256, bytes, signal);
  }

  check(sha256: string, bytes: number, signal?: AbortSignal): Promise<CheckOutcome> {
    return this.team.check(sha256, bytes, signal);
  }

  /** The user's folder first; then the server, whose checked file is kept in the folder for next time. */
  async restore(
    sha256: string,
    bytes: number,
    target: RestoreTarget,
  ): Promise<SavedFile | undefined> {
    const local = await this.local.restore(sha256, bytes, target);
    if (local) {
      return local;
    }
    const fromTeam = await this.team.restore(sha256, bytes, target);
    if (fromTeam) {
      await this.local.keep(fromTeam.path, sha256, fromTeam.bytes);
    }
    return fromTeam;
  }

  async close(): Promise<void> {
    await Promise.all([this.local.close(), this.team.close()]);
  }
}
