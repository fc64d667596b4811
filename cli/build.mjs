#!/usr/bin/env node
// Bundles the command-line tool into one file, dist/lab-data.js, from cli/src and the same core
// the extension uses (core/), with undici inside: the package needs Node alone, and no vscode.
// `--production` minifies. Uses the esbuild of the repository (a development dependency).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
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
