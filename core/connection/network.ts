import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import * as tls from 'node:tls';
import { rootCertificates } from 'node:tls';
import { isLoopbackHost } from './baseUrl';
import type { LabApiError } from '../errors/errors';
import { labError } from '../errors/messages';
import { MIN_SECRET_LENGTH } from '../errors/serverText';

/**
 * How requests leave this machine: through which proxy (VS Code's `http.proxy` or the
 * `HTTPS_PROXY`/`HTTP_PROXY` environment), which hosts bypass it (`http.noProxy`, `NO_PROXY`), and
 * which certificate authorities are trusted. VS Code's own proxy and certificate support patches
 * Node's `http`/`https`, not a bundled undici, so the extension reads these itself.
 */
export interface NetworkOptions {
  /** The proxy for https requests, when any (a URL such as `http://proxy.corp:3128`). */
  readonly httpsProxy?: string;
  /** Who chose {@link httpsProxy}: the setting or variable it came from (`http.proxy`, `HTTPS_PROXY`, …), for messages. */
  readonly httpsProxySource?: string;
  /** The proxy for plain-http requests (only loopback labs use http, and those are never proxied). */
  readonly httpProxy?: string;
  /** Who chose {@link httpProxy}. */
  readonly httpProxySource?: string;
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
  return envEntry(env, name)?.value;
}

/** A variable's value and the spelling it was found under (`HTTPS_PROXY` or `https_proxy`). */
function envEntry(
  env: NodeJS.ProcessEnv,
  name: string,
): { readonly name: string; readonly value: string } | undefined {
  const found =
    env[name] !== undefined
      ? name
      : env[name.toLowerCase()] !== undefined
        ? name.toLowerCase()
        : undefined;
  const value = found === undefined ? undefined : env[found]?.trim();
  return found !== undefined && value ? { name: found, value } : undefined;
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
  /** The name {@link proxy} is given under in messages; `http.proxy` unless said otherwise. */
  readonly proxySource?: string;
  readonly noProxy?: readonly string[];
  readonly proxyAuthorization?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** Combines VS Code's settings and the environment into one decision table. */
export function resolveProxySettings(settings: ProxySettings): Omit<NetworkOptions, 'ca'> {
  const env = settings.env ?? {};
  const proxy = settings.proxy?.trim();
  const explicit = proxy ? { name: settings.proxySource ?? 'http.proxy', value: proxy } : undefined;
  const http = explicit ?? envEntry(env, 'HTTP_PROXY');
  const https = explicit ?? envEntry(env, 'HTTPS_PROXY') ?? envEntry(env, 'HTTP_PROXY');
  const noProxy = [...(settings.noProxy ?? []), ...splitList(envValue(env, 'NO_PROXY'))];
  return {
    httpProxy: http?.value,
    httpsProxy: https?.value,
    ...(http ? { httpProxySource: http.name } : {}),
    ...(https ? { httpsProxySource: https.name } : {}),
    noProxy,
    proxyAuthorization: settings.proxyAuthorization?.trim() || undefined,
  };
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
    return (ipv4ToNumber(host) & mask) >>> 0 === (ipv4ToNumber(cidr[1]!) & mask) >>> 0;
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

/** Who chose `proxy` (one of `network`'s proxies): the setting or variable it came from, when known. */
export function proxySource(proxy: string, network: NetworkOptions): string | undefined {
  return proxy === network.httpsProxy
    ? network.httpsProxySource
    : proxy === network.httpProxy
      ? network.httpProxySource
      : undefined;
}

/**
 * The user name and password written in a proxy address (`http://user:password@host:port`), as
 * written and decoded. Read from the text itself too, so an address too malformed for `URL` still
 * gives up its password to redaction.
 */
export function proxyUserInfo(
  proxy: string,
): { readonly user: string; readonly password?: string; readonly written: string } | undefined {
  // Up to the last "@" before the path, as URL parsers read it.
  const written = /^\s*[a-z][a-z0-9+.-]*:\/\/([^/?#\s]*)@/i.exec(proxy)?.[1];
  if (written === undefined || written === '') {
    return undefined;
  }
  const colon = written.indexOf(':');
  const decode = (text: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  return colon < 0
    ? { user: decode(written), written }
    : {
        user: decode(written.slice(0, colon)),
        password: decode(written.slice(colon + 1)),
        written,
      };
}

/**
 * Every form a proxy address's credentials can take in a text: the password as written and
 * decoded, `user:password` (written, decoded and base64, the form of a `Basic` header), each at
 * least {@link MIN_SECRET_LENGTH} long (shorter ones would redact ordinary words; inside a URL the
 * redactor drops them anyway). Empty when the address holds no password. A user name alone is not a
 * credential and is not listed; it is kept out of messages by {@link describeProxy} and by the
 * redactor, which drops the user info of every URL it sees.
 */
export function proxySecrets(proxy: string | undefined): string[] {
  const info = proxy === undefined ? undefined : proxyUserInfo(proxy);
  if (info?.password === undefined || info.password === '') {
    return [];
  }
  const writtenPassword = info.written.slice(info.written.indexOf(':') + 1);
  const pair = `${info.user}:${info.password}`;
  return [
    ...new Set([
      info.written,
      pair,
      Buffer.from(pair).toString('base64'),
      writtenPassword,
      info.password,
    ]),
  ].filter((secret) => secret.length >= MIN_SECRET_LENGTH);
}

/**
 * Where the credentials a proxy is sent come from, as undici's ProxyAgent chooses them (the
 * transport passes `http.proxyAuthorization` as its token): `http.proxyAuthorization` wins; else a
 * user name and password in the proxy address; else none is sent.
 */
export function proxyCredentialSource(
  proxy: string,
  network: NetworkOptions,
): 'proxyAuthorization' | 'proxyUrl' | undefined {
  if (network.proxyAuthorization) {
    return 'proxyAuthorization';
  }
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    return undefined;
  }
  return url.username && url.password ? 'proxyUrl' : undefined;
}

/** Checks a proxy address before any request; returns the error to show when it is unusable. */
export function proxyProblem(proxy: string): LabApiError | undefined {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    return labError('invalidInput', 'proxyInvalid', {
      proxy: describeProxy(proxy),
      reason: 'it is not a URL such as http://proxy.example.com:3128',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return labError('invalidInput', 'proxyInvalid', {
      proxy: describeProxy(proxy),
      reason: `${url.protocol} proxies are not supported; use http:// or https://`,
    });
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
      problems.push(
        labError('invalidInput', 'caFileUnreadable', {
          file,
          reason: (error as NodeJS.ErrnoException).code ?? 'unreadable',
        }),
      );
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
export function systemCertificates(
  read: (file: string) => string = (file) => readFileSync(file, 'utf8'),
  platform: NodeJS.Platform = process.platform,
): { readonly certificates: string[]; readonly source?: string } {
  const getCACertificates = (tls as { getCACertificates?: (type: string) => string[] })
    .getCACertificates;
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
