import type { LabApi } from '../../core/api/labApi';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import type { LogLevel } from '../../core/connection/httpClient';
import { CliError, Exit } from './exitCodes';
import type { CliNetwork } from './network';
import { Progress } from './output';
import { tokenLine, Tokens } from './tokens';
import { serverText } from '../../core/errors/serverText';
import type { ParsedCommand } from './commandLine';
import { errorText } from '../../core/errors/errorText';
import * as path from 'node:path';
import { ContentCache, defaultCacheFolder } from '../../core/files/contentCache';
import { LayeredCache } from '../../core/files/layeredCache';
import { isCacheAddress, type FileCache } from '../../core/files/fileCache';
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
const httpCacheCode = (): typeof import('../../core/files/httpCache') =>
  require('../../core/files/httpCache');
/* eslint-enable @typescript-eslint/no-require-imports */

/** Everything a command needs: its arguments, where to say things, tokens, the network, and clients of labs. */
export class CliContext {
  readonly progress: Progress;
  readonly signal: AbortSignal;
  private network?: CliNetwork;
  private readonly byLab = new Map<string, LabApi>();
  private readonly manifestLabs = new Map<string, LabApi | undefined>();
  private readonly tokenLinesSaid = new Set<string>();
  private contentCache?: FileCache;

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
    // pull, status and verify take --lab more than once (a selection): the generic token is paired
    // with an address only when exactly one is given.
    const given = [command.values.lab]
      .flat()
      .filter((value): value is string => typeof value === 'string');
    const addresses = given.filter((value) => value.includes('://'));
    const lab = given.length === 1 ? given[0] : addresses.length === 1 ? addresses[0] : undefined;
    return new CliContext(
      command,
      env,
      await Tokens.load(env, typeof tokenFile === 'string' ? tokenFile : undefined, lab),
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

  /** Every value of a repeatable option (`--client A --client B`), trimmed, empty ones left out. */
  texts(name: string): string[] {
    const value = this.command.values[name];
    return (Array.isArray(value) ? value : [value])
      .filter((each): each is string => typeof each === 'string' && each.trim() !== '')
      .map((each) => each.trim());
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
      // Not repeated: a token pasted into LAB_DATA_URL by mistake must not be printed.
      const where = this.text('lab') !== undefined ? '--lab' : 'LAB_DATA_URL';
      throw new CliError(
        `What ${where} gives is not a lab address such as https://lab.example.com: ${errorText(error).split(given).join('(the value given)')}`,
        Exit.usage,
      );
    }
  }

  /**
   * A client of the lab at `baseUrl` known as `name`, with its token (one per lab for the whole
   * run); fails with the variable to set when no token may go there ({@link Tokens.choose}). The
   * token is the one given for `tokenOf` (the name by default): a name the lab chose for itself
   * never picks a token. `-v` says which variable supplies it.
   */
  api(name: string, baseUrl: string, several = false, tokenOf = name): LabApi {
    const key = `${name}\n${baseUrl}\n${tokenOf}`;
    const known = this.byLab.get(key);
    if (known) {
      return known;
    }
    const choice = this.tokens.choose(tokenOf, baseUrl, several);
    if ('problem' in choice) {
      throw choice.problem;
    }
    const { token } = choice;
    const line = tokenLine(choice.source);
    if (!this.tokenLinesSaid.has(line)) {
      this.tokenLinesSaid.add(line);
      this.verbose(line);
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
   * Why no token may go to a lab a manifest names, or undefined when one may. A manifest sits in a
   * repository anyone can change, so it never decides alone where a token goes: the token's own
   * variable pairs it with the lab's address ({@link Tokens.choose}).
   */
  manifestLabProblem(name: string, origin: string, several: boolean): CliError | undefined {
    const choice = this.tokens.choose(name, origin, several);
    return 'problem' in choice ? choice.problem : undefined;
  }

  /**
   * For each lab of a manifest, which variable supplies its token for which address, or why none
   * may go there: `lab-data status`'s whoami (`line` for the terminal; never the token). With
   * `remote` the reason is left out of the line: the run says it among its problems.
   */
  whoami(
    labs: Readonly<Record<string, { readonly origin: string }>>,
    several: boolean,
    remote: boolean,
  ): Array<{
    readonly lab: string;
    readonly origin: string;
    readonly variable: string | null;
    readonly confirmed_by: string | null;
    readonly problem?: string;
    readonly line: string;
  }> {
    return Object.entries(labs).map(([lab, { origin }]) => {
      const choice = this.tokens.choose(lab, origin, several);
      if ('problem' in choice) {
        const reason = remote ? '' : `: ${choice.problem.message}`;
        return {
          lab,
          origin,
          variable: null,
          confirmed_by: null,
          problem: choice.problem.message,
          line: `[token] none for ${serverText(origin, 200)}${reason}`,
        };
      }
      const { variable, confirmedBy } = choice.source;
      return {
        lab,
        origin,
        variable,
        confirmed_by: confirmedBy,
        line: tokenLine(choice.source),
      };
    });
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
   * its permissions are its owner's; or a team server's address, with its own credentials), else
   * the user's cache folder (readable by the user alone). It says once on stderr when it cannot be
   * written or reached, and of each corrupt entry.
   */
  cache(): FileCache {
    if (!this.contentCache) {
      const chosen = this.text('cache') ?? this.env.LAB_DATA_CACHE?.trim();
      const warn = (message: string): void => this.progress.problem(message);
      this.contentCache =
        chosen && isCacheAddress(chosen)
          ? this.serverCache(chosen, warn)
          : new ContentCache(chosen ? path.resolve(chosen) : defaultCacheFolder(this.env), {
              shared: chosen !== undefined && chosen !== '',
              warn,
            });
    }
    return this.contentCache;
  }

  /** A team cache on a server: checked before any connection, with its own credentials (never a lab's). */
  private serverCache(address: string, warn: (message: string) => void): FileCache {
    const { HttpCache, cacheAddressProblem, cacheAuthorization } = httpCacheCode();
    const problem = cacheAddressProblem(address);
    if (problem) {
      throw new CliError(`The cache cannot be used: ${problem}.`, Exit.usage);
    }
    const credentials = cacheAuthorization(new URL(address.trim()), this.env);
    if (credentials?.refused !== undefined) {
      // Said whatever -q says: the server will likely refuse, and this is why.
      this.progress.problem(`warning: ${credentials.refused}`);
    }
    this.verbose(
      `[cache] ${address.trim()}${credentials?.header !== undefined ? ` with credentials from ${credentials.source}` : ' without credentials'}`,
    );
    // The user's own cache folder in front of the server: read through, never published from.
    return new LayeredCache(
      new ContentCache(defaultCacheFolder(this.env), { warn }),
      new HttpCache(address, {
        authorization: credentials?.header,
        network: this.networkOptions().options,
        userAgent: `lab-data-cli/${this.version}`,
        warn,
      }),
    );
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
      [...this.byLab.values(), ...(this.contentCache ? [this.contentCache] : [])].map((client) =>
        client.close().catch(() => undefined),
      ),
    );
  }
}
