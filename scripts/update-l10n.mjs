#!/usr/bin/env node
// Rewrites l10n/bundle.l10n.json from the sources: every `vscode.l10n.t('…')` literal in src/ plus
// the core's message catalogue (core/errors/messages.ts, compiled to out/). The unit test
// test/unit/l10n.test.ts checks that the bundle and the sources agree.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { MESSAGES } = createRequire(import.meta.url)(
  join(root, 'out', 'core', 'errors', 'messages.js'),
);
const found = new Set(Object.values(MESSAGES));
const pattern = /vscode\.l10n\.t\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g;
for (const name of readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter(
  (n) => n.endsWith('.ts'),
)) {
  for (const match of readFileSync(join(root, 'src', name), 'utf8').matchAll(pattern)) {
    found.add((match[1] ?? match[2]).replace(/\\(['"])/g, '$1'));
  }
}
const bundle = Object.fromEntries([...found].sort().map((message) => [message, message]));
writeFileSync(join(root, 'l10n', 'bundle.l10n.json'), `${JSON.stringify(bundle, null, 2)}\n`);
console.log(`l10n/bundle.l10n.json: ${found.size} messages`);
