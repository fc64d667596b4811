import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** A private certificate authority and a server certificate it signed, made with openssl for one test run (never committed). */
export interface TestCertificates {
  readonly dir: string;
  /** The CA certificate, PEM, and where it is on disk (for `labData.caCertificates`). */
  readonly caPem: string;
  readonly caFile: string;
  /** The server's key and certificate, PEM (for the mock lab's `tls` option). */
  readonly key: string;
  readonly cert: string;
  remove(): void;
}

function openssl(dir: string, args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * Generates a CA and a server certificate for `lab.test`, `localhost`, 127.0.0.1 and any `moreNames`
 * (subjectAltName, as TLS clients require), valid for a day.
 */
export function makeTestCertificates(moreNames: readonly string[] = []): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), 'lab-data-certs-'));
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=Lab Data Test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  openssl(dir, [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=lab.test',
  ]);
  writeFileSync(
    path.join(dir, 'server.ext'),
    `subjectAltName=${['lab.test', 'localhost', ...moreNames].map((name) => `DNS:${name}`).join(',')},IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '1',
    '-extfile',
    'server.ext',
  ]);
  rmSync(path.join(dir, 'ca.key'));
  const read = (name: string): string => readFileSync(path.join(dir, name), 'utf8');
  return {
    dir,
    caPem: read('ca.pem'),
    caFile: path.join(dir, 'ca.pem'),
    key: read('server.key'),
    cert: read('server.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
