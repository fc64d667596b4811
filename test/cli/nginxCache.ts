import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** Where Debian's nginx is (installed by scripts/bootstrap.mjs); undefined when it is not there. */
export function nginxBinary(): string | undefined {
  for (const candidate of ['/usr/sbin/nginx', '/usr/bin/nginx']) {
    if (spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0) {
      return candidate;
    }
  }
  return undefined;
}

/** A team cache served by a real nginx on loopback, with the locations the tests use. */
export interface NginxCache {
  /** Needs `Authorization: Bearer <token>`; takes PUT (WebDAV). */
  readonly tokenUrl: string;
  /** The same files, read-only, for Basic credentials (`ci` and {@link basicPassword}) alone. */
  readonly basicUrl: string;
  readonly basicPassword: string;
  /** The same files, read-only: PUT answers 403. */
  readonly readOnlyUrl: string;
  /** Proxied to a port that accepts and never answers. */
  readonly stallUrl: string;
  /** Redirects every request to another host (localhost instead of 127.0.0.1). */
  readonly redirectUrl: string;
  /** Answers 200 with an HTML sign-in page. */
  readonly loginUrl: string;
  /** Takes a PUT (201) and keeps nothing. */
  readonly dropUrl: string;
  /** The same files; a PUT answers 507 (the server's disk is full). */
  readonly fullUrl: string;
  /** The same files, token as {@link tokenUrl}, with nginx's JSON listing of each folder (`autoindex_format json`). */
  readonly listingUrl: string;
  /** The folder the files are in: `<files>/sha256/ab/abcd…`, the folder cache's layout. */
  readonly files: string;
  /** Each request's method, path, status and Authorization header, as nginx logged them. */
  accessLog(): Promise<
    Array<{ method: string; path: string; status: number; authorization: string }>
  >;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts nginx in the foreground (`daemon off`) with a configuration, pid file, logs and files in a
 * temporary folder, on a free loopback port; {@link NginxCache.stop} stops it by its pid.
 */
export async function startNginxCache(token: string): Promise<NginxCache> {
  const binary = nginxBinary();
  if (!binary) {
    throw new Error('nginx is not installed (scripts/bootstrap.mjs installs it)');
  }
  const root = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-nginx-'));
  const files = path.join(root, 'www', 'team');
  await fs.mkdir(files, { recursive: true });
  // nginx's workers run as another user when it starts as root: they must reach the files.
  await fs.chmod(root, 0o755);
  await fs.chmod(path.join(root, 'www'), 0o777);
  await fs.chmod(files, 0o777);
  // A port that accepts connections and never says a word: the stalling upstream.
  const held = new Set<net.Socket>();
  const silent = net.createServer((socket) => {
    held.add(socket);
    socket.once('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentPort = (silent.address() as net.AddressInfo).port;
  const port = await freePort();
  const basicPassword = `netrc-${token.slice(-8)}-pass`;
  const temp = (name: string): string => path.join(root, name);
  const config = `
daemon off;
worker_processes 1;
pid ${temp('nginx.pid')};
error_log ${temp('error.log')} warn;
events { worker_connections 128; }
http {
  default_type application/octet-stream;
  log_format withauth '$request_method $uri $status "$http_authorization"';
  access_log ${temp('access.log')} withauth;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  client_max_body_size 0;
  server {
    listen 127.0.0.1:${port};
    root ${path.join(root, 'www')};
    location /team/ {
      if ($http_authorization != "Bearer ${token}") { return 401; }
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
    location /basic/ {
      if ($http_authorization != "Basic ${Buffer.from(`ci:${basicPassword}`).toString('base64')}") { return 401; }
      alias ${files}/;
    }
    location /readonly/ {
      alias ${files}/;
      limit_except GET HEAD { deny all; }
    }
    location /stall/ {
      proxy_pass http://127.0.0.1:${silentPort};
      proxy_read_timeout 600s;
    }
    location /redirect/ { return 302 http://localhost:${port}/team/; }
    location /login/ {
      default_type text/html;
      return 200 "<html><body><form>Sign in to continue</form></body></html>";
    }
    location /full/ {
      if ($request_method = PUT) { return 507; }
      alias ${files}/;
    }
    location /listing/ {
      if ($http_authorization != "Bearer ${token}") { return 401; }
      alias ${files}/;
      autoindex on;
      autoindex_format json;
    }
    location /drop/ {
      if ($request_method = PUT) { return 201; }
      return 404;
    }
  }
}
`;
  await fs.writeFile(temp('nginx.conf'), config);
  const child: ChildProcess = spawn(binary, ['-p', root, '-c', temp('nginx.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Ready once it accepts a connection (or failed when it exits first).
  for (let attempt = 0; ; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) {
      break;
    }
    if (child.exitCode !== null || attempt > 200) {
      throw new Error(`nginx did not start: ${stderr}`);
    }
    // Polled until it listens: nginx says nothing when it is ready.
    await new Promise<void>((resolve) => setTimeout(resolve, 25));
  }
  const base = `http://127.0.0.1:${port}`;
  return {
    tokenUrl: `${base}/team`,
    readOnlyUrl: `${base}/readonly`,
    basicUrl: `${base}/basic`,
    basicPassword,
    stallUrl: `${base}/stall`,
    redirectUrl: `${base}/redirect`,
    loginUrl: `${base}/login`,
    dropUrl: `${base}/drop`,
    fullUrl: `${base}/full`,
    listingUrl: `${base}/listing`,
    files,
    async accessLog() {
      const text = await fs.readFile(temp('access.log'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [method, uri, status, ...rest] = line.split(' ');
          return {
            method: method!,
            path: uri!,
            status: Number(status),
            authorization: rest.join(' ').replace(/^"|"$/g, ''),
          };
        });
    },
    async stop() {
      if (child.exitCode === null) {
        process.kill(child.pid!, 'SIGTERM');
        await exited;
      }
      held.forEach((socket) => socket.destroy());
      await new Promise((resolve) => silent.close(resolve));
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}
