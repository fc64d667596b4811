#!/usr/bin/env node
// Bundles the command-line tool into one file, dist/lab-data.js, from cli/src and the same core
// the extension uses (core/), with undici inside: the package needs Node alone, and no vscode.
// `--production` minifies. Uses the esbuild of the repository (a development dependency); on a
// fresh clone, where the repository's packages are not installed yet, it installs them first
// (scripts/bootstrap.mjs), so `(cd cli && npm pack)` works as the README says.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const resolvable = (name) => {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
};
// What the bundle is made with (esbuild) and of (undici); only a missing one installs anything.
if (!resolvable('esbuild') || !resolvable('undici')) {
  const { ensureNodeModules } = await import('../scripts/bootstrap.mjs');
  ensureNodeModules();
}
const { build } = await import('esbuild');
const { version } = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const production = process.argv.includes('--production');

await build({
  entryPoints: [join(here, 'src', 'main.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: join(here, 'dist', 'lab-data.js'),
  banner: { js: '#!/usr/bin/env node' },
  define: { LAB_DATA_CLI_VERSION: JSON.stringify(version) },
  minify: production,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  // The core never imports vscode; if anything ever tried, the build fails here.
  external: [],
});
