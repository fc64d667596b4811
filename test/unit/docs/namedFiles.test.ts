import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The repository: this file runs from out/test/unit/docs/. */
const root = path.resolve(__dirname, '..', '..', '..', '..');

/** Where the code and its tests live; a bare file name must be found below one of them. */
const SOURCE_ROOTS = ['src', 'core', 'cli', 'webviews', 'test', 'scripts'];

/**
 * Where a path in backticks is read from: the repository, or a part of it the text is about
 * (ARCHITECTURE names `commands/signIn.ts` under `src/`, `commands/pull.ts` under `cli/src/`, and
 * test files from `test/unit/core/`).
 */
const BASES = ['', 'src', 'core', 'cli', 'cli/src', 'test', 'test/unit', 'test/unit/core'];

/** Folders that are made, not written: built, installed, cached or a person's own files. */
const MADE =
  /(^|\/)(dist|out|node_modules|test-results|\.cache|\.vscode-test|lab-reports|lab-exports)\//;

/** Every file name below the source roots, to find a bare name such as `lockfile.ts`. */
function fileNames(folder: string, found = new Set<string>()): Set<string> {
  for (const entry of readdirSync(path.join(root, folder), { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'dist') {
      fileNames(path.join(folder, entry.name), found);
    } else if (entry.isFile()) {
      found.add(entry.name);
    }
  }
  return found;
}

/** Every class and interface declared in the sources, with the text of its file. */
function declarations(): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(path.join(root, folder), { withFileTypes: true })) {
      const relative = path.join(folder, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'dist') {
        walk(relative);
      } else if (entry.isFile() && entry.name.endsWith('.ts')) {
        const text = readFileSync(path.join(root, relative), 'utf8');
        for (const match of text.matchAll(/\b(?:class|interface)\s+([A-Z]\w*)/g)) {
          found.set(match[1]!, `${found.get(match[1]!) ?? ''}\n${text}`);
        }
      }
    }
  };
  for (const folder of ['src', 'core', 'cli/src']) {
    walk(folder);
  }
  return found;
}

/** The developer documents and the user pages, whose backticked names must exist. */
function documents(): string[] {
  return [
    'ARCHITECTURE.md',
    'CONTRIBUTING.md',
    ...readdirSync(path.join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
}

/** The text of every `code span` outside fenced blocks, with its line. */
function codeSpans(document: string): Array<{ readonly line: number; readonly text: string }> {
  const spans: Array<{ line: number; text: string }> = [];
  let fenced = false;
  readFileSync(path.join(root, document), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return;
      }
      if (!fenced) {
        for (const match of line.matchAll(/`([^`\n]+)`/g)) {
          spans.push({ line: index + 1, text: match[1]! });
        }
      }
    });
  return spans;
}

const TOP = new Set(readdirSync(root));
const SOURCE_FILE = /\.(ts|mts|mjs|cjs|js|py)$/;

/** Whether a code span names a file or folder of this repository (rather than a user's, a URL or a command). */
function looksLikeRepositoryPath(text: string): boolean {
  if (
    !/^[\w@-][\w.@-]*(\/[\w.@-]+)*\/?$/.test(text) ||
    MADE.test(text) ||
    text.startsWith('.lab-data')
  ) {
    return false;
  }
  const first = text.split('/')[0]!;
  return (
    (text.includes('/') && (TOP.has(first) || SOURCE_FILE.test(text))) ||
    (!text.includes('/') && SOURCE_FILE.test(text))
  );
}

describe('the files and functions the documents name', () => {
  const names = SOURCE_ROOTS.reduce(
    (all, folder) => fileNames(folder, all),
    new Set<string>(readdirSync(root)),
  );

  it('every repository path in backticks exists (ARCHITECTURE.md, CONTRIBUTING.md, docs/)', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const document of documents()) {
      for (const { line, text } of codeSpans(document)) {
        if (!looksLikeRepositoryPath(text)) {
          continue;
        }
        checked++;
        const found = text.includes('/')
          ? BASES.some((base) => existsSync(path.join(root, base, text)))
          : names.has(text);
        if (!found) {
          missing.push(`${document}:${line}: ${text}`);
        }
      }
    }
    console.log(`      ${checked} paths checked`);
    assert.ok(checked >= 150, `${checked} paths checked`);
    assert.deepEqual(missing, []);
  });

  it('every Class.method in backticks names a class of the sources and a member it has', () => {
    const declared = declarations();
    const missing: string[] = [];
    let checked = 0;
    for (const document of documents()) {
      for (const { line, text } of codeSpans(document)) {
        const match = /^([A-Z][A-Za-z]+)\.([a-z]\w*)(\(\))?$/.exec(text);
        if (!match || !declared.has(match[1]!)) {
          continue;
        }
        checked++;
        const member = new RegExp(`\\b(?:get |async |static )?${match[2]}\\s*[(<:=?]`);
        if (!member.test(declared.get(match[1]!)!)) {
          missing.push(`${document}:${line}: ${text}`);
        }
      }
    }
    console.log(`      ${checked} members checked`);
    assert.ok(checked >= 5, `${checked} members checked`);
    assert.deepEqual(missing, []);
  });
});
