import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * VS Code's pseudo-locale `qps-ploc`, made at test time from the English strings: every Lab Data
 * string lengthened (vowels doubled, as VS Code's own pseudo-localisation does: about a third longer,
 * like German or French) and marked (accented letters, in brackets), so a UI test can tell a string
 * that went through `vscode.l10n` or `package.nls` from one that slipped past in English, and see
 * whether longer languages fit. Nothing generated here is committed (.gitignore).
 */

export const PSEUDO_LOCALE = 'qps-ploc';

const ACCENTED: Readonly<Record<string, string>> = Object.fromEntries(
  [
    ['a', 'ȧ'],
    ['b', 'ƀ'],
    ['c', 'ƈ'],
    ['d', 'ḓ'],
    ['e', 'ḗ'],
    ['f', 'ƒ'],
    ['g', 'ɠ'],
    ['h', 'ħ'],
    ['i', 'ī'],
    ['j', 'ĵ'],
    ['k', 'ķ'],
    ['l', 'ŀ'],
    ['m', 'ḿ'],
    ['n', 'ƞ'],
    ['o', 'ǿ'],
    ['p', 'ƥ'],
    ['q', 'ɋ'],
    ['r', 'ř'],
    ['s', 'ş'],
    ['t', 'ŧ'],
    ['u', 'ŭ'],
    ['v', 'ṽ'],
    ['w', 'ẇ'],
    ['x', 'ẋ'],
    ['y', 'ẏ'],
    ['z', 'ẑ'],
    ['A', 'Ȧ'],
    ['B', 'Ɓ'],
    ['C', 'Ƈ'],
    ['D', 'Ḓ'],
    ['E', 'Ḗ'],
    ['F', 'Ƒ'],
    ['G', 'Ɠ'],
    ['H', 'Ħ'],
    ['I', 'Ī'],
    ['J', 'Ĵ'],
    ['K', 'Ķ'],
    ['L', 'Ŀ'],
    ['M', 'Ḿ'],
    ['N', 'Ƞ'],
    ['O', 'Ǿ'],
    ['P', 'Ƥ'],
    ['Q', 'Ɋ'],
    ['R', 'Ř'],
    ['S', 'Ş'],
    ['T', 'Ŧ'],
    ['U', 'Ŭ'],
    ['V', 'Ṽ'],
    ['W', 'Ẇ'],
    ['X', 'Ẋ'],
    ['Y', 'Ẏ'],
    ['Z', 'Ẑ'],
  ].map(([plain, accented]) => [plain!, accented!]),
);

/**
 * What must reach the screen unchanged: placeholders (`{0}`, `{name}`), codicons (`$(sync~spin)`),
 * Markdown link targets (`](command:…)`), addresses, setting ids in backticks and key names.
 */
const KEPT =
  /(\{[^{}]*\}|\$\([^)]*\)|\]\([^)]*\)|https?:\/\/\S+|`[^`]*`|\b(?:labData\.\w+(?:\.\w+)*)\b)/;

function pseudoWords(text: string): string {
  return [...text]
    .map((char) => {
      const accented = ACCENTED[char];
      if (!accented) {
        return char;
      }
      return 'aeiouAEIOU'.includes(char) ? `${accented}${accented}` : accented;
    })
    .join('');
}

/** One line: its words marked and lengthened, what must stay kept, the whole in brackets unless it is a lone link (a welcome view's button). */
function pseudoLine(line: string): string {
  if (!/[A-Za-z]/.test(line)) {
    return line;
  }
  const parts = line.split(KEPT).map((part, index) => (index % 2 === 1 ? part : pseudoWords(part)));
  const text = parts.join('');
  return /^\s*\[[^\]]*\]\([^)]*\)\s*$/.test(line) ? text : `[${text}]`;
}

/** The pseudo-localised form of an English message. */
export function pseudoLocalize(message: string): string {
  return message.split('\n').map(pseudoLine).join('\n');
}

/** The files written for the pseudo-locale, relative to the extension's root. */
export const PSEUDO_FILES = [
  path.join('l10n', `bundle.l10n.${PSEUDO_LOCALE}.json`),
  `package.nls.${PSEUDO_LOCALE}.json`,
];

/**
 * Writes `l10n/bundle.l10n.qps-ploc.json` (every `vscode.l10n.t` message and the core's catalogue)
 * and `package.nls.qps-ploc.json` (the manifest's strings) from the English ones under `root`;
 * returns the English messages of both, which a test looks for on screen.
 */
export function writePseudoBundles(root: string): { l10n: string[]; nls: string[] } {
  const bundle = JSON.parse(
    readFileSync(path.join(root, 'l10n', 'bundle.l10n.json'), 'utf8'),
  ) as Record<string, string>;
  const nls = JSON.parse(readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<
    string,
    string
  >;
  const pseudo = (strings: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(strings).map(([key, value]) => [key, pseudoLocalize(value)]));
  writeFileSync(path.join(root, PSEUDO_FILES[0]!), `${JSON.stringify(pseudo(bundle), null, 2)}\n`);
  writeFileSync(path.join(root, PSEUDO_FILES[1]!), `${JSON.stringify(pseudo(nls), null, 2)}\n`);
  return { l10n: Object.values(bundle), nls: Object.values(nls) };
}

/**
 * Lab Data as a development extension in `folder`, with the pseudo-locale bundles beside its own:
 * a copy of its manifest, built files and English bundles (a few MB). The repository
 * itself is never written: both test hosts run the pseudo-locale test at the same time, and one
 * host removing the bundles from the repository while the other loaded them left that window in
 * English. Returns the extension's folder and the English strings (as writePseudoBundles).
 */
export function pseudoExtension(
  root: string,
  folder: string,
): { extensionPath: string; english: { l10n: string[]; nls: string[] } } {
  const extensionPath = path.join(folder, 'extension');
  // Copies, not links: VS Code knows an extension's code by where it really is (code reached
  // through a link into the repository was nobody's, and its strings stayed English).
  for (const name of ['package.json', 'package.nls.json', 'dist', 'media', 'l10n']) {
    if (existsSync(path.join(root, name))) {
      cpSync(path.join(root, name), path.join(extensionPath, name), { recursive: true });
    }
  }
  return { extensionPath, english: writePseudoBundles(extensionPath) };
}

/** Removes what writePseudoBundles wrote. */
export function removePseudoBundles(root: string): void {
  for (const file of PSEUDO_FILES) {
    rmSync(path.join(root, file), { force: true });
  }
}

/**
 * Makes a code-server user-data folder show VS Code in the pseudo-locale when started with
 * `--locale qps-ploc`: without a language pack, code-server falls back to English and tells
 * extensions `vscode.env.language === 'en'`. A pack registered in `languagepacks.json` with an empty
 * translation of VS Code's own strings is enough: the workbench stays English (no pack of its own
 * strings), and extensions get `qps-ploc` and load their `bundle.l10n.qps-ploc.json`.
 */
export function registerPseudoLanguagePack(userDataDir: string): void {
  const folder = path.join(userDataDir, 'pseudo-language-pack');
  mkdirSync(folder, { recursive: true });
  const translations = path.join(folder, 'main.i18n.json');
  writeFileSync(translations, JSON.stringify({ version: '1.0.0', contents: {} }));
  const file = path.join(userDataDir, 'languagepacks.json');
  const packs = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)
    : {};
  packs[PSEUDO_LOCALE] = {
    hash: 'lab-data-pseudo',
    label: 'Pseudo',
    extensions: [{ extensionIdentifier: { id: 'lab-data-test.pseudo' }, version: '1.0.0' }],
    translations: { vscode: translations },
  };
  writeFileSync(file, JSON.stringify(packs));
}

/**
 * The English messages among `texts` (what is on screen): each message's words between its
 * placeholders, in order, as whole words. A message of one word ("Refresh", "Report {0}") counts only
 * as a whole text: inside a longer one it is as likely the lab's data (a "Field Data Report", a
 * status "Received"). Messages of one short word (`PDF`, `Lab`) are left out.
 */
export function englishLeftovers(
  texts: readonly string[],
  messages: readonly string[],
): Array<{ text: string; message: string }> {
  const patterns = [...new Set(messages)]
    .map((message) => {
      const literal = message
        .replace(/\]\([^)]*\)/g, ']')
        .replace(/\$\([^)]*\)/g, ' ')
        .split(/\{[^{}]*\}|\n|[[\]]/)
        .map((part) => part.trim())
        .filter((part) => /[A-Za-z]{2}/.test(part));
      const words = literal.join(' ').match(/[A-Za-z]+/g) ?? [];
      if (words.length === 0 || (words.length === 1 && words[0]!.length < 4)) {
        return undefined;
      }
      const escaped = literal.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      const body = escaped.join('[\\s\\S]*?');
      return {
        message,
        pattern:
          words.length === 1
            ? new RegExp(
                `^\\s*${message
                  .split(/\{[^{}]*\}/)
                  .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
                  .join('.*?')}\\s*$`,
              )
            : new RegExp(`(?<![A-Za-z])${body}(?![A-Za-z])`),
      };
    })
    .filter((entry) => entry !== undefined);
  const found: Array<{ text: string; message: string }> = [];
  for (const text of texts) {
    for (const { message, pattern } of patterns) {
      if (pattern.test(text)) {
        found.push({ text, message });
      }
    }
  }
  return found;
}
