import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');

/** Every `vscode.l10n.t('…')` message in the VS Code layer, as translators see it. */
function messagesInSource(): Set<string> {
  const found = new Set<string>();
  const pattern = /vscode\.l10n\.t\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g;
  for (const name of readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.ts'))) {
    for (const match of readFileSync(path.join(root, 'src', name), 'utf8').matchAll(pattern)) {
      found.add((match[1] ?? match[2]!).replace(/\\(['"])/g, '$1'));
    }
  }
  return found;
}

describe('localisation', () => {
  it('l10n/bundle.l10n.json holds exactly the messages the code asks for', () => {
    const bundle = JSON.parse(readFileSync(path.join(root, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.keys(bundle).sort(), [...messagesInSource()].sort());
  });

  it('every %key% in package.json has a string in package.nls.json, and none is unused', () => {
    const manifest = readFileSync(path.join(root, 'package.json'), 'utf8');
    const nls = JSON.parse(readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
    const keys = new Set([...manifest.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]!));
    assert.deepEqual([...keys].sort(), Object.keys(nls).sort());
  });
});
