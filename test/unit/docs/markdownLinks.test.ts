import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/** The repository: this file runs from out/test/unit/docs/. */
const root = path.resolve(__dirname, '..', '..', '..', '..');

/** Folders that hold no documentation of ours: installed, generated, cached or built. */
const NOT_OURS = new Set([
  '.git',
  '.cache',
  '.vscode-test',
  'node_modules',
  'out',
  'dist',
  'test-results',
]);

/** Every Markdown file of the repository's own, as repository-relative paths with `/`. */
function markdownFiles(folder = root): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory() && !NOT_OURS.has(entry.name)) {
      found.push(...markdownFiles(full));
    } else if (entry.isFile() && entry.name.endsWith('.md')) {
      found.push(path.relative(root, full).split(path.sep).join('/'));
    }
  }
  return found.sort();
}

/** The lines of `text` outside fenced code blocks, each with its line number (from 1). */
function proseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && opening) {
      fence = opening[1];
    } else if (fence !== undefined) {
      if (line.trim().startsWith(fence[0]!.repeat(fence.length)) && /^\s*[`~]+\s*$/.test(line)) {
        fence = undefined;
      }
    } else {
      lines.push({ line: index + 1, text: line });
    }
  });
  return lines;
}

/** A line without its code spans (a link's syntax inside backticks is text, not a link). */
function withoutCode(line: string): string {
  return line.replace(/(`+).*?\1/g, '');
}

/** Text as GitHub renders it in a heading: links, images, tags, code and emphasis marks removed. */
function headingText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .replace(/(^|[^\p{L}\p{N}])[*_]{1,3}(?=\S)|(?<=\S)[*_]{1,3}(?=[^\p{L}\p{N}]|$)/gu, '$1')
    .trim();
}

/** GitHub's anchor for a heading (github-slugger): lower case, punctuation dropped, spaces as `-`. */
function githubSlug(heading: string): string {
  return headingText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown text offers: one per heading, repeats numbered `-1`, `-2` as GitHub does. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!heading) {
      continue;
    }
    const slug = githubSlug(heading[1]!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

interface Link {
  readonly line: number;
  readonly target: string;
}

/** The link targets of a Markdown text: inline links and images, and reference definitions. */
function linksOf(text: string): Link[] {
  const links: Link[] = [];
  for (const { line, text: raw } of proseLines(text)) {
    const prose = withoutCode(raw);
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(prose);
    if (definition) {
      links.push({ line, target: definition[1]! });
      continue;
    }
    for (const match of prose.matchAll(
      /\]\(\s*(?:<([^>]*)>|([^)\s]*))(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g,
    )) {
      links.push({ line, target: match[1] ?? match[2]! });
    }
  }
  return links;
}

/** What is wrong with `link` of the file `file` (repository-relative), or undefined. */
function brokenLink(file: string, link: string, repository = root): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
    return undefined; // https:, mailto:, vscode: … leave the repository
  }
  const hash = link.indexOf('#');
  const linkPath = decodeURIComponent(hash === -1 ? link : link.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(link.slice(hash + 1));
  const from = path.join(repository, file);
  const target =
    linkPath === ''
      ? from
      : linkPath.startsWith('/')
        ? path.join(repository, linkPath)
        : path.resolve(path.dirname(from), linkPath);
  if (path.relative(repository, target).startsWith('..')) {
    return `${link} leaves the repository`;
  }
  if (!existsSync(target)) {
    return `${link}: no such file ${path.relative(repository, target)}`;
  }
  if (anchor === undefined || !target.endsWith('.md') || !statSync(target).isFile()) {
    return undefined;
  }
  const anchors = anchorsOf(readFileSync(target, 'utf8'));
  return anchors.has(anchor)
    ? undefined
    : `${link}: no heading of ${path.relative(repository, target)} has the anchor #${anchor}`;
}

describe('Markdown links of the repository', () => {
  const files = markdownFiles();

  it('finds our own Markdown files and none of node_modules, .cache, out or dist', () => {
    for (const expected of [
      'README.md',
      'CONTRIBUTING.md',
      'ARCHITECTURE.md',
      'CHANGELOG.md',
      'cli/README.md',
      'docs/README.md',
      'docs/commands-and-settings.md',
      'media/walkthrough/signIn.md',
    ]) {
      assert.ok(files.includes(expected), `${expected} is checked`);
    }
    assert.ok(
      files.every((file) => !/(^|\/)(node_modules|\.cache|out|dist)\//.test(file)),
      files.join(', '),
    );
  });

  it('every relative link names a file that exists, and every #anchor a heading of it', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const { line, target } of linksOf(readFileSync(path.join(root, file), 'utf8'))) {
        checked++;
        const problem = brokenLink(file, target);
        if (problem) {
          problems.push(`${file}:${line}: ${problem}`);
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(checked >= 40, `checked ${checked} links`);
  });
});

describe('githubSlug and anchorsOf (GitHub heading anchors)', () => {
  it('lower-cases, drops punctuation and code marks, and turns spaces into hyphens', () => {
    assert.equal(
      githubSlug('Reports in git and CI: the `lab-data` command'),
      'reports-in-git-and-ci-the-lab-data-command',
    );
    assert.equal(githubSlug("How the API's gaps are settled"), 'how-the-apis-gaps-are-settled');
    assert.equal(
      githubSlug('What is new, saved searches, and chat'),
      'what-is-new-saved-searches-and-chat',
    );
    assert.equal(githubSlug('Token → header — **now**'), 'token--header--now');
    assert.equal(githubSlug('`snake_case` and [a link](x.md)'), 'snake_case-and-a-link');
  });

  it('numbers repeated headings and ignores headings inside code blocks', () => {
    const anchors = anchorsOf('# Setup\n\n## Setup\n\n```sh\n# not a heading\n```\n');
    assert.deepEqual([...anchors], ['setup', 'setup-1']);
  });
});

describe('linksOf and brokenLink', () => {
  it('finds inline links, images and reference definitions, not links inside code', () => {
    const text = [
      'See [the guide](docs/guide.md#set-up "Set-up") and ![a picture](media/a.png).',
      '`[not a link](nowhere.md)` and',
      '```md',
      '[not a link either](nowhere.md)',
      '```',
      '[ref]: CONTRIBUTING.md',
    ].join('\n');
    assert.deepEqual(
      linksOf(text).map((link) => link.target),
      ['docs/guide.md#set-up', 'media/a.png', 'CONTRIBUTING.md'],
    );
  });

  it('reports a missing file, a missing anchor and a way out of the repository', () => {
    assert.match(brokenLink('README.md', 'docs/no-such-page.md')!, /no such file/);
    assert.match(brokenLink('README.md', '#no-such-heading')!, /no heading of README\.md/);
    assert.match(brokenLink('docs/README.md', '../../elsewhere.md')!, /leaves the repository/);
    assert.equal(brokenLink('README.md', 'CONTRIBUTING.md#the-mock-lab'), undefined);
    assert.equal(brokenLink('README.md', 'https://example.com/#anything'), undefined);
  });
});
