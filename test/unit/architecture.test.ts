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
        assert.ok(specifier.startsWith('.') || specifier.startsWith('node:') || specifier === 'undici', `${path.relative(root, file)} imports ${specifier}; the core may use only Node and undici`);
      }
    }
  });

  it('has one runtime dependency, undici, and pins the VS Code API to 1.100', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; engines: Record<string, string>; main: string };
    assert.deepEqual(Object.keys(pkg.dependencies), ['undici']);
    assert.equal(pkg.engines.vscode, '^1.100.0');
    assert.equal(pkg.devDependencies['@types/vscode'], '~1.100.0');
    assert.equal(pkg.main, './dist/extension.js');
  });
});
