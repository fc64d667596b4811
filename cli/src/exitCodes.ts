import { exitCodeOfFailure, type ExitCode } from '../../core/errors/exitCodes';

// The codes and their precedence are the core's (the extension's `lab-data` tasks end with them too).
export { Exit, PRECEDENCE, worst, type ExitCode } from '../../core/errors/exitCodes';

/** A failure the tool reports with one message and one exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The exit code a failure means: a {@link CliError}'s own, else the core's {@link exitCodeOfFailure}. */
export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof CliError ? error.exitCode : exitCodeOfFailure(error);
}
