/** What went wrong, in terms a caller can act on. */
export type LabErrorCode =
  | 'badRequest'
  | 'unauthorized'
  | 'forbidden'
  | 'notFound'
  | 'rateLimited'
  | 'server'
  | 'unexpectedStatus'
  | 'network'
  | 'timeout'
  | 'cancelled'
  | 'invalidResponse'
  | 'invalidInput'
  | 'insecureRedirect'
  | 'fileExists'
  | 'fileSystem';

export interface LabApiErrorDetails {
  /** HTTP status, when the server answered. */
  readonly status?: number;
  /** Endpoint path without query or secrets, e.g. `/api/v1/reports/R-1`. */
  readonly path?: string;
  /** Request or correlation id sent by the server, for support reports. */
  readonly requestId?: string;
  /** Sanitised query parameters of the failed request. */
  readonly params?: Readonly<Record<string, string>>;
  /** When a rate-limited caller may try again. */
  readonly retryAt?: Date;
  /** Extra text for the log, e.g. a system error code (already redacted). */
  readonly detail?: string;
  /** The server's own reason from its error body, passed through `serverText`; shown to the user. */
  readonly reason?: string;
  /** How many attempts were made before giving up. */
  readonly attempts?: number;
  /** The catalogue message (`MESSAGES` in messages.ts) and its arguments, for translation. */
  readonly text?: { readonly id: string; readonly args: Readonly<Record<string, string | number>> };
}

/**
 * The one error type the core throws. `message` is one plain sentence for a user; the other
 * fields are for logs and support reports. It never holds the token: it is built only from
 * status, path, request id and texts that passed through {@link redactSecrets}.
 */
export class LabApiError extends Error implements LabApiErrorDetails {
  override readonly name = 'LabApiError';
  readonly status?: number;
  readonly path?: string;
  readonly requestId?: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly retryAt?: Date;
  readonly detail?: string;
  readonly reason?: string;
  readonly attempts?: number;
  readonly text?: LabApiErrorDetails['text'];
  readonly #details: LabApiErrorDetails;

  constructor(
    readonly code: LabErrorCode,
    message: string,
    details: LabApiErrorDetails = {},
  ) {
    super(message);
    this.#details = details;
    Object.assign(this, details);
  }

  /** A copy of this error with some details added or replaced. */
  with(extra: LabApiErrorDetails): LabApiError {
    return new LabApiError(this.code, this.message, { ...this.#details, ...extra });
  }

  /** One line for the log: the sentence plus status, path and request id. */
  describe(): string {
    const facts: string[] = [];
    if (this.status !== undefined) {
      facts.push(`HTTP ${this.status}`);
    }
    if (this.path) {
      facts.push(`GET ${this.path}`);
    }
    if (this.requestId) {
      facts.push(`request id ${this.requestId}`);
    }
    if (this.attempts !== undefined && this.attempts > 1) {
      facts.push(`${this.attempts} attempts`);
    }
    if (this.detail) {
      facts.push(this.detail);
    }
    if (this.reason && !this.message.includes(this.reason)) {
      facts.push(`server said: ${this.reason}`);
    }
    return facts.length > 0 ? `${this.message} (${facts.join('; ')})` : this.message;
  }

  override toString(): string {
    return `${this.name} [${this.code}]: ${this.describe()}`;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      path: this.path,
      requestId: this.requestId,
      params: this.params,
      retryAt: this.retryAt?.toISOString(),
      detail: this.detail,
      reason: this.reason,
      attempts: this.attempts,
    };
  }
}

/** True when the error means the user (or a caller's signal) cancelled the work. */
export function isCancellation(error: unknown): boolean {
  return error instanceof LabApiError
    ? error.code === 'cancelled'
    : error instanceof Error && error.name === 'AbortError';
}

/** Catalogue messages about the way to the lab (a proxy's answer, an unusable proxy address), whatever their code. */
const NETWORK_MESSAGES: ReadonlySet<string> = new Set([
  'unauthorizedProxy',
  'proxyInvalid',
  'caFileUnreadable',
  'caFileNoPem',
]);

/**
 * True when the error is about the way to the lab rather than the lab's answer: no connection, a
 * timeout, a proxy or TLS failure, unusable network settings. Check Connection can tell which step.
 */
export function isNetworkFailure(error: unknown): boolean {
  return (
    error instanceof LabApiError &&
    (error.code === 'network' ||
      error.code === 'timeout' ||
      (error.text !== undefined && NETWORK_MESSAGES.has(error.text.id)))
  );
}
