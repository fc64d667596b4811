import type { Agent as UndiciAgent, ProxyAgent as UndiciProxyAgent } from 'undici';

/**
 * undici's connection pools, taken from their own modules rather than from undici's index: the
 * index also brings fetch, WebSocket, EventSource, caches and mocks, which we never use and which
 * are 234 KB of the bundle. The unit test "undici's pools" checks these are the very classes
 * undici exports, so an upgrade that moves them fails there, not in a user's window.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
export const Agent: typeof UndiciAgent = require('undici/lib/dispatcher/agent.js');
export const ProxyAgent: typeof UndiciProxyAgent = require('undici/lib/dispatcher/proxy-agent.js');
/* eslint-enable @typescript-eslint/no-require-imports */
