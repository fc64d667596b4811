import type { Agent as UndiciAgent, ProxyAgent as UndiciProxyAgent } from 'undici';

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
export const Agent: typeof UndiciAgent = require('undici/lib/dispatcher/agent.js');
export const ProxyAgent: typeof UndiciProxyAgent = require('undici/lib/dispatcher/proxy-agent.js');
/* eslint-enable @typescript-eslint/no-require-imports */
