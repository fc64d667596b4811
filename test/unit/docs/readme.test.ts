import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The repository: this file runs from out/test/unit/docs/. */
const root = path.resolve(__dirname, '..', '..', '..', '..');

describe('README', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

  it('gives the two commands, npm run demo and npm test, as its first commands on its first screen', () => {
    const lines = readme.split('\n');
    const opening = lines.findIndex((line) => line.startsWith('```'));
    assert.ok(opening >= 0 && opening < 30, `the first code block starts on line ${opening + 1}`);
    const closing = lines.findIndex((line, index) => index > opening && line.startsWith('```'));
    const commands = lines
      .slice(opening + 1, closing)
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((command) => command !== '');
    assert.deepEqual(commands, ['npm run demo', 'npm test']);
  });

  it('stays a short page for a newcomer, the reference beside it', () => {
    const lines = readme.split('\n').length;
    assert.ok(lines <= 120, `README.md has ${lines} lines`);
    for (const page of ['docs/README.md', 'CONTRIBUTING.md', 'cli/README.md']) {
      assert.ok(readme.includes(`](${page}`), `README links to ${page}`);
    }
  });

  it("names the demo's port variables and the mock lab's --seed, each one the scripts really read", () => {
    const demo = readFileSync(path.join(root, 'scripts', 'demo.mjs'), 'utf8');
    for (const variable of ['LABDATA_DEMO_LAB_PORT', 'LABDATA_DEMO_PORT', 'LABDATA_DEMO_WEB']) {
      assert.ok(readme.includes(`\`${variable}`), `README names ${variable}`);
      assert.ok(demo.includes(`process.env.${variable}`), `scripts/demo.mjs reads ${variable}`);
    }
    assert.match(readme, /npm run mock-server -- --seed N/);
    const mockCli = readFileSync(path.join(root, 'test', 'mock', 'cli.ts'), 'utf8');
    assert.match(mockCli, /seed: numeric\('seed'\)/, 'the mock lab reads --seed');
    const contributing = readFileSync(path.join(root, 'CONTRIBUTING.md'), 'utf8');
    assert.match(contributing, /--seed N/, 'CONTRIBUTING.md says more');
  });
});
