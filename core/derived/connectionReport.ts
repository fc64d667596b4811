import type { CheckStepKind, ConnectionCheck } from '../connection/connectionCheck';
import { redactSecrets } from '../errors/serverText';

const STEP_NAMES: Readonly<Record<CheckStepKind, string>> = {
  resolve: 'Name resolution',
  proxy: 'Proxy',
  connect: 'Connection',
  tls: 'TLS',
  request: 'Authenticated request',
};

export interface ConnectionReportContext {
  /** E.g. "Lab Data for VS Code 0.2.0 (VS Code 1.100.3)". */
  readonly integration: string;
  readonly at: Date;
}

/**
 * Check Connection's report as plain text a person can read and copy: per lab, each step with its
 * outcome, time and facts. Everything passes through redaction of `secrets` and of every secret
 * the core registered (tokens, proxy credentials), as a second line of defence.
 */
export function renderConnectionReport(
  checks: readonly ConnectionCheck[],
  context: ConnectionReportContext,
  secrets: readonly string[] = [],
): string {
  const lines = [
    'Lab Data: Check Connection',
    `When: ${context.at.toISOString()}`,
    `Integration: ${context.integration}`,
  ];
  if (checks.length === 0) {
    lines.push('', 'No lab is defined yet: add one with "Lab Data: Add Lab…".');
  }
  for (const check of checks) {
    const failed = check.steps.find((step) => step.outcome === 'failed');
    lines.push(
      '',
      `Lab "${check.lab}" at ${check.baseUrl}: ${failed ? `failed at ${STEP_NAMES[failed.kind]}` : 'every step passed'}`,
    );
    if (check.transport) {
      lines.push(`  Its requests: ${check.transport}`);
    }
    check.steps.forEach((step, index) => {
      const time = step.outcome === 'skipped' ? '' : `, ${step.ms} ms`;
      lines.push(
        `  ${index + 1}. ${STEP_NAMES[step.kind]}: ${step.outcome}${time}: ${step.summary}`,
      );
      step.details.forEach((detail) => lines.push(`       ${detail}`));
    });
  }
  return redactSecrets(`${lines.join('\n')}\n`, secrets);
}
