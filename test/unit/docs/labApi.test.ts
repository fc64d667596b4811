import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The repository: this file runs from out/test/unit/docs/. */
const root = path.resolve(__dirname, '..', '..', '..', '..');

/** The repository's own files (tracked, and new ones git does not ignore), as relative paths. */
function repositoryFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\n')
    .filter((file) => file && existsSync(path.join(root, file)));
}

/** Text files worth reading for a pointer out of the repository (not the lockfile, not binaries). */
function textFiles(): string[] {
  return repositoryFiles().filter(
    (file) =>
      /\.(ts|mts|js|mjs|cjs|json|md|py|sh|css|html|yml|yaml)$|^\.ci\//.test(file) &&
      file !== 'package-lock.json',
  );
}

/**
 * Ways a file can send a reader outside the repository for the API: the provider's specification
 * by name, or the shared folders it and the project's notes live in. Built from parts, so this
 * file does not match itself.
 */
const OUTSIDE = [
  new RegExp(['shared', '(spec|docs)', ''].join('\\/')),
  new RegExp(['lab-data-api', 'md'].join('\\.')),
  new RegExp(['\\.\\.', 'shared'].join('\\/')),
  new RegExp(['', 'work', 'shared'].join('\\/')),
];

/** Every test a document cites as `path/to/file.test.ts` › "its title". */
export function citedTests(text: string): Array<{ readonly file: string; readonly title: string }> {
  const flat = text.replace(/\s+/g, ' ');
  return [...flat.matchAll(/`(test\/[^`\s]+\.test\.ts)` › "([^"]+)"/g)].map((match) => ({
    file: match[1]!,
    title: match[2]!,
  }));
}

/** A test file's text with its titles' quote escapes undone and its lines joined as prettier may break them. */
function testSource(file: string): string {
  return readFileSync(path.join(root, file), 'utf8')
    .replace(/\\(['"`])/g, '$1')
    .replace(/\s+/g, ' ');
}

describe('docs/lab-api.md, the API written down in the repository', () => {
  const document = readFileSync(path.join(root, 'docs', 'lab-api.md'), 'utf8');

  it('no file of the repository points outside it for the API or the project notes', () => {
    const pointers = textFiles().flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          OUTSIDE.some((pattern) => pattern.test(line))
            ? [`${file}:${index + 1}: ${line.trim().slice(0, 120)}`]
            : [],
        ),
    );
    assert.deepEqual(pointers, []);
  });

  it('CONTRIBUTING.md, ARCHITECTURE.md and the documentation index link to it', () => {
    for (const [file, link] of [
      ['CONTRIBUTING.md', '(docs/lab-api.md)'],
      ['ARCHITECTURE.md', '(docs/lab-api.md)'],
      [path.join('docs', 'README.md'), '(lab-api.md)'],
    ] as const) {
      assert.ok(readFileSync(path.join(root, file), 'utf8').includes(link), `${file} links to it`);
    }
  });

  it('every test it cites exists, under the title it gives', () => {
    const cited = citedTests(document);
    assert.ok(cited.length >= 30, `${cited.length} tests cited`);
    const missing = cited.filter(
      ({ file, title }) =>
        !existsSync(path.join(root, file)) ||
        !testSource(file).includes(title.replace(/\s+/g, ' ')),
    );
    assert.deepEqual(missing, []);
  });

  it('says how every gap it lists was settled and where that is tested', () => {
    const gaps = document.slice(document.indexOf('## Gaps in the provider'));
    const items = gaps.split('\n- ').slice(1);
    assert.ok(items.length >= 15, `${items.length} gaps`);
    for (const item of items) {
      assert.match(item, /Tested:\s/, item.slice(0, 80));
      assert.ok(citedTests(item).length > 0, item.slice(0, 80));
    }
  });
});
