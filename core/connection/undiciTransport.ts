import type { Socket } from 'node:net';
import type {
  Dispatcher as UndiciDispatcher,
  Agent as UndiciAgent,
  Pool as UndiciPool,
  ProxyAgent as UndiciProxyAgent,
  buildConnector as BuildConnector,
} from 'undici';

import type {
  Transport,
  TransportRequest,
  TransportResponse,
  TransportSettings,
} from './transport';
import { refusedTunnel, watchedBody } from './transport';
import { proxyFor, type NetworkOptions } from './network';

/**
 * undici's connection pools, taken from their own modules rather than from undici's index: the
 * index also brings fetch, WebSocket, EventSource, caches and mocks, which we never use and which
 * are over 200 KB of the bundle. What the index does for dispatchers is done here the same way:
 * it gives every dispatcher `request`, `connect` (which a proxy's CONNECT tunnel uses) and the other
 * API methods. The unit tests "undici's pools" check these are the very classes undici exports and
 * that the core works in a process that never loads the index, so an upgrade that moves them fails
 * there, not in a user's window.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const Dispatcher: { prototype: object } = require('undici/lib/dispatcher/dispatcher.js');
const api: Record<string, unknown> = require('undici/lib/api/index.js');
if (!('request' in Dispatcher.prototype)) {
  Object.assign(Dispatcher.prototype, api);
}
const BaseAgent: typeof UndiciAgent = require('undici/lib/dispatcher/agent.js');
const BaseProxyAgent: typeof UndiciProxyAgent = require('undici/lib/dispatcher/proxy-agent.js');
const Pool: typeof UndiciPool = require('undici/lib/dispatcher/pool.js');
const buildConnector: typeof BuildConnector = require('undici/lib/core/connect.js');
const { kParser }: { kParser: symbol } = require('undici/lib/core/symbols.js');
/* eslint-enable @typescript-eslint/no-require-imports */

type Connector = BuildConnector.connector;
/** How long a held-back end of a connection waits before it looks again whether the reader has caught up. */
const END_RECHECK_MS = 5;
/** The longest a connection's end is held for a reader that does not read. */
const MAX_END_HOLD_MS = 120_000;

/**
 * Makes one of undici's sockets safe for the extension host:
 * - A body that ends when the connection closes (no Content-Length, `Connection: close`) whose
 *   reader is behind when the server closes: undici 7 asserts that its parser is not paused
 *   (nodejs/undici#5360, fixed only in undici 8). The end of the connection is held back until the
 *   reader has caught up, and is then delivered as undici expects.
 * - Anything else undici's own socket listeners throw fails that connection (and so its request)
 *   instead of escaping as an uncaught exception.
 */
export function guardSocket(socket: Socket): Socket {
  const emit = socket.emit;
  const parserOf = (): { paused?: boolean } | null | undefined =>
    (socket as unknown as Record<symbol, { paused?: boolean } | null>)[kParser];
  const deliver = (event: string | symbol, args: unknown[]): boolean => {
    try {
      return Reflect.apply(emit, socket, [event, ...args]) as boolean;
    } catch (error) {
      socket.destroy(error instanceof Error ? error : new Error(String(error)));
      return true;
    }
  };
  const endWhenCaughtUp = (args: unknown[], since: number): void => {
    const parser = parserOf();
    if (socket.destroyed && !parser) {
      return;
    }
    // A reader that never comes back: after a while the end goes through (and fails only this request).
    if (parser?.paused && Date.now() - since < MAX_END_HOLD_MS) {
      setTimeout(() => endWhenCaughtUp(args, since), END_RECHECK_MS);
      return;
    }
    deliver('end', args);
  };
  socket.emit = function (this: Socket, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'end' && parserOf()?.paused) {
      // Node destroys a socket right after its 'end' (autoDestroy), and a destroyed socket's
      // parser can never resume: keep it until undici has read the rest and closes it itself.
      const state = (socket as unknown as { _readableState?: { autoDestroy?: boolean } })
        ._readableState;
      if (state) {
        state.autoDestroy = false;
      }
      const since = Date.now();
      setTimeout(() => endWhenCaughtUp(args, since), END_RECHECK_MS);
      return true;
    }
    return deliver(event, args);
  } as Socket['emit'];
  return socket;
}

/** A connector whose sockets are guarded ({@link guardSocket}). */
function guarded(connect: Connector): Connector {
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (error) {
        callback(error, null);
      } else {
        callback(null, guardSocket(socket as Socket));
      }
    });
}

function guardedPool(
  origin: string | URL,
  options: UndiciPool.Options & { connect?: Connector | object },
): UndiciPool {
  const connect =
    typeof options.connect === 'function'
      ? options.connect
      : buildConnector({ ...(options.connect as object) } as BuildConnector.BuildOptions);
  return new Pool(origin, { ...options, connect: guarded(connect) });
}

/** undici's Agent, every connection guarded. */
export class Agent extends BaseAgent {
  constructor(options: UndiciAgent.Options = {}) {
    super({
      ...options,
      factory: (origin, poolOptions) => guardedPool(origin, poolOptions as UndiciPool.Options),
    });
  }
}

/** undici's ProxyAgent, every connection (to the proxy, and to the lab through it) guarded. */
export class ProxyAgent extends BaseProxyAgent {
  constructor(options: UndiciProxyAgent.Options) {
    super({
      ...options,
      factory: (origin, poolOptions) => guardedPool(origin, poolOptions as UndiciPool.Options),
      clientFactory: (origin, poolOptions) =>
        guardedPool(origin, poolOptions as UndiciPool.Options),
    } as UndiciProxyAgent.Options);
  }
}

export interface UndiciTransportOptions extends TransportSettings {
  /** Proxies and trusted certificate authorities. */
  readonly network: NetworkOptions;
}

/**
 * The core's own transport: undici, with a direct pool and one pool per proxy in use, each made on
 * first use and trusting the configured authorities. HTTPS through a proxy is tunnelled with
 * CONNECT, so the proxy never sees the request or its `Authorization` header.
 */
export class UndiciTransport implements Transport {
  readonly name = 'undici';
  private readonly pools = new Map<string, UndiciDispatcher>();

  constructor(private readonly options: UndiciTransportOptions) {}

  proxyFor(url: URL): string | undefined {
    return proxyFor(url, this.options.network);
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const proxy = this.proxyFor(request.url);
    try {
      const response = await this.pool(proxy).request({
        origin: request.url.origin,
        path: `${request.url.pathname}${request.url.search}`,
        method: request.method,
        headers: request.headers,
        ...(request.body ? { body: request.body } : {}),
        signal: request.signal,
        highWaterMark: request.highWaterMark,
        headersTimeout: this.options.timeouts.headersMs,
        // The body's time is kept by watchedBody, in the same words on every transport.
        bodyTimeout: 0,
      });
      const body = watchedBody(response.body, this.options.timeouts.bodyIdleMs, {
        highWaterMark: request.highWaterMark,
      });
      return { status: response.statusCode, headers: response.headers, body };
    } catch (error) {
      // A proxy that refused the tunnel, in the seam's words; any other failure as undici gave it.
      throw (proxy !== undefined ? refusedTunnel(error) : undefined) ?? error;
    }
  }

  /** Closes every pool. */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close().catch(() => undefined)));
  }

  private pool(proxy: string | undefined): UndiciDispatcher {
    const key = proxy ?? '';
    let pool = this.pools.get(key);
    if (!pool) {
      pool = proxy === undefined ? this.directPool() : this.proxyPool(proxy);
      this.pools.set(key, pool);
    }
    return pool;
  }

  private directPool(): UndiciDispatcher {
    const { connections, timeouts, network } = this.options;
    const ca = network.ca ? [...network.ca] : undefined;
    return new Agent({
      connections,
      connect: { timeout: timeouts.connectMs, ...(ca ? { ca } : {}) },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: 0,
    });
  }

  private proxyPool(proxy: string): UndiciDispatcher {
    const { connections, timeouts, network } = this.options;
    const tls = network.ca ? { ca: [...network.ca] } : {};
    return new ProxyAgent({
      uri: proxy,
      ...(network.proxyAuthorization ? { token: network.proxyAuthorization } : {}),
      requestTls: { ...tls, timeout: timeouts.connectMs },
      proxyTls: { ...tls, timeout: timeouts.connectMs },
      connections,
      headersTimeout: timeouts.headersMs,
      bodyTimeout: 0,
    });
  }
}
