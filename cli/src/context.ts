import type { LabApi } from '../../core/api/labApi';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { serverText } from '../../core/errors/serverText';
import type { LogLevel } from '../../core/connection/httpClient';
import { CliError, Exit } from './exitCodes';
import type { CliNetwork } from './network';
import { Progress } from './output';
import { hostOf, Tokens, variableFor } from './tokens';
import type { ParsedCommand } from './commandLine';
import { errorText } from '../../core/errors/errorText';
import * as path from 'node:path';
import { ContentCache, defaultCacheFolder } from '../../core/files/contentCache';
import { withFolderLock } from '../../core/sync/localState';

/*
 * The network code (undici, TLS) is loaded when a command first needs a lab: `verify` and a `pull`
 * from the cache never load it (a tenth of their time). `require`, not `import()`: the methods
 * that need it are synchronous, and the bundle evaluates a required module on first use.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const labApiCode = (): typeof import('../../core/api/labApi') => require('../../core/api/labApi');
const labDefinitionCode = (): typeof import('../../core/api/labDefinition') =>
  require('../../core/api/labDefinition');
const networkCode = (): typeof import('./network') => require('./network');
const httpClientCode = (): typeof import('../../core/connection/httpClient') =>
  require('../../core/connection/httpClient');
/* eslint-enable @typescript-eslint/no-require-imports */

/** Everything a command needs: its arguments, where to say things, tokens, the network, and clients of labs. */
export class CliContext {
  readonly progress: Progress;
  readonly signal: AbortSignal;
  private network?: CliNetwork;
  private readonly byLab = new Map<string, LabApi>();
  private readonly manifestLabs = new Map<string, LabApi | undefined>();
  private contentCache?: ContentCache;

  private constructor(
    readonly command: ParsedCommand,
    readonly env: NodeJS.ProcessEnv,
    private readonly tokens: Tokens,
    signal: AbortSignal,
    readonly version: string,
  ) {
    this.progress = new Progress(process.stderr, this.flag('quiet'));
    this.signal = signal;
  }

  static async create(
    command: ParsedCommand,
    env: NodeJS.ProcessEnv,
    signal: AbortSignal,
    version: string,
  ): Promise<CliContext> {
    const tokenFile = command.values['token-file'];
    return new CliContext(
      command,
      env,
      await Tokens.load(env, typeof tokenFile === 'string' ? tokenFile : undefined),
      signal,
      version,
    );
  }

  flag(name: string): boolean {
    return this.command.values[name] === true;
  }

  text(name: string): string | undefined {
    const value = this.command.values[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  }

  /** Says more on stderr with --verbose (never a token: the core redacts every one it holds). */
  verbose(text: string): void {
    if (this.flag('verbose')) {
      this.progress.line(text);
    }
  }

  private networkOptions(): CliNetwork {
    if (!this.network) {
      const { networkFromEnvironment } = networkCode();
      const caFiles = this.command.values['ca-file'];
      this.network = networkFromEnvironment(
        this.env,
        Array.isArray(caFiles)
          ? caFiles.filter((file): file is string => typeof file === 'string')
          : [],
      );
      this.network.described.forEach((line) => this.verbose(`[network] ${line}`));
    }
    return this.network;
  }

  /** The lab's address for sync and listings: --lab, else LAB_DATA_URL. */
  labUrl(): string {
    const given = this.text('lab') ?? this.env.LAB_DATA_URL?.trim();
    if (!given) {
      throw new CliError(
        'Which lab? Give its address with --lab https://lab.example.com, or set LAB_DATA_URL.',
        Exit.usage,
      );
    }
    try {
      return parseBaseUrl(given).baseUrl;
    } catch (error) {
      throw new CliError(errorText(error), Exit.usage);
    }
  }

  /**
   * A client of the lab at `baseUrl` known as `name`, with its token (one per lab for the whole
   * run); fails with the variable to set when there is none. The token is the one given for
   * `tokenOf` (the name by default): a name the lab chose for itself never picks a token.
   */
  api(name: string, baseUrl: string, several = false, tokenOf = name): LabApi {
    const key = `${name}\n${baseUrl}\n${tokenOf}`;
    const known = this.byLab.get(key);
    if (known) {
      return known;
    }
    const token = this.tokens.tokenFor(tokenOf, baseUrl);
    if (token === undefined) {
      throw this.tokens.missing(tokenOf, several, baseUrl);
    }
    const log = (level: LogLevel, message: string): void => {
      if (level !== 'debug' && level !== 'trace') {
        this.verbose(message);
      }
    };
    const { LabApi } = labApiCode();
    const { defaultLabDefinition } = labDefinitionCode();
    // Named as the folder's manifest names it, so a sync finds the section the extension wrote.
    const lab = defaultLabDefinition(parseBaseUrl(baseUrl), name, false);
    // One answer timeout (LAB_DATA_ANSWER_TIMEOUT, 30 s): for an answer, for its body's silences,
    // and for the whole run on a lab that fails as a whole, retries and Retry-After waits included.
    const answerMs = httpClientCode().answerTimeoutMs(this.env);
    const api = new LabApi({
      lab,
      token,
      network: this.networkOptions().options,
      userAgent: `lab-data-cli/${this.version}`,
      log,
      timeouts: { headersMs: answerMs, bodyIdleMs: answerMs },
      failingLabBudgetMs: answerMs,
    });
    this.byLab.set(key, api);
    return api;
  }

  /** Whether `LAB_DATA_TOKEN_<NAME>` is set but may not go to `origin` (its `LAB_DATA_URL_<NAME>` does not give it). */
  refusesOwnToken(name: string, origin: string): boolean {
    return this.tokens.refusesOwnToken(name, origin);
  }

  /**
   * Why the token may not be used for a lab a manifest names, or undefined when it may. A manifest
   * sits in a repository anyone can change, so it never decides alone where a token goes: the
   * lab's address must also be given by the person or CI running the tool (`LAB_DATA_URL_<LAB>`,
   * `--lab` or `LAB_DATA_URL`), and be the same origin.
   */
  manifestLabProblem(name: string, origin: string, several: boolean): CliError | undefined {
    if (this.tokens.tokenFor(name, origin) === undefined) {
      return this.tokens.missing(name, several, origin);
    }
    const own = variableFor('LAB_DATA_URL', name);
    // The variable named after the address, as before labs took their own names, still confirms it.
    const host = hostOf(origin);
    const given =
      this.env[own]?.trim() ||
      (host !== undefined ? this.env[variableFor('LAB_DATA_URL', host)]?.trim() : undefined) ||
      this.text('lab') ||
      this.env.LAB_DATA_URL?.trim();
    const shown = serverText(origin, 200);
    if (!given) {
      return new CliError(
        `The manifest places the lab "${serverText(name, 80)}" at ${shown}. Confirm it before the token goes there: set LAB_DATA_URL=${shown} (or ${own}, or --lab). A manifest alone never decides where a token is sent.`,
        Exit.auth,
      );
    }
    let confirmed: string;
    try {
      confirmed = parseBaseUrl(given).origin;
    } catch (error) {
      return new CliError(errorText(error), Exit.usage);
    }
    return confirmed === origin
      ? undefined
      : new CliError(
          `The manifest places the lab "${serverText(name, 80)}" at ${shown}, but you gave ${confirmed}: the token is not sent to an address you did not give.`,
          Exit.auth,
        );
  }

  /**
   * The client of a lab a manifest names, once its token and address are confirmed
   * ({@link manifestLabProblem}); else undefined. Decided once per lab, not once per file.
   */
  manifestLabApi(name: string, origin: string): LabApi | undefined {
    const key = `${name}\n${origin}`;
    if (!this.manifestLabs.has(key)) {
      this.manifestLabs.set(
        key,
        this.manifestLabProblem(name, origin, false) === undefined
          ? this.api(name, origin)
          : undefined,
      );
    }
    return this.manifestLabs.get(key);
  }

  /**
   * The content cache: `--cache`, else `LAB_DATA_CACHE` (a folder someone chose, perhaps shared:
   * its permissions are its owner's), else the user's cache folder (readable by the user alone).
   * It says once on stderr when it cannot be written, and of each corrupt entry.
   */
  cache(): ContentCache {
    if (!this.contentCache) {
      const chosen = this.text('cache') ?? this.env.LAB_DATA_CACHE?.trim();
      this.contentCache = new ContentCache(
        chosen ? path.resolve(chosen) : defaultCacheFolder(this.env),
        {
          shared: chosen !== undefined && chosen !== '',
          warn: (message) => this.progress.problem(message),
        },
      );
    }
    return this.contentCache;
  }

  /**
   * Runs `work` holding the folder's lock (`.lab-data/lock`): a second pull or sync into the same
   * folder stops at once with a message, writing nothing.
   */
  withFolderLock<T>(folder: string, work: () => Promise<T>): Promise<T> {
    return withFolderLock(
      folder,
      work,
      (pid) =>
        new CliError(
          `Another lab-data${pid > 0 ? ` (process ${pid})` : ''} is working on ${folder}; wait for it to finish and run this again (nothing was written). A lock left by a process that no longer runs is taken over: ${path.join(folder, '.lab-data', 'lock')}.`,
          Exit.mismatch,
        ),
    );
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.byLab.values()].map((client) => client.close().catch(() => undefined)),
    );
  }
}
