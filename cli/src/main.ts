import { COMMANDS, commandFirst, commandHelp, generalHelp, parseCommand } from './commandLine';
import type { CliContext } from './context';
import { CliError, Exit, exitCodeOf, type ExitCode } from './exitCodes';
import { errorText } from '../../core/errors/errorText';

declare const LAB_DATA_CLI_VERSION: string | undefined;
/** Set by the build from cli/package.json; "dev" when run from the sources. */
const VERSION = typeof LAB_DATA_CLI_VERSION === 'string' ? LAB_DATA_CLI_VERSION : 'dev';

async function listing(
  list: 'reports' | 'samples' | 'clients' | 'projects',
): Promise<(context: CliContext) => Promise<ExitCode>> {
  const { listRecords } = await import('./commands/list.js');
  return (context) => listRecords(context, list);
}

/**
 * Each command is loaded when it runs, so `lab-data --help` starts without the network code
 * (the bundle evaluates a module on first use).
 */
const RUNNERS: Readonly<Record<string, () => Promise<(context: CliContext) => Promise<ExitCode>>>> =
  {
    pull: async () => (await import('./commands/pull.js')).pull,
    verify: async () => (await import('./commands/verify.js')).verify,
    sync: async () => (await import('./commands/sync.js')).sync,
    reports: () => listing('reports'),
    samples: () => listing('samples'),
    clients: () => listing('clients'),
    projects: () => listing('projects'),
    report: async () => (await import('./commands/list.js')).showReport,
    status: async () => (await import('./commands/status.js')).status,
    'merge-manifest': async () => (await import('./commands/mergeManifest.js')).mergeManifest,
    cache: async () => (await import('./commands/cache.js')).cache,
    uses: async () => (await import('./commands/uses.js')).uses,
    profile: async () => (await import('./commands/profile.js')).profile,
    impact: async () => (await import('./commands/uses.js')).impact,
  };

/** Runs one command line; resolves to the exit status. Messages go to stderr, results to stdout. */
export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<ExitCode> {
  const [name, ...args] = commandFirst(argv);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? args[0] : undefined;
    const text =
      topic !== undefined && topic in COMMANDS ? commandHelp(topic) : generalHelp(VERSION);
    (name === undefined ? process.stderr : process.stdout).write(text);
    return name === undefined ? Exit.usage : Exit.ok;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`${VERSION}\n`);
    return Exit.ok;
  }
  const load = RUNNERS[name];
  if (!load || !(name in COMMANDS)) {
    throw new CliError(
      `"${name.slice(0, 40)}" is not a lab-data command. See: lab-data --help`,
      Exit.usage,
    );
  }
  const command = parseCommand(name, args);
  if (command.values.help) {
    process.stdout.write(commandHelp(name));
    return Exit.ok;
  }
  const [run, { CliContext }] = await Promise.all([load(), import('./context.js')]);
  const context = await CliContext.create(command, env, signal, VERSION);
  try {
    return await run(context);
  } finally {
    await context.close();
  }
}

/** The process: Ctrl+C cancels (no partial file is left) and a second one ends at once. */
function start(): void {
  const controller = new AbortController();
  // A reader that stops early (`lab-data reports --jsonl | head`) has what it wanted: end quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') {
      process.exit(process.exitCode ?? 0);
    }
    throw error;
  });
  process.once('SIGINT', () => {
    process.stderr.write('\nCancelling… (Ctrl+C again to stop at once)\n');
    controller.abort();
    process.once('SIGINT', () => process.exit(130));
  });
  main(process.argv.slice(2), process.env, controller.signal).then(
    (code) => {
      process.exitCode = code;
    },
    async (error: unknown) => {
      const { isCancellation } = await import('../../core/errors/errors.js');
      if (controller.signal.aborted || isCancellation(error)) {
        process.stderr.write('Cancelled; no partial file was left.\n');
        process.exitCode = 130;
        return;
      }
      const { serverText } = await import('../../core/errors/serverText.js');
      const { LabApiError } = await import('../../core/errors/errors.js');
      // One sanitised line at a time: messages may quote a manifest or a lab, and never show a token.
      const lines = errorText(error)
        .split('\n')
        .map((line) => serverText(line, 2000));
      const certificate =
        error instanceof LabApiError && error.text?.id.startsWith('cert') === true;
      if (certificate) {
        // The core's sentence names the extension's setting; the tool's own ways are these.
        lines.push(
          'With lab-data, trust the authority with --ca-file FILE (PEM) or NODE_EXTRA_CA_CERTS=FILE; the system trust store is always used.',
        );
      }
      if (error instanceof LabApiError && error.text?.id === 'proxyAuth') {
        // The core's sentence names VS Code's http.proxyAuthorization, which the tool does not read.
        lines.push(
          'With lab-data, give the proxy credentials in the proxy address: HTTPS_PROXY=http://user:password@host:port (percent-encode special characters).',
        );
      }
      process.stderr.write(`lab-data: ${lines.join('\n')}\n`);
      process.exitCode = exitCodeOf(error);
    },
  );
}

if (require.main === module) {
  start();
}
