import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { registerSecret, serverText } from '../../core/errors/serverText';
import { Logger } from '../../src/log';

/** A log channel that keeps what it is given, so a test can read the lines the Logger wrote. */
function keptChannel(): { channel: vscode.LogOutputChannel; lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string): void => {
    lines.push(message);
  };
  const channel = { info: keep, warn: keep, error: keep } as unknown as vscode.LogOutputChannel;
  return { channel, lines };
}

describe('the log', () => {
  it('redacts a secret the extension adds and one the core registered: one list of secrets for both', () => {
    const { channel, lines } = keptChannel();
    const log = new Logger(channel);
    log.addSecret('log-added-secret-4411');
    registerSecret('core-registered-secret-9922');
    log.info('Test', 'sent log-added-secret-4411 and core-registered-secret-9922');
    assert.deepEqual(lines, ['[Test] sent [redacted] and [redacted]']);
    // The secret added through the log is one the core's texts hide too.
    assert.equal(serverText('echo log-added-secret-4411'), 'echo [redacted]');
    assert.equal(log.redact('x core-registered-secret-9922 y'), 'x [redacted] y');
  });
});
