import type { LabApiError } from '../../core/errors/errors';
import type { ConnectionEvent } from '../../core/connection/httpClient';
import { LabApi } from '../../core/api/labApi';
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
  private state: ConnectionEvent = { kind: 'online' };
  lastFailure?: FailedRequest;

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

  /** The lab's API client, or undefined when signed out. */
  get api(): LabApi | undefined {
    if (this.token === undefined) {
      return undefined;
    }
    this.client ??= new LabApi({
      lab: this.lab,
      token: this.token,
      network: this.factory.network(this.lab),
      transport: this.factory.transport(this.lab),
      userAgent: this.factory.userAgent,
      log: this.factory.log,
      ...this.factory.defaults(),
      onConnection: (event) => this.setConnection(event),
      onRecords: (records) => this.factory.onRecords(this.lab, records),
      onPagingAnomaly: (anomaly) => this.factory.onPagingAnomaly(this.lab, anomaly),
      onFailure: (error) => {
        this.lastFailure = { error, at: new Date(), lab: this.lab };
        this.listener.onFailure(this);
      },
    });
    return this.client;
  }

  /** Drops the client (network settings changed); the next request builds a new one. */
  reset(): void {
    const previous = this.client;
    this.client = undefined;
    void previous?.close();
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
