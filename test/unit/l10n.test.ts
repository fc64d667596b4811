import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { MESSAGES } from '../../core/errors/messages';

const root = path.resolve(__dirname, '..', '..', '..');

/**
 * Every `vscode.l10n.t('…')` message in the VS Code layer, plus the core's message catalogue
 * (phrased through `vscode.l10n` by the VS Code layer), as translators see them.
 */
function messagesInSource(): Set<string> {
  const found = new Set<string>(Object.values(MESSAGES));
  const pattern = /vscode\.l10n\.t\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g;
  for (const name of readdirSync(path.join(root, 'src'), {
    recursive: true,
    encoding: 'utf8',
  }).filter((n) => n.endsWith('.ts'))) {
    for (const match of readFileSync(path.join(root, 'src', name), 'utf8').matchAll(pattern)) {
      found.add((match[1] ?? match[2]!).replace(/\\(['"])/g, '$1'));
    }
  }
  return found;
}

describe('localisation', () => {
  it('core errors carry a catalogue message that the VS Code layer phrases (no sentence outside the catalogue)', () => {
    const names = readdirSync(path.join(root, 'core'), {
      recursive: true,
      encoding: 'utf8',
    }).filter((n) => n.endsWith('.ts'));
    assert.ok(names.length >= 30, 'found the core sources in their folders');
    for (const name of names) {
      const text = readFileSync(path.join(root, 'core', name), 'utf8');
      const raw = [...text.matchAll(/new LabApiError\(\s*'\w+',\s*(['`"])/g)];
      assert.deepEqual(
        raw.map((m) => m.index),
        [],
        `${name} builds a LabApiError from a literal sentence; use labError() and the catalogue`,
      );
    }
    const phrase = readFileSync(path.join(root, 'src', 'ui', 'phrase.ts'), 'utf8');
    assert.match(phrase, /vscode\.l10n\.t\(\s*MESSAGES\[/);
  });

  it('l10n/bundle.l10n.json holds exactly the messages the code asks for', () => {
    const bundle = JSON.parse(
      readFileSync(path.join(root, 'l10n', 'bundle.l10n.json'), 'utf8'),
    ) as Record<string, string>;
    assert.deepEqual(Object.keys(bundle).sort(), [...messagesInSource()].sort());
  });

  it('every %key% in package.json has a string in package.nls.json, and none is unused', () => {
    const manifest = readFileSync(path.join(root, 'package.json'), 'utf8');
    const nls = JSON.parse(readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<
      string,
      string
    >;
    const keys = new Set([...manifest.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]!));
    assert.deepEqual([...keys].sort(), Object.keys(nls).sort());
  });
});
