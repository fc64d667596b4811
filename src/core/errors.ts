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
  /** Extra text for the log, e.g. the server's own error message (already redacted). */
  readonly detail?: string;
  /** How many attempts were made before giving up. */
  readonly attempts?: number;
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
  readonly attempts?: number;
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
      attempts: this.attempts,
    };
  }
}

/** True when the error means the user (or a caller's signal) cancelled the work. */
export function isCancellation(error: unknown): boolean {
  return error instanceof LabApiError ? error.code === 'cancelled' : error instanceof Error && error.name === 'AbortError';
}

export function cancelledError(path?: string): LabApiError {
  return new LabApiError('cancelled', 'The request was cancelled.', { path });
}

/** Replaces every occurrence of the given secrets, and anything shaped like a bearer credential, in a text. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length > 0) {
      result = result.split(secret).join('[redacted]');
    }
  }
  return result.replace(/(bearer\s+)[^\s"',;]+/gi, '$1[redacted]');
}

/** The user-facing sentence for an HTTP status the API documents (spec section 7). */
export function messageForStatus(status: number, origin: string): { code: LabErrorCode; message: string } {
  switch (status) {
    case 400:
      return { code: 'badRequest', message: 'The lab rejected the request as invalid; check the filter, date or page values.' };
    case 401:
      return { code: 'unauthorized', message: `The lab at ${origin} did not accept the access token; sign in again.` };
    case 403:
      return { code: 'forbidden', message: 'This is outside the scope your access token was provisioned for.' };
    case 404:
      return { code: 'notFound', message: 'Not found, or not available within your access scope.' };
    case 429:
      return { code: 'rateLimited', message: 'The lab is limiting requests; try again later.' };
    default:
      if (status >= 500) {
        return { code: 'server', message: `The lab's server failed (HTTP ${status}); try again later, and contact support if it keeps happening.` };
      }
      return { code: 'unexpectedStatus', message: `The lab answered with an unexpected HTTP status ${status}.` };
  }
}
