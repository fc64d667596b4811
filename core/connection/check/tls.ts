import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { serverText } from '../../errors/serverText';
import { pemCertificates } from '../network';
import { tlsProblemOf } from '../tlsProblems';
import { bounded } from './bounds';
import { systemReason } from '../../errors/errorText';
import { stripBrackets } from './resolve';
import type { CheckStep, ConnectionCheckOptions } from './types';

interface PeerCertificate {
  readonly subject?: Record<string, string | string[]>;
  readonly issuer?: Record<string, string | string[]>;
  readonly valid_to?: string;
  readonly raw?: Buffer;
  readonly issuerCertificate?: PeerCertificate;
}

/** A certificate's name for a person: its common name, else its organisation. */
function nameOf(name: Record<string, string | string[]> | undefined): string {
  const first = (value: string | string[] | undefined): string | undefined =>
    Array.isArray(value) ? value[0] : value;
  const text = first(name?.CN) ?? first(name?.O) ?? first(name?.OU);
  return text ? serverText(text, 120) : '(no name)';
}

/** The chain the server sent, leaf first, up to the root Node found for it. */
function chainOf(leaf: PeerCertificate): PeerCertificate[] {
  const chain: PeerCertificate[] = [];
  let current: PeerCertificate | undefined = leaf;
  while (
    current &&
    Object.keys(current).length > 0 &&
    !chain.includes(current) &&
    chain.length < 10
  ) {
    chain.push(current);
    current = current.issuerCertificate;
  }
  return chain;
}

function validTo(certificate: PeerCertificate): string {
  const date = certificate.valid_to ? new Date(certificate.valid_to) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString().slice(0, 10) : 'unknown';
}

/** Which set of authorities holds the root (or the issuer) of `top`: Node's roots, a CA file, or the configured list. */
function trustedBy(
  top: PeerCertificate,
  options: ConnectionCheckOptions,
  read: (file: string) => string,
): string {
  let anchor: X509Certificate;
  try {
    anchor = new X509Certificate(top.raw!);
  } catch {
    return 'the trusted authorities';
  }
  const holds = (pems: readonly string[]): boolean =>
    pems.some((pem) => {
      try {
        const candidate = new X509Certificate(pem);
        return (
          candidate.fingerprint256 === anchor.fingerprint256 ||
          (anchor.checkIssued(candidate) && anchor.verify(candidate.publicKey))
        );
      } catch {
        return false;
      }
    });
  const fileCertificates = (file: string): string[] => {
    try {
      return pemCertificates(read(file));
    } catch {
      return [];
    }
  };
  if (holds(tls.rootCertificates)) {
    return "Node's built-in roots";
  }
  for (const file of options.caFiles ?? []) {
    if (holds(fileCertificates(file))) {
      return `the CA file ${file} (labData.caCertificates)`;
    }
  }
  const extra = (options.env ?? process.env).NODE_EXTRA_CA_CERTS;
  if (extra && holds(fileCertificates(extra))) {
    return `the CA file ${extra} (NODE_EXTRA_CA_CERTS)`;
  }
  if (options.network.ca && holds(options.network.ca)) {
    return 'the operating system’s trust store';
  }
  return 'the trusted authorities';
}

/** What a verification failure means and what to do about it. */
function untrustedAdvice(code: string): string {
  switch (tlsProblemOf(code)) {
    case 'unknownRoot':
    case 'unknownIssuer':
      return 'The chain ends in a root certificate this machine does not trust. This is often a proxy that inspects TLS (your organisation’s), or a private certificate authority. To trust its root, get the root certificate (PEM) from your IT department and add it to the operating system’s trust store, or name the file in the labData.caCertificates setting. Lab Data never switches verification off.';
    case 'selfSigned':
      return 'The lab’s certificate is self-signed. If you trust it, name a file holding it (PEM) in the labData.caCertificates setting.';
    case 'expired':
      return 'A certificate of the chain has expired or is not valid yet (check this machine’s clock); ask the lab to renew it.';
    case 'wrongHost':
      return 'The certificate is for another host name; check the lab address.';
    default:
      return 'If your organisation uses a private certificate authority, add it to the operating system’s trust store or to the labData.caCertificates setting.';
  }
}

/** The TLS handshake over `socket` (direct or through the tunnel), never rejecting a chain before it is described. */
export async function tlsStep(
  socket: net.Socket,
  url: URL,
  options: ConnectionCheckOptions,
  ms: number,
): Promise<Omit<CheckStep, 'ms'> & { secure?: tls.TLSSocket }> {
  const host = stripBrackets(url.hostname);
  const secure = tls.connect({
    socket,
    host,
    ...(net.isIP(host) === 0 ? { servername: host } : {}),
    ...(options.network.ca ? { ca: [...options.network.ca] } : {}),
    // Verification is judged below from `authorized`, so the chain can be described either way; no data is sent.
    rejectUnauthorized: false,
  });
  try {
    await bounded(
      new Promise<void>((resolve, reject) => {
        secure.once('secureConnect', () => {
          secure.removeListener('error', reject);
          resolve();
        });
        secure.once('error', reject);
      }),
      ms,
      options.signal,
      () => secure.destroy(),
    );
  } catch (error) {
    if (options.signal?.aborted) {
      throw error;
    }
    secure.destroy();
    return {
      kind: 'tls',
      outcome: 'failed',
      summary: `the TLS handshake failed: ${systemReason(error)}`,
      details: [],
      problem: 'tlsFailed',
    };
  }
  const chain = chainOf(secure.getPeerCertificate(true) as unknown as PeerCertificate);
  const details = [`protocol: ${secure.getProtocol() ?? 'unknown'}`];
  chain.forEach((certificate, index) =>
    details.push(
      `certificate ${index + 1}: ${nameOf(certificate.subject)}, issued by ${nameOf(certificate.issuer)}, valid to ${validTo(certificate)}`,
    ),
  );
  if (secure.authorized) {
    const by =
      chain.length > 0
        ? trustedBy(
            chain[chain.length - 1]!,
            options,
            options.read ?? ((file) => readFileSync(file, 'utf8')),
          )
        : 'the trusted authorities';
    details.push(`trusted by ${by}`);
    return { kind: 'tls', outcome: 'ok', summary: `trusted, by ${by}`, details, secure };
  }
  const code = serverText(String(secure.authorizationError ?? 'unknown'), 80);
  const advice = untrustedAdvice(code);
  secure.destroy();
  return {
    kind: 'tls',
    outcome: 'failed',
    summary: `not trusted: ${code}`,
    details,
    problem: 'untrusted',
    advice,
  };
}
