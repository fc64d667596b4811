/**
 * Asks several labs the same question at once and hands over each lab's answers as they come, so
 * the slowest lab never holds up the others: the one place Search and Find across labs do it.
 */

/** One lab's question: what to ask it, page by page (a lookup is one page of one item or none). */
export interface LabQuestion<T> {
  readonly lab: string;
  readonly ask: (signal: AbortSignal) => AsyncIterable<readonly T[]>;
}

/** What one lab did, in the order it happened across all labs. */
export type LabAnswer<T> =
  /** Some of its results (a page). */
  | { readonly kind: 'items'; readonly lab: string; readonly items: readonly T[] }
  /** It has answered in full. */
  | { readonly kind: 'done'; readonly lab: string }
  /** It failed (not answering within the answer timeout among the causes); nothing more comes from it. */
  | { readonly kind: 'failed'; readonly lab: string; readonly error: unknown }
  /** It had sent nothing by the deadline; it is still asked, and its answers come later if they come. */
  | { readonly kind: 'late'; readonly lab: string; readonly afterMs: number };

export interface AcrossLabsOptions {
  /** How long a lab may take to send its first answer before it is named late. */
  readonly deadlineMs: number;
  /** The person cancelled: every lab still asked is let go. */
  readonly signal?: AbortSignal;
}

/**
 * Every lab's answers as they come, until every lab has answered in full or failed. Breaking out of
 * the loop (or {@link LabAnswers.stop}) lets every lab still asked go at once: its request is aborted.
 */
export class LabAnswers<T> implements AsyncIterable<LabAnswer<T>> {
  private readonly queue: LabAnswer<T>[] = [];
  private readonly pending = new Set<string>();
  private readonly unanswered = new Set<string>();
  private readonly stopper = new AbortController();
  private wake?: () => void;
  private readonly timer?: ReturnType<typeof setTimeout>;
  private readonly onCancel = (): void => this.stop();
  private readonly signal?: AbortSignal;

  constructor(questions: readonly LabQuestion<T>[], options: AcrossLabsOptions) {
    const started = Date.now();
    this.signal = options.signal;
    options.signal?.addEventListener('abort', this.onCancel, { once: true });
    if (options.signal?.aborted) {
      this.stopper.abort();
    }
    for (const question of questions) {
      this.pending.add(question.lab);
      this.unanswered.add(question.lab);
      void this.run(question);
    }
    if (this.pending.size > 0) {
      this.timer = setTimeout(() => {
        for (const lab of this.unanswered) {
          this.push({ kind: 'late', lab, afterMs: Date.now() - started });
        }
      }, options.deadlineMs);
    }
  }

  /** The labs that have not yet answered in full nor failed. */
  get waitingFor(): string[] {
    return [...this.pending];
  }

  /** Stops listening: every lab still asked is let go. */
  stop(): void {
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onCancel);
    this.stopper.abort();
    this.wake?.();
  }

  private async run(question: LabQuestion<T>): Promise<void> {
    const lab = question.lab;
    try {
      for await (const items of question.ask(this.stopper.signal)) {
        this.unanswered.delete(lab);
        if (this.stopper.signal.aborted) {
          return;
        }
        this.push({ kind: 'items', lab, items });
      }
      this.settle({ kind: 'done', lab });
    } catch (error) {
      this.settle({ kind: 'failed', lab, error });
    }
  }

  private settle(answer: LabAnswer<T>): void {
    this.unanswered.delete(answer.lab);
    this.pending.delete(answer.lab);
    if (this.pending.size === 0) {
      clearTimeout(this.timer);
    }
    this.push(answer);
  }

  private push(answer: LabAnswer<T>): void {
    if (!this.stopper.signal.aborted) {
      this.queue.push(answer);
      this.wake?.();
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LabAnswer<T>> {
    try {
      for (;;) {
        const next = this.queue.shift();
        if (next) {
          yield next;
        } else if (this.pending.size === 0 || this.stopper.signal.aborted) {
          return;
        } else {
          await new Promise<void>((resolve) => (this.wake = resolve));
          this.wake = undefined;
        }
      }
    } finally {
      this.stop();
    }
  }
}

/** Asks every lab of `questions` at once; see {@link LabAnswers}. */
export function acrossLabs<T>(
  questions: readonly LabQuestion<T>[],
  options: AcrossLabsOptions,
): LabAnswers<T> {
  return new LabAnswers(questions, options);
}
