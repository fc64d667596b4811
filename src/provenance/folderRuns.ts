import * as path from 'node:path';

/**
 * One run over a saved folder at a time (a Restore, a push, a resolve of its manifest): a second
 * run on the same folder waits for the first, whichever command started each.
 */
const running = new Map<string, Promise<unknown>>();

export function oneAtATime<T>(folder: string, work: () => Promise<T>): Promise<T> {
  const key = path.resolve(folder);
  const next = (running.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
  running.set(key, next);
  void next.finally(() => running.get(key) === next && running.delete(key)).catch(() => undefined);
  return next;
}
