/**
 * What a TLS verification code says is wrong, in one place for every part that explains or acts on
 * it (the client's messages, Check Connection's advice, the switch to Lab Data's own connection).
 */
export type TlsProblem =
  'selfSigned' | 'unknownRoot' | 'unknownIssuer' | 'expired' | 'wrongHost' | 'other';

const PROBLEMS: Readonly<Record<string, TlsProblem>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'selfSigned',
  // The server sent its whole chain, up to a root nobody here trusts: what a TLS-inspecting proxy does.
  SELF_SIGNED_CERT_IN_CHAIN: 'unknownRoot',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unknownIssuer',
  UNABLE_TO_GET_ISSUER_CERT: 'unknownIssuer',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'unknownIssuer',
  CERT_HAS_EXPIRED: 'expired',
  CERT_NOT_YET_VALID: 'expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'wrongHost',
  HOSTNAME_MISMATCH: 'wrongHost',
};

/** What `code` says is wrong; 'other' for any code the table does not hold (never a prototype's name). */
export function tlsProblemOf(code: string): TlsProblem {
  return Object.hasOwn(PROBLEMS, code) ? PROBLEMS[code]! : 'other';
}

/** Whether the chain was refused for who vouched for it (a root or issuer this side does not trust), not for its dates or name. */
export function isUntrustedChainCode(code: string): boolean {
  const problem = tlsProblemOf(code);
  return (
    problem === 'selfSigned' ||
    problem === 'unknownRoot' ||
    problem === 'unknownIssuer' ||
    code === 'CERT_UNTRUSTED'
  );
}
