import type {
  CheckProblem,
  CheckStep,
  CheckStepKind,
  ConnectionCheck,
} from '../connection/check/checkConnection';
import { redactSecrets } from '../errors/serverText';

/** The report's width: it reads in an editor at its default width without running past the edge. */
export const REPORT_WIDTH = 80;

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

/** A check's answer to "can I reach this lab?", in plain words: what was found, and what to try next. */
export interface ConnectionConclusion {
  readonly sentence: string;
  readonly next: string;
}

function stepName(step: CheckStep): string {
  return step.kind === 'request' && step.signedIn === false
    ? 'Request without a token'
    : STEP_NAMES[step.kind];
}

/** The plain sentence for what a failed step found, about the lab `lab` at `host`. */
function problemSentence(problem: CheckProblem, lab: string, host: string): string {
  switch (problem) {
    case 'notFound':
      return `This computer cannot find ${host}: there is no such name, or no name server answered.`;
    case 'proxyNotFound':
      return 'This computer cannot find the proxy your settings name.';
    case 'proxyInvalid':
      return 'The proxy setting cannot be used.';
    case 'refused':
      return `${host} refused the connection: nothing answers at that address and port.`;
    case 'connectTimeout':
      return `${host} did not accept a connection in time.`;
    case 'unreachable':
      return `This computer cannot reach ${host}.`;
    case 'proxyUnreachable':
      return 'This computer cannot reach the proxy your settings name.';
    case 'proxyCredentials':
      return 'The proxy did not accept a proxy user name and password.';
    case 'proxyRefused':
      return 'The proxy does not let the connection to the lab through.';
    case 'untrusted':
      return 'The lab’s certificate is not trusted on this computer, so nothing was sent to it.';
    case 'tlsFailed':
      return `The secure connection to ${host} could not be set up.`;
    case 'noAnswer':
      return `“${lab}” accepted the connection but sent no answer: it may be down or overloaded.`;
    case 'stuck':
      return `“${lab}” sends headers but never the body: the lab’s service is stuck.`;
    case 'stoppedMidAnswer':
      return `“${lab}” starts its answer and stops halfway: the lab’s service (or something on the way) is stuck.`;
    case 'tooSlow':
      return `“${lab}” sends its answer too slowly to be used (a few bytes a second).`;
    case 'tokenRejected':
      return `“${lab}” answers, but refused your token.`;
    case 'forbidden':
      return `“${lab}” answers and knows your token, but the token may not read reports.`;
    case 'labError':
      return `“${lab}” answers, but with an error.`;
  }
}

/** What to try after `problem`, when the step gave no advice of its own. */
function problemNext(problem: CheckProblem): string {
  switch (problem) {
    case 'notFound':
      return 'Check the lab’s address for typing mistakes; if it is right, check your network connection or VPN.';
    case 'proxyNotFound':
    case 'proxyInvalid':
    case 'proxyUnreachable':
      return 'Check the proxy setting named under “Details for support”, or ask your IT department for the proxy’s address.';
    case 'refused':
      return 'Check the address and port; if they are right, the lab’s service is not running: try again later, or ask the lab.';
    case 'connectTimeout':
      return 'The lab may be down, or a firewall may block the way: try again later, or ask your IT department.';
    case 'unreachable':
      return 'Check your network connection or VPN, then try again.';
    case 'proxyCredentials':
    case 'proxyRefused':
      return 'Ask your IT department about the proxy.';
    case 'untrusted':
    case 'tlsFailed':
      return 'Check the lab’s address (https, and the right port); if it is right, ask the lab or your IT department.';
    case 'noAnswer':
      return 'Try again in a few minutes; if it keeps happening, ask the lab whether its service is running.';
    case 'stuck':
    case 'stoppedMidAnswer':
      return 'Nothing on your side can fix this: tell the lab (copy this report for them) and try again later.';
    case 'tooSlow':
      return 'Try again later; if it keeps happening, ask the lab or your IT department (a slow proxy or link can do this).';
    case 'tokenRejected':
      return 'Sign in again with a new token (“Lab Data: Sign In”).';
    case 'forbidden':
      return 'Ask the lab for a token whose scope includes reports.';
    case 'labError':
      return 'Try again later; if it keeps failing, copy this report for support.';
  }
}

/** The host a person typed, for sentences: `lab.example.com`, `127.0.0.1:8080`. */
function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

/** One check's answer: whether the lab can be reached and used, or where the way stops and what to try next. */
export function connectionConclusion(check: ConnectionCheck): ConnectionConclusion {
  const failed = check.steps.find((step) => step.outcome === 'failed');
  if (failed) {
    const problem = failed.problem ?? 'labError';
    return {
      sentence: problemSentence(problem, check.lab, hostOf(check.baseUrl)),
      next: failed.advice ?? problemNext(problem),
    };
  }
  const request = check.steps.find((step) => step.kind === 'request');
  if (request?.outcome === 'ok' && request.signedIn === false) {
    return {
      sentence: `“${check.lab}” answers; you are not signed in, so no token was checked.`,
      next: 'Sign in to the lab (“Lab Data: Sign In”) to check your token.',
    };
  }
  if (request?.outcome !== 'ok') {
    return {
      sentence: `The way to “${check.lab}” is open, but no request was made.`,
      next: 'Sign in to the lab (“Lab Data: Sign In”) to check your token.',
    };
  }
  return {
    sentence: `“${check.lab}” answers and accepts your token: every step passed.`,
    next: 'Nothing to fix on the way to the lab. If a command still fails, copy this report and the log for support.',
  };
}

/**
 * `text` in lines of at most `width` characters, broken at spaces: the first line starts with
 * `first`, the others with `rest` (a hanging indent). A word longer than a line (an address) keeps its own line.
 */
export function wrapText(text: string, width: number, first = '', rest = first): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/ +/).filter((each) => each !== '')) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest + word;
    } else {
      line += (empty ? '' : ' ') + word;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}

/** One check's steps, numbered, each wrapped under its number: name, outcome, time, summary. */
function stepLines(check: ConnectionCheck): string[] {
  return check.steps.flatMap((step, index) => {
    const time = step.outcome === 'skipped' ? '' : `, ${step.ms} ms`;
    const number = `  ${index + 1}. `;
    return wrapText(
      `${stepName(step)}: ${step.outcome}${time}: ${step.summary}`,
      REPORT_WIDTH,
      number,
      ' '.repeat(number.length),
    );
  });
}

/** One check's facts for support: how its requests leave, then each step's details. */
function detailLines(check: ConnectionCheck, indent: string): string[] {
  const lines: string[] = [];
  if (check.transport) {
    lines.push(
      ...wrapText(`Its requests: ${check.transport}`, REPORT_WIDTH, indent, `${indent}  `),
    );
  }
  check.steps.forEach((step, index) => {
    if (step.details.length === 0) {
      return;
    }
    lines.push(`${indent}${index + 1}. ${stepName(step)}:`);
    for (const detail of step.details) {
      lines.push(...wrapText(detail, REPORT_WIDTH, `${indent}     `, `${indent}       `));
    }
  });
  return lines;
}

/**
 * Check Connection's report as plain text a person can read and copy, wrapped to
 * {@link REPORT_WIDTH}: first the answer (one plain sentence, and the next thing to try), then the
 * steps, then the technical details for support. Several labs: one such section each. Everything
 * passes through redaction of `secrets` and of every secret the core registered (tokens, proxy
 * credentials), as a second line of defence.
 */
export function renderConnectionReport(
  checks: readonly ConnectionCheck[],
  context: ConnectionReportContext,
  secrets: readonly string[] = [],
): string {
  const lines: string[] = [];
  const only = checks.length === 1 ? checks[0] : undefined;
  lines.push(
    only
      ? `Lab Data: Check Connection of “${only.lab}” (${only.baseUrl})`
      : 'Lab Data: Check Connection',
  );
  if (checks.length === 0) {
    lines.push('', 'No lab is defined yet: add one with “Lab Data: Add Lab…”.');
  }
  for (const check of checks) {
    const conclusion = connectionConclusion(check);
    lines.push('');
    if (!only) {
      lines.push(`Lab “${check.lab}” at ${check.baseUrl}`);
    }
    lines.push(...wrapText(conclusion.sentence, REPORT_WIDTH));
    lines.push(...wrapText(`Next: ${conclusion.next}`, REPORT_WIDTH, '', '  '));
    lines.push('', 'Steps (the check stops at the first that fails):', ...stepLines(check));
  }
  lines.push('', 'Details for support:');
  lines.push(`  When: ${context.at.toISOString()}`);
  lines.push(...wrapText(`Integration: ${context.integration}`, REPORT_WIDTH, '  ', '    '));
  for (const check of checks) {
    if (!only) {
      lines.push(`  Lab “${check.lab}” at ${check.baseUrl}:`);
    }
    lines.push(...detailLines(check, only ? '  ' : '    '));
  }
  return redactSecrets(`${lines.join('\n')}\n`, secrets);
}
