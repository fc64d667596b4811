import * as vscode from 'vscode';
import type { ExitCode } from '../../core/errors/exitCodes';
import type { Say } from './folderTaskRuns';

/**
 * The terminal of one `lab-data` task run: it starts the run when VS Code opens it, prints each
 * line the run says, and closes with the run's exit code, so a `dependsOn` chain or a
 * `preLaunchTask` stops on a failure. Closing it (the task stopped) aborts the run.
 */
export class TaskTerminal implements vscode.Pseudoterminal {
  private readonly written = new vscode.EventEmitter<string>();
  private readonly closed = new vscode.EventEmitter<number>();
  readonly onDidWrite = this.written.event;
  readonly onDidClose = this.closed.event;
  private readonly stop = new AbortController();

  constructor(
    private readonly heading: string,
    private readonly work: (say: Say, signal: AbortSignal) => Promise<ExitCode>,
  ) {}

  open(): void {
    const say: Say = (line) => this.written.fire(`${line.replace(/\r?\n/g, '\r\n')}\r\n`);
    say(this.heading);
    void this.work(say, this.stop.signal).then(
      (code) => this.closed.fire(code),
      () => this.closed.fire(1),
    );
  }

  close(): void {
    this.stop.abort();
  }
}
