import { MockLabServer, type MockFaults, type MockServerOptions } from '../mock/server';

/**
 * A mock lab in its own process, so the benchmark's client measures its own memory and shares the
 * two cores with the server the way a real client shares a machine with nothing of the server's.
 * Options come as JSON in argv[2]; the parent steers it over IPC.
 */
export type LabRequest =
  | { readonly cmd: 'requests' }
  | { readonly cmd: 'publish'; readonly count: number }
  | { readonly cmd: 'faults'; readonly faults: MockFaults }
  | { readonly cmd: 'stop' };
export type LabCommand = { readonly id: number } & LabRequest;

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as MockServerOptions;
  const server = new MockLabServer(options);
  const baseUrl = await server.start();
  const reports = server.reportsFor('demo-full-access');
  process.send!({
    ready: {
      baseUrl,
      reports: reports.length,
      downloadable: reports
        .filter((report) => report.download_available)
        .map((report) => report.report_id),
    },
  });
  process.on('message', (message: LabCommand) => {
    const reply = (value: unknown): void => void process.send!({ id: message.id, value });
    switch (message.cmd) {
      case 'requests': {
        const taken = server.takeRequests();
        reply({
          count: taken.length,
          files: taken.filter((request) => request.path.endsWith('/file')).length,
          statuses: taken.map((request) => request.status),
        });
        break;
      }
      case 'publish':
        reply(Array.from({ length: message.count }, () => server.publishReport().report_id));
        break;
      case 'faults':
        server.setFaults(message.faults);
        reply(true);
        break;
      case 'stop':
        void server.stop().then(() => {
          reply(true);
          process.exit(0);
        });
        break;
    }
  });
}

void main();
