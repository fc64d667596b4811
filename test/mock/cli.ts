import { DEMO_TOKENS, MockLabServer, type Envelope } from './server';

/** `npm run mock-server -- [--port N] [--reports N] [--samples N] [--seed N] [--tenant full|no-clients|no-projects] [--envelope …] [--pdf-mib N] [--fail-status 503]` */
function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

async function main(): Promise<void> {
  const numeric = (name: string): number | undefined =>
    option(name) === undefined ? undefined : Number(option(name));
  const server = new MockLabServer({
    port: numeric('port') ?? 8787,
    reports: numeric('reports'),
    samples: numeric('samples'),
    seed: numeric('seed'),
    tenant: option('tenant') as 'full' | 'no-clients' | 'no-projects' | undefined,
    envelope: option('envelope') as Envelope | undefined,
    pdfBytes: numeric('pdf-mib') === undefined ? undefined : numeric('pdf-mib')! * 1024 * 1024,
    // A lab down as a whole: every request after the token check answered with this status.
    faults:
      numeric('fail-status') === undefined
        ? undefined
        : { status: { status: numeric('fail-status')!, times: Infinity } },
  });
  const baseUrl = await server.start();
  const visible = server.reportsFor('demo-full-access').length;
  process.stdout.write(
    [
      `Mock lab API listening at ${baseUrl}  (API root ${baseUrl}/api/v1)`,
      `  ${server.data.clients.length} clients, ${server.data.projects.length} projects, ${visible} published reports (${server.data.reports.length} in all), ${server.data.samples.length} samples; tenant: ${server.options.tenant ?? 'full'}`,
      '  Demo tokens:',
      ...Object.entries(DEMO_TOKENS).map(
        ([token, scope]) => `    ${token.padEnd(20)} ${scope.label}`,
      ),
      `  Try: curl -H "Authorization: Bearer demo-full-access" ${baseUrl}/api/v1/reports?page_size=2`,
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  const stop = (): void => {
    void server.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
