import { promises as fs } from 'node:fs';
import { parseBaseUrl } from '../../core/connection/baseUrl';
import { serverText } from '../../core/errors/serverText';
import { CliError, Exit } from './exitCodes';

/** One lab's own environment variable: `LAB_DATA_TOKEN_<LAB>`, `LAB_DATA_URL_<LAB>` (the name in capitals, other characters as `_`). */
export function variableFor(prefix: 'LAB_DATA_TOKEN' | 'LAB_DATA_URL', lab: string): string {
  const suffix = lab
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  return `${prefix}_${suffix || 'LAB'}`;
}

/** The origin an address gives (`https://lab.example.com:8443`), or undefined when it gives none. */
function originOf(address: string | undefined): string | undefined {
  if (!address) {
    return undefined;
  }
  try {
    return parseBaseUrl(address).origin;
  } catch {
    return undefined;
  }
}

/** The host (and port) of an address, or undefined when it is none. */
export function hostOf(origin: string | undefined): string | undefined {
  if (origin === undefined) {
    return undefined;
  }
  try {
    return new URL(origin).host || undefined;
  } catch {
    return undefined;
  }
}

const TOKEN_SHAPE = /^[\x21-\x7e]{1,4096}$/;

/** Which variable supplies the token for one lab's address, and what pairs it with that address (never the token). */
export interface TokenSource {
  readonly lab: string;
  readonly origin: string;
  /** `LAB_DATA_TOKEN_RIVERSIDE`, `LAB_DATA_TOKEN`, or `--token-file`. */
  readonly variable: string;
  /** `LAB_DATA_URL_RIVERSIDE`, `LAB_DATA_URL` or `--lab`. */
  readonly confirmedBy: string;
}

/** The token a lab's address may be sent, with where it came from; or why none may be sent there. */
export type TokenChoice =
  { readonly token: string; readonly source: TokenSource } | { readonly problem: CliError };

/** The whoami line of `-v` and `lab-data status`: which variable supplies the token for which address (never the token). */
export function tokenLine(source: TokenSource): string {
  return serverText(
    `[token] ${source.variable} for ${source.origin} (confirmed by ${source.confirmedBy})`,
    400,
  );
}

/**
 * Where tokens come from, and the one rule for where each may go. A token goes only to an address
 * a variable (or the command line) pairs it with:
 * - `--token-file`: to the lab of this run, the address `--lab`, `LAB_DATA_URL` or
 *   `LAB_DATA_URL_<LAB>` gives;
 * - `LAB_DATA_TOKEN_<NAME>` (NAME: a lab's name, or its host and port): to the origin
 *   `LAB_DATA_URL_<NAME>` gives, and nowhere else. Host names that differ only in `.`, `-` or `_`
 *   give one variable name (`lab-b.com`, `lab_b.com`, `lab.b.com`: `LAB_DATA_TOKEN_LAB_B_COM`), so a
 *   name never pairs a token with an address: one set without its `LAB_DATA_URL_<NAME>` stops
 *   every run before any request, naming the variable to set;
 * - `LAB_DATA_TOKEN`: to the origin `LAB_DATA_URL` gives; when that is not set, to the one `--lab`
 *   gives.
 * A per-lab variable that is set but not paired with the lab's address stops the run: the generic
 * token is never sent there instead (it is, most likely, another lab's). Anything else stops too,
 * naming the variable to set. The token itself is never printed: messages name the variable.
 */
export class Tokens {
  /** `LAB_DATA_TOKEN_<NAME>` variables set without their `LAB_DATA_URL_<NAME>`, in name order. */
  private readonly unpairedVariables: readonly string[];

  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly labOption: string | undefined,
    private readonly fromFile?: string,
  ) {
    this.unpairedVariables = Object.keys(env)
      .filter(
        (name) =>
          /^LAB_DATA_TOKEN_./.test(name) &&
          this.value(name) !== undefined &&
          this.value(name.replace(/^LAB_DATA_TOKEN_/, 'LAB_DATA_URL_')) === undefined,
      )
      .sort();
  }

  /** `labOption`: the address given with `--lab`, which pairs `LAB_DATA_TOKEN` when `LAB_DATA_URL` is not set. */
  static async load(
    env: NodeJS.ProcessEnv,
    tokenFile: string | undefined,
    labOption: string | undefined,
  ): Promise<Tokens> {
    if (tokenFile === undefined) {
      return new Tokens(env, labOption);
    }
    // The file's name is never repeated: `--token-file "$TOKEN"` by mistake must not print the token.
    let stats;
    try {
      stats = await fs.stat(tokenFile);
    } catch {
      throw new CliError(
        'The file given with --token-file cannot be read (is the path right?).',
        Exit.usage,
      );
    }
    if (!stats.isFile()) {
      throw new CliError('What --token-file names is not a file.', Exit.usage);
    }
    if (process.platform !== 'win32' && (stats.mode & 0o077) !== 0) {
      throw new CliError(
        `The file given with --token-file can be read by other users (mode ${(stats.mode & 0o777).toString(8)}); make it private first: chmod 600 on it.`,
        Exit.usage,
      );
    }
    const token = await fs.readFile(tokenFile, 'utf8').then(
      (text) => text.trim(),
      () => {
        throw new CliError('The file given with --token-file cannot be read.', Exit.usage);
      },
    );
    if (!TOKEN_SHAPE.test(token)) {
      throw new CliError(
        'The file given with --token-file does not hold one token (printable characters, no spaces).',
        Exit.usage,
      );
    }
    return new Tokens(env, labOption, token);
  }

  /**
   * The token for the lab known as `lab` at `origin`, by the rule above: `--token-file`, else
   * `LAB_DATA_TOKEN_<LAB>`, else the variable named after the address, each where it is paired
   * with `origin`; else `LAB_DATA_TOKEN` where it is. `several`: the manifest holds more than one
   * lab (the message then puts the lab's own variable first).
   */
  choose(lab: string, originOrUrl: string, several = false): TokenChoice {
    const origin = originOf(originOrUrl) ?? originOrUrl;
    const host = hostOf(origin);
    // A lab's own token, where its variable pairs it with this address, comes first: --token-file
    // and LAB_DATA_TOKEN are the run's one lab's, never a token meant for another lab's address.
    const own = [
      ...new Set([
        variableFor('LAB_DATA_TOKEN', lab),
        ...(host !== undefined ? [variableFor('LAB_DATA_TOKEN', host)] : []),
      ]),
    ].filter((variable) => this.value(variable) !== undefined);
    // A token variable without its address stops the run whichever lab is asked: where it may go
    // is not known, so no lab is asked anything until it is paired (or unset).
    const unpaired = own.find((variable) => this.unpairedVariables.includes(variable));
    if (unpaired !== undefined || this.unpairedVariables.length > 0) {
      return {
        problem:
          unpaired !== undefined
            ? this.unpaired(unpaired, lab, origin)
            : this.withoutAddress(this.unpairedVariables[0]!),
      };
    }
    for (const variable of own) {
      const confirmedBy = this.pairing(variable, origin);
      if (confirmedBy !== undefined) {
        return { token: this.value(variable)!, source: { lab, origin, variable, confirmedBy } };
      }
    }
    if (own.length > 0) {
      return { problem: this.unpaired(own[0]!, lab, origin) };
    }
    const fromFile = this.fromFile !== undefined;
    const shared = this.fromFile ?? this.value('LAB_DATA_TOKEN');
    if (shared === undefined) {
      return { problem: this.none(lab, origin, several) };
    }
    // The run's one token goes only to the address LAB_DATA_URL (else --lab) gives.
    const [giver, given] = this.sharedAddress();
    if (giver !== undefined && originOf(given) === origin) {
      return {
        token: shared,
        source: {
          lab,
          origin,
          variable: fromFile ? '--token-file' : 'LAB_DATA_TOKEN',
          confirmedBy: giver,
        },
      };
    }
    return {
      problem: this.elsewhere(
        lab,
        origin,
        giver,
        given,
        ...(fromFile ? ['the token of --token-file'] : []),
      ),
    };
  }

  /** Whether `LAB_DATA_TOKEN_<LAB>` is set but may not go to `origin` (not paired with it). */
  refusesOwnToken(lab: string, origin: string): boolean {
    const variable = variableFor('LAB_DATA_TOKEN', lab);
    return this.value(variable) !== undefined && this.pairing(variable, origin) === undefined;
  }

  private value(variable: string): string | undefined {
    return this.env[variable]?.trim() || undefined;
  }

  /**
   * What pairs `LAB_DATA_TOKEN_<NAME>` with `origin`, or undefined: `LAB_DATA_URL_<NAME>` when it
   * gives exactly that origin. A name never does: two hosts spelt alike (`lab.b.com`, `lab-b.com`,
   * `lab_b.com`, all `LAB_DATA_TOKEN_LAB_B_COM`) never share a token.
   */
  private pairing(tokenVariable: string, origin: string): string | undefined {
    const urlVariable = tokenVariable.replace(/^LAB_DATA_TOKEN_/, 'LAB_DATA_URL_');
    const given = this.value(urlVariable);
    return given !== undefined && originOf(given) === origin ? urlVariable : undefined;
  }

  /** A `LAB_DATA_TOKEN_<NAME>` set without its `LAB_DATA_URL_<NAME>`, for a lab it is not named after. */
  private withoutAddress(tokenVariable: string): CliError {
    const urlVariable = tokenVariable.replace(/^LAB_DATA_TOKEN_/, 'LAB_DATA_URL_');
    return new CliError(
      `${tokenVariable} is set, but ${urlVariable} is not: a token goes only to the address a variable names exactly. Set ${urlVariable} to the address of the lab ${tokenVariable} is for (https://lab.example.com), or unset ${tokenVariable}. Nothing was sent.`,
      Exit.auth,
    );
  }

  /**
   * The address `LAB_DATA_TOKEN` is paired with: `LAB_DATA_URL`, else `--lab` where it gives an
   * address (not a lab's name); [who gave it, what].
   */
  private sharedAddress(): [string | undefined, string | undefined] {
    const url = this.value('LAB_DATA_URL');
    if (url !== undefined) {
      return ['LAB_DATA_URL', url];
    }
    const lab = this.labOption?.trim();
    return originOf(lab) !== undefined ? ['--lab', lab] : [undefined, undefined];
  }

  /** `LAB_DATA_TOKEN_<NAME>` is set but not paired with `origin`: the variable that would pair it, and nothing sent. */
  private unpaired(tokenVariable: string, lab: string, origin: string): CliError {
    const urlVariable = tokenVariable.replace(/^LAB_DATA_TOKEN_/, 'LAB_DATA_URL_');
    const shown = serverText(origin, 200);
    const given = this.value(urlVariable);
    const gives =
      given !== undefined
        ? `gives ${serverText(originOf(given) ?? 'no address', 200)}`
        : 'is not set';
    const host = hostOf(origin);
    const byAddress = host !== undefined ? variableFor('LAB_DATA_TOKEN', host) : undefined;
    const other =
      byAddress !== undefined && byAddress !== tokenVariable
        ? `set ${byAddress} with ${variableFor('LAB_DATA_URL', host!)}=${shown}, or `
        : '';
    return new CliError(
      `${tokenVariable} is only sent to the address ${urlVariable} gives, and ${urlVariable} ${gives}; the lab "${serverText(lab, 80)}" is placed at ${shown}. If ${tokenVariable} is that lab's token, set ${urlVariable}=${shown}; else give the lab at ${shown} its own token: ${other}pass --token-file. LAB_DATA_TOKEN is not sent there instead. Nothing was sent.`,
      Exit.auth,
    );
  }

  /** The generic token (or the file's) is paired with another address, or with none. */
  private elsewhere(
    lab: string,
    origin: string,
    giver: string | undefined,
    given: string | undefined,
    variable = 'LAB_DATA_TOKEN',
  ): CliError {
    const shown = serverText(origin, 200);
    const host = hostOf(origin);
    const own = host !== undefined ? variableFor('LAB_DATA_TOKEN', host) : undefined;
    const ownToken =
      variable === 'LAB_DATA_TOKEN'
        ? ` Or give that lab its own token: ${own !== undefined ? `set ${own} with ${variableFor('LAB_DATA_URL', host!)}=${shown}, or ` : ''}pass --token-file.`
        : '';
    if (giver === undefined) {
      return new CliError(
        `The lab "${serverText(lab, 80)}" is placed at ${shown}. Confirm it before ${variable} goes there: set LAB_DATA_URL=${shown} (or --lab ${shown}).${ownToken} A manifest alone never decides where a token is sent.`,
        Exit.auth,
      );
    }
    const confirmed = originOf(given);
    if (confirmed === undefined) {
      return new CliError(
        `${giver} does not give a lab's address (https://lab.example.com), so ${variable} goes nowhere. Nothing was sent.`,
        Exit.usage,
      );
    }
    return new CliError(
      `The lab "${serverText(lab, 80)}" is placed at ${shown}, but ${giver} gives ${serverText(confirmed, 200)}: ${variable} is only sent to that address, and the token is not sent to an address you did not give.${ownToken} Nothing was sent.`,
      Exit.auth,
    );
  }

  /** No token at all: the variable to set (with its address variable where its name is not the address's). */
  private none(lab: string, origin: string, several: boolean): CliError {
    const own = variableFor('LAB_DATA_TOKEN', lab);
    const ownPaired =
      this.pairing(own, origin) !== undefined
        ? own
        : `${own} with ${variableFor('LAB_DATA_URL', lab)}=${serverText(origin, 200)}`;
    const variable = several
      ? `${ownPaired} (or LAB_DATA_TOKEN)`
      : `LAB_DATA_TOKEN (or ${ownPaired})`;
    return new CliError(
      `No token for the lab "${serverText(lab, 80)}": set ${variable} to its access token, or pass --token-file.`,
      Exit.auth,
    );
  }
}
