import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

/** A running test proxy: its URL, everything it logged, and how to stop it. */
export interface ForwardProxy {
  readonly url: string;
  readonly port: number;
  /** One line per request the proxy saw: `CONNECT lab.test:443 {headers}` or `GET http://… {headers}`. */
  lines(): string[];
  stop(): Promise<void>;
}

/**
 * Starts the forward proxy of forwardProxyProcess.ts in a child process (the `proxy` npm package),
 * on 127.0.0.1, optionally demanding Basic credentials (with a 407, or with `challenge: 401` a 401). Stop it with `stop()` when the test ends.
 */
export async function startForwardProxy(
  options: { auth?: string; challenge?: 401 | 407; node?: string } = {},
): Promise<ForwardProxy> {
  const script = path.join(__dirname, 'forwardProxyProcess.js');
  const args = [
    ...(options.auth ? ['--auth', options.auth] : []),
    ...(options.challenge ? ['--challenge', String(options.challenge)] : []),
  ];
  const child: ChildProcess = spawn(options.node ?? process.execPath, [script, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '' },
  });
  const lines: string[] = [];
  let buffered = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the test proxy did not start within 10 s')),
      10_000,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const listening = /^listening (\d+)$/.exec(line);
        if (listening) {
          clearTimeout(timer);
          resolve(Number(listening[1]));
        } else {
          lines.push(line);
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) =>
      process.stderr.write(`[test proxy] ${chunk.toString('utf8')}`),
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the test proxy exited with code ${code}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    lines: () => [...lines],
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
