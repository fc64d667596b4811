import { serverText } from './serverText';

/**
 * A thrown value in words: an `Error`'s message, anything else as `String` renders it. The one
 * place every caller turns a failure it caught into text (vscode-azuretools' `parseError`). The
 * words are as the thrower wrote them: a caller that shows or logs server text passes them through
 * `serverText` itself, as before.
 */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    return error.message;
  }
  try {
    return String(error);
  } catch {
    // An object without `toString` (`Object.create(null)`) cannot be turned into a string.
    return Object.prototype.toString.call(error);
  }
}

/** A system or transport error's code (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`), on the error or its cause. */
export function errorCode(error: unknown): string | undefined {
  const withCode = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = withCode?.code ?? withCode?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

/** What the common system error codes mean, in words. */
const SYSTEM_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was dropped',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'the name server did not answer',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** undici's own timeouts: the server did not answer within the time it was given. */
const NO_ANSWER_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * A failure below HTTP in a few words for a message: what its code means and the code
 * ("connection refused (ECONNREFUSED)"), "no answer within 30 s" for a transport timeout when the
 * timeout is known, else its own words, sanitised (a message may quote what a server sent). The one
 * form Check Connection's steps and the team cache both say.
 */
export function systemReason(error: unknown, answerTimeoutMs?: number): string {
  const code = errorCode(error);
  if (code !== undefined && NO_ANSWER_CODES.has(code)) {
    return answerTimeoutMs === undefined
      ? `no answer in time (${code})`
      : `no answer within ${Math.round(answerTimeoutMs / 1000)} s`;
  }
  const message = serverText(errorText(error));
  return code ? `${SYSTEM_WORDS[code] ?? message} (${code})` : message;
}
