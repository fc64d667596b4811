import type * as vscode from 'vscode';

/** The one place a VS Code CancellationToken becomes an AbortSignal for the core's HTTP calls. */
export function toAbortSignal(token: vscode.CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) {
    controller.abort();
  } else {
    const subscription = token.onCancellationRequested(() => {
      subscription.dispose();
      controller.abort();
    });
  }
  return controller.signal;
}
