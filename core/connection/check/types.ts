import type { NetworkOptions } from '../network';

/** The steps of a connection check, in the order they run. */
export type CheckStepKind = 'resolve' | 'proxy' | 'connect' | 'tls' | 'request';

export type CheckOutcome = 'ok' | 'failed' | 'skipped';

/** What a failed step found, for the plain sentence and the next thing to try (`core/derived/connectionReport.ts`). */
export type CheckProblem =
  | 'notFound'
  | 'proxyNotFound'
  | 'proxyInvalid'
  | 'refused'
  | 'connectTimeout'
  | 'unreachable'
  | 'proxyUnreachable'
  | 'proxyCredentials'
  | 'proxyRefused'
  | 'untrusted'
  | 'tlsFailed'
  | 'noAnswer'
  /** Headers, and never the body: the lab's service is stuck. */
  | 'stuck'
  /** Part of the answer, and then nothing. */
  | 'stoppedMidAnswer'
  /** An answer so slow (a byte a second) it never finishes in time. */
  | 'tooSlow'
  | 'tokenRejected'
  | 'forbidden'
  | 'labError';

/** One step: how it went, how long it took, one line that says so and the facts behind it. */
export interface CheckStep {
  readonly kind: CheckStepKind;
  readonly outcome: CheckOutcome;
  readonly ms: number;
  readonly summary: string;
  readonly details: readonly string[];
  /** Set on a failed step: what it found. */
  readonly problem?: CheckProblem;
  /** Set on a failed step when the check knows what to do about it, in plain words. */
  readonly advice?: string;
  /** The request step: whether it went with the token (false: an answer without one, signed out). */
  readonly signedIn?: boolean;
}

/** What the authenticated request of the last step found. */
export interface RequestProbe {
  readonly status: number;
  readonly requestId?: string;
  readonly records: number;
  readonly totalCount?: number;
}

export interface ConnectionCheck {
  readonly lab: string;
  readonly baseUrl: string;
  /** How the lab's own requests leave (which transport, and why), as the caller said. */
  readonly transport?: string;
  readonly steps: readonly CheckStep[];
  /** No step failed. */
  readonly ok: boolean;
}

export interface ConnectionCheckOptions {
  /** How the lab's own requests leave (which transport, and why), for the report. */
  readonly transport?: string;
  /** The lab's name, for the report. */
  readonly name: string;
  /** The lab's base URL (`https://lab.example.com/lims`). */
  readonly baseUrl: string;
  /** The network options the lab's requests use (proxy, its source, credentials, authorities). */
  readonly network: NetworkOptions;
  /** The files of `labData.caCertificates`, to say which one trusted the chain. */
  readonly caFiles?: readonly string[];
  /** For `NODE_EXTRA_CA_CERTS`. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The lab's API path the request step asks for when signed out (the request that failed, say
   * `/api/v1/reports`), its whole answer read; the lab's address when not given.
   */
  readonly path?: string;
  /**
   * The authenticated request through the lab's own client (the request that failed, or a
   * one-item list), its whole answer read; undefined when signed out.
   */
  readonly request?: (signal: AbortSignal) => Promise<RequestProbe>;
  readonly signal?: AbortSignal;
  /** How long each network step may take (10 s, the connect timeout of every request). */
  readonly timeoutMs?: number;
  /** How long the lab may take to answer the last step's request (30 s, the answer timeout of every request). */
  readonly answerTimeoutMs?: number;
  /** Told as each step starts, so a person sees what is being waited for. */
  readonly onStep?: (kind: CheckStepKind) => void;
  readonly read?: (file: string) => string;
}
