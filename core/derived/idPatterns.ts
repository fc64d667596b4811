import { errorText } from '../errors/errorText';
/**
 * Recognising a lab's report and sample ids in any text. Ids are learned from what the lab listed:
 * each id's shape (runs of letters, digits and separators, e.g. `RPT-2026-000420` → `RPT`, `-`,
 * 4 digits, `-`, 6 digits) becomes a pattern, letters kept literally where every id of that shape
 * shares them. A user pattern (`labData.idPatterns`) replaces the learned ones for its kind.
 */

export type IdKind = 'report' | 'sample';

/** One id found in a text: where it is and what it looks like. */
export interface IdMatch {
  readonly kind: IdKind;
  readonly id: string;
  readonly start: number;
  readonly end: number;
  /** Which of the patterns given to {@link findIds} found it. */
  readonly pattern: number;
}

type Token =
  | { readonly kind: 'letters' | 'digits'; readonly text: string }
  | { readonly kind: 'separator'; readonly text: string };

/** Ids this short or this plain (only digits) would match ordinary numbers and words. */
const MIN_LENGTH = 4;
const MAX_SHAPES = 16;
/** An id stands alone: not inside a longer word or number (`lab-reports/RPT-1.pdf` still holds one). */
const BEFORE = '(?<![\\p{L}\\p{N}_])';
const AFTER = '(?![\\p{L}\\p{N}_])';

function tokens(id: string): Token[] | undefined {
  const parts = id.match(/\p{L}+|\p{N}+|[-_./:#]/gu);
  if (!parts || parts.join('') !== id) {
    return undefined;
  }
  return parts.map((text) =>
    /^\p{L}/u.test(text)
      ? { kind: 'letters', text }
      : /^\p{N}/u.test(text)
        ? { kind: 'digits', text }
        : { kind: 'separator', text },
  );
}

function shapeKey(parts: readonly Token[]): string {
  return parts
    .map((part) =>
      part.kind === 'separator'
        ? part.text
        : `${part.kind === 'letters' ? 'L' : 'D'}${part.text.length}`,
    )
    .join('');
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

interface Shape {
  readonly parts: Token[];
  /** Letter runs that differ between ids of this shape become a class. */
  readonly varying: boolean[];
}

/** Learns the shapes of one kind of id of one lab. */
export class IdShapes {
  private readonly shapes = new Map<string, Shape>();
  private compiled?: RegExp;

  /** Adds ids the lab listed; returns whether anything new was learned. */
  learn(ids: Iterable<string>): boolean {
    let changed = false;
    for (const id of ids) {
      const parts = id.length >= MIN_LENGTH && id.length <= 64 ? tokens(id) : undefined;
      if (
        !parts ||
        !parts.some((part) => part.kind === 'letters') ||
        !parts.some((part) => part.kind === 'digits')
      ) {
        continue; // plain numbers or words: recognising them in text would be noise
      }
      const key = shapeKey(parts);
      const known = this.shapes.get(key);
      if (!known) {
        if (this.shapes.size >= MAX_SHAPES) {
          continue;
        }
        this.shapes.set(key, { parts, varying: parts.map(() => false) });
        changed = true;
        continue;
      }
      parts.forEach((part, index) => {
        if (
          part.kind === 'letters' &&
          !known.varying[index] &&
          part.text !== known.parts[index]!.text
        ) {
          known.varying[index] = true;
          changed = true;
        }
      });
    }
    if (changed) {
      this.compiled = undefined;
    }
    return changed;
  }

  get size(): number {
    return this.shapes.size;
  }

  /** One regular expression source for every shape learned, or undefined before any. */
  get source(): string | undefined {
    if (this.shapes.size === 0) {
      return undefined;
    }
    const alternatives = [...this.shapes.values()].map((shape) =>
      shape.parts
        .map((part, index) =>
          part.kind === 'separator'
            ? escape(part.text)
            : part.kind === 'digits'
              ? `\\p{N}{${part.text.length}}`
              : shape.varying[index]
                ? `\\p{L}{${part.text.length}}`
                : escape(part.text),
        )
        .join(''),
    );
    // Longest first, so a longer shape wins over a prefix of it.
    return alternatives.sort((a, b) => b.length - a.length).join('|');
  }

  get pattern(): RegExp | undefined {
    const source = this.source;
    return source === undefined
      ? undefined
      : (this.compiled ??= new RegExp(`${BEFORE}(?:${source})${AFTER}`, 'gu'));
  }
}

/**
 * A user's pattern (`labData.idPatterns`) as a global regular expression, or the reason it cannot
 * be used. Patterns that match the empty string would mark every position and are refused.
 */
export function userIdPattern(source: unknown): RegExp | string {
  if (typeof source !== 'string' || source.trim() === '' || source.length > 500) {
    return 'the pattern must be a non-empty regular expression of at most 500 characters';
  }
  let pattern: RegExp;
  try {
    pattern = new RegExp(source, 'gu');
  } catch (error) {
    return errorText(error);
  }
  if (pattern.test('')) {
    return 'the pattern matches empty text';
  }
  return new RegExp(`${BEFORE}(?:${source})${AFTER}`, 'gu');
}

/** Every id in `text` that one of the patterns recognises, in order, non-overlapping. */
export function findIds(
  text: string,
  patterns: ReadonlyArray<{ readonly kind: IdKind; readonly pattern: RegExp }>,
  limit = 2000,
): IdMatch[] {
  const found: IdMatch[] = [];
  for (const [index, { kind, pattern }] of patterns.entries()) {
    pattern.lastIndex = 0;
    for (const match of text.matchAll(pattern)) {
      if (match[0].length === 0) {
        continue;
      }
      found.push({
        kind,
        id: match[0],
        start: match.index,
        end: match.index + match[0].length,
        pattern: index,
      });
      if (found.length >= limit) {
        break;
      }
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: IdMatch[] = [];
  for (const match of found) {
    if (kept.length === 0 || match.start >= kept[kept.length - 1]!.end) {
      kept.push(match);
    }
  }
  return kept;
}
