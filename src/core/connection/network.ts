import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import * as tls from 'node:tls';
import { rootCertificates } from 'node:tls';
import { isLoopbackHost } from './baseUrl';
import type { LabApiError } from '../errors/errors';
import { labError } from '../errors/messages';

/**
 * How requests leave this machine: through which proxy (VS Code's `http.proxy` or the
 * `HTTPS_PROXY`/`HTTP_PROXY` environment), which hosts bypass it (`http.noProxy`, `NO_PROXY`), and
 * which certificate authorities are trusted. VS Code's own proxy and certificate support patches
 * Node's `http`/`https`, not a bundled undici, so the extension reads these itself.
 */
export interface NetworkOptions {
  /** The proxy for https requests, when any (a URL such as `http://proxy.corp:3128`). */
  readonly httpsProxy?: string;
  /** The proxy for plain-http requests (only loopback labs use http, and those are never proxied). */
  readonly httpProxy?: string;
  /** Hosts that bypass the proxy: exact hosts, `.suffix` / `*.suffix` domains, `*`, `host:port`, IPs, IPv4 CIDR. */
  readonly noProxy: readonly string[];
  /** The `Proxy-Authorization` header value (`http.proxyAuthorization`), e.g. `Basic …`. */
  readonly proxyAuthorization?: string;
  /**
   * Every certificate authority to trust, when extra ones are configured: Node's roots, then
   * `NODE_EXTRA_CA_CERTS`, then `labData.caCertificates`. Undefined means Node's defaults.
   */
  readonly ca?: readonly string[];
}

export const DIRECT: NetworkOptions = { noProxy: [] };

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name] ?? env[name.toLowerCase()];
  return value && value.trim() ? value.trim() : undefined;
}

/** Splits a comma- or space-separated list (the `NO_PROXY` form) into patterns. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter(Boolean);
}

export interface ProxySettings {
  /** VS Code's `http.proxy`; wins over the environment, as in VS Code's own clients. */
  readonly proxy?: string;
  readonly noProxy?: readonly string[];
  readonly proxyAuthorization?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** Combines VS Code's settings and the environment into one decision table. */
export function resolveProxySettings(settings: ProxySettings): Omit<NetworkOptions, 'ca'> {
  const env = settings.env ?? {};
  const explicit = settings.proxy?.trim() || undefined;
  const httpProxy = explicit ?? envValue(env, 'HTTP_PROXY');
  const httpsProxy = explicit ?? envValue(env, 'HTTPS_PROXY') ?? envValue(env, 'HTTP_PROXY');
  const noProxy = [...(settings.noProxy ?? []), ...splitList(envValue(env, 'NO_PROXY'))];
  return { httpProxy, httpsProxy, noProxy, proxyAuthorization: settings.proxyAuthorization?.trim() || undefined };
}

function ipv4ToNumber(ip: string): number {
  return ip.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

function stripBrackets(host: string): string {
  return host.replace(/^\[|\]$/g, '').toLowerCase();
}

/** Whether one `noProxy` pattern covers `host` (lower case, no brackets) on `port`. */
function patternMatches(pattern: string, host: string, port: string): boolean {
  let text = pattern.trim().toLowerCase();
  if (text === '*') {
    return true;
  }
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/\/+$/, '');
  const cidr = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(text);
  if (cidr) {
    const bits = Number(cidr[2]);
    if (isIP(host) !== 4 || bits > 32) {
      return false;
    }
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return ((ipv4ToNumber(host) & mask) >>> 0) === ((ipv4ToNumber(cidr[1]!) & mask) >>> 0);
  }
  let patternPort: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    text = bracketed[1]!;
    patternPort = bracketed[2];
  } else if (isIP(text) !== 6) {
    const withPort = /^(.*):(\d+)$/.exec(text);
    if (withPort) {
      text = withPort[1]!;
      patternPort = withPort[2];
    }
  }
  if (patternPort !== undefined && patternPort !== port) {
    return false;
  }
  if (isIP(text) !== 0) {
    return isIP(host) !== 0 && stripBrackets(text) === host;
  }
  const domain = text.replace(/^\*?\./, '');
  if (domain.length === 0) {
    return false;
  }
  // `corp.example`, `.corp.example` and `*.corp.example` all cover the domain and its subdomains.
  return host === domain || host.endsWith(`.${domain}`);
}

/** Whether `url` bypasses the proxy under `patterns`. */
export function bypassesProxy(url: URL, patterns: readonly string[]): boolean {
  const host = stripBrackets(url.hostname);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return patterns.some((pattern) => patternMatches(pattern, host, port));
}

/** The proxy a request to `url` goes through, or undefined for a direct connection. Loopback is never proxied. */
export function proxyFor(url: URL, network: NetworkOptions): string | undefined {
  if (isLoopbackHost(url.hostname)) {
    return undefined;
  }
  const proxy = url.protocol === 'https:' ? network.httpsProxy : network.httpProxy;
  return proxy && !bypassesProxy(url, network.noProxy) ? proxy : undefined;
}

/** A proxy address fit for messages and logs: scheme, host and port, never credentials. */
export function describeProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    return `${url.protocol}//${url.host}`;
  } catch {
    return '(an unreadable proxy address)';
  }
}

/** Checks a proxy address before any request; returns the error to show when it is unusable. */
export function proxyProblem(proxy: string): LabApiError | undefined {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    return labError('invalidInput', 'proxyInvalid', { proxy: describeProxy(proxy), reason: 'it is not a URL such as http://proxy.example.com:3128' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return labError('invalidInput', 'proxyInvalid', { proxy: describeProxy(proxy), reason: `${url.protocol} proxies are not supported; use http:// or https://` });
  }
  return undefined;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The PEM certificates in a text. */
export function pemCertificates(text: string): string[] {
  return text.match(PEM_CERTIFICATE) ?? [];
}

/**
 * The trusted authorities when `files` (`labData.caCertificates`) name any: Node's roots, the
 * `NODE_EXTRA_CA_CERTS` file (passing `ca` to a connection replaces Node's store, which would
 * otherwise drop those), then each file's certificates. Added to, never instead of, Node's roots.
 * Without files, `ca` is undefined and Node's defaults (with `NODE_EXTRA_CA_CERTS`) apply.
 */
export function loadCertificateAuthorities(
  files: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  read: (file: string) => string = (file) => readFileSync(file, 'utf8'),
  /** The operating system's trust store ({@link systemCertificates}), added to Node's roots. */
  system: readonly string[] = [],
): { ca?: string[]; problems: LabApiError[] } {
  const problems: LabApiError[] = [];
  const extra: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = read(file);
    } catch (error) {
      problems.push(labError('invalidInput', 'caFileUnreadable', { file, reason: (error as NodeJS.ErrnoException).code ?? 'unreadable' }));
      continue;
    }
    const certificates = pemCertificates(text);
    if (certificates.length === 0) {
      problems.push(labError('invalidInput', 'caFileNoPem', { file }));
    }
    extra.push(...certificates);
  }
  if (extra.length === 0 && system.length === 0) {
    return { problems };
  }
  const fromEnv: string[] = [];
  const extraFile = env.NODE_EXTRA_CA_CERTS;
  if (extraFile) {
    try {
      fromEnv.push(...pemCertificates(read(extraFile)));
    } catch {
      // Node itself warns about an unreadable NODE_EXTRA_CA_CERTS; nothing to add here.
    }
  }
  return { ca: [...new Set([...rootCertificates, ...system, ...fromEnv, ...extra])], problems };
}

/** Where Linux distributions keep the system's trusted certificates as one PEM bundle (the list Go's crypto/x509 reads). */
const SYSTEM_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/tls/cacert.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

/**
 * The operating system's trusted certificates (where a TLS-inspecting proxy's root is put by IT):
 * Node's own reader where the runtime has one (`tls.getCACertificates('system')`, Node 22.15 and
 * later: every platform's store), else on Linux the distribution's PEM bundle. Empty when neither
 * is there (Node 20 on macOS or Windows: name the file with a CA option instead).
 */
export function systemCertificates(read: (file: string) => string = (file) => readFileSync(file, 'utf8'), platform: NodeJS.Platform = process.platform): { readonly certificates: string[]; readonly source?: string } {
  const getCACertificates = (tls as { getCACertificates?: (type: string) => string[] }).getCACertificates;
  if (typeof getCACertificates === 'function') {
    try {
      return { certificates: getCACertificates('system'), source: "Node's system store" };
    } catch {
      // Older runtimes know only 'default' and 'bundled'; fall through to the files.
    }
  }
  if (platform !== 'linux') {
    return { certificates: [] };
  }
  for (const file of SYSTEM_BUNDLES) {
    try {
      const certificates = pemCertificates(read(file));
      if (certificates.length > 0) {
        return { certificates, source: file };
      }
    } catch {
      // Not this distribution's place; try the next.
    }
  }
  return { certificates: [] };
}
