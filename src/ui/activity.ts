import * as vscode from 'vscode';

/**
 * Long work under way (a sync, a bulk save), so the status bar can say so. Each run is counted
 * while it lasts; the newest one's label is shown.
 */
export class Activity implements vscode.Disposable {
  private readonly running: string[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  /** What is under way now (the newest), if anything. */
  get current(): string | undefined {
    return this.running[this.running.length - 1];
  }

  /** Runs `task` as `label`, shown while it lasts whatever way it ends. */
  async run<T>(label: string, task: () => PromiseLike<T>): Promise<T> {
    this.running.push(label);
    this.changed.fire();
    try {
      return await task();
    } finally {
      this.running.splice(this.running.lastIndexOf(label), 1);
      this.changed.fire();
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
