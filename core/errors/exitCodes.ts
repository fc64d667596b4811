import { LabApiError } from './errors';

/**
 * The documented exit codes of a run over a folder (`lab-data --help`, cli/README.md "Exit
 * status"); the command-line tool exits with them and the extension's `lab-data` tasks end with
 * them, so a `dependsOn` chain stops where CI would.
 */
export const Exit = {
  /** Done: the folder is as its manifest records. */
  ok: 0,
  /** A file does not match its record, changed at the lab, is missing, or could not be written. */
  mismatch: 1,
  /** The command line or the manifest cannot be used as given. */
  usage: 2,
  /** The lab refused the token (401) or its scope (403), or there is no token. */
  auth: 3,
  /** The lab or the network is unavailable (unreachable, timed out, 5xx, rate-limited beyond waiting). */
  network: 4,
} as const;

export type ExitCode = (typeof Exit)[keyof typeof Exit];

/** The exit code a failure of the core means (anything but a `LabApiError` is the run's own: 1). */
export function exitCodeOfFailure(error: unknown): ExitCode {
  if (!(error instanceof LabApiError)) {
    return Exit.mismatch;
  }
  switch (error.code) {
    case 'unauthorized':
    case 'forbidden':
      return Exit.auth;
    case 'invalidInput':
    case 'badRequest':
      return Exit.usage;
    case 'notFound':
    case 'fileSystem':
    case 'fileExists':
    case 'cancelled':
      return Exit.mismatch;
    default:
      return Exit.network;
  }
}

/**
 * Which outcome the exit status says when a run meets several, worst first: a command line or
 * manifest that cannot be used (2) stops everything; a token that is missing, refused or not
 * confirmed (3) needs the person; a lab or network that is down (4) passes by itself; a file that
 * differs or is missing (1) is the run's own finding. `lab-data --help` and cli/README.md say it.
 */
export const PRECEDENCE: readonly ExitCode[] = [
  Exit.usage,
  Exit.auth,
  Exit.network,
  Exit.mismatch,
  Exit.ok,
];

/** The worst of several exit codes, by {@link PRECEDENCE}. */
export function worst(codes: readonly ExitCode[]): ExitCode {
  return codes.reduce<ExitCode>(
    (worstSoFar, code) =>
      PRECEDENCE.indexOf(code) < PRECEDENCE.indexOf(worstSoFar) ? code : worstSoFar,
    Exit.ok,
  );
}
