import { clearLine, cursorTo } from 'node:readline';
import { serverText } from '../../core/errors/serverText';

/**
 * What the tool says while it works, on stderr so that stdout carries only results: on a
 * terminal, one line redrawn in place (Node's readline cursor functions); elsewhere (CI logs,
 * pipes), plain lines, one per event, never redrawn. `--quiet` says nothing but failures.
 */
export class Progress {
  private lastDraw = 0;
  private shown = false;

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly quiet = false,
  ) {}

  private get live(): boolean {
    return this.stream.isTTY === true;
  }

  /** A count so far ("12/500 files, 3.1 MiB"): redrawn at most ten times a second on a terminal; not printed elsewhere. */
  update(text: string): void {
    if (this.quiet || !this.live) {
      return;
    }
    const now = Date.now();
    if (now - this.lastDraw < 100) {
      return;
    }
    this.lastDraw = now;
    cursorTo(this.stream, 0);
    clearLine(this.stream, 0);
    this.stream.write(text.slice(0, Math.max(20, (this.stream.columns || 80) - 1)));
    this.shown = true;
  }

  /** One event worth its own line (a file restored, a file that differs). */
  line(text: string): void {
    if (this.quiet) {
      return;
    }
    this.clear();
    this.stream.write(`${text}\n`);
  }

  /** A failure: always said, even with `--quiet`. */
  problem(text: string): void {
    this.clear();
    this.stream.write(`${text}\n`);
  }

  /** Removes the redrawn line before the results are printed. */
  clear(): void {
    if (this.shown && this.live) {
      cursorTo(this.stream, 0);
      clearLine(this.stream, 0);
      this.shown = false;
    }
  }
}

/** A text table with aligned columns; every cell is server text made safe to print. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const cells = [header, ...rows].map((row) => row.map((cell) => serverText(cell, 200) ?? ''));
  const widths = header.map((_, column) =>
    Math.max(...cells.map((row) => (row[column] ?? '').length)),
  );
  return cells
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Writes to stdout and waits while it is full (a pipe to a slow reader), so nothing is lost or buffered without end. */
export async function out(text: string): Promise<void> {
  if (!process.stdout.write(text)) {
    await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
  }
}
