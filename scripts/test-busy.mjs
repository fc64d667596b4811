#!/usr/bin/env node
// `npm run test:busy`: `npm test` on a busy machine. Starts two CPU-bound processes (a core each on
// a two-core machine), runs `node scripts/test.mjs` with the same arguments and environment beside
// them, stops exactly the processes it started (also on Ctrl+C, a termination or a failure), prints
// the elapsed time and exits with test.mjs's status. A test that reads the clock too exactly (a
// verdict's duration, a count per interval) fails here before it fails someone else's run.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const BURNERS = 2;

/** A process that keeps one core busy until it is stopped. */
function burner() {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  child.on('error', (error) => process.stderr.write(`[test:busy] a burner: ${error.message}\n`));
  return child;
}

const burners = Array.from({ length: BURNERS }, burner);
process.stderr.write(
  `[test:busy] ${BURNERS} CPU-bound processes beside the tests: ${burners.map((child) => child.pid).join(', ')}\n`,
);

/** Stops the burners this script started, and only those (by their process ids). */
function stopBurners() {
  for (const child of burners) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
  }
}

const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

const tests = spawn(
  process.execPath,
  [join(root, 'scripts', 'test.mjs'), ...process.argv.slice(2)],
  {
    cwd: process.cwd(),
    env: process.env,
    stdio: 'inherit',
  },
);

// Ctrl+C reaches test.mjs too (the same process group); this script waits for it to end, and the
// burners are stopped at once. A termination sent to this script alone is passed on.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stopBurners();
    if (tests.exitCode === null && tests.signalCode === null) {
      tests.kill(signal);
    }
  });
}
process.on('exit', stopBurners);

tests.on('error', (error) => {
  stopBurners();
  process.stderr.write(`[test:busy] could not run scripts/test.mjs: ${error.message}\n`);
  process.exit(1);
});

tests.on('close', (code, signal) => {
  stopBurners();
  const status = code ?? (signal ? 128 + (signalNumber(signal) ?? 1) : 1);
  process.stderr.write(
    `[test:busy] scripts/test.mjs ${status === 0 ? 'passed' : `failed (exit ${code ?? signal})`} beside ${BURNERS} CPU-bound processes in ${elapsed()}\n`,
  );
  process.exit(status);
});

/** The number of a signal by name (for the shell's 128 + n exit status). */
function signalNumber(name) {
  return { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[name];
}
