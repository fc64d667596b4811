import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LabApi } from '../../../../core/api/labApi';
import { FetchTransport } from '../../../../core/connection/fetchTransport';
import type { HttpTimeouts } from '../../../../core/connection/httpClient';
import { RateLimitGate } from '../../../../core/connection/timing';
import type { TransportFactory } from '../../../../core/connection/transport';
import { UndiciTransport } from '../../../../core/connection/undiciTransport';
import { DIRECT } from '../../../../core/connection/network';
import { MESSAGES, type MessageId } from '../../../../core/errors/messages';

/** Both transports the core sends through: its own (undici) and VS Code's (`fetch`, here Node's own). */
export const TRANSPORTS: ReadonlyArray<{ readonly name: string; readonly make: TransportFactory }> =
  [
    {
      name: 'undici',
      make: (settings) => new UndiciTransport({ ...settings, network: DIRECT }),
    },
    {
      name: 'fetch',
      make: (settings) =>
        new FetchTransport({
          ...settings,
          name: 'fetch',
          fetch: (input, init) => fetch(input, init),
        }),
    },
  ];

/** Short timeouts, so a case that waits for one stays fast. */
export const FAST_TIMEOUTS: HttpTimeouts = { connectMs: 1_000, headersMs: 400, bodyIdleMs: 400 };
/** Retries as the rules say (3), with short waits. */
export const FAST_RETRY = { retries: 3, baseDelayMs: 5, maxDelayMs: 20 };

/** A client of the lab at `baseUrl` over `transport`, with the fast timeouts and retries. */
export function faultClient(baseUrl: string, transport: TransportFactory): LabApi {
  return LabApi.forBaseUrl(baseUrl, {
    token: 'fault-matrix-token',
    transport,
    timeouts: FAST_TIMEOUTS,
    retry: FAST_RETRY,
    rateLimitGate: new RateLimitGate(),
  });
}

/** A small PDF of `size` bytes: the magic, filler a seeded generator makes, and the trailer. */
export function pdfOf(size: number, random: () => number): Buffer {
  const head = Buffer.from('%PDF-1.7\n');
  const tail = Buffer.from('\n%%EOF\n');
  const filler = Buffer.alloc(Math.max(0, size - head.length - tail.length));
  for (let i = 0; i < filler.length; i++) {
    filler[i] = 32 + Math.floor(random() * 90);
  }
  return Buffer.concat([head, filler, tail]);
}

/** mulberry32: a small seeded generator, so a run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The catalogue's sentence `id` as a pattern, each `{placeholder}` matching anything. */
export function sentence(id: MessageId): RegExp {
  const parts = MESSAGES[id]
    .split(/\{[a-z]+\}/i)
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.+')}$`);
}

/** A fresh folder for one case. */
export function makeFolder(): Promise<string> {
  return fs.mkdtemp(path.join(tmpdir(), 'lab-fault-'));
}

/** The files of this process's open descriptors that lie in `folder` (Linux: /proc/self/fd). */
export async function openFilesIn(folder: string): Promise<string[]> {
  const real = await fs.realpath(folder);
  const links = await Promise.all(
    (await fs.readdir('/proc/self/fd')).map((fd) =>
      fs.readlink(`/proc/self/fd/${fd}`).catch(() => ''),
    ),
  );
  return links.filter((target) => target.startsWith(`${real}${path.sep}`));
}

/** The folder holds exactly `name` with `content`: nothing partial beside it, nothing open in it. */
export async function assertFolderHolds(
  folder: string,
  name: string,
  content: Buffer,
  what: string,
): Promise<void> {
  assert.deepEqual(await fs.readdir(folder), [name], `${what}: only ${name} is in the folder`);
  assert.ok(
    (await fs.readFile(path.join(folder, name))).equals(content),
    `${what}: ${name} holds what it should`,
  );
  assert.deepEqual(await openFilesIn(folder), [], `${what}: no descriptor left open in the folder`);
}

/** Settles with what `promise` gave, or fails when it has not settled within `ms`. */
export async function within<T>(
  ms: number,
  promise: Promise<T>,
  what: string,
): Promise<{ value?: T; error?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still running after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      hung,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
