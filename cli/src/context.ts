import { LabApi } from '../../src/core/api/labApi';
import { parseBaseUrl } from '../../src/core/connection/baseUrl';
import type { LogLevel } from '../../src/core/connection/httpClient';
import { LabApiError } from '../../src/core/errors/errors';
import { CliError, Exit } from './exitCodes';
import { networkFromEnvironment, type CliNetwork } from './network';
import { Progress } from './output';
import { Tokens } from './tokens';
import type { ParsedCommand } from './commandLine';

/** Everything a command needs: its arguments, where to say things, tokens, the network, and clients of labs. */
export class CliContext {
  readonly progress: Progress;
  readonly signal: AbortSignal;
  private network?: CliNetwork;
  private readonly byLab = new Map<string, LabApi>();

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

  static async create(command: ParsedCommand, env: NodeJS.ProcessEnv, signal: AbortSignal, version: string): Promise<CliContext> {
    const tokenFile = command.values['token-file'];
    return new CliContext(command, env, await Tokens.load(env, typeof tokenFile === 'string' ? tokenFile : undefined), signal, version);
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
      const caFiles = this.command.values['ca-file'];
      this.network = networkFromEnvironment(this.env, Array.isArray(caFiles) ? caFiles.filter((file): file is string => typeof file === 'string') : []);
      this.network.described.forEach((line) => this.verbose(`[network] ${line}`));
    }
    return this.network;
  }

  /** The lab's address for sync and listings: --lab, else LAB_DATA_URL. */
  labUrl(): string {
    const given = this.text('lab') ?? this.env.LAB_DATA_URL?.trim();
    if (!given) {
      throw new CliError('Which lab? Give its address with --lab https://lab.example.com, or set LAB_DATA_URL.', Exit.usage);
    }
    try {
      return parseBaseUrl(given).baseUrl;
    } catch (error) {
      throw new CliError(error instanceof LabApiError ? error.message : String(error), Exit.usage);
    }
  }

  /** A client of the lab at `baseUrl` known as `name`, with its token (one per lab for the whole run); fails with the variable to set when there is none. */
  api(name: string, baseUrl: string, several = false): LabApi {
    const key = `${name}\n${baseUrl}`;
    const known = this.byLab.get(key);
    if (known) {
      return known;
    }
    const token = this.tokens.tokenFor(name);
    if (token === undefined) {
      throw this.tokens.missing(name, several);
    }
    const log = (level: LogLevel, message: string): void => {
      if (level !== 'debug' && level !== 'trace') {
        this.verbose(message);
      }
    };
    const api = LabApi.forBaseUrl(baseUrl, { token, network: this.networkOptions().options, userAgent: `lab-data-cli/${this.version}`, log });
    this.byLab.set(key, api);
    return api;
  }

  /** Like {@link api}, or undefined when there is no token for that lab. */
  apiIfToken(name: string, baseUrl: string): LabApi | undefined {
    return this.tokens.tokenFor(name) === undefined ? undefined : this.api(name, baseUrl);
  }

  missingToken(name: string, several: boolean): CliError {
    return this.tokens.missing(name, several);
  }

  async close(): Promise<void> {
    await Promise.all([...this.byLab.values()].map((client) => client.close().catch(() => undefined)));
  }
}
