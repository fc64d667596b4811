import { execFileSync, spawn } from 'node:child_process';
import { endWithItsTest } from '../support/leftoverChildren';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');

/** The tool as a user gets it: `npm pack` in cli/, installed into an empty prefix with Node alone. */
export interface PackedTool {
  /** The installed `lab-data` command. */
  readonly bin: string;
  readonly tarball: string;
  readonly tarballBytes: number;
  /** Runs it as a subprocess; the test process (and its mock lab) keeps running meanwhile. */
  run(args: readonly string[], options?: RunOptions): Promise<RunResult>;
  remove(): void;
}

export interface RunOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Called with the child once it runs (to send it a signal). */
  readonly started?: (child: import('node:child_process').ChildProcess) => void;
}

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Everything every run printed, for the token check at the end. */
export const transcript: string[] = [];

/**
 * Packs cli/ (its prepack builds the bundle) and installs the tarball globally into a fresh prefix.
 * `npm test` packs it once before its test processes start side by side and names the tarball in
 * LABDATA_CLI_TARBALL: packs of their own would each rewrite cli/dist/lab-data.js while another
 * pack reads it.
 */
export function packAndInstall(): PackedTool {
  const scratch = mkdtempSync(path.join(tmpdir(), 'lab-data-cli-'));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const quiet = {
    stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8' as const,
  };
  const packed = process.env.LABDATA_CLI_TARBALL;
  if (packed) {
    copyFileSync(packed, path.join(scratch, path.basename(packed)));
  } else {
    execFileSync(npm, ['pack', '--pack-destination', scratch, '--silent'], {
      ...quiet,
      cwd: path.join(root, 'cli'),
    });
  }
  const tarball = path.join(
    scratch,
    readdirSync(scratch).find((name) => name.endsWith('.tgz'))!,
  );
  const prefix = path.join(scratch, 'prefix');
  execFileSync(
    npm,
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--offline',
      '--no-audit',
      '--no-fund',
      '--silent',
      tarball,
    ],
    { ...quiet, cwd: scratch },
  );
  const bin = path.join(prefix, 'bin', 'lab-data');
  return {
    bin,
    tarball,
    tarballBytes: statSync(tarball).size,
    run(args, options = {}) {
      return new Promise((resolve, reject) => {
        const env: NodeJS.ProcessEnv = {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          // The default content cache is this run's own (a test that shares one names LAB_DATA_CACHE), never the user's.
          XDG_CACHE_HOME: mkdtempSync(path.join(scratch, 'cache-')),
          ...options.env,
        };
        const child = spawn(bin, [...args], {
          cwd: options.cwd ?? scratch,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.once('error', reject);
        child.once('close', (code, signal) => {
          transcript.push(stdout, stderr);
          resolve({ code, signal, stdout, stderr });
        });
        // A test that times out must not leave it running against the next test's servers.
        endWithItsTest(child);
        options.started?.(child);
      });
    },
    remove() {
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
