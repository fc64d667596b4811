import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(folder, name));
}

describe('architecture', () => {
  it('src/core never imports vscode, nor anything outside src/core', () => {
    const files = sourceFiles(path.join(root, 'src', 'core'));
    assert.ok(files.length >= 8, 'found the core sources');
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const imports = [...text.matchAll(/(?:import|export)\s[^;]*?from\s+'([^']+)'|require\('([^']+)'\)|import\('([^']+)'\)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
      for (const specifier of imports) {
        assert.notEqual(specifier, 'vscode', `${path.relative(root, file)} imports vscode`);
        assert.ok(!specifier.startsWith('..'), `${path.relative(root, file)} imports ${specifier} from outside src/core`);
        assert.ok(specifier.startsWith('.') || specifier.startsWith('node:') || specifier === 'undici' || /^undici\/lib\/(dispatcher|api|core)\/[a-z-]+\.js$/.test(specifier), `${path.relative(root, file)} imports ${specifier}; the core may use only Node and undici`);
      }
    }
  });

  it('only webviews load pdf.js and Chart.js: no extension-host source imports them', () => {
    const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : []));
    const importers = walk(path.join(root, 'src')).filter((file) => /from 'pdfjs-dist|import\('pdfjs-dist/.test(readFileSync(file, 'utf8')));
    assert.deepEqual(importers.map((file) => path.relative(root, file)), ['src/webview/pdfViewer.ts']);
    const chartUsers = walk(path.join(root, 'src')).filter((file) => /from 'chart\.js/.test(readFileSync(file, 'utf8')));
    assert.ok(chartUsers.every((file) => file.includes(`${path.sep}webview${path.sep}`)), `only webview code names Chart.js: ${chartUsers.join(', ')}`);
    assert.match(readFileSync(path.join(root, 'src/webview/pdfViewer.ts'), 'utf8'), /^import type .* from 'pdfjs-dist';$/m, 'the viewer imports only its types; the module comes from the extension at run time');
  });

  it('has three runtime dependencies, undici, pdf.js (pinned to a build Chromium 132 runs) and Chart.js (both loaded only by webviews), and pins the VS Code API to 1.100', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; engines: Record<string, string>; main: string };
    assert.deepEqual(Object.keys(pkg.dependencies).sort(), ['chart.js', 'pdfjs-dist', 'undici']);
    assert.equal(pkg.dependencies['chart.js'], '4.5.1');
    // 5.4.624 and later call Uint8Array#toHex() unguarded, which desktop VS Code 1.100's Chromium 132 lacks.
    assert.equal(pkg.dependencies['pdfjs-dist'], '5.4.530');
    assert.equal(pkg.engines.vscode, '^1.100.0');
    assert.equal(pkg.devDependencies['@types/vscode'], '~1.100.0');
    assert.equal(pkg.main, './dist/extension.js');
  });
});
