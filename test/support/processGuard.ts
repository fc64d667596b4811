import type * as Mocha from 'mocha';

/**
 * A mocha root-hook plugin (`require` in .mocharc.json; `rootHooks` of the integration runner)
 * that fails any test during which the process saw what a user's process would die of or leak
 * by: an uncaught exception (an `error` event nobody listened to), an unhandled rejection, a
 * `MaxListenersExceededWarning` (listeners added to a long-lived signal or emitter and never
 * removed), or a file handle closed by the garbage collector instead of by us (DEP0137). Mocha
 * fails a test for an uncaught exception on its own; the others only print a line, so the guard
 * turns them into one. Its own test (test/unit/support) proves each case fails.
 */

/** Warnings that mean a leak: listeners that pile up, a file handle nobody closed. */
const LEAK_WARNINGS = new Set(['MaxListenersExceededWarning']);
const LEAK_DEPRECATIONS = new Set(['DEP0137']);

function describe(value: unknown): string {
  const code = (value as { code?: unknown } | undefined)?.code;
  return value instanceof Error
    ? `${value.name}: ${value.message}${code ? ` (${String(code)})` : ''}`
    : String(value);
}

/** Whether a warning is one of the leaks this guard fails a test for. */
export function isLeakWarning(warning: Error & { code?: string }): boolean {
  return (
    LEAK_WARNINGS.has(warning.name) ||
    (warning.code !== undefined && LEAK_DEPRECATIONS.has(warning.code))
  );
}

/**
 * Hands a problem to mocha as an uncaught exception, which mocha charges to the test (or hook)
 * running, exactly as it does an `error` event nobody listened to.
 */
function raise(kind: string, value: unknown): void {
  process.nextTick(() => {
    throw Object.assign(new Error(`The process saw ${kind} no code handled: ${describe(value)}`), {
      name: 'ProcessGuardError',
    });
  });
}

const onUnhandled = (reason: unknown): void => raise('a rejected promise', reason);
const onWarning = (warning: Error & { code?: string }): void => {
  if (isLeakWarning(warning)) {
    raise('a leak warning', warning);
  }
};

/** Starts listening (idempotent). Uncaught exceptions need nothing: mocha fails the test running. */
export function installProcessGuard(): void {
  if (!process.listeners('warning').includes(onWarning)) {
    process.on('unhandledRejection', onUnhandled);
    process.on('warning', onWarning);
  }
}

/** Lets warnings and rejections of the test that just ended arrive while it is still the one charged. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export const mochaHooks: Mocha.RootHookObject = {
  beforeAll: installProcessGuard,
  afterEach: settle,
  afterAll: settle,
};
