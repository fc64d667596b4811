import type { CheckStep, CheckStepKind } from './types';

export class StepTimeout extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms / 1000} s`);
  }
}

/** `work`, failing with a {@link StepTimeout} after `ms` and with the abort reason when `signal` aborts; `cleanup` runs when either gives up. */
export function bounded<T>(
  work: Promise<T>,
  ms: number,
  signal: AbortSignal | undefined,
  cleanup: () => void = () => undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void =>
      finish(() => reject(signal?.reason ?? new Error('cancelled')), true);
    const timer = setTimeout(() => finish(() => reject(new StepTimeout(ms)), true), ms);
    let done = false;
    function finish(settle: () => void, gaveUp: boolean): void {
      if (done) {
        return;
      }
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (gaveUp) {
        cleanup();
      }
      settle();
    }
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => finish(() => resolve(value), false),
      (error: unknown) => finish(() => reject(error), false),
    );
  });
}

/** Milliseconds since `started` (process.hrtime.bigint()). */
export function elapsed(started: bigint): number {
  return Math.round(Number(process.hrtime.bigint() - started) / 1e6);
}

/** A later step that did not run because `failed` did. */
export function notTried(kind: CheckStepKind, failed: CheckStepKind): CheckStep {
  const names: Readonly<Record<CheckStepKind, string>> = {
    resolve: 'the name lookup',
    proxy: 'the proxy',
    connect: 'the connection',
    tls: 'TLS',
    request: 'the request',
  };
  return {
    kind,
    outcome: 'skipped',
    ms: 0,
    summary: `not tried: ${names[failed]} failed`,
    details: [],
  };
}
