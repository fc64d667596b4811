import { createReadStream, promises as fs, readFileSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isLoopbackHost } from '../connection/baseUrl';
import { answerTimeoutMs } from '../connection/httpClient';
import { DIRECT, type NetworkOptions } from '../connection/network';
import { mapConcurrently, oncePerKey, Semaphore } from '../async/concurrency';
import type {
  Transport,
  TransportFactory,
  TransportResponse,
  TransportTimeouts,
} from '../connection/transport';
import { UndiciTransport } from '../connection/undiciTransport';
import { LabApiError } from '../errors/errors';
import { labError } from '../errors/messages';
import { registerSecret, serverText } from '../errors/serverText';
import { systemReason } from '../errors/errorText';
import {
  copyAsHash,
  publishProblem,
  SHA256_SHAPE,
  type CheckOutcome,
  type FileCache,
  type PublishOutcome,
  type RestoreTarget,
} from './fileCache';
import { holdsExactly } from './exactBytes';
import { writeFileSafely, type SavedFile } from './safeWriter';

/** Where to put a cache's credentials instead of its address. */
const USE_TOKEN = 'use LAB_DATA_CACHE_TOKEN (or a machine in ~/.netrc) instead';

/**
 * Why `text` cannot be a team cache's address, or undefined when it can: `https://`, or `http://`
 * to this machine only (a token must never cross a network in the clear); no credentials in it
 * (user info, or a query: an address is logged and shown, a token is not); and no `..` segment,
 * written or percent-encoded, that would take the files out of the address's own prefix.
 */
export function cacheAddressProblem(text: string): string | undefined {
  const given = text.trim();
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return `"${serverText(given).slice(0, 80)}" is not a web address such as https://cache.example.com/lab-data`;
  }
  const shown = `${url.protocol}//${url.host}`;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return `a team cache's address must start with https:// (got ${url.protocol})`;
  }
  if (url.username !== '' || url.password !== '') {
    return `the cache address ${shown} holds a user name or password: ${USE_TOKEN}`;
  }
  if (url.search !== '' || url.hash !== '') {
    return `the cache address ${shown} has a query or fragment (a token?): ${USE_TOKEN}`;
  }
  // `URL` removes `..` itself: the written text is what is judged, decoded as a server would.
  const writtenPath = given.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  let decoded = writtenPath;
  for (let round = 0; round < 3; round++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      break;
    }
  }
  if ([writtenPath, decoded].some((form) => /(^|[/\\])\.\.?([/\\]|$)/.test(form))) {
    return `the cache address ${shown} has a "." or ".." in its path, which would leave its prefix; give the folder's address itself`;
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return `the cache address ${shown} must use https:// so its token is never sent unencrypted (http:// is allowed only for this machine)`;
  }
  return undefined;
}

interface NetrcEntry {
  name?: string;
  login?: string;
  password?: string;
}

function netrcEntries(text: string): NetrcEntry[] {
  const words = text.split(/\s+/).filter(Boolean);
  let current: NetrcEntry | undefined;
  const entries: NetrcEntry[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === 'machine' || word === 'default') {
      current = word === 'machine' ? { name: words[++i]?.toLowerCase() } : {};
      entries.push(current);
    } else if (current && (word === 'login' || word === 'password')) {
      current[word] = words[++i];
    } else if (word === 'macdef') {
      current = undefined;
    }
  }
  return entries;
}

/**
 * The `machine`'s login and password in a `.netrc` text. Its `default` entry is never taken: a
 * default login would go to whatever host the cache's address names.
 */
export function netrcCredentials(
  text: string,
  machine: string,
): { readonly login: string; readonly password: string } | undefined {
  const found = netrcEntries(text).find((entry) => entry.name === machine.toLowerCase());
  return found?.login !== undefined && found.password !== undefined
    ? { login: found.login, password: found.password }
    : undefined;
}

/** A `.netrc` as read: its text and its mode (`stats.mode`, the permission bits in it). */
export interface NetrcFile {
  readonly text: string;
  readonly mode: number;
}

function readNetrc(file: string): NetrcFile {
  const text = readFileSync(file, 'utf8');
  return { text, mode: statSync(file).mode };
}

/**
 * Why a `.netrc` of this mode is not used, as curl and ftp refuse it: another user may read its
 * passwords (or write a machine of theirs into it). Undefined for a file of its owner alone, and
 * on Windows, which keeps no such mode.
 */
export function netrcModeProblem(
  file: string,
  mode: number,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (platform === 'win32' || (mode & 0o077) === 0) {
    return undefined;
  }
  const readable = (mode & 0o044) !== 0;
  const writable = (mode & 0o022) !== 0;
  const how =
    readable && writable
      ? 'readable and writable'
      : readable
        ? 'readable'
        : writable
          ? 'writable'
          : 'open';
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return `${file} is ${how} ${how === 'open' ? 'to' : 'by'} others (mode ${octal}): chmod 600 ${file}; its credentials are not sent to the team cache.`;
}

/** The team cache's credentials: a header to send, or the file that was refused and why. */
export type CacheCredentials =
  | { readonly header: string; readonly source: string; readonly refused?: undefined }
  | { readonly header?: undefined; readonly source: string; readonly refused: string };

/**
 * The team cache's own credentials, never a lab's: `LAB_DATA_CACHE_TOKEN` (a bearer token), else the
 * address's host in the user's `.netrc` (`NETRC`, else `~/.netrc`: login and password, sent as Basic).
 * A `.netrc` others may read or write, or only its `default` entry, gives none: the answer says
 * which file and why (`refused`), for the client to tell. Registered as secrets, so no text shows
 * them. Undefined when there are none.
 */
export function cacheAuthorization(
  address: URL,
  env: NodeJS.ProcessEnv = process.env,
  read: (file: string) => NetrcFile = readNetrc,
  platform: NodeJS.Platform = process.platform,
): CacheCredentials | undefined {
  const token = env.LAB_DATA_CACHE_TOKEN?.trim();
  if (token) {
    registerSecret(token);
    return { header: `Bearer ${token}`, source: 'LAB_DATA_CACHE_TOKEN' };
  }
  const file = env.NETRC?.trim() || path.join(os.homedir(), '.netrc');
  let netrc: NetrcFile;
  try {
    netrc = read(file);
  } catch {
    return undefined;
  }
  const found = netrcCredentials(netrc.text, address.hostname);
  if (!found) {
    const entries = netrcEntries(netrc.text);
    return entries.some((entry) => entry.name === undefined && entry.login !== undefined)
      ? {
          source: file,
          refused: `${file}: its default entry is not used for the team cache (a default login would go to any host); add "machine ${address.hostname}" with its login and password.`,
        }
      : undefined;
  }
  registerSecret(found.password);
  const problem = netrcModeProblem(file, netrc.mode, platform);
  if (problem !== undefined) {
    return { source: file, refused: problem };
  }
  const pair = Buffer.from(`${found.login}:${found.password}`).toString('base64');
  registerSecret(pair);
  return { header: `Basic ${pair}`, source: file };
}

export interface HttpCacheOptions {
  /** The `Authorization` header's value ({@link cacheAuthorization}), when the server wants one. */
  readonly authorization?: string;
  /**
   * File requests (GET, HEAD, PUT) in flight at once: the labs' limit, 4 by default; folder
   * listings have their own ({@link LISTINGS_AT_ONCE}). A pool of its own, its connections kept alive.
   */
  readonly concurrency?: number;
  /** How long to wait; one answer timeout (`LAB_DATA_ANSWER_TIMEOUT`) for each wait by default. */
  readonly timeouts?: Partial<TransportTimeouts>;
  /** Proxies and trusted authorities, for the default transport (undici's pools). */
  readonly network?: NetworkOptions;
  /** Builds the transport instead (the extension: VS Code's network stack). */
  readonly transport?: TransportFactory;
  readonly userAgent?: string;
  /** Told once of each kind of trouble (down, refused, read-only, a bad copy); the run goes on. */
  readonly warn?: (message: string) => void;
  /** What to do about refused credentials, in the client's words (the tool's by default: its variable, ~/.netrc). */
  readonly credentialsAdvice?: string;
}

/** What one request came to, when the server could not be asked. */
type Unasked = 'down' | 'refused';

/**
 * A team's cache on a web server: files by SHA-256 at `<address>/sha256/ab/abcd…`, the folder
 * cache's layout, so a folder served by a web server and the same folder mounted are one cache.
 * Reads are `GET` (`HEAD` to tell what it holds), writes `PUT` of the whole file; nothing else is
 * asked of the server. Nothing it sends is trusted: a file streams to a temporary file, hashed, and
 * takes its name only when it is the hash's bytes. It never stops a run: a server that is down or
 * silent costs one answer timeout, said once, and is not asked again; one that refuses writes is a
 * read-only cache. It has its own pool and its own credentials; a lab's token never comes here.
 */
/** The most of a folder's listing read (a folder of 100,000 names is about 12 MB of JSON). */
const MAX_LISTING_CHARS = 32 * 1024 * 1024;

/**
 * Folder listings in flight at once (status: 257 of them for 10,000 files): small answers a web
 * server gives from its own directory index, each awaited by every file of its folder, so more go
 * at once than file transfers do; the pool keeps as many connections alive.
 */
const LISTINGS_AT_ONCE = 16;

export class HttpCache implements FileCache {
  readonly location: string;
  private readonly base: URL;
  private readonly transport: Transport;
  private readonly slots: Semaphore;
  private readonly listingSlots = new Semaphore(LISTINGS_AT_ONCE);
  private readonly said = new Set<string>();
  /** Why the server is not asked any more (down, silent, refusing us): every later look is a miss. */
  private unusable?: string;
  /** The status the server refused us with (401, 403), when that is why it is not asked. */
  private unusableStatus?: number;
  private unwritable?: string;
  private unwritableStatus?: number;
  /** Hashes whose copy on the server was read and is not that file: a writer puts the good bytes back ({@link repair}). */
  private readonly corrupt = new Set<string>();
  /** What this object learned the server holds (a HEAD, a PUT, a GET). */
  private readonly known = new Map<string, boolean>();
  private scratch?: Promise<string>;

  constructor(
    address: string,
    private readonly options: HttpCacheOptions = {},
  ) {
    const problem = cacheAddressProblem(address);
    if (problem) {
      throw labError('invalidInput', 'cacheServerUnwritable', {
        address: '(the address given)',
        reason: problem,
      });
    }
    const url = new URL(address.trim());
    url.pathname = url.pathname.replace(/\/+$/, '');
    this.base = url;
    this.location = `${url.origin}${url.pathname}`;
    const answer = answerTimeoutMs();
    const timeouts: TransportTimeouts = {
      connectMs: Math.min(10_000, answer),
      headersMs: answer,
      bodyIdleMs: answer,
      ...options.timeouts,
    };
    const concurrency = options.concurrency ?? 4;
    this.slots = new Semaphore(concurrency);
    const settings = { connections: Math.max(concurrency, LISTINGS_AT_ONCE), timeouts };
    this.transport = options.transport
      ? options.transport(settings)
      : new UndiciTransport({ ...settings, network: options.network ?? DIRECT });
  }

  get writeProblem(): string | undefined {
    return this.unwritable;
  }

  /** Why the server is no longer asked (down, silent, refusing the credentials); undefined while it is. */
  get readProblem(): string | undefined {
    return this.unusable;
  }

  /** Whether the server is not asked because it refused the credentials (401/403), not because it is down. */
  get readRefused(): boolean {
    return this.unusableStatus === 401 || this.unusableStatus === 403;
  }

  /** The status the server refused the credentials with (401, 403), when that is why it is not asked. */
  get readStatus(): number | undefined {
    return this.unusableStatus;
  }

  /** The HTTP status a write was refused with (401, 403, 405, 507…), once one was. */
  get writeStatus(): number | undefined {
    return this.unwritableStatus;
  }

  /** Whether this object read the server's copy of `sha256` and found it is not that file. */
  holdsCorrupt(sha256: string): boolean {
    return this.corrupt.has(sha256);
  }

  /** Says a thing once per cache object (a thousand files missing their server are one line). */
  private sayOnce(key: string, message: string): void {
    if (!this.said.has(key)) {
      this.said.add(key);
      this.options.warn?.(message);
    }
  }

  private urlOf(sha256: string): URL {
    return new URL(`${this.base.pathname}/sha256/${sha256.slice(0, 2)}/${sha256}`, this.base);
  }

  /**
   * Sends one request for a file of the cache and hands its answer to `use` within the request's
   * slot (a body is read before the next request takes its place). Undefined when the server was
   * not asked or did not answer: told once, and not asked again when it is down or refuses us.
   */
  private async ask<T>(
    method: 'GET' | 'HEAD' | 'PUT',
    sha256: string,
    use: (response: TransportResponse) => Promise<T>,
    more: {
      readonly body?: () => NodeJS.ReadableStream;
      readonly bytes?: number;
      readonly signal?: AbortSignal;
    } = {},
  ): Promise<T | Unasked> {
    return this.slots.run(async () => {
      if (this.unusable !== undefined) {
        return 'down';
      }
      let response: TransportResponse;
      try {
        response = await this.transport.send({
          method,
          url: this.urlOf(sha256),
          headers: {
            'user-agent': this.options.userAgent ?? 'lab-data',
            ...(this.options.authorization ? { authorization: this.options.authorization } : {}),
            ...(more.bytes !== undefined
              ? {
                  'content-length': String(more.bytes),
                  'content-type': 'application/octet-stream',
                }
              : {}),
          },
          ...(more.body ? { body: more.body() as never } : {}),
          signal: more.signal,
          highWaterMark: 1024 * 1024,
        });
      } catch (error) {
        if (more.signal?.aborted) {
          throw error;
        }
        this.giveUp(`it cannot be reached: ${systemReason(error, answerTimeoutMs())}`);
        return 'down';
      }
      try {
        if (response.status >= 300 && response.status < 400) {
          const where = locationHost(response, this.base);
          this.giveUp(
            `it redirects to ${where}, which is not followed (a redirect could take its credentials elsewhere)`,
          );
          return 'refused';
        }
        if (method !== 'PUT' && (response.status === 401 || response.status === 403)) {
          this.unusableStatus = response.status;
          this.giveUp(
            `it refused ${this.options.authorization ? 'the credentials given' : 'to answer without credentials'} (${response.status}); ${this.options.credentialsAdvice ?? 'set LAB_DATA_CACHE_TOKEN or a machine in ~/.netrc'}`,
          );
          return 'refused';
        }
        return await use(response);
      } finally {
        response.body.resume();
      }
    }, more.signal);
  }

  /** The server is not asked again this run: said once, and every file comes from the lab. */
  private giveUp(reason: string): void {
    if (this.unusable === undefined) {
      this.unusable = reason;
      this.options.warn?.(
        `The team cache ${this.location} is not used: ${reason}; going on with the labs.`,
      );
    }
  }

  async has(sha256: string, bytes?: number): Promise<boolean> {
    if (!SHA256_SHAPE.test(sha256)) {
      return false;
    }
    if (this.corrupt.has(sha256)) {
      return false;
    }
    const known = this.known.get(sha256);
    if (known !== undefined && bytes === undefined) {
      return known;
    }
    const answer = await this.ask('HEAD', sha256, async (response) => {
      if (response.status === 404 || response.status === 410) {
        return false;
      }
      if (response.status !== 200) {
        this.sayOnce(
          `head${response.status}`,
          `The team cache ${this.location} answered ${response.status} when asked what it holds; those files count as not held.`,
        );
        return false;
      }
      const length = Number(response.headers['content-length']);
      return bytes === undefined || !Number.isFinite(length) || length === bytes;
    });
    const held = answer === true;
    if (typeof answer === 'boolean') {
      this.known.set(sha256, held);
    }
    return held;
  }

  /**
   * Without `exact` (pull): "perhaps" for every file while the server is used, since a `GET` is the
   * look (a miss costs the same request a `HEAD` would). `exact` (status): the server's listing
   * where it gives one (nginx's `autoindex_format json`: `<address>/sha256/` once, then one folder
   * a prefix a file needs), a copy of another size counting as not held; else, and for a folder
   * whose listing fails or does not parse (never taken as empty), one `HEAD` a file, each asked once.
   */
  lookup(
    options: {
      readonly exact?: boolean;
    } = {},
  ): (sha256: string, bytes?: number) => Promise<boolean> {
    if (!options.exact) {
      return async (sha256) =>
        SHA256_SHAPE.test(sha256) &&
        this.unusable === undefined &&
        this.known.get(sha256) !== false;
    }
    const asked = oncePerKey((key: string) => {
      const [sha256, bytes] = key.split(' ');
      return this.has(sha256!, bytes === '' ? undefined : Number(bytes));
    });
    let folders: Promise<ReadonlyMap<string, number> | undefined> | undefined;
    const listed = oncePerKey((prefix: string) => this.listing(`sha256/${prefix}/`));
    return async (sha256, bytes) => {
      if (!SHA256_SHAPE.test(sha256) || this.corrupt.has(sha256)) {
        return false;
      }
      folders ??= this.listing('sha256/');
      const prefixes = await folders;
      if (prefixes !== undefined) {
        if (!prefixes.has(sha256.slice(0, 2))) {
          return false;
        }
        const files = await listed(sha256.slice(0, 2));
        if (files !== undefined) {
          const size = files.get(sha256);
          return size !== undefined && (bytes === undefined || size === bytes);
        }
      }
      return asked(`${sha256} ${bytes ?? ''}`);
    };
  }

  /**
   * A folder of the server as its JSON listing (nginx's `autoindex_format json`): each name with
   * its size (-1 for a folder). Undefined when the server offers none (403, 404, HTML) or sends
   * what does not parse: the caller then asks file by file, so no failure reads as "absent"; a
   * server that does not answer is given up, as a HEAD would give it up.
   */
  private async listing(folder: string): Promise<ReadonlyMap<string, number> | undefined> {
    return this.listingSlots.run(async () => {
      if (this.unusable !== undefined) {
        return undefined;
      }
      let response: TransportResponse;
      try {
        response = await this.transport.send({
          method: 'GET',
          url: new URL(`${this.base.pathname}/${folder}`, this.base),
          headers: {
            'user-agent': this.options.userAgent ?? 'lab-data',
            accept: 'application/json',
            ...(this.options.authorization ? { authorization: this.options.authorization } : {}),
          },
        });
      } catch (error) {
        // No answer is not "no listing": the server is not asked again, as after a HEAD.
        this.giveUp(`it cannot be reached: ${systemReason(error, answerTimeoutMs())}`);
        return undefined;
      }
      try {
        const type = String(response.headers['content-type'] ?? '');
        if (response.status !== 200 || !/json/i.test(type)) {
          return undefined;
        }
        let text = '';
        for await (const chunk of response.body) {
          text += String(chunk);
          if (text.length > MAX_LISTING_CHARS) {
            return undefined;
          }
        }
        const parsed: unknown = JSON.parse(text);
        if (!Array.isArray(parsed)) {
          return undefined;
        }
        const found = new Map<string, number>();
        for (const item of parsed as unknown[]) {
          const { name, type: kind, size } = (item ?? {}) as Record<string, unknown>;
          if (typeof name !== 'string') {
            return undefined;
          }
          if (kind === 'directory') {
            found.set(name, -1);
          } else if (kind === 'file' && typeof size === 'number') {
            found.set(name, size);
          }
        }
        return found;
      } catch {
        return undefined;
      } finally {
        response.body.resume();
      }
    });
  }

  async restore(
    sha256: string,
    bytes: number,
    target: RestoreTarget,
  ): Promise<SavedFile | undefined> {
    if (!SHA256_SHAPE.test(sha256) || this.known.get(sha256) === false) {
      return undefined;
    }
    const got = await this.ask(
      'GET',
      sha256,
      async (response) => {
        if (response.status === 404 || response.status === 410) {
          this.known.set(sha256, false);
          return undefined;
        }
        if (response.status !== 200) {
          this.sayOnce(
            `get${response.status}`,
            `The team cache ${this.location} answered ${response.status}; those files come from the labs.`,
          );
          return undefined;
        }
        const type = String(response.headers['content-type'] ?? '');
        if (/text\/html/i.test(type)) {
          // A sign-in page in front of the cache: its bytes are never a report.
          this.giveUp('it answers with a web page instead of files (a sign-in page?)');
          return undefined;
        }
        const length = Number(response.headers['content-length'] ?? NaN);
        if (Number.isFinite(length) && length !== bytes) {
          // Not read: a copy of another size is not the file, however long it is; like a copy of
          // another SHA-256, a writer puts the good bytes back.
          response.body.destroy();
          this.corrupt.add(sha256);
          this.sayOnce(
            `bad${sha256}`,
            `The team cache's copy of ${sha256.slice(0, 12)}… is not that file (another size); it was not used, and the file comes from its lab.`,
          );
          return undefined;
        }
        try {
          const saved = await writeFileSafely({
            folder: target.folder,
            fileName: target.fileName,
            source: response.body,
            ifExists: target.ifExists,
            expectedBytes: bytes,
            signal: target.signal,
            checkSha256: (actual) =>
              actual === sha256
                ? undefined
                : labError('invalidResponse', 'cacheCorrupt', { sha256 }),
          });
          this.known.set(sha256, true);
          return saved;
        } catch (error) {
          if (target.signal?.aborted || !(error instanceof LabApiError)) {
            throw error;
          }
          if (error.code === 'invalidResponse' || error.text?.id === 'transferShort') {
            this.corrupt.add(sha256);
            this.known.set(sha256, false);
            this.sayOnce(
              `bad${sha256}`,
              `The team cache's copy of ${sha256.slice(0, 12)}… is not that file (${error.code === 'invalidResponse' && error.text?.id !== 'transferLonger' ? 'another SHA-256' : 'another size'}); it was not used, and the file comes from its lab.`,
            );
            return undefined;
          }
          if (error.code === 'network' || error.code === 'timeout') {
            this.giveUp(`a transfer from it broke off (${error.message})`);
            return undefined;
          }
          throw error;
        }
      },
      { signal: target.signal },
    );
    return got === 'down' || got === 'refused' ? undefined : got;
  }

  /** PUTs `file` as `sha256` and checks the server then holds it (a server may take a PUT and drop the body). */
  private async put(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const answer = await this.ask(
      'PUT',
      sha256,
      async (response) => {
        if ([401, 403].includes(response.status)) {
          this.unwritableStatus = response.status;
          return `it refuses writes (${response.status}): a read-only cache for these credentials`;
        }
        if ([405, 501].includes(response.status)) {
          this.unwritableStatus = response.status;
          return `it refuses writes (${response.status}): the server takes no PUT at this address`;
        }
        if (response.status === 507) {
          this.unwritableStatus = response.status;
          return `it refused a write (507): no space left on the server`;
        }
        if (response.status < 200 || response.status >= 300) {
          this.unwritableStatus = response.status;
          return `it answered a write with ${response.status}`;
        }
        return undefined;
      },
      { body: () => createReadStream(file), bytes, signal },
    );
    if (answer === 'down' || answer === 'refused') {
      return this.unusable ?? 'it is not used';
    }
    if (answer !== undefined) {
      return answer;
    }
    this.known.delete(sha256);
    if (!(await this.has(sha256, bytes))) {
      return 'it accepted a file but does not hold it afterwards (a server dropping what it is sent)';
    }
    return undefined;
  }

  private cannotWrite(reason: string): void {
    if (this.unwritable === undefined) {
      this.unwritable = reason;
      this.options.warn?.(
        `The team cache ${this.location} cannot be written (${reason}); going on without keeping files in it.`,
      );
    }
  }

  async keep(file: string, sha256: string, bytes: number): Promise<void> {
    if (
      this.unwritable !== undefined ||
      this.unusable !== undefined ||
      !SHA256_SHAPE.test(sha256) ||
      this.known.get(sha256) === true
    ) {
      return;
    }
    try {
      const problem = await this.put(file, sha256, bytes);
      if (problem !== undefined && this.unusable === undefined) {
        this.cannotWrite(problem);
      }
    } catch (error) {
      this.cannotWrite(systemReason(error, answerTimeoutMs()));
    }
  }

  /** A private folder for the checked copies pushes send (removed with {@link close}). */
  private scratchFolder(): Promise<string> {
    this.scratch ??= fs.mkdtemp(path.join(os.tmpdir(), 'lab-data-push-'));
    return this.scratch;
  }

  /**
   * Publishes `file` as the copy of `sha256`: `held` when the server has a file of that size;
   * otherwise a copy is taken and hashed first (the file may change meanwhile), and that copy is
   * sent, so the server never gets bytes other than the hash's. Throws when it cannot be written.
   */
  async publish(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<PublishOutcome> {
    if (!SHA256_SHAPE.test(sha256)) {
      return 'differs';
    }
    if (await this.has(sha256, bytes)) {
      return 'held';
    }
    return this.sendChecked(file, sha256, bytes, signal);
  }

  /**
   * Puts the good bytes in place of a copy that is not the file (`lab-data cache verify --repair`,
   * and a reader that found one): the same checked copy {@link publish} sends, whatever the server
   * holds under that name now. Throws when it cannot be written.
   */
  async repair(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<PublishOutcome> {
    if (!SHA256_SHAPE.test(sha256)) {
      return 'differs';
    }
    // Its HEAD afterwards must be asked, not answered from what was found before.
    this.corrupt.delete(sha256);
    this.known.delete(sha256);
    return this.sendChecked(file, sha256, bytes, signal);
  }

  /** A copy of `file` taken and hashed first (the file may change meanwhile), then sent and checked with a HEAD. */
  private async sendChecked(
    file: string,
    sha256: string,
    bytes: number,
    signal?: AbortSignal,
  ): Promise<PublishOutcome> {
    this.failIfUnusable();
    const problem = await publishProblem(file, bytes);
    if (problem) {
      return problem;
    }
    const folder = await fs.mkdtemp(path.join(await this.scratchFolder(), 'f'));
    try {
      const copied = await copyAsHash(file, { folder, sha256, bytes }, signal);
      if (copied !== 'copied') {
        return copied;
      }
      const refused = await this.put(path.join(folder, sha256), sha256, bytes, signal);
      if (refused !== undefined) {
        this.unwritable ??= refused;
        throw labError('fileSystem', 'cacheServerUnwritable', {
          address: this.location,
          reason: refused,
        });
      }
      return 'kept';
    } finally {
      await fs.rm(folder, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /**
   * Reads the server's copy of `sha256` back and hashes it (`lab-data cache verify`): `good`,
   * `missing`, `corrupt` (another SHA-256 or size), or `unasked` when the server is not used (down,
   * silent, refusing us: {@link readProblem} says why). Nothing is written.
   */
  async check(sha256: string, bytes: number, signal?: AbortSignal): Promise<CheckOutcome> {
    if (!SHA256_SHAPE.test(sha256)) {
      return 'missing';
    }
    const answer = await this.ask(
      'GET',
      sha256,
      async (response): Promise<CheckOutcome> => {
        if (response.status === 404 || response.status === 410) {
          this.known.set(sha256, false);
          return 'missing';
        }
        if (response.status !== 200) {
          this.giveUp(`it answered ${response.status} when a file was read back`);
          return 'unasked';
        }
        if (/text\/html/i.test(String(response.headers['content-type'] ?? ''))) {
          this.giveUp('it answers with a web page instead of files (a sign-in page?)');
          return 'unasked';
        }
        let good: boolean;
        try {
          good = await holdsExactly(response.body as AsyncIterable<Buffer>, bytes, sha256);
        } catch (error) {
          if (signal?.aborted) {
            throw error;
          }
          this.giveUp(`a transfer from it broke off (${systemReason(error, answerTimeoutMs())})`);
          return 'unasked';
        }
        if (good) {
          this.known.set(sha256, true);
          this.corrupt.delete(sha256);
        } else {
          this.known.set(sha256, false);
          this.corrupt.add(sha256);
        }
        return good ? 'good' : 'corrupt';
      },
      { signal },
    );
    return answer === 'down' || answer === 'refused' ? 'unasked' : answer;
  }

  private failIfUnusable(): void {
    if (this.unusable !== undefined) {
      throw labError('fileSystem', 'cacheServerUnwritable', {
        address: this.location,
        reason: this.unusable,
      });
    }
  }

  async close(): Promise<void> {
    await this.transport.close();
    if (this.scratch) {
      await fs.rm(await this.scratch, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

/** One HEAD a file, concurrently: which of `hashes` the server lacks (for a count in `lab-data cache`). */
export async function missingFrom(
  cache: FileCache,
  hashes: readonly string[],
  concurrency = 8,
): Promise<string[]> {
  const held = cache.lookup({ exact: true });
  const answers = await mapConcurrently(hashes, concurrency, async (sha) => held(sha));
  return hashes.filter((_, index) => !answers[index]);
}

/** Where a redirect points, for its message: the host only (its path and query may hold anything). */
function locationHost(response: TransportResponse, base: URL): string {
  const location = response.headers.location;
  try {
    const url = new URL(String(location ?? ''), base);
    return url.host === base.host ? 'another address on the same server' : url.host;
  } catch {
    return 'an unreadable address';
  }
}
