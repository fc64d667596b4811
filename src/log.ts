import type * as vscode from 'vscode';
import { redactSecrets, registerSecret } from '../core/errors/serverText';
import type { LogLevel, LogSink } from '../core/connection/httpClient';

/**
 * Writes to the "Lab Data" log with a `[Component]` tag per line. Every line passes through
 * redaction of the secrets in use, as a second line of defence: the core never puts a token in a
 * message in the first place. The secrets are the core's one list (`registerSecret`), which every
 * text the core shows is also redacted by.
 */
export class Logger {
  constructor(private readonly channel: vscode.LogOutputChannel) {}

  /** Redacts `secret` from every line written from now on (and from every text the core shows). */
  addSecret(secret: string): void {
    registerSecret(secret);
  }

  /** Removes every secret in use from a text. */
  redact(text: string): string {
    return redactSecrets(text);
  }

  /** A sink for the core, which tags its own lines. */
  readonly sink: LogSink = (level, message) => this.write(level, message);

  info(component: string, message: string): void {
    this.write('info', `[${component}] ${message}`);
  }

  warn(component: string, message: string): void {
    this.write('warn', `[${component}] ${message}`);
  }

  error(component: string, message: string): void {
    this.write('error', `[${component}] ${message}`);
  }

  show(): void {
    this.channel.show(true);
  }

  private write(level: LogLevel, message: string): void {
    this.channel[level](this.redact(message));
  }
}
