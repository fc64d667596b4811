import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';

/** Debian's Python, which has python3-djangorestframework (installed by scripts/bootstrap.mjs). */
const PYTHON = '/usr/bin/python3';
const SERVE = path.join(__dirname, '..', '..', '..', 'test', 'drf', 'serve.py');

export interface DrfLab {
  readonly baseUrl: string;
  readonly token: string;
  stop(): Promise<void>;
}

export interface DrfLabOptions {
  readonly reports?: number;
  /** DRF's user rate, e.g. `10/s`. */
  readonly throttle?: string;
  readonly pageSize?: number;
  /** Pad every PDF to about this many bytes. */
  readonly pdfBytes?: number;
}

/**
 * Starts the Django REST Framework test lab (test/drf/serve.py) on 127.0.0.1 with a fresh SQLite
 * database; `stop()` ends it (by closing its stdin, then by its process id) and removes the database.
 */
export async function startDrfLab(options: DrfLabOptions = {}): Promise<DrfLab> {
  if (!existsSync(PYTHON)) {
    throw new Error(
      `${PYTHON} is missing: the Django REST Framework lab needs Debian's python3-djangorestframework (npm test installs it)`,
    );
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lab-drf-'));
  const args = [
    SERVE,
    '--db',
    path.join(dir, 'lab.sqlite3'),
    '--reports',
    String(options.reports ?? 137),
  ];
  if (options.throttle) {
    args.push('--throttle', options.throttle);
  }
  if (options.pdfBytes) {
    args.push('--pdf-bytes', String(options.pdfBytes));
  }
  if (options.pageSize) {
    args.push('--page-size', String(options.pageSize));
  }
  const child: ChildProcess = spawn(PYTHON, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(
      () => reject(new Error(`the DRF lab did not start in 60 s: ${stderr}`)),
      60_000,
    );
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the DRF lab exited (${code}): ${stderr}`));
    });
  });
  const { port, token } = JSON.parse(first) as { port: number; token: string };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    token,
    async stop() {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill(), 3000);
      await exited;
      clearTimeout(timer);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
