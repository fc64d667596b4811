#!/usr/bin/env node
// `npm run cli -- <args>`: runs the lab-data command-line tool from a clone. Installs the npm
// packages when missing (esbuild bundles it), builds cli/dist/lab-data.js, then runs it with the
// arguments, passing on its exit status.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNodeModules } from './bootstrap.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
ensureNodeModules();
const built = spawnSync(process.execPath, [join(root, 'cli', 'build.mjs')], { stdio: 'inherit' });
if (built.status !== 0) {
  process.exit(built.status ?? 1);
}
// npm runs scripts in the clone; INIT_CWD is where the command was typed, so a relative folder
// (`npm run cli -- verify reports`) means the one there, as with the installed `lab-data`.
const run = spawnSync(
  process.execPath,
  [join(root, 'cli', 'dist', 'lab-data.js'), ...process.argv.slice(2)],
  { stdio: 'inherit', cwd: process.env.INIT_CWD || process.cwd() },
);
process.exit(run.status ?? 1);
