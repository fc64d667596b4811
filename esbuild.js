// Bundles the extension into dist/extension.js, in the shape of vscode-extension-samples/esbuild-sample,
// and the browser code (the PDF viewer, the overview, the notebooks' report card renderer) into
// dist/webview/, next to the pdf.js module and worker copied from pdfjs-dist into dist/pdfjs/ with
// its viewer components (never loaded by activate()).
// `--production` minifies and drops source maps; `--watch` rebuilds on change. Type checking is
// separate (`npm run check-types`).
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

/** The pdf.js files the webview loads: the module and its worker (no fonts, cmaps or wasm; see docs/reading-reports.md). */
const PDFJS_FILES = ['build/pdf.min.mjs', 'build/pdf.worker.min.mjs', 'LICENSE'];

/** Chart.js as one browser script (the overview webview loads it with a nonce). */
const CHARTJS_FILES = ['dist/chart.umd.min.js', 'LICENSE.md'];

function copy(pkg, files, folder) {
  // node_modules directly: some packages do not export their package.json.
  const from = path.join(__dirname, 'node_modules', pkg);
  const to = path.join(__dirname, 'dist', folder);
  fs.mkdirSync(to, { recursive: true });
  for (const file of files) {
    fs.copyFileSync(path.join(from, file), path.join(to, path.basename(file)));
  }
}

function copyWebviewLibraries() {
  copy('pdfjs-dist', PDFJS_FILES, 'pdfjs');
  copy('chart.js', CHARTJS_FILES, 'chartjs');
}

/**
 * pdf.js's viewer components (PDFViewer, the find controller), next to pdf.js: the package ships them
 * unminified, and they read pdf.js from `globalThis.pdfjsLib`, so the webview imports them after it.
 */
function buildPdfjsViewer() {
  return esbuild.build({
    entryPoints: [path.join(__dirname, 'node_modules', 'pdfjs-dist', 'web', 'pdf_viewer.mjs')],
    outfile: path.join(__dirname, 'dist', 'pdfjs', 'pdf_viewer.mjs'),
    format: 'esm',
    minify: production,
    platform: 'browser',
    target: 'chrome120',
    logLevel: 'silent',
  });
}

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** Prints errors in the form VS Code's `$esbuild-watch` problem matcher understands. */
const problemMatcherPlugin = {
  name: 'esbuild-problem-matcher',
  setup(build) {
    build.onStart(() => {
      console.log('[watch] build started');
    });
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) {
          console.error(`    ${location.file}:${location.line}:${location.column}:`);
        }
      }
      console.log('[watch] build finished');
    });
  },
};

async function main() {
  const context = await esbuild.context({
    entryPoints: ['src/extension.ts'],
    bundle: true,
    format: 'cjs',
    minify: production,
    sourcemap: !production,
    sourcesContent: false,
    platform: 'node',
    target: 'node20',
    outfile: 'dist/extension.js',
    external: ['vscode'],
    logLevel: 'silent',
    plugins: [problemMatcherPlugin],
  });
  const viewer = await esbuild.context({
    entryPoints: ['webviews/pdfViewer.ts', 'webviews/overview.ts', 'webviews/reportCard.ts'],
    bundle: true,
    format: 'esm',
    minify: production,
    sourcemap: !production,
    sourcesContent: false,
    platform: 'browser',
    target: 'chrome120',
    outdir: 'dist/webview',
    logLevel: 'silent',
    plugins: [problemMatcherPlugin],
  });
  copyWebviewLibraries();
  await buildPdfjsViewer();
  if (watch) {
    await Promise.all([context.watch(), viewer.watch()]);
  } else {
    await Promise.all([context.rebuild(), viewer.rebuild()]);
    await Promise.all([context.dispose(), viewer.dispose()]);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
