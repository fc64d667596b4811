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

/**
 * Where tokens come from: `--token-file` (one token, refused when other users may read it), else
 * `LAB_DATA_TOKEN_<LAB>` for that lab, else `LAB_DATA_TOKEN`. Never a command-line value, and the
 * token itself is never printed: messages name the variable or the file.
 */
export class Tokens {
  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly fromFile?: string,
  ) {}

  static async load(env: NodeJS.ProcessEnv, tokenFile?: string): Promise<Tokens> {
    if (tokenFile === undefined) {
      return new Tokens(env);
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
    return new Tokens(env, token);
  }

  /**
   * The token for `lab` at `origin`, or undefined: `LAB_DATA_TOKEN_<LAB>` where it may go there
   * ({@link ownTokenGoes}), else the variable named after the lab's address
   * (`LAB_DATA_TOKEN_127_0_0_1_47101`, what a lab signed in without a name was called before labs
   * took their own names), else `LAB_DATA_TOKEN`.
   */
  tokenFor(lab: string, origin: string): string | undefined {
    if (this.fromFile !== undefined) {
      return this.fromFile;
    }
    const own = this.ownTokenGoes(lab, origin) ? this.ownToken(lab) : undefined;
    const host = hostOf(origin);
    const byAddress =
      host !== undefined ? this.env[variableFor('LAB_DATA_TOKEN', host)]?.trim() : undefined;
    const shared = this.env.LAB_DATA_TOKEN?.trim();
    return own || byAddress || shared || undefined;
  }

  private ownToken(lab: string): string | undefined {
    return this.env[variableFor('LAB_DATA_TOKEN', lab)]?.trim() || undefined;
  }

  /**
   * Whether `LAB_DATA_TOKEN_<LAB>` may be sent to `origin`: only when the lab is named after that
   * address, or `LAB_DATA_URL_<LAB>` gives that origin. A lab's name comes from a manifest anyone
   * can commit (or from the lab itself), so a name alone never sends one lab's token to another's
   * address: a section renamed after lab B at lab A's address does not get B's token.
   */
  private ownTokenGoes(lab: string, origin: string): boolean {
    const host = hostOf(origin);
    if (
      host !== undefined &&
      variableFor('LAB_DATA_TOKEN', lab) === variableFor('LAB_DATA_TOKEN', host)
    ) {
      return true;
    }
    const given = originOf(this.env[variableFor('LAB_DATA_URL', lab)]?.trim());
    return given !== undefined && given === originOf(origin);
  }

  /** Whether `LAB_DATA_TOKEN_<LAB>` is set but may not go to `origin` ({@link ownTokenGoes}). */
  refusesOwnToken(lab: string, origin: string): boolean {
    return this.ownToken(lab) !== undefined && !this.ownTokenGoes(lab, origin);
  }

  /**
   * The sentence for a missing token: which variable to set; or, when `LAB_DATA_TOKEN_<LAB>` is set
   * but may not go to `origin` ({@link refusesOwnToken}), the address variable that would send it.
   */
  missing(lab: string, several: boolean, origin: string): CliError {
    if (this.refusesOwnToken(lab, origin)) {
      const tokenVariable = variableFor('LAB_DATA_TOKEN', lab);
      const urlVariable = variableFor('LAB_DATA_URL', lab);
      const shown = serverText(originOf(origin) ?? origin, 200);
      const given = this.env[urlVariable]?.trim();
      const gives = given
        ? `gives ${serverText(originOf(given) ?? 'no address', 200)}`
        : 'is not set';
      return new CliError(
        `${tokenVariable} is only sent to the address ${urlVariable} gives, and ${urlVariable} ${gives}; the lab "${serverText(lab, 80)}" is placed at ${shown}. If that is its address, set ${urlVariable}=${shown}; else give the token of the lab at ${shown} (LAB_DATA_TOKEN or --token-file). Nothing was sent.`,
        Exit.auth,
      );
    }
    const variable = several
      ? `${variableFor('LAB_DATA_TOKEN', lab)} (or LAB_DATA_TOKEN)`
      : `LAB_DATA_TOKEN (or ${variableFor('LAB_DATA_TOKEN', lab)})`;
    return new CliError(
      `No token for the lab "${serverText(lab, 80)}": set ${variable} to its access token, or pass --token-file.`,
      Exit.auth,
    );
  }
}
