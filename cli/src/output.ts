import * as path from 'node:path';
import { clearLine, cursorTo } from 'node:readline';
import { isCancellation } from '../../core/errors/errors';
import { serverText } from '../../core/errors/serverText';
import { sanitizeFileName } from '../../core/files/fileNames';
import { writeFileSafely } from '../../core/files/safeWriter';
import { CliError, Exit, PRECEDENCE, worst, type ExitCode } from './exitCodes';

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

/** What happened to some files: said once, as a heading with their count, then the files. */
export interface Outcome {
  /** What became of the files, after their count: "restored from the cache", "not restored", "missing". */
  readonly what: string;
  /** Why, when it is not plain from `what`: the one sentence of the cause (a lab's refusal, a missing token). */
  readonly why?: string;
  /** The exit status it means; {@link Exit.ok} for files that need no word without `-v`. */
  readonly exitCode: ExitCode;
  /** What to do about it, said once after its files. */
  readonly hint?: string;
}

/** Recorded files that are not in the folder: status and verify say them in these words alike. */
export const MISSING: Outcome = {
  what: 'missing',
  exitCode: Exit.mismatch,
  hint: 'lab-data pull restores them from the cache or the lab.',
};

/** One file as a report names it; everything in it is made safe to print. */
export interface ReportedFile {
  readonly reportId: string;
  readonly file: string;
  /** What is particular to this file (both revisions, the lab's changes). */
  readonly detail?: string;
}

/** How many files of a cause are named without `-v`. */
const NAMED_WITHOUT_VERBOSE = 10;

/**
 * What a run over a folder's files (pull, verify) came to, told once per cause, so a CI log holds
 * the result and not one line a file: a green run is its summary line alone; each cause of a
 * failure is a heading with its count, then its files (the first few, or all with `-v`), then what
 * to do; `-v` also lists the files that needed no word. Other lines a run must say whatever its
 * outcome (a selection in force, which variable gives the token) go in as notes, before the rest.
 */
export class RunReport {
  private readonly causes = new Map<string, { outcome: Outcome; files: ReportedFile[] }>();
  private readonly notes: string[] = [];

  constructor(private readonly verbose: boolean) {}

  /** One file under its outcome; files with the same `what` and `why` are one cause. */
  add(outcome: Outcome, file: ReportedFile): void {
    const key = `${outcome.what}\n${outcome.why ?? ''}`;
    const cause = this.causes.get(key) ?? { outcome, files: [] };
    cause.files.push(file);
    this.causes.set(key, cause);
  }

  /** A line said before the causes, whatever the run came to. */
  note(text: string): void {
    this.notes.push(text);
  }

  /** The worst exit status of the files reported ({@link worst}). */
  get exitCode(): ExitCode {
    return worst([...this.causes.values()].map((cause) => cause.outcome.exitCode));
  }

  /** The causes that are not green, worst first, and each cause's exit status: for --json. */
  problems(): ReadonlyArray<{
    readonly outcome: Outcome;
    readonly files: readonly ReportedFile[];
  }> {
    return [...this.causes.values()]
      .filter((cause) => cause.outcome.exitCode !== Exit.ok)
      .sort(
        (a, b) => PRECEDENCE.indexOf(a.outcome.exitCode) - PRECEDENCE.indexOf(b.outcome.exitCode),
      );
  }

  /**
   * The lines to print: the notes; with `-v`, every green cause with all its files; each cause
   * that is not green, worst first; then `summary`, when given.
   */
  lines(summary?: string): string[] {
    const green = this.verbose
      ? [...this.causes.values()].filter((cause) => cause.outcome.exitCode === Exit.ok)
      : [];
    const lines = [...this.notes];
    for (const { outcome, files } of [...green, ...this.problems()]) {
      const count = `${files.length} ${files.length === 1 ? 'file' : 'files'}`;
      lines.push(
        serverText(`${count} ${outcome.what}${outcome.why ? `: ${outcome.why}` : ''}`, 2000),
      );
      const named = this.verbose ? files : files.slice(0, NAMED_WITHOUT_VERBOSE);
      for (const file of named) {
        // Each part made safe on its own: serverText folds runs of spaces, which align these lines.
        const detail = file.detail ? `: ${serverText(file.detail, 500) ?? ''}` : '';
        lines.push(
          `  ${serverText(file.reportId, 200) ?? ''}  ${serverText(file.file, 300) ?? ''}${detail}`,
        );
      }
      if (named.length < files.length) {
        lines.push(`  … and ${files.length - named.length} more (-v lists them)`);
      }
      if (outcome.hint) {
        lines.push(serverText(outcome.hint, 1000));
      }
    }
    if (summary !== undefined) {
      lines.push(summary);
    }
    return lines;
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

/** A piece of a listing as it is ready: its text, and how many records (rows) it completes. */
export interface ListingChunk {
  readonly text: string;
  readonly rows: number;
}

/**
 * Writes a listing where it was asked to go, so that a script never takes part of one for the whole:
 * with a FILE (`-o`), into a temporary file beside it that takes the name only once the last
 * record is in (on any failure nothing is left, and an earlier file of that name is untouched);
 * on stdout, as it arrives, and when it stops part-way, stderr says the output is incomplete and
 * the failure's exit status follows. Resolves to the number of rows written.
 */
export async function writeListing(
  chunks: AsyncIterable<ListingChunk>,
  options: { readonly file?: string; readonly progress: Progress; readonly signal: AbortSignal },
): Promise<number> {
  let rows = 0;
  if (options.file !== undefined && options.file !== '-') {
    const target = path.resolve(options.file);
    const fileName = path.basename(target);
    if (sanitizeFileName(fileName, '') !== fileName) {
      throw new CliError(
        `-o: "${serverText(options.file, 200)}" is not a file name lab-data writes; choose a plain name such as reports.jsonl.`,
        Exit.usage,
      );
    }
    async function* bytes(): AsyncGenerator<Buffer> {
      for await (const chunk of chunks) {
        rows += chunk.rows;
        yield Buffer.from(chunk.text, 'utf8');
      }
    }
    await writeFileSafely({
      folder: path.dirname(target),
      fileName,
      source: bytes(),
      ifExists: 'overwrite',
      recordTime: false,
      signal: options.signal,
    });
    return rows;
  }
  let written = false;
  try {
    for await (const chunk of chunks) {
      await out(chunk.text);
      written ||= chunk.text.length > 0;
      rows += chunk.rows;
    }
  } catch (error) {
    if (written) {
      options.progress.problem(
        `lab-data: the output is incomplete: ${rows} ${rows === 1 ? 'row' : 'rows'} written before the listing ${isCancellation(error) ? 'was cancelled' : 'failed'}; do not use it.`,
      );
    }
    throw error;
  }
  return rows;
}
