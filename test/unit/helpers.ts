import { inspect } from 'node:util';
import { LabApi, type LabApiOptions } from '../../core/api/labApi';
import type { LabApiError } from '../../core/errors/errors';
import { RateLimitGate } from '../../core/connection/timing';
import { MockLabServer, type MockServerOptions } from '../mock/server';

/** The demo data is anchored to a fixed day in unit tests, so counts never depend on the clock. */
export const FIXED_NOW = new Date('2026-11-01T00:00:00Z');

export const FULL = 'demo-full-access';

/** A distinctive token for leak checks: it must never appear in any output. */
export const SECRET_TOKEN = 'tok_SECRET_0123456789abcdef_DO_NOT_LEAK';

export interface MockLab {
  readonly server: MockLabServer;
  readonly baseUrl: string;
  /** A client for `token`, with fast retries so fault tests stay quick. */
  api(token?: string, options?: Partial<Omit<LabApiOptions, 'lab'>>): LabApi;
  close(): Promise<void>;
}

/** Starts a mock lab on a random loopback port. Stop it with `close()` in `after`. */
export async function startMockLab(options: MockServerOptions = {}): Promise<MockLab> {
  const server = new MockLabServer({
    now: FIXED_NOW,
    tokens: { [SECRET_TOKEN]: { label: 'leak-check token (full scope)' } },
    ...options,
  });
  const baseUrl = await server.start();
  const clients: LabApi[] = [];
  return {
    server,
    baseUrl,
    api(token = FULL, clientOptions = {}) {
      const api = LabApi.forBaseUrl(baseUrl, {
        token,
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        rateLimitGate: new RateLimitGate(),
        ...clientOptions,
      });
      clients.push(api);
      return api;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await server.stop();
    },
  };
}

/** Runs `promise` and returns what it rejected with; fails if it resolved. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/** Every way an error could reach a user, a log or a support ticket (for leak checks). */
export function renderings(error: unknown): string {
  const e = error as LabApiError;
  return [
    String(e),
    e.message,
    e.stack,
    JSON.stringify(e),
    inspect(e, { depth: 5, showHidden: true }),
    e.describe?.(),
    e.detail,
  ].join('\n');
}

/** A loopback port nothing listens on (a lab that is down). */
export { closedPort } from '../support/closedPort';
