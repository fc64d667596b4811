import type { LabApiError } from '../../core/errors/errors';
import { DEFAULT_TIMEOUTS, type ConnectionEvent } from '../../core/connection/httpClient';
import { LabApi } from '../../core/api/labApi';
import {
  DEFAULT_OUTAGE_COOL_DOWN_MS,
  LabOutage,
  isLabWideFailure,
} from '../../core/connection/labOutage';
import type { LabApiOptions } from '../../core/api/labApi';
import type { LabDefinition } from '../../core/api/labDefinition';
import type { NetworkOptions } from '../../core/connection/network';
import type { TransportFactory } from '../../core/connection/transport';
import type { PagingAnomaly } from '../../core/api/pagination';

/** What a connection is built from besides its lab and token. */
export interface ConnectionFactory {
  readonly network: (lab: LabDefinition) => NetworkOptions;
  /** The transport each client is built with (undefined: the core's own, undici). */
  readonly transport: (lab: LabDefinition) => TransportFactory | undefined;
  readonly userAgent: string;
  readonly defaults: () => { readonly pageSize: number; readonly maxConcurrentRequests: number };
  readonly log: (level: 'trace' | 'debug' | 'info' | 'warn' | 'error', message: string) => void;
  /** Every report and sample this lab sent. */
  readonly onRecords: (
    lab: LabDefinition,
    records: Parameters<NonNullable<LabApiOptions['onRecords']>>[0],
  ) => void;
  /** A list of this lab whose paging could not be trusted. */
  readonly onPagingAnomaly: (lab: LabDefinition, anomaly: PagingAnomaly) => void;
}

/** The last request of a lab that failed, for "Copy Support Report". */
export interface FailedRequest {
  readonly error: LabApiError;
  readonly at: Date;
  readonly lab: LabDefinition;
}

/**
 * One lab and its own token: it owns the lab's {@link LabApi}, built once for the current
 * definition, token and network settings (never per tree expansion or per page), and tracks
 * whether the lab answers. It shows nothing: listeners decide about notifications and the status bar.
 */
export class LabConnection {
  private client?: LabApi;
  private backgroundClient?: LabApi;
  /** The lab's one circuit breaker, shared by both clients: a lab known to be failing fails both at once. */
  private outage?: LabOutage;
  private state: ConnectionEvent = { kind: 'online' };
  lastFailure?: FailedRequest;
  /** The lab's last failure as a whole (it did not answer), until it answers again. */
  private down?: { readonly error: LabApiError; readonly at: number };

  constructor(
    readonly lab: LabDefinition,
    private readonly token: string | undefined,
    private readonly factory: ConnectionFactory,
    private readonly listener: {
      onConnection(connection: LabConnection, event: ConnectionEvent): void;
      onFailure(connection: LabConnection): void;
    },
  ) {}

  get signedIn(): boolean {
    return this.token !== undefined;
  }

  /** Online, offline or rate-limited, as the last request found it. */
  get connection(): ConnectionEvent {
    return this.state;
  }

  /** Whether `token` is the one this connection holds (without exposing it). */
  holds(token: string | undefined): boolean {
    return token === this.token;
  }

  /**
   * The lab's API client for requests a person waits for (a tree, Open Metadata, Preview, Search,
   * Find Report), or undefined when signed out: a lab that sends no answer within the answer
   * timeout is said at once, not asked three more times in silence.
   */
  get api(): LabApi | undefined {
    if (this.token === undefined) {
      return undefined;
    }
    this.client ??= this.build(this.token, true);
    return this.client;
  }

  /**
   * The lab's API client for work that runs on while a person does something else (checking for
   * new reports, Save All, Sync, Restore, Export): it retries a lab that does not answer.
   */
  get backgroundApi(): LabApi | undefined {
    if (this.token === undefined) {
      return undefined;
    }
    this.backgroundClient ??= this.build(this.token, false);
    return this.backgroundClient;
  }

  private build(token: string, interactive: boolean): LabApi {
    this.outage ??= new LabOutage(this.lab.url.origin, { log: this.factory.log });
    return new LabApi({
      lab: this.lab,
      token,
      network: this.factory.network(this.lab),
      transport: this.factory.transport(this.lab),
      userAgent: this.factory.userAgent,
      log: this.factory.log,
      ...this.factory.defaults(),
      interactive,
      // A person waits: a body that stops after the headers ends at the answer timeout too, not at the idle limit for files.
      ...(interactive ? { timeouts: { bodyIdleMs: DEFAULT_TIMEOUTS.headersMs } } : {}),
      outage: this.outage,
      onConnection: (event) => this.setConnection(event),
      onRecords: (records) => this.factory.onRecords(this.lab, records),
      onPagingAnomaly: (anomaly) => this.factory.onPagingAnomaly(this.lab, anomaly),
      onFailure: (error) => {
        this.lastFailure = { error, at: new Date(), lab: this.lab };
        if (isLabWideFailure(error)) {
          this.down = { error, at: Date.now() };
        }
        this.listener.onFailure(this);
      },
    });
  }

  /**
   * Why the lab is known not to answer: it failed as a whole (no answer, no connection, a 5xx)
   * within the breaker's cool-down and has not answered since. An action a person waits for then
   * says so at once, with Retry, instead of waiting one more answer timeout; Retry forgets it.
   */
  knownFailure(now = Date.now()): LabApiError | undefined {
    const down = this.down;
    return down && now - down.at < DEFAULT_OUTAGE_COOL_DOWN_MS ? down.error : undefined;
  }

  /** Forgets {@link knownFailure}: the next request asks the lab (Retry). */
  forgetFailure(): void {
    this.down = undefined;
  }

  /** Drops the client (network settings changed); the next request builds a new one. */
  reset(): void {
    const previous = [this.client, this.backgroundClient];
    this.client = undefined;
    this.backgroundClient = undefined;
    this.outage = undefined;
    previous.forEach((client) => void client?.close());
  }

  dispose(): void {
    this.reset();
  }

  private setConnection(event: ConnectionEvent): void {
    const previous = this.state;
    if (event.kind === 'online' && previous.kind === 'rateLimited' && previous.until > Date.now()) {
      // A request that was already under way finished; the pause still holds every new one.
      return;
    }
    if (event.kind !== 'unauthorized') {
      this.state = event;
    }
    if (event.kind === 'online') {
      this.down = undefined;
    }
    if (
      event.kind === 'unauthorized' ||
      previous.kind !== event.kind ||
      (event.kind === 'rateLimited' &&
        previous.kind === 'rateLimited' &&
        previous.until !== event.until)
    ) {
      this.listener.onConnection(this, event);
    }
  }
}
