import type * as vscode from 'vscode';
import { redactSecrets } from '../core/errors/errors';
import type { LogLevel, LogSink } from '../core/connection/httpClient';

/**
 * Writes to the "Lab Data" log with a `[Component]` tag per line. Every line passes through
 * redaction of the tokens currently in use, as a second line of defence: the core never puts a
 * token in a message in the first place.
 */
export class Logger {
  private readonly secrets = new Set<string>();

  constructor(private readonly channel: vscode.LogOutputChannel) {}

  /** Redacts `secret` from every line written from now on. */
  addSecret(secret: string): void {
    if (secret) {
      this.secrets.add(secret);
    }
  }

  /** Removes every token in use from a text. */
  redact(text: string): string {
    return redactSecrets(text, [...this.secrets]);
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
