import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { isCacheAddress } from '../../../../core/files/fileCache';
import {
  cacheAddressProblem,
  cacheAuthorization,
  HttpCache,
  netrcCredentials,
} from '../../../../core/files/httpCache';
import { redactSecrets } from '../../../../core/errors/serverText';
import { closedPort } from '../../helpers';
import { loadCertificateAuthorities } from '../../../../core/connection/network';
import { makeTestCertificates } from '../../../support/certificates';

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** What the little server did with each request, and how it answers a path. */
interface Seen {
  readonly method: string;
  readonly url: string;
  readonly authorization?: string;
  readonly bodyBytes: number;
}
type Answer = (request: http.IncomingMessage, response: http.ServerResponse, body: Buffer) => void;

/** A server on loopback whose every answer the test decides (what nginx cannot be made to do: cut a body short). */
async function serve(
  answer: Answer,
): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        bodyBytes: body.length,
      });
      answer(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/team`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a team cache on a server (HttpCache)', () => {
  let work: string;
  const closers: Array<() => Promise<void>> = [];
  const bytes = Buffer.from('%PDF-1.7 a report kept on the team server '.repeat(50));
  const hash = sha(bytes);
  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(tmpdir(), 'lab-data-httpcache-'));
  });
  afterEach(async () => {
    while (closers.length > 0) {
      await closers.pop()!();
    }
    await fs.rm(work, { recursive: true, force: true });
  });

  async function cacheOn(answer: Answer, authorization?: string) {
    const server = await serve(answer);
    const warnings: string[] = [];
    const cache = new HttpCache(server.url, {
      authorization,
      warn: (message) => warnings.push(message),
      timeouts: { headersMs: 2000, bodyIdleMs: 2000, connectMs: 2000 },
    });
    closers.push(
      () => server.close(),
      () => cache.close(),
    );
    return { cache, server, warnings };
  }

  const target = (fileName = 'R-1.pdf') => ({
    folder: work,
    fileName,
    ifExists: 'fail' as const,
  });
  async function filesIn(): Promise<string[]> {
    return (await fs.readdir(work)).sort();
  }

  it('tells an address from a folder, and refuses addresses that would leak or leave their prefix', () => {
    assert.ok(isCacheAddress('https://cache.example.com/lab-data'));
    assert.ok(!isCacheAddress('/srv/team-cache'));
    assert.ok(!isCacheAddress('C:\\cache'));
    assert.equal(cacheAddressProblem('https://cache.example.com/lab-data'), undefined);
    assert.equal(cacheAddressProblem('http://127.0.0.1:8080/cache/'), undefined);
    assert.match(
      cacheAddressProblem('https://me:s3cret-pass@cache.example.com/x')!,
      /use LAB_DATA_CACHE_TOKEN/,
    );
    assert.match(
      cacheAddressProblem('https://cache.example.com/x?token=abcdef123')!,
      /use LAB_DATA_CACHE_TOKEN/,
    );
    assert.match(cacheAddressProblem('http://cache.example.com/x')!, /must use https/);
    for (const escape of [
      'https://cache.example.com/team/../other',
      'https://cache.example.com/team/%2e%2e/other',
      'https://cache.example.com/team/%252e%252e/other',
      'https://cache.example.com/team/..%2fother',
    ]) {
      assert.match(cacheAddressProblem(escape)!, /would leave its prefix/, escape);
    }
    assert.match(cacheAddressProblem('ftp://cache.example.com/x')!, /https:\/\//);
    assert.throws(() => new HttpCache('http://cache.example.com/x'), /must use https/);
  });

  it("takes its credentials from LAB_DATA_CACHE_TOKEN, else the host's machine in .netrc, and never shows them", () => {
    const address = new URL('https://cache.example.com/team');
    assert.deepEqual(cacheAuthorization(address, { LAB_DATA_CACHE_TOKEN: 'cache-token-123' }), {
      header: 'Bearer cache-token-123',
      source: 'LAB_DATA_CACHE_TOKEN',
    });
    const netrc =
      'machine other.example.com login a password b\nmachine cache.example.com\n  login ci\n  password netrc-pass-42\n';
    const found = cacheAuthorization(address, { NETRC: '/x/netrc' }, () => ({
      text: netrc,
      mode: 0o600,
    }));
    assert.equal(found?.header, `Basic ${Buffer.from('ci:netrc-pass-42').toString('base64')}`);
    assert.equal(found?.source, '/x/netrc');
    assert.ok(!redactSecrets(`said netrc-pass-42 and ${found!.header}`).includes('netrc-pass-42'));
    assert.equal(
      cacheAuthorization(address, { NETRC: '/nowhere' }, () => {
        throw new Error('ENOENT');
      }),
      undefined,
    );
  });

  it('refuses a .netrc others may read or write, and its default entry, naming the file and why (as curl and ftp do)', () => {
    const address = new URL('https://cache.example.com/team');
    const text = 'machine cache.example.com login ci password netrc-pass-42\n';
    for (const [mode, why] of [
      [0o644, 'is readable by others (mode 0644)'],
      [0o640, 'is readable by others (mode 0640)'],
      [0o602, 'is writable by others (mode 0602)'],
      [0o666, 'is readable and writable by others (mode 0666)'],
      [0o610, 'is open to others (mode 0610)'],
    ] as const) {
      const refused = cacheAuthorization(address, { NETRC: '/home/a/.netrc' }, () => ({
        text,
        mode,
      }));
      assert.equal(refused?.header, undefined, why);
      assert.equal(refused?.source, '/home/a/.netrc');
      assert.equal(
        refused?.refused,
        `/home/a/.netrc ${why}: chmod 600 /home/a/.netrc; its credentials are not sent to the team cache.`,
      );
    }
    assert.ok(
      cacheAuthorization(address, { NETRC: '/home/a/.netrc' }, () => ({ text, mode: 0o100600 }))
        ?.header,
      'a file of its owner alone is used',
    );
    assert.ok(
      cacheAuthorization(address, {}, () => ({ text, mode: 0o644 }), 'win32')?.header,
      'Windows keeps no such mode: the file is used',
    );
    // The default entry would give its login to any host: never used for the team cache.
    assert.equal(netrcCredentials('default login d password dd', 'x.example'), undefined);
    const byDefault = cacheAuthorization(address, { NETRC: '/n' }, () => ({
      text: 'machine other.example login a password b\ndefault login d password dd-secret\n',
      mode: 0o600,
    }));
    assert.equal(byDefault?.header, undefined);
    assert.equal(
      byDefault?.refused,
      '/n: its default entry is not used for the team cache (a default login would go to any host); add "machine cache.example.com" with its login and password.',
    );
    assert.deepEqual(
      netrcCredentials(
        'default login d password dd\nmachine x.example login m password mm',
        'x.example',
      ),
      { login: 'm', password: 'mm' },
      'the machine is found after a default',
    );
  });

  it('restores a file checked against its hash, asking GET at <address>/sha256/<ab>/<hash> with its own credentials', async () => {
    const { cache, server, warnings } = await cacheOn((_request, response) => {
      response.writeHead(200, { 'content-length': bytes.length });
      response.end(bytes);
    }, 'Bearer cache-token-123');
    const saved = await cache.restore(hash, bytes.length, target());
    assert.equal(saved?.sha256, hash);
    assert.deepEqual(await fs.readFile(path.join(work, 'R-1.pdf')), bytes);
    assert.deepEqual(server.seen, [
      {
        method: 'GET',
        url: `/team/sha256/${hash.slice(0, 2)}/${hash}`,
        authorization: 'Bearer cache-token-123',
        bodyBytes: 0,
      },
    ]);
    assert.deepEqual(warnings, []);
  });

  it('a wrong file (another hash, too short, cut off, a web page) is never written; each said once', async () => {
    const wrong = Buffer.from(bytes);
    wrong[10] = 0x21;
    const answers: Record<string, Answer> = {
      wrong: (_request, response) => response.end(wrong),
      short: (_request, response) => response.end(bytes.subarray(0, 100)),
      cut: (_request, response) => {
        response.writeHead(200, { 'content-length': bytes.length });
        response.write(bytes.subarray(0, 200));
        setImmediate(() => response.socket?.destroy());
      },
    };
    for (const [name, answer] of Object.entries(answers)) {
      const { cache, warnings } = await cacheOn(answer);
      assert.equal(await cache.restore(hash, bytes.length, target()), undefined, name);
      assert.equal(await cache.restore(hash, bytes.length, target()), undefined, name);
      assert.deepEqual(await filesIn(), [], `${name}: nothing written, no temporary file left`);
      assert.equal(warnings.length, 1, `${name}: ${warnings.join(' | ')}`);
    }
    const login = await cacheOn((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html><form>Sign in</form></html>');
    });
    assert.equal(await login.cache.restore(hash, bytes.length, target()), undefined);
    assert.equal(await login.cache.restore(hash, bytes.length, target('R-2.pdf')), undefined);
    assert.deepEqual(await filesIn(), []);
    assert.equal(login.server.seen.length, 1, 'a sign-in page: the server is not asked again');
    assert.match(login.warnings.join('\n'), /web page instead of files/);
  });

  it('a redirect to another host is not followed (nor its credentials sent there); 401 and 5xx are misses, said once', async () => {
    const elsewhere = await serve((_request, response) => response.end(bytes));
    closers.push(() => elsewhere.close());
    const { cache, warnings } = await cacheOn((_request, response) => {
      response.writeHead(302, { location: elsewhere.url.replace('127.0.0.1', 'localhost') });
      response.end();
    }, 'Bearer cache-token-123');
    assert.equal(await cache.restore(hash, bytes.length, target()), undefined);
    assert.equal(elsewhere.seen.length, 0);
    assert.match(warnings.join('\n'), /redirects to localhost:\d+, which is not followed/);

    for (const [status, words] of [
      [401, /refused the credentials given \(401\)/],
      [403, /refused the credentials given \(403\)/],
      [503, /answered 503/],
    ] as const) {
      const failing = await cacheOn((_request, response) => {
        response.writeHead(status);
        response.end('no');
      }, 'Bearer cache-token-123');
      assert.equal(await failing.cache.restore(hash, bytes.length, target()), undefined);
      assert.equal(await failing.cache.restore(hash, bytes.length, target('R-2.pdf')), undefined);
      assert.equal(failing.warnings.length, 1, failing.warnings.join(' | '));
      assert.match(failing.warnings[0]!, words);
      assert.ok(!failing.warnings[0]!.includes('cache-token-123'));
    }
    const missing = await cacheOn((_request, response) => {
      response.writeHead(404);
      response.end();
    });
    assert.equal(await missing.cache.restore(hash, bytes.length, target()), undefined);
    assert.deepEqual(missing.warnings, [], 'a 404 is an ordinary miss');
  });

  it('publishes with PUT and checks it is held; a server dropping the body, or refusing PUT, cannot be written', async () => {
    const file = path.join(work, 'R-1.pdf');
    await fs.writeFile(file, bytes);
    const stored = new Map<string, Buffer>();
    const { cache, server } = await cacheOn((request, response, body) => {
      if (request.method === 'PUT') {
        stored.set(request.url!, body);
        response.writeHead(201);
        response.end();
        return;
      }
      const held = stored.get(request.url!);
      response.writeHead(held ? 200 : 404, held ? { 'content-length': held.length } : {});
      response.end(request.method === 'HEAD' ? undefined : held);
    });
    assert.equal(await cache.publish(file, hash, bytes.length), 'kept');
    assert.equal(await cache.publish(file, hash, bytes.length), 'held');
    assert.deepEqual(
      server.seen.map((request) => [request.method, request.bodyBytes]),
      [
        ['HEAD', 0],
        ['PUT', bytes.length],
        ['HEAD', 0],
        ['HEAD', 0],
      ],
    );
    await fs.appendFile(file, 'x');
    assert.equal(await cache.publish(file, sha(Buffer.from('other')), bytes.length + 1), 'differs');

    await fs.writeFile(file, bytes);
    const dropping = await cacheOn((request, response) => {
      response.writeHead(request.method === 'PUT' ? 201 : 404);
      response.end();
    });
    await assert.rejects(
      dropping.cache.publish(file, hash, bytes.length),
      /accepted a file but does not hold it/,
    );
    const readOnly = await cacheOn((request, response) => {
      response.writeHead(request.method === 'PUT' ? 403 : 404);
      response.end();
    });
    await assert.rejects(
      readOnly.cache.publish(file, hash, bytes.length),
      /refuses writes \(403\)/,
    );
    // keep (after a download): said once, never thrown; the cache is then read-only for the run.
    const keeping = await cacheOn((request, response) => {
      response.writeHead(request.method === 'PUT' ? 405 : 404);
      response.end();
    });
    await keeping.cache.keep(file, hash, bytes.length);
    await keeping.cache.keep(file, hash, bytes.length);
    assert.equal(keeping.warnings.length, 1, keeping.warnings.join(' | '));
    assert.match(keeping.warnings[0]!, /cannot be written \(it refuses writes \(405\)/);
    assert.equal(keeping.server.seen.filter((request) => request.method === 'PUT').length, 1);
  });

  it('a server that stalls costs one answer timeout, said once; later files do not ask it', async () => {
    const { cache, server, warnings } = await cacheOn(() => {
      // Never answers.
    });
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => cache.restore(hash, bytes.length, target(`R-${i}.pdf`))),
    );
    const seconds = (Date.now() - started) / 1000;
    assert.deepEqual(results, new Array(8).fill(undefined));
    assert.ok(seconds < 5.5, `took ${seconds} s (two answer timeouts would be 4 s at least)`);
    assert.equal(server.seen.length, 4, 'only the first wave (the pool) asked');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /no answer within/);
    assert.deepEqual(await filesIn(), []);
  });

  it('a server that refuses the connection is said once; push then fails with the reason', async () => {
    const warnings: string[] = [];
    const cache = new HttpCache(`http://127.0.0.1:${await closedPort()}/team`, {
      warn: (message) => warnings.push(message),
    });
    closers.push(() => cache.close());
    assert.equal(await cache.restore(hash, bytes.length, target()), undefined);
    assert.equal(await cache.restore(hash, bytes.length, target('R-2.pdf')), undefined);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /cannot be reached: connection refused \(ECONNREFUSED\); going on with the labs/,
    );
    const file = path.join(work, 'R-3.pdf');
    await fs.writeFile(file, bytes);
    await assert.rejects(cache.publish(file, hash, bytes.length), /cannot be reached/);
  });

  it('TLS as for labs: a server whose authority is given (a CA file) is trusted, one unknown is said once and not used', async function () {
    this.timeout(30_000);
    const certs = makeTestCertificates();
    closers.push(async () => certs.remove());
    const server = https.createServer({ key: certs.key, cert: certs.cert }, (_request, response) =>
      response.end(bytes),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const address = `https://localhost:${(server.address() as AddressInfo).port}/team`;
    const trusting = new HttpCache(address, {
      network: { noProxy: [], ca: loadCertificateAuthorities([certs.caFile]).ca },
    });
    closers.push(() => trusting.close());
    assert.equal((await trusting.restore(hash, bytes.length, target()))?.sha256, hash);
    const warnings: string[] = [];
    const unknown = new HttpCache(address, { warn: (message) => warnings.push(message) });
    closers.push(() => unknown.close());
    assert.equal(await unknown.restore(hash, bytes.length, target('R-2.pdf')), undefined);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /cannot be reached: [^;]* \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\); going on/,
    );
    assert.deepEqual(await filesIn(), ['R-1.pdf']);
  });

  it('status asks one HEAD a file where the server lists no folder; an unknown answer counts as not held', async () => {
    const { cache, server } = await cacheOn((request, response) => {
      const held = request.url!.endsWith(hash);
      response.writeHead(held ? 200 : 500, held ? { 'content-length': bytes.length } : {});
      response.end();
    });
    const held = cache.lookup({ exact: true });
    const other = sha(Buffer.from('other'));
    assert.deepEqual(await Promise.all([held(hash), held(other), held(hash)]), [true, false, true]);
    assert.deepEqual(
      server.seen.map((request) => request.method),
      ['GET', 'HEAD', 'HEAD'],
      'one listing asked for, then one HEAD a file',
    );
  });

  it('status reads the folders a server lists (nginx autoindex_format json): one request a folder, a copy of another size not held, a folder not listed absent, a listing that fails or does not parse asked file by file', async () => {
    const of = (text: string): string => sha(Buffer.from(text));
    const prefix = (hash: string): string => hash.slice(0, 2);
    // Distinct prefixes: two listed files, one under a listing that does not parse, one absent.
    const hashes: string[] = [];
    for (let i = 0; hashes.length < 4; i++) {
      const hash = of(`x${i}`);
      if (!hashes.some((other) => prefix(other) === prefix(hash))) {
        hashes.push(hash);
      }
    }
    const [a1, a2, broken, absent] = hashes as [string, string, string, string];
    const { cache, server } = await cacheOn((request, response) => {
      const url = request.url!;
      const json = (value: unknown): void => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (url === '/team/sha256/') {
        return json(
          [a1, a2, broken].map((hash) => ({ name: prefix(hash), type: 'directory', mtime: 'x' })),
        );
      }
      if (url === `/team/sha256/${prefix(a1)}/`) {
        return json([{ name: a1, type: 'file', mtime: 'x', size: 10 }]);
      }
      if (url === `/team/sha256/${prefix(a2)}/`) {
        return json([{ name: a2, type: 'file', mtime: 'x', size: 99 }]);
      }
      if (url === `/team/sha256/${prefix(broken)}/`) {
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end('[{"name": ');
      }
      response.writeHead(url.endsWith(broken) ? 200 : 404, { 'content-length': 10 });
      response.end();
    });
    const held = cache.lookup({ exact: true });
    assert.deepEqual(
      await Promise.all([held(a1, 10), held(a2, 10), held(broken, 10), held(absent, 10)]),
      [true, false, true, false],
    );
    assert.deepEqual(
      server.seen.map((request) => `${request.method} ${request.url}`).sort(),
      [
        'GET /team/sha256/',
        `GET /team/sha256/${prefix(a1)}/`,
        `GET /team/sha256/${prefix(a2)}/`,
        `GET /team/sha256/${prefix(broken)}/`,
        `HEAD /team/sha256/${prefix(broken)}/${broken}`,
      ].sort(),
    );
  });
});
