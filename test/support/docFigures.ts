import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The repository: this file runs from out/test/support/. */
const root = path.resolve(__dirname, '..', '..', '..');

/** A figure a document gives, where it gives it. */
export interface DocFigure {
  readonly document: string;
  readonly value: number;
  readonly text: string;
}

/** The documents a reader meets: the READMEs, CONTRIBUTING.md and docs/. */
function documents(): Array<{ readonly document: string; readonly text: string }> {
  const names = [
    'README.md',
    'CONTRIBUTING.md',
    path.join('cli', 'README.md'),
    ...readdirSync(path.join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => path.join('docs', name)),
  ];
  return names.map((document) => ({
    document,
    // One line per paragraph's worth of words, so a figure broken over two lines is still found.
    text: readFileSync(path.join(root, document), 'utf8').replace(/\s+/g, ' '),
  }));
}

function figures(pattern: RegExp): DocFigure[] {
  return documents().flatMap(({ document, text }) =>
    [...text.matchAll(pattern)].map((match) => ({
      document,
      value: Number(match[1]),
      text: match[0],
    })),
  );
}

/** Every size in KB the documents give for the packed tool (`npm pack` in cli/). */
export function tarballFigures(): DocFigure[] {
  return figures(/tarball[^.\d]{0,60}?(\d+) KB/gi);
}

/** Every size the documents give for one report's entry in lab-data-sync.json, in bytes. */
export function bytesPerReportFigures(): DocFigure[] {
  return [
    ...figures(/(\d+) (?:bytes|B) a report/g),
    ...figures(/\(version 3\) a report`?\s*\|\s*(\d+) B/g),
  ];
}

/**
 * Every size in KB the documents give for the packaged extension (`lab-data.vsix`); the integration
 * runner checks each against the .vsix it packages (scripts/run-integration.mjs).
 */
export function vsixFigures(): DocFigure[] {
  return figures(/lab-data\.vsix[^.\d]{0,40}?(\d+) KB/gi);
}

/**
 * The figures given for a size measured as `measuredKb` (KB of 1,000 bytes) that are more than
 * `tolerance` away from it, each said in words; empty when every figure holds.
 */
export function figuresOff(
  found: readonly DocFigure[],
  measuredKb: number,
  tolerance = 0.1,
): string[] {
  return found
    .filter((figure) => Math.abs(figure.value - measuredKb) > measuredKb * tolerance)
    .map(
      (figure) => `${figure.document} says "${figure.text}", measured ${measuredKb.toFixed(0)} KB`,
    );
}
