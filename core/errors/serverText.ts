/**
 * Text that came from a lab (messages, request ids, names, ids) on its way to a person: a log
 * line, an error message, a tree label or tooltip, a notification, a document title, a support
 * report or a chat answer. Every such path goes through {@link serverText}.
 */

/**
 * Secrets the extension holds (lab tokens, proxy credentials), longest first so a secret that
 * contains another is removed whole: no text a server sent may show them. Kept sorted as they are
 * added, since every shown text is redacted and secrets are added rarely.
 */
const knownSecrets: string[] = [];

function longestFirst(a: string, b: string): number {
  return b.length - a.length;
}

/** Very short values would redact ordinary words; no real token or credential is this short. */
export const MIN_SECRET_LENGTH = 6;

/** Adds a secret that {@link serverText} and {@link redactSecrets} remove from every text from now on. */
export function registerSecret(secret: string | undefined): void {
  if (secret && secret.length >= MIN_SECRET_LENGTH && !knownSecrets.includes(secret)) {
    knownSecrets.push(secret);
    knownSecrets.sort(longestFirst);
  }
}

/** A URL's scheme and user info, up to the last "@" before its host ends. */
const URL_USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*(?:@[^\s/?#@]*)*@/gi;

/** Replaces every occurrence of the given and the registered secrets, and anything shaped like a bearer credential. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let result = text;
  const all =
    secrets.length === 0
      ? knownSecrets
      : [...new Set([...secrets, ...knownSecrets])].sort(longestFirst);
  for (const secret of all) {
    if (secret.length === 0) {
      continue;
    }
    if (result.includes(secret)) {
      result = result.split(secret).join('[redacted]');
    }
  }
  // A credential after "Bearer" or "Basic" whatever it looks like; after "token" only what looks like
  // one (a digit, or 12 characters or more), so a lab's reason "token expired" stays readable. The
  // user info of any URL (`http://user:password@proxy`) goes whole, however short the password: a
  // proxy password too short to register is still never shown, and neither is the user name.
  return result
    .replace(URL_USER_INFO, '$1[redacted]@')
    .replace(/((?:bearer|basic)\s+)[^\s"',;]+/gi, '$1[redacted]')
    .replace(/(token\s+)([^\s"',;]+)/gi, (match, prefix: string, value: string) =>
      /\d/.test(value) || value.length >= 12 ? `${prefix}[redacted]` : match,
    );
}

/** Controls (C0, DEL, C1), line and paragraph separators: each run becomes one space. */
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u0085]+/g;
/** Bidirectional overrides and isolates, marks, zero-width characters and the byte-order mark: removed. */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
const DEFAULT_SERVER_TEXT_LENGTH = 200;

/**
 * Makes a value a server sent safe to show or log: a single line, without control,
 * bidirectional-override or zero-width characters, secrets redacted, at most `max` characters
 * (cut with "…"). Anything that is not a string, number or boolean becomes the empty string.
 */
export function serverText(
  value: unknown,
  max = DEFAULT_SERVER_TEXT_LENGTH,
  secrets: readonly string[] = [],
): string {
  const raw =
    typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
        ? String(value)
        : '';
  // Invisible characters go first, so a secret spelled with them in between is still found; the
  // whole text is redacted before it is cut, so no part of a secret survives at the cut.
  const flat = redactSecrets(raw.replace(INVISIBLE, '').replace(LINE_BREAKING, ' '), secrets)
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= max) {
    return flat;
  }
  // Never cut a surrogate pair in half.
  let end = Math.max(0, max - 1);
  if (end > 0 && /[\ud800-\udbff]/.test(flat[end - 1]!)) {
    end--;
  }
  return `${flat.slice(0, end)}…`;
}

/** Controls a terminal acts on: C0 but tab, LF and CR, DEL, C1. */
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/**
 * Data a lab sent, kept whole (unlike {@link serverText}: lines, length and spaces stay) but with
 * every control a terminal would act on written as its JSON escape (ESC as `\u001b`), so a CSV or
 * a listing printed to a terminal cannot colour, clear or retitle it. Tab, LF and CR stay: a CSV
 * field quotes them. In JSON text the escape is the same value (`JSON.parse` gives it back).
 */
export function escapeControls(text: string): string {
  return text.replace(
    TERMINAL_CONTROLS,
    (control) => `\\u${control.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
