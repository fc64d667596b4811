/**
 * A real forward proxy for tests (the `proxy` package from npm), run as its own process:
 *   node forwardProxyProcess.js [--auth user:password] [--challenge 401]
 * It listens on 127.0.0.1, prints `listening <port>`, then one line per request it handles
 * (`CONNECT host:port`, or `GET http://…`), with the request's headers, so tests can prove what the
 * proxy saw. Host names ending in `.test` resolve to 127.0.0.1 here only, so a lab at
 * `https://lab.test:<port>` can be reached through this proxy and never directly. With
 * `--challenge 401` it asks for credentials with 401 instead of 407, as some proxies do.
 */
import dns from 'node:dns';
import * as http from 'node:http';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;
const lookup = dns.lookup;
(dns as { lookup: unknown }).lookup = (
  host: string,
  options: unknown,
  callback?: LookupCallback,
): void => {
  const done = (typeof options === 'function' ? options : callback) as LookupCallback;
  const all =
    typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
  if (/\.test$/i.test(host)) {
    done(null, all ? [{ address: '127.0.0.1', family: 4 }] : '127.0.0.1', 4);
    return;
  }
  (lookup as (host: string, options: unknown, callback: LookupCallback) => void)(
    host,
    typeof options === 'function' ? {} : options,
    done,
  );
};

async function main(): Promise<void> {
  const { createProxy } = (await import('proxy')) as {
    createProxy: (
      server: http.Server,
    ) => http.Server & { authenticate?: (request: http.IncomingMessage) => boolean };
  };
  const authIndex = process.argv.indexOf('--auth');
  const credentials = authIndex >= 0 ? process.argv[authIndex + 1] : undefined;
  const server = http.createServer();
  // Logged before the proxy's own handlers run, so refused requests are logged too.
  const log = (method: string, target: string, headers: http.IncomingHttpHeaders): void => {
    process.stdout.write(`${method} ${target} ${JSON.stringify(headers)}\n`);
  };
  server.on('connect', (request: http.IncomingMessage) =>
    log('CONNECT', request.url ?? '', request.headers),
  );
  server.on('request', (request: http.IncomingMessage) =>
    log(request.method ?? 'GET', request.url ?? '', request.headers),
  );
  const proxy = createProxy(server);
  const challengeIndex = process.argv.indexOf('--challenge');
  if (challengeIndex >= 0 && process.argv[challengeIndex + 1] === '401') {
    // The proxy package always challenges with 407; this process serves nothing else, so its one writer is changed.
    const writeHead = http.ServerResponse.prototype.writeHead as (
      ...args: unknown[]
    ) => http.ServerResponse;
    (http.ServerResponse.prototype as { writeHead: unknown }).writeHead = function (
      this: http.ServerResponse,
      status: number,
      ...rest: unknown[]
    ) {
      return writeHead.call(this, status === 407 ? 401 : status, ...rest);
    };
  }
  if (credentials) {
    proxy.authenticate = (request) =>
      request.headers['proxy-authorization'] ===
      `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    process.stdout.write(`listening ${address.port}\n`);
  });
  const stop = (): void => {
    server.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
