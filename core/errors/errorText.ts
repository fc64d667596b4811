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
