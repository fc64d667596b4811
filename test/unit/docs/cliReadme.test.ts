import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { COMMANDS, commandHelp } from '../../../cli/src/commandLine';
import { Exit, PRECEDENCE, worst } from '../../../cli/src/exitCodes';

/** The repository: this file runs from out/test/unit/docs/. */
const root = path.resolve(__dirname, '..', '..', '..', '..');

describe("the tool's README (cli/README.md, shipped in the package)", () => {
  const readme = readFileSync(path.join(root, 'cli', 'README.md'), 'utf8');
  const help = commandHelp('pull');

  it('covers every command, cache prune and pull --dry-run', () => {
    for (const command of [...Object.keys(COMMANDS), 'cache prune']) {
      assert.ok(readme.includes(`lab-data ${command}`), `names lab-data ${command}`);
    }
    assert.match(readme, /lab-data pull[^]*?`--dry-run`/);
  });

  it('covers every variable the help names', () => {
    const environment = help.slice(help.indexOf('Environment:'), help.indexOf('Output:'));
    const variables = [...environment.matchAll(/\b(?:[A-Z][A-Z0-9]*_)+[A-Z0-9<>]+\b|<LAB>|<NAME>/g)]
      .map((match) => match[0])
      .filter(
        (name) =>
          name !== '<LAB>' && name !== '<NAME>' && !/_\d/.test(name) && !name.endsWith('_LAB'),
      );
    for (const variable of [
      'LAB_DATA_TOKEN',
      'LAB_DATA_TOKEN_<NAME>',
      'LAB_DATA_URL',
      'LAB_DATA_URL_<NAME>',
      'LAB_DATA_CACHE',
      'LAB_DATA_ANSWER_TIMEOUT',
      'HTTPS_PROXY',
      'NO_PROXY',
      'NODE_EXTRA_CA_CERTS',
      ...variables,
    ]) {
      assert.ok(readme.includes(variable), `names ${variable}`);
    }
  });

  it('says the precedence of exit statuses the tool applies, as --help does', () => {
    assert.deepEqual(PRECEDENCE, [Exit.usage, Exit.auth, Exit.network, Exit.mismatch, Exit.ok]);
    assert.equal(worst([Exit.mismatch, Exit.network, Exit.auth]), Exit.auth);
    assert.equal(worst([Exit.ok, Exit.mismatch]), Exit.mismatch);
    const order = PRECEDENCE.filter((code) => code !== Exit.ok).join(', ');
    assert.match(help.replace(/\s+/g, ' '), new RegExp(`the first of ${order} that applies`));
    assert.match(readme.replace(/\s+/g, ' '), new RegExp(`the first that applies of ${order}`));
  });
});
